// Package wasmhost runs toolwarden's safety rules, shipped as WebAssembly
// modules that speak the rule ABI (sdk/ABI.md), inside wazero.
//
// A rule plugin is untrusted code: it gets no filesystem, network,
// environment, arguments or clock of the host, a capped linear memory and a
// deadline per call. Each loaded Plugin keeps a bounded, pre-warmed pool of
// instances so that a scan does not pay Go's multi-millisecond instantiation;
// an instance that errors, traps or times out is thrown away (and replaced
// lazily) because its memory can no longer be trusted. Every failure is
// returned as an error so that the engine fails closed with a
// RULE_PLUGIN_ERROR finding; nothing here turns an error into "no findings".
package wasmhost

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"
	"github.com/toolwarden/toolwarden/sdk"
)

// Defaults applied by New to zero Options fields. They follow the measured
// cost of Go guests: 4–11 MiB per instance, so 64 MiB leaves headroom for a
// large facts document while bounding a runaway plugin.
const (
	DefaultMemoryLimitBytes  = 64 << 20
	DefaultCallTimeout       = 100 * time.Millisecond
	DefaultRecycleAfterCalls = 10000
	DefaultRecycleAboveBytes = 32 << 20
	// DefaultMaxBoundedInputBytes caps the input a bounded (built-in)
	// plugin is given. Its worst-case work is linear in the input, so the
	// cap bounds the time of one call: at the guest's measured worst case
	// (TestBoundedWorkPerInputByte) 16 MiB stays far inside the deadline.
	// The facts of the largest content a scan accepts (1 MiB) encode to
	// about 10 MiB.
	DefaultMaxBoundedInputBytes = 16 << 20
)

const (
	pageSize = 65536
	// maxResultBytes caps a describe or scan result so that a plugin
	// cannot make the host copy its whole memory.
	maxResultBytes = 8 << 20
	// maxFindings caps the findings of one scan for the same reason.
	maxFindings = 10000
)

// minInitTimeout bounds instantiation (which runs the guest's _initialize,
// i.e. Go's runtime and package init) and the describe call at load. It is
// longer than a scan deadline because instantiating a Go module takes
// milliseconds even on an idle machine, but it is still a bound: an init
// that never returns must not hang Load. A variable so tests can shorten it.
var minInitTimeout = 5 * time.Second

// ErrCallTimeout is wrapped by errors from a plugin call that overran
// Options.CallTimeout, so callers can tell a slow rule from a broken one.
var ErrCallTimeout = errors.New("rule call exceeded its deadline")

// ErrClosed is wrapped by errors from a Host or Plugin used after Close.
var ErrClosed = errors.New("wasm host closed")

// Options configure a Host. The zero value is usable: every zero field takes
// its documented default.
type Options struct {
	// CacheDir is the on-disk compilation cache ("" = in-memory only). With
	// it, a restart loads a plugin in tens of milliseconds instead of
	// seconds of native compilation.
	CacheDir string
	// MemoryLimitBytes caps each instance's linear memory, default 64 MiB.
	// It is rounded down to whole 64 KiB pages.
	MemoryLimitBytes uint64
	// CallTimeout is the deadline of one scan call, default 100ms.
	CallTimeout time.Duration
	// PoolSize is the number of instances per plugin, and so the number of
	// concurrent scans of one plugin; default runtime.NumCPU().
	PoolSize int
	// RecycleAfterCalls replaces an instance after this many calls, default
	// 10000, so that slow leaks in a guest never accumulate.
	RecycleAfterCalls int
	// RecycleAboveBytes replaces an instance whose memory has grown past
	// this size, default 32 MiB: wasm memory never shrinks.
	RecycleAboveBytes uint64
	// MaxBoundedInputBytes caps the input of a plugin loaded with
	// LoadBounded, default DefaultMaxBoundedInputBytes; a larger input is
	// refused (the caller fails closed) instead of being judged without
	// the interrupt check.
	MaxBoundedInputBytes int
	// MaxStuckInstances caps the quarantined instances of bounded plugins
	// still running, over the whole host; at the cap bounded plugins refuse
	// scans (the engine fails closed) until one returns. Each stuck
	// instance holds one of the Go scheduler's processors (code compiled
	// without the check cannot be preempted), so the default,
	// max(1, GOMAXPROCS/2), keeps half the cores for the rest of the
	// service.
	MaxStuckInstances int
	// OnQuarantine, when set, is called with the plugin's name each time
	// an instance of a bounded plugin overruns its deadline and is
	// quarantined (the engine counts them in a Prometheus metric). It
	// must not block.
	OnQuarantine func(plugin string)
}

