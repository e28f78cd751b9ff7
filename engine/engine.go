// Package engine is toolwarden's scanner: it turns a Request into an
// sdk.SafetyReport. Native analyzers parse the content once into facts; rule
// packs compiled to WebAssembly judge the facts inside wazero sandboxes; the
// findings aggregate into the report, which is audited and observed.
//
// An Engine is safe for concurrent use. Every failure inside a rule pack —
// an error, a trap, a timeout, memory exhaustion — becomes a
// RULE_PLUGIN_ERROR finding, never a silent allow.
package engine

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"

	"github.com/toolwarden/toolwarden/internal/engine/analyze"
	"github.com/toolwarden/toolwarden/internal/engine/audit"
	"github.com/toolwarden/toolwarden/internal/engine/builtin"
	"github.com/toolwarden/toolwarden/internal/engine/report"
	"github.com/toolwarden/toolwarden/internal/engine/telemetry"
	"github.com/toolwarden/toolwarden/internal/engine/wasmhost"
	"github.com/toolwarden/toolwarden/internal/policies"
	"github.com/toolwarden/toolwarden/sdk"
)

// DefaultCallTimeout is the per-call deadline of a rule plugin. A healthy
// pack answers in well under a millisecond; the deadline exists to stop a
// looping plugin, and is generous so that a loaded host does not turn slow
// calls into RULE_PLUGIN_ERROR findings.
const DefaultCallTimeout = 2 * time.Second

// RulePluginError is the rule id of the finding a failed rule pack yields.
const RulePluginError = "RULE_PLUGIN_ERROR"

// Pack is a rule pack as the engine runs it: a Wasm plugin, or the same
// pack compiled natively (used by benchmarks and tests to measure what the
// sandbox costs).
type Pack interface {
	// Info describes the pack and its rules.
	Info() sdk.PluginInfo
	// Judge judges one scan: the pack encodes what it needs from in (ABI
	// v1's JSON or v2's layout, shared by the packs of the scan). The
	// engine releases in's encodings once every pack has returned, so
	// neither the returned findings nor anything Judge keeps may refer to
	// them.
	Judge(ctx context.Context, in *Input) ([]sdk.Finding, error)
}

// Options configure an Engine.
type Options struct {
	// Policy steers the scan; policies.Default() is the usual choice. It is
	// required: an engine never guesses a policy.
	Policy *sdk.Policy
	// Packs replaces the built-in Wasm packs (tests, native benchmarks).
	Packs []Pack
	// Plugins are extra Wasm rule plugins (custom rules) loaded beside the
	// built-in packs, keyed by name.
	Plugins map[string][]byte
	// CacheDir is wazero's compilation cache; empty picks
	// os.UserCacheDir()/toolwarden/wasm, "-" disables the disk cache.
	CacheDir string
	// CallTimeout is the per-call deadline of a rule plugin
	// (DefaultCallTimeout when zero).
	CallTimeout time.Duration
	// PoolSize is the number of instances per plugin (default NumCPU).
	PoolSize int
	// MaxContentBytes bounds the content of one scan.
	MaxContentBytes int
	// CheckedBuiltins loads the built-in packs with wazero's interrupt
	// check too, like custom plugins: about 3× slower scans, for a
	// deployment that prefers every call stoppable over the bounded-work
	// guarantee (and for benchmarks that measure the difference).
	CheckedBuiltins bool
	// AuditLogPath overrides Policy.AuditLogPath.
	AuditLogPath string
}

// Engine scans requests. Create it with New; Close it to free the Wasm
// runtime and the audit log.
type Engine struct {
	opts   Options
	policy atomic.Pointer[sdk.Policy]
	// config is the policy as ABI v2 plugins receive it (configure once
	// per version), swapped with policy.
	config atomic.Pointer[wasmhost.Config]
	host   *wasmhost.Host
	mu     sync.RWMutex
	packs  []Pack
	// custom is the set of managed (uploaded) plugins, swapped whole by
	// SwapCustom; read together with packs under mu.
	custom *packSet
	audit  *audit.Writer
}

// packSet is one generation of the managed plugins. Every scan holds the
// set it started with (inflight) until its packs have all returned, so a
// swap never mixes two sets in one scan and never closes a plugin a scan
// still uses.
type packSet struct {
	packs    []Pack
	inflight sync.WaitGroup
}

