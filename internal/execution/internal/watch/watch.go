// Package watch turns "something changed" signals into a stream of records
// for Backend.Watch, the same way for every backend: a backend only has to
// signal, and the loop re-reads the record, drops duplicates by revision and
// always delivers the newest state to a slow reader.
package watch

import (
	"context"
	"time"

	"github.com/toolwarden/toolwarden/internal/execution"
)

// Loop sends get's record on out, then a new record each time signal fires
// (or every resync, when resync > 0, as a guard against lost signals) and the
// revision changed. It closes out after sending a terminal record, when ctx
// ends, or when get fails; stop (may be nil) runs on exit to release the
// backend's subscription.
func Loop(ctx context.Context, get func(context.Context) (*execution.Record, error), signal <-chan struct{},
	resync time.Duration, out chan<- *execution.Record, stop func()) {
	defer close(out)
	if stop != nil {
		defer stop()
	}
	var tick <-chan time.Time
	if resync > 0 {
		t := time.NewTicker(resync)
		defer t.Stop()
		tick = t.C
	}
	last := int64(-1)
	for {
		r, err := get(ctx)
		if err != nil {
			return
		}
		if r.Revision != last {
			last = r.Revision
			select {
			case out <- r:
			case <-ctx.Done():
				return
			}
			if r.Status.Terminal() {
				return
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-signal:
		case <-tick:
		}
	}
}
