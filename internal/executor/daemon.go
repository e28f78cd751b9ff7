// Package executor is the host executor daemon: it claims queued executions
// from an execution.Backend, runs each one through runner under an
// isolation backend, and writes the canonical outcome back.
//
// Each background duty lives in its own file: the claim loop and shutdown
// (daemon.go), one execution from claim to Finish (worker.go), lease
// heartbeats (heartbeat.go), cancel requests (canceller.go), partial-output
// previews (partial.go), orphan reconciliation (reconciler.go), the run's
// workspace (workspace.go), its disk bound while it runs (diskwatch.go),
// the sweep of idle workspaces (janitor.go), the mapping of a run's
// Result onto the record (result.go) and the executions of other kinds
// than processes — upstream MCP calls — run by a registered Runner on the
// same duties (kinds.go).
//
// No record is ever lost: every path after a successful Claim ends in a
// Finish (failed with the error text when the run could not even start), or
// — when the lease is lost or the store stays unreachable — stops writing and
// leaves the lease to expire, so that reconciliation marks the record
// orphaned. A record is never finished twice and never run twice.
package executor

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/toolwarden/toolwarden/internal/execution"
	"github.com/toolwarden/toolwarden/internal/isolation"
)

// Daemon claims and runs executions until its context ends.
type Daemon struct {
	b   execution.Backend
	iso isolation.Backend
	cfg Config
	log *slog.Logger

	running atomic.Bool
	// isoFailures counts consecutive runs the isolation backend refused to
	// start; while it is non-zero the claim loop pauses, so a broken
	// backend fails a few records instead of draining the whole queue.
	isoFailures atomic.Int32

	mu   sync.Mutex
	live map[string]*run
}

// New checks cfg and returns a daemon that will run b's queued executions
// under iso. iso may be nil for a daemon that runs only cfg.Runners (the
// MCP gateway's): it then refuses process records. Neither backend is closed by the daemon: the caller owns them.
func New(b execution.Backend, iso isolation.Backend, cfg Config) (*Daemon, error) {
	if b == nil {
		return nil, errors.New("executor: no execution backend")
	}
	if iso == nil && len(cfg.Runners) == 0 {
		return nil, errors.New("executor: no isolation backend and no runners")
	}
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	return &Daemon{
		b: b, iso: iso, cfg: cfg,
		log:  cfg.Logger.With("worker_id", cfg.WorkerID),
		live: map[string]*run{},
	}, nil
}

// WorkerID is the id this daemon claims and heartbeats under.
func (d *Daemon) WorkerID() string { return d.cfg.WorkerID }

// Live returns the ids of the executions this daemon holds right now
// (claimed and not yet finished), sorted.
func (d *Daemon) Live() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	ids := make([]string, 0, len(d.live))
	for id := range d.live {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}

// Run claims and runs executions until ctx is done. Then it stops claiming,
// cancels every run it holds, records them (status cancelled, reason
// "executor shutdown"), waits for their cleanup, and returns nil. It returns
// an error only when it cannot go on: the execution backend was closed
// under it (the runs it held are still shut down and recorded first), or
// Run was called twice.
func (d *Daemon) Run(ctx context.Context) error {
	if !d.running.CompareAndSwap(false, true) {
		return errors.New("executor: Run called twice")
	}
	d.log.Info("executor started", "concurrency", d.cfg.Concurrency, "isolation", d.isoName(), "runners", d.runnerLanguages(), "exclusive", d.cfg.Exclusive)

	// The reconciler stops with the daemon, also when the claim loop ends
	// on its own (backend closed).
	ctx, stopBackground := context.WithCancel(ctx)
	defer stopBackground()
	var bg sync.WaitGroup
	bg.Add(2)
	go func() {
		defer bg.Done()
		d.reconcileLoop(ctx)
	}()
	go func() {
		defer bg.Done()
		d.janitorLoop(ctx)
	}()

	var runs sync.WaitGroup
	fatal := d.claimLoop(ctx, &runs)

	stopBackground()
	d.stopAll(stopShutdown, ReasonShutdown)
	runs.Wait()
	bg.Wait()
	d.log.Info("executor stopped")
	return fatal
}

// ReasonShutdown is the status reason of runs cancelled because their
// executor stopped.
const ReasonShutdown = "executor shutdown"

// claimLoop takes a free slot, claims one record into it and starts it,
// until ctx ends or the backend is closed.
func (d *Daemon) claimLoop(ctx context.Context, runs *sync.WaitGroup) error {
	slots := make(chan struct{}, d.cfg.Concurrency)
	backoff := 100 * time.Millisecond
	for {
		select {
		case slots <- struct{}{}:
		case <-ctx.Done():
			return nil
		}
		if n := d.isoFailures.Load(); n > 0 {
			pause := min(100*time.Millisecond<<min(n, 10), maxIsolationBackoff)
			d.log.Warn("isolation backend failing to start runs; pausing claims", "failures", n, "pause", pause)
			if !sleepCtx(ctx, pause) {
				<-slots
				return nil
			}
		}
		rec, err := d.b.Claim(ctx, d.cfg.WorkerID, d.cfg.ClaimBlock)
		if err != nil {
			<-slots
			switch {
			case ctx.Err() != nil:
				return nil
			case errors.Is(err, execution.ErrNoWork):
				backoff = 100 * time.Millisecond
				continue
			case errors.Is(err, execution.ErrClosed):
				d.log.Error("execution backend closed; executor stops", "err", err)
				return fmt.Errorf("executor: claim: %w", err)
			}
			d.log.Warn("claim failed; retrying", "err", err, "backoff", backoff)
			if !sleepCtx(ctx, backoff) {
				return nil
			}
			backoff = min(backoff*2, maxStoreBackoff)
			continue
		}
		backoff = 100 * time.Millisecond
		r := d.track(rec)
		runs.Add(1)
		go func() {
			defer runs.Done()
			defer func() { <-slots }()
			defer d.untrack(r)
			d.execute(r)
		}()
	}
}

// track registers a claimed record as live before its goroutine starts, so
// a shutdown that begins right after the claim still sees it.
func (d *Daemon) track(rec *execution.Record) *run {
	r := newRun(rec)
	d.mu.Lock()
	d.live[rec.ExecutionID] = r
	d.mu.Unlock()
	return r
}

func (d *Daemon) untrack(r *run) {
	d.mu.Lock()
	delete(d.live, r.id)
	d.mu.Unlock()
}

// stopAll asks every live run to stop for the same reason.
func (d *Daemon) stopAll(kind stopKind, reason string) {
	d.mu.Lock()
	all := make([]*run, 0, len(d.live))
	for _, r := range d.live {
		all = append(all, r)
	}
	d.mu.Unlock()
	for _, r := range all {
		r.stop(kind, reason)
	}
}

// sleepCtx sleeps for d or until ctx ends; it reports whether the full
// pause elapsed.
func sleepCtx(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}