// PackMode is implemented by packs that do not always decide, e.g.
// uploaded plugins in monitor mode or with a fail-open failure policy.
// Their findings (monitor) or failures (fail open) are recorded in the
// report's telemetry attributes (tool.safety.monitor_findings) and so in
// the audit log, and the decision is what it would be without them.
type PackMode interface {
	// MonitorOnly reports that none of the pack's findings decide.
	MonitorOnly() bool
	// FailOpen reports that the pack's failures do not decide (the
	// RULE_PLUGIN_ERROR finding is recorded as a monitor finding).
	FailOpen() bool
}

// AttrMonitorFindings and AttrMonitorRuleIDs are the telemetry attributes
// that carry the findings of monitor-mode packs and the failures of
// fail-open packs: recorded, never deciding.
const (
	AttrMonitorFindings = "tool.safety.monitor_findings"
	AttrMonitorRuleIDs  = "tool.safety.monitor_rule_ids"
)

// New builds an Engine: it compiles and pre-warms every rule pack and opens
// the audit log. It fails when the built-in packs are missing from the
// binary, when a plugin does not load, or when the audit log cannot be
// opened — a scanner that could not run its rules must not start.
func New(ctx context.Context, opts Options) (*Engine, error) {
	if opts.Policy == nil {
		return nil, errors.New("engine: Options.Policy is required")
	}
	e := &Engine{opts: opts}
	e.policy.Store(opts.Policy)
	e.config.Store(wasmhost.NewConfig(opts.Policy))
	if opts.Packs != nil {
		e.packs = append(e.packs, opts.Packs...)
	}
	if opts.Packs == nil || len(opts.Plugins) > 0 {
		cache := opts.CacheDir
		if cache == "" {
			if dir, err := os.UserCacheDir(); err == nil {
				cache = filepath.Join(dir, "toolwarden", "wasm")
			}
		}
		if cache == "-" {
			cache = ""
		}
		timeout := opts.CallTimeout
		if timeout == 0 {
			timeout = DefaultCallTimeout
		}
		host, err := wasmhost.New(ctx, wasmhost.Options{CacheDir: cache, CallTimeout: timeout, PoolSize: opts.PoolSize,
			OnQuarantine: telemetry.RuleInstanceQuarantined})
		if err != nil {
			return nil, fmt.Errorf("engine: start wasm host: %w", err)
		}
		e.host = host
	}
	if opts.Packs == nil {
		packs, err := builtin.Packs()
		if err != nil {
			e.Close(ctx)
			return nil, fmt.Errorf("engine: %w", err)
		}
		for _, p := range packs {
			// First-party and bounded by construction (RATIONALE.md,
			// "Built-in packs without the interrupt check"); custom
			// plugins below always run with the check.
			load := e.host.LoadBounded
			if opts.CheckedBuiltins {
				load = e.host.Load
			}
			pl, err := load(ctx, p.Name, p.Wasm)
			if err != nil {
				e.Close(ctx)
				return nil, fmt.Errorf("engine: load built-in pack %s: %w", p.Name, err)
			}
			e.packs = append(e.packs, pl)
		}
	}
	names := make([]string, 0, len(opts.Plugins))
	for name := range opts.Plugins {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if err := e.AddPlugin(ctx, name, opts.Plugins[name]); err != nil {
			e.Close(ctx)
			return nil, err
		}
	}
	if err := policies.CheckRuleIDs(opts.Policy, e.ruleIDs()); err != nil {
		e.Close(ctx)
		return nil, fmt.Errorf("engine: %w", err)
	}
	path := opts.AuditLogPath
	if path == "" {
		path = opts.Policy.AuditLogPath
	}
	if path != "" {
		w, err := audit.Open(path)
		if err != nil {
			e.Close(ctx)
			return nil, fmt.Errorf("engine: open audit log: %w", err)
		}
		e.audit = w
	}
	return e, nil
}

