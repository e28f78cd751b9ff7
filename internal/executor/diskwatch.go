package executor

import (
	"context"
	"time"

	wsp "github.com/toolwarden/toolwarden/internal/workspace"
)

// DefaultDiskPoll is how often a run's workspace is measured while it
// runs (Config.DiskPoll).
const DefaultDiskPoll = 250 * time.Millisecond

// watchDisk measures the run's workspace every DiskPoll until ctx ends and
// stops the run (stopWorkspaceLimit) once it holds more than
// workspace_max_bytes. The bound's precision is what the run can write
// between two measurements: its write rate times the interval (plus one
// walk). The walk's cost grows with the number of entries, so the pause
// after a walk is at least four times the walk itself: measuring never
// takes more than a fifth of a core, whatever the run creates.
func (d *Daemon) watchDisk(ctx context.Context, r *run, path string, max int64) {
	pause := d.cfg.DiskPoll
	for sleepCtx(ctx, pause) {
		start := time.Now()
		used, _, err := wsp.Usage(path, max)
		took := time.Since(start)
		pause = max64(d.cfg.DiskPoll, 4*took)
		if err != nil {
			d.log.Warn("workspace usage", "execution_id", r.id, "err", err)
			continue
		}
		if used > max {
			d.log.Warn("workspace over its bound; stopping the run", "execution_id", r.id,
				"used_bytes", used, "max_bytes", max)
			r.stop(stopWorkspaceLimit, (&limitError{used: used, max: max}).Error())
			return
		}
	}
}

func max64(a, b time.Duration) time.Duration {
	if a > b {
		return a
	}
	return b
}
