package wasmhost

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/experimental"
	"github.com/toolwarden/toolwarden/sdk"
	"github.com/toolwarden/toolwarden/sdk/layout"
)

// Plugin is one loaded rule module with its pool of instances. It is safe
// for concurrent use; at most Options.PoolSize scans run at once and the rest
// wait for an instance (or for their context).
type Plugin struct {
	host     *Host
	name     string
	rt       wazero.Runtime
	bounded  bool
	compiled wazero.CompiledModule
	info     sdk.PluginInfo
	rules    map[string]sdk.RuleInfo
	// abi is the plugin's abi_version: 1 (JSON scan) or 2 (layout
	// scan_v2 after configure; scan may be exported too).
	abi uint32
	// hasScan says the module exports v1's JSON scan (every v1 module,
	// and v2 modules that keep it, like the Go kit's).
	hasScan bool
	// sel is what a v2 plugin's describe declared interest in (nil: all).
	sel *layout.Selection
	// settings are this plugin's configure settings, settingsVer their
	// version (see SetSettings).
	settingsMu  sync.Mutex
	settings    map[string]any
	settingsVer atomic.Uint64

	// slots holds PoolSize entries: a ready instance or nil for a slot whose
	// instance was discarded and will be re-created by the next acquirer.
	slots   chan *instance
	closing chan struct{}
	// warmed is closed when the background pre-warm has put every slot
	// in the pool (see Warmed).
	warmed    chan struct{}
	closeOnce sync.Once
	closeErr  error

	waiting, calls, instantiated, discarded, recycled, inputAllocs atomic.Int64
	// skipped counts v2 scans not run because nothing in them was of
	// interest; configures the configure calls made.
	skipped, configures atomic.Int64
	// quarantined counts the instances of a bounded plugin abandoned at a
	// deadline; stuck those of them still running.
	quarantined, stuck atomic.Int64
}

// Stats is a snapshot of a plugin's pool, for metrics and tests.
type Stats struct {
	PoolSize     int    // instance slots
	Available    int    // slots not in use (ready or to be re-created)
	Waiting      int64  // scans waiting for a slot now
	Calls        int64  // scan calls made
	Instantiated int64  // instances created, including pre-warming
	Discarded    int64  // instances thrown away after an error, trap or timeout
	Recycled     int64  // instances replaced after RecycleAfterCalls or RecycleAboveBytes
	InputAllocs  int64  // input buffers allocated in instances (kept and reused while inputs fit)
	Bounded      bool   // loaded with LoadBounded: runs without the interrupt check
	Quarantined  int64  // instances of a bounded plugin abandoned at a deadline, ever
	Stuck        int64  // quarantined instances still running now
	ABI          uint32 // the plugin's ABI version, 1 or 2
	Skipped      int64  // v2 scans skipped: no fact of interest (PluginInfo.Interests)
	Configures   int64  // v2 configure calls (once per instance and policy/settings version)
}

// instance is one instantiated module; it is used by one goroutine at a time.
type instance struct {
	mod                               api.Module
	abiVersion, describe, alloc, free api.Function
	scan                              api.Function
	// configure and scanV2 are ABI v2's exports (nil for a v1 plugin);
	// v2 says that the current call runs scanV2 (whose result the guest
	// keeps) rather than v1's scan; scanWith sets it per call.
	configure, scanV2 api.Function
	v2                bool
	// cfgKey is the configuration this instance last accepted (zero:
	// none yet).
	cfgKey configKey
	calls  int

	// in is the input buffer from an earlier alloc, kept for the next
	// scans of this instance while they fit (inCap bytes): two Wasm calls
	// fewer per scan. It is released with the instance.
	in, inCap uint32

	// state and done hand a bounded call's result from the goroutine that
	// runs it to the caller (see Plugin.boundedCall).
	state atomic.Int32
	done  chan callResult
	// deadline times the bounded calls of this instance, made once and
	// reset per call (a context.WithTimeout per call allocates); only the
	// caller that holds the instance uses it.
	deadline *time.Timer
}

// callResult is the outcome of one guest scan call.
type callResult struct {
	raw []byte
	err error
}

// States of a bounded call: the caller waits, the call has handed its
// result over, or the caller gave up at the deadline.
const (
	callRunning int32 = iota
	callFinished
	callAbandoned
)

// minInputBuffer is the smallest input buffer the host asks for, so that
// the small scans that dominate a busy server share one allocation.
const minInputBuffer = 16 << 10

type sig struct{ params, results []api.ValueType }