// AddPlugin compiles and loads a custom Wasm rule plugin; later scans run it
// beside the built-in packs. A plugin with the same name is replaced.
func (e *Engine) AddPlugin(ctx context.Context, name string, wasm []byte) error {
	if e.host == nil {
		return fmt.Errorf("engine: load plugin %s: engine runs native packs only", name)
	}
	pl, err := e.host.Load(ctx, name, wasm)
	if err != nil {
		return fmt.Errorf("engine: load plugin %s: %w", name, err)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	for i, p := range e.packs {
		if p.Info().Name == pl.Info().Name {
			old := e.packs[i]
			e.packs[i] = pl
			if c, ok := old.(*wasmhost.Plugin); ok {
				_ = c.Close(ctx)
			}
			return nil
		}
	}
	e.packs = append(e.packs, pl)
	return nil
}

// ruleIDs lists the rule ids of the loaded packs and plugins and those the
// host emits itself: what a policy's rules overrides may name.
func (e *Engine) ruleIDs() []string {
	ids := []string{RulePluginError}
	for _, info := range e.Plugins() {
		for _, r := range info.Rules {
			ids = append(ids, r.ID)
		}
	}
	return ids
}

// Plugins describes the loaded packs and plugins.
func (e *Engine) Plugins() []sdk.PluginInfo {
	e.mu.RLock()
	defer e.mu.RUnlock()
	out := make([]sdk.PluginInfo, 0, len(e.packs))
	for _, p := range e.packs {
		out = append(out, p.Info())
	}
	if e.custom != nil {
		for _, p := range e.custom.packs {
			out = append(out, p.Info())
		}
	}
	return out
}

// BuiltinPlugins describes the packs loaded at start (built-in packs and
// Options.Plugins), without the managed set.
func (e *Engine) BuiltinPlugins() []sdk.PluginInfo {
	e.mu.RLock()
	defer e.mu.RUnlock()
	out := make([]sdk.PluginInfo, 0, len(e.packs))
	for _, p := range e.packs {
		out = append(out, p.Info())
	}
	return out
}

// SwapCustom replaces the managed plugin set atomically: scans that start
// afterwards run on packs, scans under way finish on the set they started
// with. The returned channel is closed once no scan uses the previous set
// any more, so the caller may then close the plugins it dropped.
func (e *Engine) SwapCustom(packs []Pack) <-chan struct{} {
	next := &packSet{packs: append([]Pack(nil), packs...)}
	e.mu.Lock()
	old := e.custom
	e.custom = next
	e.mu.Unlock()
	drained := make(chan struct{})
	go func() {
		if old != nil {
			old.inflight.Wait()
		}
		close(drained)
	}()
	return drained
}

// acquirePacks returns the packs a scan runs on — the start-up packs and
// the managed set current now, or the set a shadow run put in ctx — and a
// func that releases the managed set when the scan is done with it.
func (e *Engine) acquirePacks(ctx context.Context) ([]Pack, func()) {
	e.mu.RLock()
	defer e.mu.RUnlock()
	set := e.custom
	if o, ok := ctx.Value(customSetKey{}).(*packSet); ok {
		set = o
	}
	if set == nil || len(set.packs) == 0 {
		return e.packs, func() {}
	}
	set.inflight.Add(1)
	packs := make([]Pack, 0, len(e.packs)+len(set.packs))
	packs = append(append(packs, e.packs...), set.packs...)
	return packs, set.inflight.Done
}

type customSetKey struct{}

// ScanWithCustom scans req with the start-up packs and custom in place of
// the managed set, without observing or auditing the report: what a
// shadow run of a candidate set compares against the live decision.
func (e *Engine) ScanWithCustom(ctx context.Context, req Request, custom []Pack) (*sdk.SafetyReport, error) {
	ctx = context.WithValue(ctx, customSetKey{}, &packSet{packs: custom})
	rep, _, err := e.scanWithFacts(ctx, req, false)
	return rep, err
}

// Health reports whether every rule pack can still take scans: an error
// when an instance of a built-in pack overran its deadline and is still
// running (quarantined; its scan failed closed). The server's /readyz
// reports it as degraded.
func (e *Engine) Health() error {
	packs, done := e.acquirePacks(context.Background())
	defer done()
	var errs []error
	for _, p := range packs {
		pl, ok := p.(*wasmhost.Plugin)
		if !ok {
			continue
		}
		if s := pl.Stats(); s.Stuck > 0 {
			errs = append(errs, fmt.Errorf("rule pack %s: %d instance(s) stuck past the deadline (quarantined)", pl.Name(), s.Stuck))
		}
	}
	return errors.Join(errs...)
}

// Policy returns the policy in force.
func (e *Engine) Policy() *sdk.Policy { return e.policy.Load() }

// SetPolicy swaps the policy for later scans; scans under way keep theirs.
func (e *Engine) SetPolicy(p *sdk.Policy) {
	if p != nil {
		e.config.Store(wasmhost.NewConfig(p))
		e.policy.Store(p)
	}
}

// Close releases the Wasm runtime and the audit log.
func (e *Engine) Close(ctx context.Context) error {
	var errs []error
	if e.host != nil {
		errs = append(errs, e.host.Close(ctx))
	}
	if e.audit != nil {
		errs = append(errs, e.audit.Close())
	}
	return errors.Join(errs...)
}

// Scan analyzes req and judges it with every pack. It returns an error only
// for a request it cannot scan at all (content over the size bound, an
// unknown language); everything that goes wrong inside the rules is a
// finding in the report.
func (e *Engine) Scan(ctx context.Context, req Request) (*sdk.SafetyReport, error) {
	rep, _, err := e.ScanWithFacts(ctx, req)
	return rep, err
}

// UsesNetwork reports whether the facts show any network use (static or
// dynamic destinations, sockets, /dev/tcp). Executors run content without
// it in a private network namespace.
func UsesNetwork(f *sdk.Facts) bool { return f != nil && len(f.Network) > 0 }

// ScanWithFacts is Scan that also returns the facts the rules judged, for
// callers that act on them (the run's network isolation).
func (e *Engine) ScanWithFacts(ctx context.Context, req Request) (*sdk.SafetyReport, *sdk.Facts, error) {
	return e.scanWithFacts(ctx, req, true)
}

// scanWithFacts is ScanWithFacts; observe says whether the report is
// observed and audited here (ScanStaged observes the merged report once).
func (e *Engine) scanWithFacts(ctx context.Context, req Request, observe bool) (*sdk.SafetyReport, *sdk.Facts, error) {
	start := time.Now()
	cfg := e.configFor(ctx)
	pol := cfg.Policy
	facts, err := analyze.Analyze(req.Language, req.Content, analyze.Options{MaxBytes: e.opts.MaxContentBytes})
	if err != nil {
		return nil, nil, fmt.Errorf("scan: %w", err)
	}
	st := scanStates.Get().(*scanState)
	defer st.put()
	st.in = sdk.ScanInput{
		Facts:    facts,
		Content:  req.Content,
		Language: facts.Language,
		Policy:   pol,
		Context: sdk.RequestContext{
			ToolName:       req.ToolName,
			Cwd:            req.Cwd,
			TimeoutSeconds: req.TimeoutSeconds,
			MaxOutputBytes: req.MaxOutputBytes,
			CommandArgs:    req.CommandArgs,
			EnvKeys:        envKeys(req.Env),
			Metadata:       req.Metadata,
		},
	}
	input := &st.input
	input.Scan, input.Config = &st.in, cfg
	enforced, monitored := e.runPacks(ctx, input, pol)
	findings := dropAllowedEnvHooks(enforced, pol)
	// Every pack has returned and none keeps the input (see Pack.Judge),
	// so its encodings are free for the next scan.
	input.Release()

	id := req.ScanID
	if id == "" {
		id = newScanID()
	}
	rep := report.Build(report.Meta{
		ScanID:   id,
		ToolName: req.ToolName,
		Language: facts.Language,
		Start:    start,
		Elapsed:  time.Since(start),
	}, findings, pol)
	if len(facts.Secrets) > 0 && !rep.Sanitized {
		// The content held secret literals; findings quote them only in
		// redacted form (sdk.Secret.Redacted), so the report is sanitized
		// even when no evidence needed rewriting here.
		rep.Sanitized = true
		rep.TelemetryAttributes["tool.safety.sanitized"] = true
	}
	if len(monitored) > 0 {
		// Redacted and policy-filtered like decided findings.
		mrep := report.Build(report.Meta{ScanID: id, ToolName: req.ToolName, Language: facts.Language, Start: start}, monitored, pol)
		if len(mrep.Findings) > 0 {
			rep.TelemetryAttributes[AttrMonitorFindings] = mrep.Findings
			rep.TelemetryAttributes[AttrMonitorRuleIDs] = strings.Join(mrep.RuleIDs(), ",")
		}
	}
	if observe {
		e.observe(ctx, rep)
	}
	return rep, facts, nil
}

// newScanID returns a random (version 4) UUID, as uuid.NewString does but
// read into a stack buffer: uuid.NewRandom reads through an io.Reader,
// which costs an allocation per scan.
func newScanID() string {
	var u uuid.UUID
	_, _ = rand.Read(u[:])  // crypto/rand.Read never fails (it crashes the process instead)
	u[6] = u[6]&0x0f | 0x40 // version 4
	u[8] = u[8]&0x3f | 0x80 // variant RFC 4122
	return u.String()
}

// scanState is the input of one scan to its packs, pooled: no pack keeps
// it past its Judge call (see Pack), so once they have all returned it is
// free for the next scan.
type scanState struct {
	in    sdk.ScanInput
	input wasmhost.Input
}

var scanStates = sync.Pool{New: func() any { return new(scanState) }}

// put releases the state's encodings, drops its references and pools it.
func (st *scanState) put() {
	st.input.Release()
	st.input.Scan, st.input.Config = nil, nil
	st.in = sdk.ScanInput{}
	scanStates.Put(st)
}

// observe records a finished report in telemetry and the audit log.
func (e *Engine) observe(ctx context.Context, rep *sdk.SafetyReport) {
	telemetry.Observe(ctx, rep)
	if e.audit != nil {
		if err := e.audit.Write(rep); err != nil {
			// The decision stands; a lost audit line is reported loudly.
			fmt.Fprintf(os.Stderr, "toolwarden: audit log write failed for scan %s: %v\n", rep.ScanID, err)
		}
	}
}

// runPacks runs every pack on input concurrently and turns each failure into
// a RULE_PLUGIN_ERROR finding. It returns the findings that decide and,
// apart, those that are only recorded (see PackMode).
func (e *Engine) runPacks(ctx context.Context, input *wasmhost.Input, pol *sdk.Policy) (enforced, monitored []sdk.Finding) {
	packs, done := e.acquirePacks(ctx)
	defer done()
	if len(packs) == 1 {
		// The usual case (the built-in core pack alone): no goroutine, no
		// result slices.
		r, failed := scanPack(ctx, packs[0], input, pol)
		if m, ok := packs[0].(PackMode); ok && (m.MonitorOnly() || failed && m.FailOpen()) {
			return nil, r
		}
		return r, nil
	}
	results := make([][]sdk.Finding, len(packs))
	failed := make([]bool, len(packs))
	var wg sync.WaitGroup
	for i := 1; i < len(packs); i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			results[i], failed[i] = scanPack(ctx, packs[i], input, pol)
		}(i)
	}
	if len(packs) > 0 {
		results[0], failed[0] = scanPack(ctx, packs[0], input, pol)
	}
	wg.Wait()
	for i, r := range results {
		if m, ok := packs[i].(PackMode); ok && (m.MonitorOnly() || failed[i] && m.FailOpen()) {
			monitored = append(monitored, r...)
			continue
		}
		enforced = append(enforced, r...)
	}
	return enforced, monitored
}

