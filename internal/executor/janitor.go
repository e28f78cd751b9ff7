package executor

import (
	"context"
	"time"
)

// DefaultJanitorInterval is how often idle workspaces are swept
// (Config.JanitorInterval).
const DefaultJanitorInterval = 10 * time.Minute

// janitorLoop removes workspaces unused for longer than their TTL, at
// start and then every JanitorInterval until ctx ends. A workspace with a
// run in progress — in this executor or another one sharing the root — is
// never removed (workspace.Manager.Sweep).
func (d *Daemon) janitorLoop(ctx context.Context) {
	m := d.cfg.Workspaces
	if m == nil || m.TTL() < 0 {
		return
	}
	for {
		removed, err := m.Sweep(time.Now())
		if err != nil {
			d.log.Warn("workspace sweep", "err", err)
		}
		for _, name := range removed {
			d.log.Info("idle workspace removed", "workspace", name, "ttl", m.TTL())
		}
		if !sleepCtx(ctx, d.cfg.JanitorInterval) {
			return
		}
	}
}