// exportSig is the required export signatures common to both ABIs.
var exportSig = map[string]sig{
	"abi_version": {nil, []api.ValueType{api.ValueTypeI32}},
	"describe":    {nil, []api.ValueType{api.ValueTypeI64}},
	"alloc":       {[]api.ValueType{api.ValueTypeI32}, []api.ValueType{api.ValueTypeI32}},
	"free":        {[]api.ValueType{api.ValueTypeI32}, nil},
}

// scanSig is the signature of scan (v1), scan_v2 and configure (v2).
var scanSig = sig{[]api.ValueType{api.ValueTypeI32, api.ValueTypeI32}, []api.ValueType{api.ValueTypeI64}}

// versionExports are the exports each ABI version requires beside
// exportSig; a v2 module may export v1's scan too.
var versionExports = map[uint32][]string{1: {"scan"}, 2: {"configure", "scan_v2"}}

// Load compiles wasm once (through the compilation cache), checks that it
// exports the ABI with the right signatures and imports nothing but WASI,
// checks abi_version, reads and validates describe, and pre-warms the pool
// (the first instance before it returns, the rest in the background: Warmed).
// name identifies the plugin in errors (e.g. its file name). The plugin
// runs with wazero's interrupt check, which stops a call at its deadline:
// every plugin that is not first-party is loaded this way.
func (h *Host) Load(ctx context.Context, name string, wasm []byte) (*Plugin, error) {
	return h.load(ctx, name, wasm, false)
}

// LoadBounded is Load for a first-party plugin whose worst-case work is
// bounded by construction (linear in its input, the input capped by
// Options.MaxBoundedInputBytes): the built-in rule packs, built by the
// project's CI and embedded in the binary. Its calls run without the
// interrupt check, about 3× faster, so a call cannot be stopped; instead
// the caller is answered with an ErrCallTimeout error at the deadline
// while the instance goes on running, quarantined: it is never returned to
// the pool, it is counted (Stats.Quarantined, Options.OnQuarantine), and
// while it runs Stats.Stuck is non-zero (the engine reports itself
// degraded). With Options.MaxStuckInstances stuck, bounded plugins refuse
// further scans until one returns.
// Never load uploaded or third-party code with it.
func (h *Host) LoadBounded(ctx context.Context, name string, wasm []byte) (*Plugin, error) {
	return h.load(ctx, name, wasm, true)
}

func (h *Host) load(ctx context.Context, name string, wasm []byte, bounded bool) (*Plugin, error) {
	h.mu.Lock()
	closed := h.closed
	h.mu.Unlock()
	if closed {
		return nil, fmt.Errorf("load wasm rule %s: %w", name, ErrClosed)
	}
	rt := h.rt
	if bounded {
		rt = h.brt
	}
	// Compile the module's functions on parallel workers: a cold start
	// (nothing in the compilation cache) is mostly this compilation.
	compiled, err := rt.CompileModule(experimental.WithCompilationWorkers(ctx, compileWorkers()), wasm)
	if err != nil {
		return nil, fmt.Errorf("load wasm rule %s: compile: %w", name, err)
	}
	p := &Plugin{
		host:     h,
		name:     name,
		rt:       rt,
		bounded:  bounded,
		compiled: compiled,
		slots:    make(chan *instance, h.opts.PoolSize),
		closing:  make(chan struct{}),
		warmed:   make(chan struct{}),
	}
	fail := func(err error) (*Plugin, error) {
		for len(p.slots) > 0 {
			if inst := <-p.slots; inst != nil {
				inst.close()
			}
		}
		_ = compiled.Close(ctx)
		return nil, fmt.Errorf("load wasm rule %s: %w", name, err)
	}
	if err := checkModule(compiled); err != nil {
		return fail(err)
	}
	_, p.hasScan = compiled.ExportedFunctions()["scan"]
	first, err := p.instantiate(ctx)
	if err != nil {
		return fail(err)
	}
	p.slots <- first
	info, err := p.describeAndCheck(ctx, first)
	if err != nil {
		return fail(err)
	}
	p.info = info
	if p.abi == sdk.ABIVersion2 {
		if p.sel, err = layout.NewSelection(info.Interests); err != nil {
			return fail(fmt.Errorf("describe: %w", err))
		}
	}
	p.rules = make(map[string]sdk.RuleInfo, len(info.Rules))
	for _, r := range info.Rules {
		p.rules[r.ID] = r
	}
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return fail(ErrClosed)
	}
	h.plugins[p] = struct{}{}
	h.mu.Unlock()
	// The first instance serves scans now; the rest of the pool is
	// instantiated in the background so the caller is ready sooner.
	go p.prewarm(context.WithoutCancel(ctx))
	return p, nil
}