func (o Options) withDefaults() (Options, error) {
	if o.MemoryLimitBytes == 0 {
		o.MemoryLimitBytes = DefaultMemoryLimitBytes
	}
	if o.CallTimeout == 0 {
		o.CallTimeout = DefaultCallTimeout
	}
	if o.PoolSize == 0 {
		o.PoolSize = runtime.NumCPU()
	}
	if o.RecycleAfterCalls == 0 {
		o.RecycleAfterCalls = DefaultRecycleAfterCalls
	}
	if o.RecycleAboveBytes == 0 {
		o.RecycleAboveBytes = DefaultRecycleAboveBytes
	}
	if o.MaxStuckInstances == 0 {
		o.MaxStuckInstances = max(1, runtime.GOMAXPROCS(0)/2)
	}
	if o.MaxBoundedInputBytes == 0 {
		o.MaxBoundedInputBytes = DefaultMaxBoundedInputBytes
	}
	switch {
	case o.MemoryLimitBytes < pageSize:
		return o, fmt.Errorf("memory limit %d bytes is below one 64 KiB page", o.MemoryLimitBytes)
	case o.MemoryLimitBytes > 65536*pageSize:
		return o, fmt.Errorf("memory limit %d bytes is above the 4 GiB wasm32 maximum", o.MemoryLimitBytes)
	case o.CallTimeout < 0:
		return o, fmt.Errorf("call timeout %s is negative", o.CallTimeout)
	case o.PoolSize < 0:
		return o, fmt.Errorf("pool size %d is negative", o.PoolSize)
	case o.RecycleAfterCalls < 0:
		return o, fmt.Errorf("recycle-after-calls %d is negative", o.RecycleAfterCalls)
	case o.MaxStuckInstances < 0:
		return o, fmt.Errorf("max stuck instances %d is negative", o.MaxStuckInstances)
	case o.MaxBoundedInputBytes < 0:
		return o, fmt.Errorf("max bounded input %d bytes is negative", o.MaxBoundedInputBytes)
	}
	return o, nil
}

// Host owns the wazero runtimes (and their compilation caches) shared by
// every plugin it loads: one with the interrupt check, for every plugin
// loaded with Load, and one without it, for the first-party plugins loaded
// with LoadBounded. It is safe for concurrent use.
type Host struct {
	opts   Options
	rt     wazero.Runtime
	cache  wazero.CompilationCache
	modCfg wazero.ModuleConfig
	// brt runs bounded plugins without the interrupt check. It has its own
	// compilation cache (in memory and on disk): wazero keys compiled code
	// by the module's hash only, not by whether the checks were compiled
	// in, so sharing a cache could hand checked code to brt or — the
	// dangerous way — unchecked code to rt.
	brt     wazero.Runtime
	bcache  wazero.CompilationCache
	mu      sync.Mutex
	plugins map[*Plugin]struct{}
	closed  bool
	// stuck counts the quarantined instances still running, host-wide.
	stuck atomic.Int64
}

// New creates a Host. It instantiates wasi_snapshot_preview1 (Go guests
// import it) with nothing mounted: no files, no environment, no arguments,
// no real clock, stdout and stderr discarded.
func New(ctx context.Context, opts Options) (*Host, error) {
	opts, err := opts.withDefaults()
	if err != nil {
		return nil, fmt.Errorf("wasm host options: %w", err)
	}
	// The interrupt check is the only way to stop a guest loop, so every
	// plugin that is not first-party runs with it.
	rt, cache, err := newRuntime(ctx, opts, opts.CacheDir, true)
	if err != nil {
		return nil, err
	}
	bdir := ""
	if opts.CacheDir != "" {
		bdir = filepath.Join(opts.CacheDir, boundedCacheSubdir)
	}
	brt, bcache, err := newRuntime(ctx, opts, bdir, false)
	if err != nil {
		_ = rt.Close(ctx)
		_ = cache.Close(ctx)
		return nil, err
	}
	return &Host{
		opts:   opts,
		rt:     rt,
		cache:  cache,
		brt:    brt,
		bcache: bcache,
		// The zero ModuleConfig already discards stdout/stderr and gives
		// no FS, env, args, or real clocks; only the reactor entry point
		// and the anonymous name (so instances can coexist) are set.
		modCfg:  wazero.NewModuleConfig().WithStartFunctions("_initialize").WithName(""),
		plugins: map[*Plugin]struct{}{},
	}, nil
}

