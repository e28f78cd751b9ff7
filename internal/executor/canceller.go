package executor

import (
	"context"

	"github.com/toolwarden/toolwarden/internal/execution"
)

// watchCancel follows r's record until ctx ends and stops the run when a
// cancel is requested or when the record was taken from this worker
// (orphaned or finished by someone else). Watch gives a prompt reaction;
// when it fails or ends early the record is polled with Get instead, and
// the watch is re-established.
func (d *Daemon) watchCancel(ctx context.Context, r *run) {
	for ctx.Err() == nil {
		if d.watchOnce(ctx, r) {
			return
		}
		if ctx.Err() != nil {
			return
		}
		// The watch ended without an answer (store error, record gone):
		// look once, then pause before watching again.
		gctx, cancel := context.WithTimeout(ctx, d.cfg.HeartbeatInterval)
		rec, err := d.b.Get(gctx, r.id)
		cancel()
		if err == nil && d.observe(r, rec) {
			return
		}
		if !sleepCtx(ctx, d.cfg.HeartbeatInterval) {
			return
		}
	}
}

// watchOnce reads one Watch stream; it reports whether watching is over.
func (d *Daemon) watchOnce(ctx context.Context, r *run) bool {
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	ch, err := d.b.Watch(wctx, r.id)
	if err != nil {
		d.log.Debug("watch failed; polling", "execution_id", r.id, "err", err)
		return false
	}
	for rec := range ch {
		if d.observe(r, rec) {
			return true
		}
	}
	return false
}

// observe acts on one revision of r's record and reports whether nothing
// more needs watching.
func (d *Daemon) observe(r *run, rec *execution.Record) bool {
	switch {
	case rec.Status.Terminal():
		if !r.finishing.Load() {
			d.log.Warn("record ended under a live run; killing it", "execution_id", r.id,
				"status", rec.Status, "reason", rec.StatusReason)
			r.stop(stopLeaseLost, "record became "+string(rec.Status)+": "+rec.StatusReason)
		}
		return true
	case rec.Status == execution.StatusRunning && rec.WorkerID != d.cfg.WorkerID:
		r.stop(stopLeaseLost, "record is held by worker "+rec.WorkerID)
		return true
	case rec.CancelRequested:
		reason := rec.CancelReason
		if reason == "" {
			reason = "cancel requested"
		}
		d.log.Info("cancel requested; stopping the run", "execution_id", r.id, "reason", reason)
		r.stop(stopCancel, reason)
		return true
	}
	return false
}