// compileWorkers is the number of goroutines that compile a module's
// functions: every CPU the process may use.
func compileWorkers() int { return max(1, runtime.GOMAXPROCS(0)) }

// prewarm fills the pool's slots beyond the first, one instance each, and
// closes warmed. A slot whose instance fails to start, or that is reached
// after Close began, is put in empty (nil), so the next acquirer creates
// its instance or Close finds every slot: each slot is sent exactly once.
func (p *Plugin) prewarm(ctx context.Context) {
	defer close(p.warmed)
	for i := 1; i < cap(p.slots); i++ {
		var inst *instance
		select {
		case <-p.closing:
		default:
			inst, _ = p.instantiate(ctx)
		}
		p.slots <- inst
	}
}

// Warmed is closed once every instance of the pool has been created by
// the background pre-warm that Load starts (or its slot left empty, to be
// filled on first use). Scans need not wait for it: they use the instances
// already there, or wait for the next one like any scan finding the pool
// busy.
func (p *Plugin) Warmed() <-chan struct{} { return p.warmed }

// checkModule verifies the exports and imports of a compiled module before
// anything of it runs.
func checkModule(m wazero.CompiledModule) error {
	exports := m.ExportedFunctions()
	for name, want := range exportSig {
		if err := checkExport(exports, name, want); err != nil {
			return err
		}
	}
	// A module exporting scan must give it v1's signature whatever its
	// version; which of scan / scan_v2 is required is checked once
	// abi_version has answered (checkVersionExports).
	if _, ok := exports["scan"]; ok {
		if err := checkExport(exports, "scan", scanSig); err != nil {
			return err
		}
	}
	if _, ok := m.ExportedMemories()["memory"]; !ok {
		return errors.New(`missing exported memory "memory"`)
	}
	for _, def := range m.ImportedFunctions() {
		if mod, fn, _ := def.Import(); mod != wasiModule {
			return fmt.Errorf("imports %s.%s: only %s may be imported", mod, fn, wasiModule)
		}
	}
	return nil
}

func checkExport(exports map[string]api.FunctionDefinition, name string, want sig) error {
	def, ok := exports[name]
	if !ok {
		return fmt.Errorf("missing export %q (see sdk/ABI.md)", name)
	}
	if !sameTypes(def.ParamTypes(), want.params) || !sameTypes(def.ResultTypes(), want.results) {
		return fmt.Errorf("export %q has signature %v -> %v, want %v -> %v",
			name, typeNames(def.ParamTypes()), typeNames(def.ResultTypes()), typeNames(want.params), typeNames(want.results))
	}
	return nil
}

// checkVersionExports checks the exports ABI version v requires.
func checkVersionExports(m wazero.CompiledModule, v uint32) error {
	names, ok := versionExports[v]
	if !ok {
		return fmt.Errorf("abi_version %d, this host speaks %d and %d", v, sdk.ABIVersion, sdk.ABIVersion2)
	}
	exports := m.ExportedFunctions()
	for _, name := range names {
		if err := checkExport(exports, name, scanSig); err != nil {
			return fmt.Errorf("abi_version %d: %w", v, err)
		}
	}
	return nil
}

const wasiModule = "wasi_snapshot_preview1"

func sameTypes(a, b []api.ValueType) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func typeNames(ts []api.ValueType) []string {
	names := make([]string, len(ts))
	for i, t := range ts {
		names[i] = api.ValueTypeName(t)
	}
	return names
}

// instantiate creates one instance, running the guest's _initialize under
// a deadline.
func (p *Plugin) instantiate(ctx context.Context) (*instance, error) {
	ictx, cancel := context.WithTimeout(ctx, max(minInitTimeout, p.host.opts.CallTimeout))
	defer cancel()
	mod, err := p.rt.InstantiateModule(withGuestMemory(ictx), p.compiled, p.host.modCfg)
	if err != nil {
		return nil, fmt.Errorf("instantiate: %w", err)
	}
	p.instantiated.Add(1)
	return &instance{
		mod:        mod,
		abiVersion: mod.ExportedFunction("abi_version"),
		describe:   mod.ExportedFunction("describe"),
		alloc:      mod.ExportedFunction("alloc"),
		free:       mod.ExportedFunction("free"),
		scan:       mod.ExportedFunction("scan"),
		configure:  mod.ExportedFunction("configure"),
		scanV2:     mod.ExportedFunction("scan_v2"),
		done:       make(chan callResult, 1),
	}, nil
}

