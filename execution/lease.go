package execution

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// KeepAlive heartbeats workerID's lease on id every interval (default a third
// of DefaultLeaseTTL) until ctx ends. It returns a channel that receives the
// error that ended the lease — ErrLeaseLost, ErrAlreadyFinished, ErrNotFound
// — and is closed when KeepAlive stops. A worker that reads an error from it
// must stop the workload: another party now owns the record. Transient store
// errors (ErrUnavailable) are retried at the next tick; the lease itself
// decides when it is lost.
func KeepAlive(ctx context.Context, b Backend, workerID, id string, interval time.Duration) <-chan error {
	if interval <= 0 {
		interval = DefaultLeaseTTL / 3
	}
	lost := make(chan error, 1)
	go func() {
		defer close(lost)
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
			err := b.Heartbeat(ctx, workerID, id)
			if err == nil || ctx.Err() != nil || errors.Is(err, ErrUnavailable) {
				continue
			}
			lost <- fmt.Errorf("keep lease of %s for %s: %w", id, workerID, err)
			return
		}
	}()
	return lost
}
