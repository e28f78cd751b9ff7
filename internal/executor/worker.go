package executor

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/toolwarden/toolwarden/internal/errs"
	"github.com/toolwarden/toolwarden/internal/execution"
	"github.com/toolwarden/toolwarden/internal/reduction"
	"github.com/toolwarden/toolwarden/internal/runner"
	wsp "github.com/toolwarden/toolwarden/internal/workspace"
)

// stopKind says why a run is being stopped from outside. The kind decides
// what is written afterwards: a cancel or shutdown is finished as cancelled
// with its reason; a lost lease is not finished at all.
type stopKind int

const (
	stopNone stopKind = iota
	// stopCancel: a cancel was requested on the record.
	stopCancel
	// stopShutdown: the daemon is stopping.
	stopShutdown
	// stopLeaseLost: this worker no longer owns the record; it must kill the
	// workload and stop writing (reconciliation records the outcome).
	stopLeaseLost
	// stopWorkspaceLimit: the run's workspace passed workspace_max_bytes;
	// the run is finished as failed with StopReason
	// execution.StopWorkspaceLimit.
	stopWorkspaceLimit
)

// maxInlineCommand is the largest content passed as a `-c` argument; longer
// content is run as a script (runner.Options.Script, fed to the interpreter
// on stdin, no file in the workspace), because Linux caps one argv string at
// 128 KiB (MAX_ARG_STRLEN).
const maxInlineCommand = 64 << 10

// run is one claimed execution, from Claim to Finish.
type run struct {
	id  string
	rec *execution.Record // as claimed

	// finishing is set just before Finish is attempted, so that the
	// terminal record the watcher then sees is not mistaken for a lost
	// lease.
	finishing atomic.Bool
	// lastBeat is the last successful heartbeat (or the claim), as unix
	// nanoseconds.
	lastBeat atomic.Int64

	// tctx carries the run's span, the parent of its stage spans.
	tctx context.Context
	// claimedAt is when the claim returned the record.
	claimedAt time.Time

	mu     sync.Mutex
	kind   stopKind
	reason string
	handle *runner.Handle
	// abort stops a Runner execution (kinds.go); nil for process runs.
	abort func()
}

func newRun(rec *execution.Record) *run {
	r := &run{id: rec.ExecutionID, rec: rec, claimedAt: time.Now()}
	// The claim's lease started at the store's HeartbeatAt; take it when it
	// is earlier than now, so the worker never believes in a longer lease
	// than the store granted.
	at := time.Now()
	if rec.HeartbeatAt != nil && rec.HeartbeatAt.Before(at) {
		at = *rec.HeartbeatAt
	}
	r.lastBeat.Store(at.UnixNano())
	return r
}

// stop records why the run must end and kills it if it started. The first
// reason wins, except that a lost lease overrides the others: once the
// lease is gone nothing may be written, whatever the first reason was.
func (r *run) stop(kind stopKind, reason string) {
	r.mu.Lock()
	if r.kind == stopNone || (kind == stopLeaseLost && r.kind != stopLeaseLost) {
		r.kind, r.reason = kind, reason
	}
	h, abort := r.handle, r.abort
	r.mu.Unlock()
	if h != nil {
		h.Cancel()
	}
	if abort != nil {
		abort()
	}
}

// stopped returns the recorded stop request, if any.
func (r *run) stopped() (stopKind, string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.kind, r.reason
}

// setHandle attaches the started run; a stop that arrived while it was
// starting is applied at once.
func (r *run) setHandle(h *runner.Handle) {
	r.mu.Lock()
	r.handle = h
	kind := r.kind
	r.mu.Unlock()
	if kind != stopNone {
		h.Cancel()
	}
}

func (r *run) beat(t time.Time) { r.lastBeat.Store(t.UnixNano()) }

// leaseExpired reports whether no heartbeat has succeeded for a whole lease:
// the record may already be orphaned, so the worker must not keep running.
func (r *run) leaseExpired(lease time.Duration) bool {
	return time.Since(time.Unix(0, r.lastBeat.Load())) >= lease
}