func (i *instance) close() { _ = i.mod.Close(context.Background()) }

// describeAndCheck calls abi_version and describe on inst and validates the
// declared rules.
func (p *Plugin) describeAndCheck(ctx context.Context, inst *instance) (sdk.PluginInfo, error) {
	cctx, cancel := context.WithTimeout(ctx, max(minInitTimeout, p.host.opts.CallTimeout))
	defer cancel()
	res, err := inst.abiVersion.Call(cctx)
	if err != nil {
		return sdk.PluginInfo{}, callErr(ctx, cctx, "abi_version", err)
	}
	v := uint32(res[0])
	if err := checkVersionExports(p.compiled, v); err != nil {
		return sdk.PluginInfo{}, err
	}
	p.abi = v
	res, err = inst.describe.Call(cctx)
	if err != nil {
		return sdk.PluginInfo{}, callErr(ctx, cctx, "describe", err)
	}
	raw, err := inst.take(cctx, res[0])
	if err != nil {
		return sdk.PluginInfo{}, fmt.Errorf("describe: %w", err)
	}
	info, err := ParsePluginInfo(raw)
	if err != nil {
		return sdk.PluginInfo{}, fmt.Errorf("describe: %w", err)
	}
	return info, nil
}

// take copies the buffer that a ptr<<32|len result points at out of guest
// memory and frees it in the guest.
func (i *instance) take(ctx context.Context, packed uint64) ([]byte, error) {
	out, err := i.copyOut(packed)
	if err != nil {
		return nil, err
	}
	if _, err := i.free.Call(ctx, uint64(uint32(packed>>32))); err != nil {
		return nil, fmt.Errorf("free result: %w", err)
	}
	return out, nil
}

// copyOut copies the buffer that a ptr<<32|len result points at out of
// guest memory.
func (i *instance) copyOut(packed uint64) ([]byte, error) {
	ptr, n := uint32(packed>>32), uint32(packed)
	if n == 0 {
		return nil, errors.New("empty result (ptr<<32|len has len 0)")
	}
	if n > maxResultBytes {
		return nil, fmt.Errorf("result of %d bytes exceeds the %d-byte limit", n, maxResultBytes)
	}
	view, ok := i.mod.Memory().Read(ptr, n)
	if !ok {
		return nil, fmt.Errorf("result ptr=%#x len=%d lies outside the %d-byte memory", ptr, n, i.mod.Memory().Size())
	}
	out := make([]byte, n)
	copy(out, view)
	return out, nil
}

// callErr names a failed guest call, marking deadline overruns with
// ErrCallTimeout while keeping the caller's own cancellation visible.
func callErr(parent, cctx context.Context, what string, err error) error {
	err = firstLine{err}
	if parent.Err() == nil && errors.Is(cctx.Err(), context.DeadlineExceeded) {
		return fmt.Errorf("%s: %w: %w", what, ErrCallTimeout, err)
	}
	return fmt.Errorf("%s: %w", what, err)
}

// firstLine shortens a wazero error to its first line: the wasm stack trace
// that follows is noise in a RULE_PLUGIN_ERROR finding. Unwrap keeps the
// original for errors.Is (e.g. sys.ExitError, context errors).
type firstLine struct{ err error }

func (f firstLine) Error() string {
	msg, _, _ := strings.Cut(f.err.Error(), "\n")
	return msg
}

func (f firstLine) Unwrap() error { return f.err }

// Name is the name the plugin was loaded under.
func (p *Plugin) Name() string { return p.name }

// Info returns the plugin's validated description (name, version, rules).
func (p *Plugin) Info() sdk.PluginInfo { return p.info }

// ABIVersion is the rule ABI the module speaks (sdk.ABIVersion or
// sdk.ABIVersion2), as its describe declared it.
func (p *Plugin) ABIVersion() int { return int(p.abi) }

// Stats returns a snapshot of the plugin's pool counters.
func (p *Plugin) Stats() Stats {
	return Stats{
		PoolSize:     cap(p.slots),
		Available:    len(p.slots),
		Waiting:      p.waiting.Load(),
		Calls:        p.calls.Load(),
		Instantiated: p.instantiated.Load(),
		Discarded:    p.discarded.Load(),
		Recycled:     p.recycled.Load(),
		InputAllocs:  p.inputAllocs.Load(),
		Bounded:      p.bounded,
		Quarantined:  p.quarantined.Load(),
		Stuck:        p.stuck.Load(),
		ABI:          p.abi,
		Skipped:      p.skipped.Load(),
		Configures:   p.configures.Load(),
	}
}

