package plugins

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/toolwarden/toolwarden/internal/engine/wasmhost"
	"github.com/toolwarden/toolwarden/sdk"
)

// Limits are the defaults and bounds an uploaded plugin runs under, from
// the plugins: configuration; a manifest may lower or raise its own
// deadline, memory and pool within the manifest bounds.
type Limits struct {
	// MaxModuleBytes caps an upload (plugins.max_module_bytes, 16 MiB).
	MaxModuleBytes int
	// Deadline is the default per-call deadline (plugins.default_deadline).
	Deadline time.Duration
	// MemoryBytes is the default memory cap of one instance
	// (plugins.default_memory_pages × 64 KiB).
	MemoryBytes uint64
	// PoolSize is the default number of instances (plugins.default_pool_size).
	PoolSize int
	// CacheDir is wazero's compilation cache ("" = in memory).
	CacheDir string
	// AllowRuleOverride lets a manifest's override_rules share rule ids
	// with built-in packs or other plugins (plugins.allow_rule_override).
	AllowRuleOverride bool
	// AllowFailOpen lets a manifest ask for failure_policy: fail_open
	// (plugins.allow_fail_open).
	AllowFailOpen bool
	// Overrides are plugins.overrides: per plugin name, the deadline,
	// memory pages, pool size, mode and failure policy that replace the
	// manifest's where set. They apply when a revision is loaded to serve
	// (the upload's self-test runs under the manifest's own limits).
	Overrides map[string]Manifest
}

// apply returns m with the operator's overrides for name.
func (l Limits) apply(name string, m Manifest) Manifest {
	o, ok := l.Overrides[name]
	if !ok {
		return m
	}
	if o.Deadline > 0 {
		m.Deadline = o.Deadline
	}
	if o.MemoryPages > 0 {
		m.MemoryPages = o.MemoryPages
	}
	if o.PoolSize > 0 {
		m.PoolSize = o.PoolSize
	}
	if o.Mode != "" {
		m.Mode = o.Mode
	}
	if o.FailurePolicy != "" {
		m.FailurePolicy = o.FailurePolicy
	}
	return m
}

// Default limits.
const (
	DefaultMaxModuleBytes = 16 << 20
	DefaultDeadline       = 250 * time.Millisecond
	DefaultMemoryPages    = 1024 // 64 MiB
	DefaultPoolSize       = 2
)

func (l Limits) withDefaults() Limits {
	if l.MaxModuleBytes <= 0 {
		l.MaxModuleBytes = DefaultMaxModuleBytes
	}
	if l.Deadline <= 0 {
		l.Deadline = DefaultDeadline
	}
	if l.MemoryBytes == 0 {
		l.MemoryBytes = DefaultMemoryPages * 65536
	}
	if l.PoolSize <= 0 {
		l.PoolSize = DefaultPoolSize
	}
	return l
}

// hostOptions are the wasmhost options of one plugin under its manifest.
func (l Limits) hostOptions(m Manifest) wasmhost.Options {
	l = l.withDefaults()
	o := wasmhost.Options{CacheDir: l.CacheDir, CallTimeout: l.Deadline, MemoryLimitBytes: l.MemoryBytes, PoolSize: l.PoolSize}
	if m.Deadline > 0 {
		o.CallTimeout = time.Duration(m.Deadline)
	}
	if m.MemoryPages > 0 {
		o.MemoryLimitBytes = uint64(m.MemoryPages) * 65536
	}
	if m.PoolSize > 0 {
		o.PoolSize = m.PoolSize
	}
	return o
}

// Pack is a loaded revision as the engine runs it: the module in a host
// of its own (its own deadline, memory cap and pool), its settings spliced
// into the input, its mode and failure policy (engine.PackMode), and its
// counters.
type Pack struct {
	name, digest string
	host         *wasmhost.Host
	plugin       *wasmhost.Plugin
	manifest     Manifest
	failOpen     bool
	// config is `,"config":{…}}`: the JSON that replaces the input's
	// closing brace so the plugin sees its settings as ScanInput.config.
	config []byte
	stats  *pluginStats
}

// loadPack compiles and loads a module under its manifest's limits. The
// module always runs with wazero's interrupt check (wasmhost.Load).
func loadPack(ctx context.Context, name, digest string, module []byte, m Manifest, lim Limits, stats *pluginStats) (*Pack, error) {
	m = lim.apply(name, m)
	h, err := wasmhost.New(ctx, lim.hostOptions(m))
	if err != nil {
		return nil, fmt.Errorf("plugin %s: wasm host: %w", name, err)
	}
	p, err := h.Load(ctx, name, module)
	if err != nil {
		_ = h.Close(ctx)
		return nil, err
	}
	pk := &Pack{name: name, digest: digest, host: h, plugin: p, manifest: m, stats: stats,
		failOpen: m.EffectiveFailurePolicy() == FailOpen && lim.AllowFailOpen}
	if len(m.Settings) > 0 {
		b, err := json.Marshal(m.Settings)
		if err != nil {
			_ = h.Close(ctx)
			return nil, fmt.Errorf("plugin %s: manifest settings: %w", name, err)
		}
		pk.config = append(append([]byte(`,"config":`), b...), '}')
		p.SetSettings(m.Settings)
	}
	if pk.stats == nil {
		pk.stats = newPluginStats()
	}
	return pk, nil
}