// execute runs one claimed record to its end and records the outcome.
func (d *Daemon) execute(r *run) {
	log := d.log.With("execution_id", r.id)
	sup, stopSup := context.WithCancel(context.Background())
	var duties sync.WaitGroup
	defer func() {
		stopSup()
		duties.Wait()
	}()
	defer func() {
		// A bug here must not take the daemon down nor leave a workload
		// behind. Nothing is finished: the lease expires and
		// reconciliation orphans the record, which is the honest outcome.
		if p := recover(); p != nil {
			log.Error("executor panic; run killed, lease left to expire", "panic", fmt.Sprint(p))
			r.stop(stopLeaseLost, "executor panic")
		}
	}()

	duties.Add(2)
	go func() { defer duties.Done(); d.heartbeat(sup, r) }()
	go func() { defer duties.Done(); d.watchCancel(sup, r) }()

	if kind, reason := r.stopped(); kind != stopNone {
		if kind == stopLeaseLost {
			log.Warn("lease lost before start; not running", "reason", reason)
			return
		}
		d.finish(r, notStarted(reason))
		return
	}

	tctx, runSpan := startSpan(context.Background(), SpanRun, attribute.String("toolwarden.execution.id", r.id))
	defer runSpan.End()
	r.tctx = tctx
	// The time the record waited in the queue, from its creation to this
	// worker's claim (wake-up of the claim loop included).
	_, queued := otel.Tracer(TracerName).Start(tctx, SpanQueued, trace.WithTimestamp(r.rec.CreatedAt))
	queued.End(trace.WithTimestamp(r.claimedAt))
	if d.executeOther(r) {
		return
	}
	pw := newPartialWriter(d, r)
	opts, err := d.options(r.rec, pw.offer)
	if err != nil {
		d.finish(r, startFailed(err, opts))
		return
	}
	_, wsSp := startSpan(tctx, SpanWorkspace)
	// When the service scanned the staged files, the record already says
	// whether the run executes any: then the workspace is held alone from
	// the start, and opened (and its usage measured) once.
	ws, err := d.openWorkspace(r.rec, &opts, recordRunsFiles(r.rec))
	wsSp.End()
	if errors.Is(err, wsp.ErrBusy) {
		d.finish(r, stagedRefused(workspaceBusyReason))
		return
	}
	if err != nil {
		f := startFailed(err, opts)
		var le *limitError
		if errors.As(err, &le) {
			f.StopReason, f.StatusReason = execution.StopWorkspaceLimit, err.Error()
		}
		d.finish(r, f)
		return
	}
	// A closure: ws is replaced below when the run needs its workspace alone.
	defer func() { ws.close() }()
	proxy, err := d.egressProxy(r.rec)
	if err != nil {
		d.finish(r, startFailed(err, opts))
		return
	}
	if proxy != nil {
		opts.EgressProxy = proxy.Start
		defer proxy.Close()
	}
	_, stSp := startSpan(tctx, SpanStaged)
	reason, runsFiles := d.checkStaged(r.rec, opts.Workspace, opts.Dir)
	if reason == "" && runsFiles && ws != nil && !recordRunsFiles(r.rec) {
		// The run executes workspace files: the conversation's other runs
		// share its uid and could rewrite them between this check and the
		// interpreter opening them, so the run takes the workspace alone
		// and the check is made again under that hold. (Only when the
		// executor scanned the files itself: the record could not say so
		// before the workspace was open.)
		ws.close()
		ws, err = d.openWorkspace(r.rec, &opts, true)
		if errors.Is(err, wsp.ErrBusy) {
			reason = workspaceBusyReason
		} else if err != nil {
			stSp.End()
			d.finish(r, startFailed(err, opts))
			return
		} else {
			reason, _ = d.checkStaged(r.rec, opts.Workspace, opts.Dir)
		}
	}
	stSp.End()
	if reason != "" {
		log.Warn("run refused: staged workspace files", "reason", reason)
		d.finish(r, stagedRefused(reason))
		return
	}
	startCtx, startSp := startSpan(tctx, SpanRunnerStart)
	// The run's context carries no deadline or cancellation of the
	// executor's (the handle is cancelled explicitly), only the span, so
	// the isolation backend's spans (isolation.start, the shim's stages)
	// land in the run's trace instead of traces of their own.
	h, err := runner.Start(trace.ContextWithSpan(context.Background(), trace.SpanFromContext(startCtx)), d.iso, opts)
	startSp.End()
	if err != nil {
		if d.isolationRefused(err) {
			d.isoFailures.Add(1)
		}
		log.Warn("run could not start", "err", err)
		f := startFailed(err, opts)
		ws.stamp(f)
		d.finish(r, f)
		return
	}
	d.isoFailures.Store(0)
	r.setHandle(h)
	pw.start(sup, &duties)
	if ws != nil && d.cfg.Workspaces.MaxBytes() > 0 {
		duties.Add(1)
		go func() { defer duties.Done(); d.watchDisk(sup, r, ws.ws.Path, d.cfg.Workspaces.MaxBytes()) }()
	}
	log.Info("run started", "pid", h.Pid(), "isolation", d.iso.Name())

	_, waitSp := startSpan(tctx, SpanRunnerWait)
	res := h.Wait()
	waitSp.End()
	// No partial-output write may land after Finish: stop the writer and
	// wait for an in-flight Update first.
	_, closeSp := startSpan(tctx, SpanPartialClose)
	pw.close()
	closeSp.End()

	kind, reason := r.stopped()
	if kind == stopLeaseLost {
		log.Warn("lease lost; run killed and not finished (reconciliation orphans it)",
			"reason", reason, "run_status", res.Status, "cleanup", res.Cleanup)
		return
	}
	_, resSp := startSpan(tctx, SpanResult)
	final := finalRecord(res, kind, reason, opts)
	resSp.End()
	ws.stamp(final)
	closeEgress(proxy, final)
	d.finish(r, final)
}