func scanPack(ctx context.Context, p Pack, input *wasmhost.Input, pol *sdk.Policy) ([]sdk.Finding, bool) {
	fs, err := p.Judge(ctx, input)
	if err == nil {
		return fs, false
	}
	return []sdk.Finding{PluginErrorFinding(p.Info().Name, err, pol)}, true
}

// PluginErrorFinding is the fail-closed finding for a rule pack that could
// not judge the content: needs_human_review, or deny when the policy blocks
// reviews anyway (strict).
func PluginErrorFinding(plugin string, err error, pol *sdk.Policy) sdk.Finding {
	dec := sdk.NeedsHumanReview
	if pol != nil && pol.BlockOnReview {
		dec = sdk.Deny
	}
	return sdk.Finding{
		RuleID:         RulePluginError,
		RiskType:       sdk.RiskTypeUnknown,
		RiskLevel:      sdk.RiskMedium,
		Decision:       dec,
		Evidence:       "",
		Message:        fmt.Sprintf("Rule plugin %s failed, so its rules could not judge this content: %v.", plugin, err),
		Metadata:       map[string]any{"plugin": plugin},
		Recommendation: "Review the content manually and check the plugin's health; the scan fails closed while a plugin fails.",
	}
}

func envKeys(env map[string]string) []string {
	if len(env) == 0 {
		return nil
	}
	keys := make([]string, 0, len(env))
	for k := range env {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