// abiVersion is the ABI the loaded module speaks: the host's, unless the
// host reports one per plugin.
func (p *Pack) abiVersion() int {
	if v, ok := any(p.plugin).(interface{ ABIVersion() int }); ok {
		return v.ABIVersion()
	}
	return sdk.ABIVersion
}

// Info implements engine.Pack.
func (p *Pack) Info() sdk.PluginInfo { return p.plugin.Info() }

// MonitorOnly implements engine.PackMode.
func (p *Pack) MonitorOnly() bool { return p.manifest.EffectiveMode() == ModeMonitor }

// FailOpen implements engine.PackMode.
func (p *Pack) FailOpen() bool { return p.failOpen }

// Digest is the loaded revision's digest.
func (p *Pack) Digest() string { return p.digest }

// Judge implements engine.Pack: the plugin judges in with its settings
// (ABI v2: through configure; ABI v1: spliced into its JSON input as
// ScanInput.config), and the call is counted.
func (p *Pack) Judge(ctx context.Context, in *wasmhost.Input) ([]sdk.Finding, error) {
	start := time.Now()
	var fs []sdk.Finding
	var err error
	if p.config != nil && p.plugin.ABIVersion() != sdk.ABIVersion2 {
		var input []byte
		if input, err = in.JSON(); err == nil {
			fs, err = p.plugin.Scan(ctx, p.withSettings(input))
		}
	} else {
		fs, err = p.plugin.Judge(ctx, in)
	}
	p.stats.observe(p.name, time.Since(start), fs, err)
	return fs, err
}

// withSettings returns a copy of the v1 input document with the plugin's
// settings as its "config" key (a later key wins in every JSON decoder the
// ABI's guests use; the engine's own input has none).
func (p *Pack) withSettings(input []byte) []byte {
	if len(input) == 0 || input[len(input)-1] != '}' || !bytes.HasPrefix(input, []byte("{")) {
		return input
	}
	buf := make([]byte, 0, len(input)+len(p.config))
	return append(append(buf, input[:len(input)-1]...), p.config...)
}

// Close releases the plugin's host.
func (p *Pack) Close(ctx context.Context) error { return p.host.Close(ctx) }

// latencyWindow is how many recent call latencies p50/p99 are taken from.
const latencyWindow = 1024

// pluginStats counts one plugin's calls for GET /v1/plugins/{name} (the
// Prometheus metrics count the same events, see metrics.go).
type pluginStats struct {
	mu                      sync.Mutex
	calls, errors, timeouts int64
	findings                map[string]int64
	lat                     []time.Duration
	next                    int
}

func newPluginStats() *pluginStats { return &pluginStats{findings: map[string]int64{}} }

func (s *pluginStats) observe(name string, d time.Duration, fs []sdk.Finding, err error) {
	timeout := errors.Is(err, wasmhost.ErrCallTimeout)
	observeMetrics(name, d, fs, err, timeout)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls++
	if err != nil {
		s.errors++
		if timeout {
			s.timeouts++
		}
	}
	for _, f := range fs {
		s.findings[f.RuleID]++
	}
	if len(s.lat) < latencyWindow {
		s.lat = append(s.lat, d)
	} else {
		s.lat[s.next] = d
		s.next = (s.next + 1) % latencyWindow
	}
}

// Stats is a plugin's counters since this server loaded it.
type Stats struct {
	Calls          int64            `json:"calls"`
	Errors         int64            `json:"errors"`
	Timeouts       int64            `json:"timeouts"`
	FindingsByRule map[string]int64 `json:"findings_by_rule"`
	// P50MS and P99MS are over the last 1024 calls.
	P50MS float64 `json:"p50_ms"`
	P99MS float64 `json:"p99_ms"`
}

func (s *pluginStats) snapshot() Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := Stats{Calls: s.calls, Errors: s.errors, Timeouts: s.timeouts, FindingsByRule: map[string]int64{}}
	for k, v := range s.findings {
		out.FindingsByRule[k] = v
	}
	if len(s.lat) > 0 {
		l := slices.Clone(s.lat)
		slices.Sort(l)
		q := func(p float64) float64 {
			return float64(l[min(len(l)-1, int(p*float64(len(l))))].Microseconds()) / 1000
		}
		out.P50MS, out.P99MS = q(0.50), q(0.99)
	}
	return out
}