// Scan runs the plugin's scan export on input, the JSON of an
// sdk.ScanInput, and returns its findings with risk_type, risk_level and
// decision filled from the declared rule when the plugin left them empty.
//
// Any failure is an error, never an empty result: ScanOutput.Error, a
// finding for an undeclared rule, an invalid decision or risk, malformed
// output, a trap, a timeout (wrapping ErrCallTimeout), a bad pointer or
// length, or exhausting the memory cap. The instance involved is discarded.
func (p *Plugin) Scan(ctx context.Context, input []byte) ([]sdk.Finding, error) {
	if !p.hasScan {
		return nil, fmt.Errorf("wasm rule %s: speaks ABI %d without v1's scan export; use Judge", p.name, p.abi)
	}
	return p.scanWith(ctx, input, nil)
}

// scanWith runs one scan call: v1's scan on JSON input when cfg is nil,
// else configure (when the instance has not seen cfg yet) and scan_v2 on a
// layout input.
func (p *Plugin) scanWith(ctx context.Context, input []byte, cfg *Config) ([]sdk.Finding, error) {
	if err := ctx.Err(); err != nil {
		// Checked first so a dead context does not cost a pooled instance.
		return nil, fmt.Errorf("wasm rule %s: %w", p.name, err)
	}
	if p.bounded {
		if err := p.boundedAdmit(len(input)); err != nil {
			return nil, fmt.Errorf("wasm rule %s: %w", p.name, err)
		}
	}
	inst, err := p.acquire(ctx)
	if err != nil {
		return nil, fmt.Errorf("wasm rule %s: %w", p.name, err)
	}
	p.calls.Add(1)
	var raw []byte
	inst.v2 = cfg != nil
	if cfg != nil {
		if err := p.ensureConfigured(ctx, inst, cfg); err != nil {
			p.release(inst, true)
			return nil, fmt.Errorf("wasm rule %s: %w", p.name, err)
		}
	}
	if p.bounded {
		var abandoned bool
		raw, err, abandoned = p.boundedCall(ctx, inst, input)
		if abandoned {
			// The instance is still running; its goroutine closes it.
			// Its slot comes back empty, to be refilled by a fresh one.
			p.slots <- nil
			return nil, fmt.Errorf("wasm rule %s: %w", p.name, err)
		}
	} else {
		raw, err = p.call(ctx, inst, input)
	}
	var findings []sdk.Finding
	if err == nil {
		if cfg != nil {
			findings, err = p.checkOutputV2(raw)
		} else {
			findings, err = p.checkOutput(raw)
		}
	}
	// Output errors discard the instance too: a plugin that reports an
	// error or a recovered panic may have left its globals half-updated.
	p.release(inst, err != nil)
	if err != nil {
		return nil, fmt.Errorf("wasm rule %s: %w", p.name, err)
	}
	return findings, nil
}

// acquire takes a slot, waiting for one if all are busy, and instantiates a
// fresh instance when the slot is empty.
func (p *Plugin) acquire(ctx context.Context) (*instance, error) {
	var inst *instance
	select {
	case inst = <-p.slots:
	default:
		p.waiting.Add(1)
		select {
		case inst = <-p.slots:
			p.waiting.Add(-1)
		case <-ctx.Done():
			p.waiting.Add(-1)
			return nil, fmt.Errorf("wait for an instance: %w", ctx.Err())
		case <-p.closing:
			p.waiting.Add(-1)
			return nil, ErrClosed
		}
	}
	select {
	case <-p.closing:
		p.slots <- inst
		return nil, ErrClosed
	default:
	}
	if inst == nil {
		var err error
		if inst, err = p.instantiate(ctx); err != nil {
			p.slots <- nil
			return nil, err
		}
	}
	return inst, nil
}

// release returns inst's slot to the pool: with inst when it is healthy,
// empty when it failed or is due for recycling.
func (p *Plugin) release(inst *instance, failed bool) {
	inst.calls++
	switch {
	case failed:
		p.discarded.Add(1)
		inst.close()
		inst = nil
	case inst.calls >= p.host.opts.RecycleAfterCalls,
		uint64(inst.mod.Memory().Size()) > p.host.opts.RecycleAboveBytes:
		p.recycled.Add(1)
		inst.close()
		inst = nil
	}
	p.slots <- inst // never blocks: each slot taken is returned once
}

