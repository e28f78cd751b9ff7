// Package gateway puts toolwarden in front of existing MCP servers. It
// connects to the configured upstream servers (stdio commands or
// streamable-HTTP URLs), lists their tools under a per-server prefix, and
// guards every tools/call: the content fields of the arguments are scanned
// with the same engine and policy as the REST API; a denied call is not
// forwarded and its error result carries the safety_report; an allowed or
// reviewed call is forwarded with the safety_report attached to its result.
//
// Upstream calls are executions: each has a record (running → completed,
// failed, hard_timeout, cancelled or orphaned), a bounded wait, and can be
// observed and cancelled by execution_id afterwards. Calls are isolated per
// server (concurrency cap, circuit breaker) and globally (concurrency cap).
//
// Upstream calls run on the executor's duties, not on machinery of their
// own: the gateway queues each admitted call as a record of language "mcp"
// in its store and an executor.Daemon with the gateway registered as the
// "mcp" Runner claims it — so the lease heartbeat, the cancel watch with
// its polling fallback, Finish with its retry and the reconciliation that
// marks orphans are the same code as for commands. The gateway keeps what
// is MCP's: routing to the server, the per-server and global concurrency
// caps, and the circuit breaker.
//
// Records live in a store of their own (Options.Store): the store must not
// be shared with an executor pool's queue — a process executor would claim
// the gateway's records (it refuses them, failing the call) — so serve
// gives the gateway a separate embedded store, or a separate Redis pool
// (same records keyspace, own stream).
package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sort"
	"strings"
	"sync"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/toolwarden/toolwarden/internal/execution"
	"github.com/toolwarden/toolwarden/internal/executor"
	"github.com/toolwarden/toolwarden/internal/mcp/internal/view"
	"github.com/toolwarden/toolwarden/internal/reduction"
	"github.com/toolwarden/toolwarden/internal/service"
	"github.com/toolwarden/toolwarden/sdk"
)

// ClientCancelledReason is the cancel reason recorded when the MCP client
// cancels a tools/call while toolwarden still waits for it.
const ClientCancelledReason = "the MCP client cancelled the tools/call"

// Scanner scans a tool call; *service.Service is one.
type Scanner interface {
	Scan(ctx context.Context, req *service.ToolRequest, pieces []service.Piece) (*sdk.SafetyReport, error)
}

// Identify names the caller of a tools/call (the API key id over HTTP, the
// configured identity over stdio); an error refuses the call.
type Identify func(ctx context.Context) (owner string, err error)

// Options are the gateway's dependencies.
type Options struct {
	// Scanner decides every call (required).
	Scanner Scanner
	// Store holds the gateway's execution records (required; see the
	// package doc for why it must not be an executor pool's queue).
	Store execution.Backend
	// WorkerID names the gateway in leases (default mcp-gateway-<host>-<pid>).
	WorkerID string
	// Wait is the bounded wait of a tools/call (tool_wait_timeout_seconds,
	// default 30s); a call still running then returns its execution_id.
	Wait time.Duration
	// Lease is the store's lease TTL (default execution.DefaultLeaseTTL);
	// it must match the store's (see executor.Config.Lease).
	Lease time.Duration
	// Heartbeat is how often a running call's lease is extended and its
	// cancel flag polled when Watch fails (default Lease/3).
	Heartbeat time.Duration
	// ReconcileInterval is how often running calls whose worker is gone are
	// marked orphaned (default Lease; also at start).
	ReconcileInterval time.Duration
	// Exclusive declares this gateway the only worker of Store (the
	// embedded store serve opens for it): running records of any other
	// worker id — a gateway process that died — are orphaned at start.
	// With a shared Redis records keyspace it must stay false.
	Exclusive bool
	// Now is the breakers' clock (default time.Now).
	Now func() time.Time
	// Dial connects to a server (default Dial).
	Dial Dialer
	// Logger gets connection and call-state events; arguments, results and
	// headers are never logged.
	Logger *slog.Logger
	// MaxResultBytes caps the canonical result of a call
	// (reduction_max_length_for_trunc, default 50000); a larger upstream
	// answer is spilled to a file under ReductionRoot and replaced by the
	// <persisted-output> preview, like an executor's output.
	MaxResultBytes int
	// ReductionRoot is where oversized results are spilled
	// (default reduction.DefaultRoot).
	ReductionRoot string
}