// isolationRefused reports whether a start error came from the isolation
// backend rather than from the request (a missing cwd, an unknown
// language): runner types backend failures errs.IsolationRefused.
func (d *Daemon) isolationRefused(err error) bool {
	return errs.Has(err, errs.IsolationRefused)
}

// runEnv is a record's env as the run gets it: without HOME, so the runner
// keeps HOME the workspace. The scan read the startup files tools load from
// HOME (user site-packages, ~/.gitconfig) in the workspace; a request's HOME
// would move that lookup to files it never judged.
func runEnv(env map[string]string) map[string]string {
	if _, ok := env["HOME"]; !ok {
		return env
	}
	out := make(map[string]string, len(env))
	for k, v := range env {
		if k != "HOME" {
			out[k] = v
		}
	}
	return out
}

// options builds the runner options of one record from the daemon config.
func (d *Daemon) options(rec *execution.Record, onPartial func(reduction.PartialOutput)) (runner.Options, error) {
	o := runner.Options{
		Language:        rec.Language,
		Dir:             rec.Cwd,
		Env:             runEnv(rec.Env),
		Timeout:         d.cfg.Timeout,
		NoOutputTimeout: d.cfg.NoOutputTimeout,
		MaxResultBytes:  d.cfg.MaxResultBytes,
		ReductionRoot:   d.cfg.ReductionRoot,
		ConversationID:  rec.ConversationID,
		ExecutionID:     rec.ExecutionID,
		Limits:          d.cfg.Limits,
		Hardening:       d.cfg.Hardening,
		OnPartial:       onPartial,
		PartialInterval: d.cfg.PartialInterval,
	}
	if o.Dir == "" {
		o.Dir = d.cfg.WorkspaceRoot
	}
	if rec.TimeoutMS < 0 {
		return o, fmt.Errorf("timeout_ms %d is negative", rec.TimeoutMS)
	}
	// The effective hard timeout is min(requested, tool_timeout_minutes):
	// a request may shorten its run, never lengthen it past the config.
	if rec.TimeoutMS > 0 {
		o.Timeout = min(time.Duration(rec.TimeoutMS)*time.Millisecond, d.cfg.Timeout)
	}
	if len(rec.Content) > maxInlineCommand {
		o.Script = rec.Content
	} else {
		o.Command = rec.Content
	}
	return o, nil
}

// finish writes final for r. A store that cannot be reached is retried
// while the lease may still be held (the heartbeat keeps running meanwhile);
// a rejection — the lease is lost, the record is already terminal — is
// logged and never retried or reported as success.
func (d *Daemon) finish(r *run, final *execution.Record) {
	log := d.log.With("execution_id", r.id, "status", final.Status)
	r.finishing.Store(true)
	tctx := r.tctx
	if tctx == nil {
		tctx = context.Background()
	}
	_, span := startSpan(tctx, SpanFinish)
	defer span.End()
	backoff := 100 * time.Millisecond
	for attempt := 1; ; attempt++ {
		ctx, cancel := context.WithTimeout(context.Background(), d.cfg.Lease)
		err := d.b.Finish(ctx, d.cfg.WorkerID, r.id, final)
		cancel()
		if err == nil {
			log.Info("execution finished", "exit_code", derefInt(final.ExitCode), "cleanup", final.Cleanup,
				"duration_ms", final.DurationMS)
			finishedTotal.WithLabelValues(string(final.Status), final.IsolationBackend).Inc()
			runSeconds.WithLabelValues(string(final.Status)).Observe(float64(final.DurationMS) / 1000)
			return
		}
		retryable := errors.Is(err, execution.ErrUnavailable) || errors.Is(err, context.DeadlineExceeded)
		if !retryable {
			log.Error("finish rejected; outcome not recorded by this worker", "err", err)
			return
		}
		if kind, _ := r.stopped(); kind == stopLeaseLost || r.leaseExpired(d.cfg.Lease) {
			log.Error("finish: store unreachable and lease gone; reconciliation will orphan the record",
				"err", err, "attempts", attempt)
			return
		}
		log.Warn("finish failed; retrying", "err", err, "attempt", attempt)
		time.Sleep(backoff)
		backoff = min(backoff*2, 2*time.Second)
	}
}

func derefInt(p *int) int {
	if p == nil {
		return 0
	}
	return *p
}
