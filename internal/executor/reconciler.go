package executor

import (
	"context"
	"fmt"
	"time"
)

// reconcileLoop reconciles at start and then every ReconcileInterval until
// ctx ends, so records of executors that died are marked orphaned even when
// nobody restarts them.
func (d *Daemon) reconcileLoop(ctx context.Context) {
	d.reconcileAndLog(ctx)
	t := time.NewTicker(d.cfg.ReconcileInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			d.reconcileAndLog(ctx)
		}
	}
}

func (d *Daemon) reconcileAndLog(ctx context.Context) {
	ids, err := d.Reconcile(ctx)
	if err != nil && ctx.Err() == nil {
		d.log.Warn("reconcile failed", "err", err)
	}
	for _, id := range ids {
		d.log.Warn("execution orphaned: its worker is gone", "execution_id", id)
	}
}

// Reconcile marks orphaned the running records whose worker is gone and
// returns their ids. An exclusive daemon (Config.Exclusive) knows it is the
// only worker, so every running record held by another worker id is
// orphaned at once; a daemon sharing its backend cannot know which other
// executors live and judges by lease expiry alone.
func (d *Daemon) Reconcile(ctx context.Context) ([]string, error) {
	var live []string
	if d.cfg.Exclusive {
		live = []string{d.cfg.WorkerID}
	}
	ids, err := d.b.Reconcile(ctx, live)
	if err != nil {
		return ids, fmt.Errorf("executor %s: reconcile: %w", d.cfg.WorkerID, err)
	}
	return ids, nil
}
