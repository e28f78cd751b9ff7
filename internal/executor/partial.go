package executor

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/toolwarden/toolwarden/internal/execution"
	"github.com/toolwarden/toolwarden/internal/reduction"
)

// errNotOurs aborts a partial-output update of a record this worker no
// longer runs.
var errNotOurs = errors.New("record is no longer running under this worker")

// partialWriter copies a running workload's output tail into its record,
// so get and wait can show a preview. The runner calls offer at most once
// per PartialInterval; offer never blocks, and a slow store only means the
// newest tail replaces an unwritten older one.
type partialWriter struct {
	d *Daemon
	r *run

	mu     sync.Mutex
	latest *reduction.PartialOutput

	wake      chan struct{}
	done      chan struct{}
	exited    chan struct{}
	started   bool
	closeOnce sync.Once
}

func newPartialWriter(d *Daemon, r *run) *partialWriter {
	return &partialWriter{d: d, r: r, wake: make(chan struct{}, 1), done: make(chan struct{}), exited: make(chan struct{})}
}

// offer keeps p as the newest tail and wakes the writer.
func (w *partialWriter) offer(p reduction.PartialOutput) {
	w.mu.Lock()
	w.latest = &p
	w.mu.Unlock()
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

// start runs the writer in its own goroutine, counted in wg. It marks the
// writer started before the goroutine runs, so a close that follows always
// waits for it.
func (w *partialWriter) start(ctx context.Context, wg *sync.WaitGroup) {
	w.mu.Lock()
	w.started = true
	w.mu.Unlock()
	wg.Add(1)
	go func() {
		defer wg.Done()
		w.loop(ctx)
	}()
}

// loop writes offered tails until close or ctx ends.
func (w *partialWriter) loop(ctx context.Context) {
	defer close(w.exited)
	for {
		select {
		case <-w.done:
			return
		case <-ctx.Done():
			return
		case <-w.wake:
		}
		w.mu.Lock()
		p := w.latest
		w.latest = nil
		w.mu.Unlock()
		if p == nil {
			continue
		}
		if err := w.write(ctx, *p); err != nil {
			if errors.Is(err, errNotOurs) || errors.Is(err, execution.ErrAlreadyFinished) {
				return
			}
			w.d.log.Debug("partial output not stored", "execution_id", w.r.id, "err", err)
		}
	}
}

// write stores one tail on the record, if the record is still ours.
func (w *partialWriter) write(ctx context.Context, p reduction.PartialOutput) error {
	cctx, cancel := context.WithTimeout(ctx, w.d.cfg.HeartbeatInterval)
	defer cancel()
	at := execution.Canon(p.UpdatedAt)
	err := w.d.b.Update(cctx, w.r.id, func(rec *execution.Record) error {
		if rec.Status != execution.StatusRunning || rec.WorkerID != w.d.cfg.WorkerID {
			return errNotOurs
		}
		rec.PartialOutput = p.Text
		rec.PartialOutputBytes = p.TotalBytes
		rec.PartialOutputTruncated = p.Truncated
		rec.PartialOutputUpdatedAt = &at
		return nil
	})
	if err != nil {
		return fmt.Errorf("store partial output of %s: %w", w.r.id, err)
	}
	return nil
}

// close stops the writer and waits until no Update is in flight. It is a
// no-op for a writer whose loop never ran.
func (w *partialWriter) close() {
	w.closeOnce.Do(func() { close(w.done) })
	w.mu.Lock()
	started := w.started
	w.mu.Unlock()
	if started {
		<-w.exited
	}
}
