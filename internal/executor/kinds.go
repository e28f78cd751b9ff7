package executor

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/toolwarden/toolwarden/internal/execution"
	"github.com/toolwarden/toolwarden/internal/runner"
)

// Runner performs the executions of one record language that are not
// processes — an upstream MCP tools/call is one. Registering a Runner in
// Config.Runners puts those executions on the daemon's duties: the claim
// loop, the lease heartbeat, the cancel watch with its polling fallback,
// Finish with its retry, reconciliation of orphans. The Runner only does
// the work and says how it ended, so a lease or cancel fix is made once,
// here, for every kind of execution.
type Runner interface {
	// Run performs rec (as claimed) and returns its terminal outcome, the
	// record Finish writes. ctx ends when the run must stop; stopped then
	// tells why (StopCancel with the caller's reason, StopShutdown,
	// StopLeaseLost). The outcome returned after StopLeaseLost is
	// discarded: another party owns the record. A panic in Run is handled
	// like one in a process run: nothing is written and the lease expires.
	Run(ctx context.Context, rec *execution.Record, stopped func() Stop) *execution.Record
}

// StopCause says why a Runner's context ended.
type StopCause int

// Stop causes a Runner sees.
const (
	// StopNone: the run was not stopped from outside (its own deadline,
	// if any, ended it).
	StopNone StopCause = iota
	// StopCancel: a cancel was requested on the record; Reason is the
	// caller's reason.
	StopCancel
	// StopShutdown: the daemon is stopping.
	StopShutdown
	// StopLeaseLost: this worker no longer owns the record; the run must
	// end and its outcome is not written.
	StopLeaseLost
)

// Stop is why a run was stopped and the reason recorded with it.
type Stop struct {
	Cause  StopCause
	Reason string
}

// RunnerFunc adapts a function to Runner.
type RunnerFunc func(ctx context.Context, rec *execution.Record, stopped func() Stop) *execution.Record

// Run calls f.
func (f RunnerFunc) Run(ctx context.Context, rec *execution.Record, stopped func() Stop) *execution.Record {
	return f(ctx, rec, stopped)
}

// stopOf maps the daemon's stop kinds onto a Runner's causes.
func stopOf(kind stopKind, reason string) Stop {
	switch kind {
	case stopCancel:
		return Stop{StopCancel, reason}
	case stopShutdown:
		return Stop{StopShutdown, reason}
	case stopLeaseLost:
		return Stop{StopLeaseLost, reason}
	case stopWorkspaceLimit:
		// Not raised for runner executions (they have no workspace), but
		// it is an outside stop: report it as a cancel with its reason.
		return Stop{StopCancel, reason}
	}
	return Stop{StopNone, reason}
}

// executeOther runs r when it is not a process run: a record whose
// language has a Runner goes to it; on a daemon without an isolation
// backend (one that runs only Runners) any other record is finished as
// failed, saying which languages it runs. It reports whether r was handled.
func (d *Daemon) executeOther(r *run) bool {
	if rn, ok := d.cfg.Runners[r.rec.Language]; ok {
		d.executeRunner(r, rn)
		return true
	}
	if d.iso != nil {
		return false
	}
	d.finish(r, startFailed(fmt.Errorf("language %q: executor %s runs only %s executions and no processes",
		r.rec.Language, d.cfg.WorkerID, strings.Join(d.runnerLanguages(), ", ")), runner.Options{}))
	return true
}

// executeRunner runs r with rn and finishes it unless the lease was lost.
func (d *Daemon) executeRunner(r *run, rn Runner) {
	log := d.log.With("execution_id", r.id, "language", r.rec.Language)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	r.setAbort(cancel)
	stopped := func() Stop { return stopOf(r.stopped()) }
	log.Info("run started")
	final := rn.Run(ctx, r.rec.Clone(), stopped)
	if kind, reason := r.stopped(); kind == stopLeaseLost {
		log.Warn("lease lost; run stopped and not finished (reconciliation orphans it)", "reason", reason)
		return
	}
	if final == nil {
		final = startFailed(fmt.Errorf("the %s runner returned no outcome", r.rec.Language), runner.Options{})
	}
	if final.EndedAt == nil {
		now := time.Now()
		final.EndedAt = &now
	}
	d.finish(r, final)
}

// setAbort attaches the stop function of a runner execution; a stop that
// arrived before it is applied at once.
func (r *run) setAbort(f func()) {
	r.mu.Lock()
	r.abort = f
	kind := r.kind
	r.mu.Unlock()
	if kind != stopNone {
		f()
	}
}

// runnerLanguages lists the languages with a Runner, sorted.
func (d *Daemon) runnerLanguages() []string {
	out := make([]string, 0, len(d.cfg.Runners))
	for l := range d.cfg.Runners {
		out = append(out, l)
	}
	sort.Strings(out)
	return out
}

// isoName names the isolation backend for logs ("none" on a daemon that
// runs only Runners).
func (d *Daemon) isoName() string {
	if d.iso == nil {
		return "none"
	}
	return d.iso.Name()
}
