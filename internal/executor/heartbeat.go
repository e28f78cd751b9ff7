package executor

import (
	"context"
	"errors"
	"time"

	"github.com/toolwarden/toolwarden/internal/execution"
)

// heartbeat extends r's lease every HeartbeatInterval until ctx ends. A
// rejected heartbeat means another party decided the record's fate (it was
// orphaned, or it is already terminal): the workload is killed and nothing
// more is written. A store that stays unreachable for a whole lease is
// treated the same way, because reconciliation elsewhere may have orphaned
// the record meanwhile and a second outcome must never be written.
func (d *Daemon) heartbeat(ctx context.Context, r *run) {
	log := d.log.With("execution_id", r.id)
	t := time.NewTicker(d.cfg.HeartbeatInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		// The lease runs from when the store wrote it, which is after this
		// moment: counting from before the call keeps the worker's idea of
		// its lease on the safe (shorter) side.
		sent := time.Now()
		cctx, cancel := context.WithTimeout(ctx, d.cfg.HeartbeatInterval)
		err := d.b.Heartbeat(cctx, d.cfg.WorkerID, r.id)
		cancel()
		switch {
		case err == nil:
			r.beat(sent)
		case ctx.Err() != nil:
			return
		case errors.Is(err, execution.ErrLeaseLost), errors.Is(err, execution.ErrAlreadyFinished),
			errors.Is(err, execution.ErrNotFound):
			if r.finishing.Load() && errors.Is(err, execution.ErrAlreadyFinished) {
				return // our own Finish landed
			}
			log.Warn("lease lost; killing the run", "err", err)
			r.stop(stopLeaseLost, err.Error())
			return
		case r.leaseExpired(d.cfg.Lease):
			log.Error("heartbeats failed for a whole lease; killing the run", "err", err)
			r.stop(stopLeaseLost, "heartbeats failed for a whole lease: "+err.Error())
			return
		default:
			log.Warn("heartbeat failed; retrying", "err", err)
		}
	}
}