// boundedCacheSubdir is the folder under Options.CacheDir that holds the
// code compiled without the interrupt check, apart from the checked code.
const boundedCacheSubdir = "bounded"

// newRuntime creates a runtime with the memory cap, the interrupt check on
// or off, a compilation cache of its own in dir ("" = in memory only) and
// wasi_snapshot_preview1 instantiated.
func newRuntime(ctx context.Context, opts Options, dir string, checked bool) (wazero.Runtime, wazero.CompilationCache, error) {
	cfg := wazero.NewRuntimeConfig().
		WithCloseOnContextDone(checked).
		WithMemoryLimitPages(uint32(opts.MemoryLimitBytes / pageSize))
	var cache wazero.CompilationCache
	if dir != "" {
		var err error
		cache, err = wazero.NewCompilationCacheWithDir(dir)
		if err != nil {
			return nil, nil, fmt.Errorf("wasm compilation cache %s: %w", dir, err)
		}
	} else {
		cache = wazero.NewCompilationCache()
	}
	cfg = cfg.WithCompilationCache(cache)
	rt := wazero.NewRuntimeWithConfig(ctx, cfg)
	if _, err := wasi_snapshot_preview1.Instantiate(ctx, rt); err != nil {
		_ = rt.Close(ctx)
		_ = cache.Close(ctx)
		return nil, nil, fmt.Errorf("instantiate wasi_snapshot_preview1: %w", err)
	}
	return rt, cache, nil
}

// Options returns the effective options, defaults applied.
func (h *Host) Options() Options { return h.opts }

// Close closes every plugin the host loaded, then the runtime and the
// compilation cache. Scans still running are stopped by the runtime closing
// their instances and return errors.
func (h *Host) Close(ctx context.Context) error {
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return nil
	}
	h.closed = true
	plugins := make([]*Plugin, 0, len(h.plugins))
	for p := range h.plugins {
		plugins = append(plugins, p)
	}
	h.mu.Unlock()

	var errs []error
	// Close the checked runtime first: it interrupts calls in flight, so
	// the plugin Close below never waits on a stuck scan. (A bounded
	// plugin's slot never waits on its calls past their deadline either:
	// see Plugin.boundedCall.)
	if err := h.rt.Close(ctx); err != nil {
		errs = append(errs, fmt.Errorf("close wasm runtime: %w", err))
	}
	for _, p := range plugins {
		if err := p.Close(ctx); err != nil {
			errs = append(errs, err)
		}
	}
	// Instances still running past their deadline in the unchecked
	// runtime are not pulled from under their goroutines (those close
	// their instance when they return); the runtime's other modules are
	// closed.
	if err := h.brt.Close(ctx); err != nil {
		errs = append(errs, fmt.Errorf("close bounded wasm runtime: %w", err))
	}
	for _, c := range []wazero.CompilationCache{h.cache, h.bcache} {
		if err := c.Close(ctx); err != nil {
			errs = append(errs, fmt.Errorf("close wasm compilation cache: %w", err))
		}
	}
	return errors.Join(errs...)
}

func (h *Host) forget(p *Plugin) {
	h.mu.Lock()
	delete(h.plugins, p)
	h.mu.Unlock()
}

// Validate compiles and describes a plugin in a throwaway host with default
// options and returns its declared rules; it is what an upload path calls
// before accepting a .wasm file.
func Validate(ctx context.Context, wasm []byte) (_ sdk.PluginInfo, err error) {
	h, err := New(ctx, Options{PoolSize: 1})
	if err != nil {
		return sdk.PluginInfo{}, err
	}
	defer func() {
		if cerr := h.Close(ctx); cerr != nil && err == nil {
			err = cerr
		}
	}()
	p, err := h.Load(ctx, "validate", wasm)
	if err != nil {
		return sdk.PluginInfo{}, err
	}
	return p.Info(), nil
}