// call writes input into guest memory, runs scan under the per-call
// deadline and copies the result out.
func (p *Plugin) call(ctx context.Context, inst *instance, input []byte) ([]byte, error) {
	cctx, cancel := context.WithTimeout(ctx, p.host.opts.CallTimeout)
	defer cancel()
	in, n, err := p.stage(ctx, cctx, inst, input)
	if err != nil {
		return nil, err
	}
	return p.run(ctx, cctx, inst, in, n)
}

// stage copies input into the instance's input buffer, growing it first
// when input does not fit, and returns the buffer's address and the length.
func (p *Plugin) stage(ctx, cctx context.Context, inst *instance, input []byte) (in, n uint32, err error) {
	n = uint32(len(input))
	if uint64(len(input)) != uint64(n) {
		return 0, 0, fmt.Errorf("input of %d bytes does not fit wasm32", len(input))
	}
	if n > inst.inCap {
		p.inputAllocs.Add(1)
		if err := inst.growInput(ctx, cctx, n); err != nil {
			return 0, 0, err
		}
	}
	in = inst.in
	if !inst.mod.Memory().Write(in, input) {
		return 0, 0, fmt.Errorf("alloc(%d) returned ptr=%#x outside the %d-byte memory", inst.inCap, in, inst.mod.Memory().Size())
	}
	return in, n, nil
}

// run calls scan on the staged input and copies the result out.
func (p *Plugin) run(ctx, cctx context.Context, inst *instance, in, n uint32) ([]byte, error) {
	fn := inst.scan
	if inst.v2 {
		fn = inst.scanV2
	}
	res, err := fn.Call(cctx, uint64(in), uint64(n))
	if err != nil {
		// A trap says nothing about its cause; the memory size tells an
		// operator whether the cap was the reason.
		return nil, fmt.Errorf("%w (guest memory %d of %d bytes)", callErr(ctx, cctx, "scan", err),
			inst.mod.Memory().Size(), p.host.opts.MemoryLimitBytes)
	}
	var out []byte
	if inst.v2 {
		// scan_v2's result stays the guest's: copied, not freed.
		out, err = inst.copyOut(res[0])
	} else {
		out, err = inst.take(cctx, res[0])
	}
	if err != nil {
		return nil, fmt.Errorf("scan: %w", callErr(ctx, cctx, "result", err))
	}
	return out, nil
}

// growInput replaces the instance's input buffer with one of at least n
// bytes (a power of two, at least minInputBuffer), freeing the old one.
func (i *instance) growInput(ctx, cctx context.Context, n uint32) error {
	if i.inCap > 0 {
		if _, err := i.free.Call(cctx, uint64(i.in)); err != nil {
			return callErr(ctx, cctx, "free input", err)
		}
		i.in, i.inCap = 0, 0
	}
	size := uint64(minInputBuffer)
	for size < uint64(n) {
		size *= 2
	}
	if size > math.MaxUint32 {
		size = uint64(n)
	}
	res, err := i.alloc.Call(cctx, size)
	if err != nil {
		return callErr(ctx, cctx, "alloc", err)
	}
	ptr := uint32(res[0])
	if uint64(ptr)+size > uint64(i.mod.Memory().Size()) {
		return fmt.Errorf("alloc(%d) returned ptr=%#x outside the %d-byte memory", size, ptr, i.mod.Memory().Size())
	}
	i.in, i.inCap = ptr, uint32(size)
	return nil
}

// Close waits for the plugin's scans in flight (bounded by ctx), closes its
// instances and releases the compiled code. Later scans return ErrClosed.
func (p *Plugin) Close(ctx context.Context) error {
	p.closeOnce.Do(func() {
		close(p.closing)
		p.host.forget(p)
		for i := 0; i < cap(p.slots); i++ {
			select {
			case inst := <-p.slots:
				if inst != nil {
					inst.close()
				}
			case <-ctx.Done():
				p.closeErr = fmt.Errorf("close wasm rule %s: %d scans still running: %w", p.name, cap(p.slots)-i, ctx.Err())
				return
			}
		}
		// Every slot is back, the pre-warm's too: it is ending.
		<-p.warmed
		if err := p.compiled.Close(ctx); err != nil {
			p.closeErr = fmt.Errorf("close wasm rule %s: %w", p.name, err)
		}
	})
	return p.closeErr
}