// Gateway is the guarded front of the upstream MCP servers.
type Gateway struct {
	cfg   Config
	opts  Options
	total chan struct{}

	servers []*upstreamServer
	byName  map[string]*upstreamServer

	// pending hands the arguments of queued calls to the runner
	// (execution id → *pendingCall).
	pending sync.Map
	daemon  *executor.Daemon
	stop    context.CancelFunc
	done    chan struct{} // closed when the daemon returned
}

// maxClaimed bounds the calls the gateway's executor holds at once,
// running or waiting for a per-server or global slot. It is not a limit
// the operator tunes (those are the per-server and total caps): calls to
// a saturated server wait claimed, so that calls to other servers behind
// them are still claimed and run.
const maxClaimed = 1024

// upstreamServer is one configured server and its isolation state.
type upstreamServer struct {
	cfg     ServerConfig
	up      Upstream
	tools   []mcpgo.Tool
	sem     chan struct{}
	breaker *Breaker
	timeout time.Duration
}

// New validates cfg and builds a gateway; Connect dials the servers.
func New(cfg Config, opts Options) (*Gateway, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if opts.Scanner == nil || opts.Store == nil {
		return nil, errors.New("mcp gateway: a scanner and an execution store are required")
	}
	cfg = cfg.WithDefaults()
	if opts.WorkerID == "" {
		host, _ := os.Hostname()
		opts.WorkerID = fmt.Sprintf("mcp-gateway-%s-%d", host, os.Getpid())
	}
	if opts.Wait <= 0 {
		opts.Wait = execution.DefaultWait
	}
	if opts.Lease <= 0 {
		opts.Lease = execution.DefaultLeaseTTL
	}
	if opts.Heartbeat <= 0 {
		opts.Heartbeat = opts.Lease / 3
	}
	if opts.Dial == nil {
		opts.Dial = Dial
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	g := &Gateway{cfg: cfg, opts: opts, total: make(chan struct{}, cfg.MaxConcurrentTotal),
		byName: map[string]*upstreamServer{}, done: make(chan struct{})}
	for _, sc := range cfg.Servers {
		s := &upstreamServer{cfg: sc, sem: make(chan struct{}, sc.MaxConcurrent),
			breaker: NewBreaker(cfg.CircuitFailureThreshold, cfg.cooldown(), opts.Now),
			timeout: time.Duration(sc.CallTimeoutSeconds * float64(time.Second))}
		g.servers = append(g.servers, s)
		g.byName[sc.Name] = s
	}
	d, err := executor.New(opts.Store, nil, executor.Config{
		WorkerID: opts.WorkerID, Concurrency: maxClaimed, Exclusive: opts.Exclusive,
		Lease: opts.Lease, HeartbeatInterval: opts.Heartbeat, ReconcileInterval: opts.ReconcileInterval,
		ClaimBlock: time.Second, Logger: opts.Logger.With("component", "mcp-gateway"),
		Runners: map[string]executor.Runner{Language: g},
	})
	if err != nil {
		return nil, fmt.Errorf("mcp gateway executor: %w", err)
	}
	g.daemon = d
	ctx, stop := context.WithCancel(context.Background())
	g.stop = stop
	go func() {
		defer close(g.done)
		if err := d.Run(ctx); err != nil {
			opts.Logger.Error("mcp gateway executor stopped", "err", err)
		}
	}()
	return g, nil
}

// Language is the record language of upstream MCP calls, the key of the
// gateway's executor.Runner.
const Language = "mcp"

// Connect dials every server and lists its tools. A server that cannot be
// reached is left out (its tools are not offered) and its error is returned
// joined with the others, so serve can log it and still guard the rest.
func (g *Gateway) Connect(ctx context.Context) error {
	var errs []error
	for _, s := range g.servers {
		up, err := g.opts.Dial(ctx, s.cfg)
		if err != nil {
			errs = append(errs, fmt.Errorf("mcp server %s: %w", s.cfg.Name, err))
			continue
		}
		tools, err := up.ListTools(ctx)
		if err != nil {
			_ = up.Close()
			errs = append(errs, fmt.Errorf("mcp server %s: list tools: %w", s.cfg.Name, err))
			continue
		}
		s.up, s.tools = up, tools
		g.opts.Logger.Info("mcp upstream connected", "server", s.cfg.Name, "tools", len(tools), "prefix", s.cfg.Prefix)
	}
	return errors.Join(errs...)
}

// Store returns the store of the gateway's execution records.
func (g *Gateway) Store() execution.Backend { return g.opts.Store }

// Breaker returns the circuit breaker of the named server (nil if unknown).
func (g *Gateway) Breaker(name string) *Breaker {
	if s := g.byName[name]; s != nil {
		return s.breaker
	}
	return nil
}

// Tools returns the upstream tools of every connected server, renamed
// with the server's prefix, each with a guarded handler. ident names the
// caller, who owns the records of its calls.
func (g *Gateway) Tools(ident Identify) []server.ServerTool {
	var out []server.ServerTool
	for _, s := range g.servers {
		if s.up == nil {
			continue
		}
		for _, t := range s.tools {
			tool := t
			upstreamName := t.Name
			tool.Name = s.cfg.Prefix + t.Name
			tool.Description = strings.TrimSpace(fmt.Sprintf("[%s via toolwarden: scanned before it is forwarded] %s", s.cfg.Name, t.Description))
			srv := s
			out = append(out, server.ServerTool{Tool: tool, Handler: func(ctx context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
				owner, err := ident(ctx)
				if err != nil {
					return mcpgo.NewToolResultError("not authorized: " + err.Error()), nil
				}
				return g.call(ctx, srv, upstreamName, req.GetArguments(), owner)
			}})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Tool.Name < out[j].Tool.Name })
	return out
}

// CallServer calls tool on the named server through the guard, as a
// tools/call of the prefixed tool would.
func (g *Gateway) CallServer(ctx context.Context, serverName, tool string, args map[string]any, owner string) (*mcpgo.CallToolResult, error) {
	s := g.byName[serverName]
	if s == nil || s.up == nil {
		return nil, fmt.Errorf("mcp server %q is not connected", serverName)
	}
	return g.call(ctx, s, tool, args, owner)
}

// call scans one tools/call and, unless denied, forwards it as an
// execution, waiting at most Options.Wait for the result.
func (g *Gateway) call(ctx context.Context, s *upstreamServer, tool string, args map[string]any, owner string) (*mcpgo.CallToolResult, error) {
	if args == nil {
		args = map[string]any{}
	}
	name := s.cfg.Prefix + tool
	content, err := json.Marshal(recordedArguments(args))
	if err != nil {
		return mcpgo.NewToolResultError("arguments cannot be encoded: " + err.Error()), nil
	}
	rec := &execution.Record{ExecutionID: execution.NewID(), ToolName: name, Language: Language,
		Content: string(content), OwnerKeyID: owner, TimeoutMS: s.timeout.Milliseconds()}
	in, err := decodeArguments(name, args)
	if err != nil {
		return g.block(ctx, rec, "TOOL_SAFETY_UNSCANNABLE: "+err.Error())
	}
	rec.ConversationID = in.req.ConversationID
	if len(in.pieces) > 0 {
		rep, err := g.opts.Scanner.Scan(ctx, in.req, in.pieces)
		if err != nil {
			return g.block(ctx, rec, "TOOL_SAFETY_SCAN_FAILED: "+err.Error())
		}
		rec.SafetyReport = rep
		switch {
		case rep.Decision == sdk.Deny:
			return g.block(ctx, rec, "TOOL_SAFETY_BLOCKED: "+rep.Summary)
		case rep.Blocked:
			return g.block(ctx, rec, "TOOL_SAFETY_HELD: block_on_review holds this call and the gateway does not park upstream calls for review: "+rep.Summary)
		}
	}
	if err := g.enqueue(ctx, s, tool, args, rec); err != nil {
		return mcpgo.NewToolResultError("the call was not forwarded: " + err.Error()), nil
	}
	got, done, err := execution.Wait(ctx, g.opts.Store, rec.ExecutionID, g.opts.Wait)
	if err != nil {
		if errors.Is(ctx.Err(), context.Canceled) {
			// The client cancelled the tools/call (notifications/cancelled,
			// or the stream closed): it wants the call stopped, so it is
			// cancelled like cancel_tool_execution would, and recorded.
			_, _ = g.opts.Store.RequestCancel(context.WithoutCancel(ctx), rec.ExecutionID, ClientCancelledReason)
		}
		return nil, fmt.Errorf("wait for %s: %w", rec.ExecutionID, err)
	}
	return resultFor(got, done), nil
}

// recordedArguments is the arguments as the record keeps them: the values
// of an env object are replaced by a marker, as the service records only
// environment variable names, because they are often secrets.
func recordedArguments(args map[string]any) map[string]any {
	env, ok := args["env"].(map[string]any)
	if !ok {
		return args
	}
	out := make(map[string]any, len(args))
	for k, v := range args {
		out[k] = v
	}
	red := make(map[string]any, len(env))
	for k := range env {
		red[k] = "<redacted>"
	}
	out["env"] = red
	return out
}

// resultFor is the tools/call result for a gateway record after a wait: the
// upstream's own result (with the safety_report attached) once it
// answered, an error result carrying the record when the call ended any
// other way, and — not an error — the running record with its
// execution_id when the wait ended first.
func resultFor(r *execution.Record, done bool) *mcpgo.CallToolResult {
	if !done {
		return mcpgo.NewToolResultText(view.Record(r, true, execution.DefaultPartialOutputMaxBytes, map[string]any{
			"wait_timed_out": true,
			"message":        "the upstream call is still " + string(r.Status) + "; call wait_tool_execution or get_tool_execution with this execution_id, or cancel_tool_execution",
		}))
	}
	if (r.Status == execution.StatusCompleted || r.Status == execution.StatusFailed) && r.Result != "" {
		raw := json.RawMessage(r.Result)
		if res, err := mcpgo.ParseCallToolResult(&raw); err == nil {
			return res
		}
	}
	res := mcpgo.NewToolResultText(view.Record(r, false, 0, nil))
	res.IsError = r.IsError || r.Status != execution.StatusCompleted
	return res
}

// block records a call that is not forwarded and returns its error result.
func (g *Gateway) block(ctx context.Context, rec *execution.Record, why string) (*mcpgo.CallToolResult, error) {
	rec.Status = execution.StatusBlocked
	rec.IsError = true
	rec.Error = why
	rec.StatusReason = why
	if err := g.opts.Store.Create(ctx, rec); err != nil {
		return nil, fmt.Errorf("record blocked mcp call: %w", err)
	}
	res := mcpgo.NewToolResultText(view.Record(rec, false, 0, nil))
	res.IsError = true
	return res, nil
}

// pendingCall is what the runner needs to forward one admitted call: its
// server, the upstream tool name and the arguments with their real env
// values (the record keeps only the redacted ones).
type pendingCall struct {
	s    *upstreamServer
	tool string
	args map[string]any
}

// enqueue stores rec as queued for the gateway's executor and hands its
// arguments over in memory. Only this process claims from its store, so a
// record without arguments here was left by a gateway process that
// stopped before forwarding it; the runner finishes such a record as
// failed, saying it was never sent upstream.
func (g *Gateway) enqueue(ctx context.Context, s *upstreamServer, tool string, args map[string]any, rec *execution.Record) error {
	rec.Status = execution.StatusQueued
	g.pending.Store(rec.ExecutionID, &pendingCall{s: s, tool: tool, args: args})
	if err := g.opts.Store.Create(ctx, rec); err != nil {
		g.pending.Delete(rec.ExecutionID)
		return fmt.Errorf("record mcp call: %w", err)
	}
	return nil
}

// Run performs one claimed upstream call; it is the executor.Runner of the
// "mcp" language, so claim, lease heartbeat, cancel watch (with its polling
// fallback), Finish and orphan reconciliation are the executor's.
func (g *Gateway) Run(ctx context.Context, rec *execution.Record, stopped func() executor.Stop) *execution.Record {
	v, ok := g.pending.LoadAndDelete(rec.ExecutionID)
	if !ok {
		return outcome(execution.StatusFailed, "the mcp gateway stopped before forwarding this call; it was never sent upstream",
			"gateway restarted before forwarding", execution.CleanupDone, "")
	}
	p := v.(*pendingCall)
	final := g.execute(ctx, p.s, p.tool, p.args, rec, stopped)
	if final != nil {
		g.opts.Logger.Info("mcp call finished", "execution_id", rec.ExecutionID, "server", p.s.cfg.Name, "status", final.Status)
	}
	return final
}

// outcome builds a terminal record for Finish.
func outcome(st execution.Status, errMsg, reason string, cleanup execution.Cleanup, detail string) *execution.Record {
	return &execution.Record{Status: st, IsError: st != execution.StatusCompleted, Error: errMsg,
		StatusReason: reason, Cleanup: cleanup, CleanupDetail: detail}
}

// notForwarded is the outcome of a call stopped before it was sent: a
// cancel ends it cancelled and clean, a shutdown failed and clean, a lost
// lease writes nothing.
func notForwarded(st executor.Stop) *execution.Record {
	switch st.Cause {
	case executor.StopLeaseLost:
		return nil
	case executor.StopCancel:
		return outcome(execution.StatusCancelled, "cancelled while waiting for a concurrency slot; never forwarded", st.Reason, execution.CleanupDone, "")
	}
	return outcome(execution.StatusFailed, "the mcp gateway stopped before forwarding this call", "gateway stopped", execution.CleanupDone, "")
}

// execute admits, queues for slots, calls and classifies. nil means the
// lease was lost: another party owns the record and nothing is written.
func (g *Gateway) execute(ctx context.Context, s *upstreamServer, tool string, args map[string]any,
	rec *execution.Record, stopped func() executor.Stop) *execution.Record {
	ticket, err := s.breaker.Allow()
	if err != nil {
		msg := fmt.Sprintf("mcp_circuit_open: server %s failed %d times in a row; calls are refused until a probe succeeds after the %s cooldown",
			s.cfg.Name, g.cfg.CircuitFailureThreshold, g.cfg.cooldown())
		return outcome(execution.StatusFailed, msg, "mcp_circuit_open", execution.CleanupDone, "")
	}
	settled := false
	defer func() {
		if !settled {
			s.breaker.Release(ticket)
		}
	}()

	// Wait for a slot on the server, then a global one; either wait can be
	// stopped, and nothing has been sent yet, so a cancel here is clean.
	for _, sem := range []chan struct{}{s.sem, g.total} {
		select {
		case sem <- struct{}{}:
			defer func(sem chan struct{}) { <-sem }(sem)
		case <-ctx.Done():
			return notForwarded(stopped())
		}
	}

	callCtx, callCancel := context.WithTimeout(ctx, s.timeout)
	defer callCancel()
	type answer struct {
		res *mcpgo.CallToolResult
		err error
	}
	answers := make(chan answer, 1)
	go func() {
		res, err := s.up.CallTool(callCtx, tool, args)
		answers <- answer{res, err}
	}()
	var a answer
	select {
	case a = <-answers:
	case <-ctx.Done():
		callCancel() // mcp-go sends notifications/cancelled for the request
		if stopped().Cause == executor.StopLeaseLost {
			return nil
		}
		a = <-answers
	}
	if ctx.Err() != nil && (a.err != nil || a.res == nil) {
		// Stopped from outside while the call was out (an answer that
		// arrived before the stop took effect is kept below).
		st := stopped()
		switch st.Cause {
		case executor.StopLeaseLost:
			return nil
		case executor.StopCancel:
			if c, ok := s.up.(CancelConfirmer); ok {
				cctx, ccancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
				confirmed, cerr := c.ConfirmCancelled(cctx, tool, args)
				ccancel()
				if cerr == nil && confirmed {
					return outcome(execution.StatusCancelled, "cancelled; the upstream confirmed the call stopped", st.Reason, execution.CleanupDone, "")
				}
			}
			return outcome(execution.StatusOrphaned,
				"cancelled locally; MCP cancellation was sent but the upstream server gives no confirmation that the call stopped",
				st.Reason, execution.CleanupUnconfirmed,
				fmt.Sprintf("notifications/cancelled sent to mcp server %s for tool %s; its remote state is unconfirmed", s.cfg.Name, tool))
		}
		return outcome(execution.StatusOrphaned, "the mcp gateway stopped while the call ran", "gateway stopped",
			execution.CleanupUnconfirmed, "notifications/cancelled sent to mcp server "+s.cfg.Name+"; its remote state is unconfirmed")
	}

	switch {
	case a.err == nil && a.res != nil:
		settled = true
		s.breaker.Done(ticket, true)
		res := attachReport(a.res, rec.SafetyReport, rec.ExecutionID)
		b, spill, err := g.canonical(res, rec)
		if err != nil {
			return outcome(execution.StatusFailed, "upstream result cannot be stored: "+err.Error(), "", execution.CleanupDone, "")
		}
		st := execution.StatusCompleted
		if res.IsError {
			st = execution.StatusFailed
		}
		o := outcome(st, "", "", execution.CleanupDone, "")
		o.Result = string(b)
		o.SpillPath = spill
		if res.IsError {
			o.Error = "the upstream tool reported an error"
		}
		return o
	case errors.Is(callCtx.Err(), context.DeadlineExceeded):
		settled = true
		s.breaker.Done(ticket, false)
		return outcome(execution.StatusHardTimeout, fmt.Sprintf("no answer from mcp server %s within %s", s.cfg.Name, s.timeout),
			"hard timeout", execution.CleanupUnconfirmed, "notifications/cancelled sent; the upstream gives no confirmation")
	default:
		settled = true
		s.breaker.Done(ticket, false)
		msg := "no result"
		if a.err != nil {
			msg = a.err.Error()
		}
		return outcome(execution.StatusFailed, fmt.Sprintf("mcp server %s: %s", s.cfg.Name, msg), "", execution.CleanupDone, "")
	}
}

// canonical encodes a forwarded call's result as stored and returned. An
// answer over MaxResultBytes is spilled whole (as JSON) and replaced by a
// result of two text items: the <persisted-output> preview with the file's
// path, and the execution_id with the safety_report — so the verdict is
// never cut away by the reduction.
func (g *Gateway) canonical(res *mcpgo.CallToolResult, rec *execution.Record) ([]byte, string, error) {
	b, err := json.Marshal(res)
	if err != nil {
		return nil, "", err
	}
	max := g.opts.MaxResultBytes
	if max <= 0 {
		max = reduction.DefaultMaxLength
	}
	if len(b) <= max {
		return b, "", nil
	}
	rcfg := reduction.Config{MaxLength: max, Root: g.opts.ReductionRoot, ConversationID: rec.ConversationID, ExecutionID: rec.ExecutionID}
	preview, err := reduction.Reduce(rcfg, b)
	if err != nil {
		return nil, "", fmt.Errorf("reduce result: %w", err)
	}
	root := g.opts.ReductionRoot
	if root == "" {
		root = reduction.DefaultRoot
	}
	spill, _ := reduction.SpillPath(root, rec.ConversationID, rec.ExecutionID)
	report, _ := json.Marshal(map[string]any{"execution_id": rec.ExecutionID, "safety_report": rec.SafetyReport})
	small := &mcpgo.CallToolResult{Content: []mcpgo.Content{mcpgo.NewTextContent(preview), mcpgo.NewTextContent(string(report))},
		IsError: res.IsError}
	out, err := json.Marshal(small)
	return out, spill, err
}

// Close stops the gateway: calls still running end orphaned (their
// upstream state is unconfirmed), calls not yet claimed end cancelled
// (never forwarded), then the upstream connections close.
func (g *Gateway) Close() error {
	g.stop()
	<-g.done
	var errs []error
	g.pending.Range(func(k, _ any) bool {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if _, err := g.opts.Store.RequestCancel(ctx, k.(string), "the mcp gateway stopped before forwarding this call"); err != nil {
			errs = append(errs, fmt.Errorf("cancel unforwarded mcp call %s: %w", k, err))
		}
		return true
	})
	for _, s := range g.servers {
		if s.up != nil {
			if err := s.up.Close(); err != nil {
				errs = append(errs, fmt.Errorf("close mcp server %s: %w", s.cfg.Name, err))
			}
		}
	}
	return errors.Join(errs...)
}
