package wasmhost

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/toolwarden/toolwarden/sdk"
	"github.com/toolwarden/toolwarden/sdk/layout"
)

// Config is a policy as ABI v2 plugins receive it: through configure, once
// per instance and version, instead of inside every scan's input. Make one
// with NewConfig whenever the policy changes; scans share it.
type Config struct {
	// Version identifies this Config within the process; every NewConfig
	// gets a new one, so an instance configured with an older policy is
	// reconfigured before its next scan.
	Version uint64
	// Policy is the effective policy.
	Policy *sdk.Policy
}

var configVersions atomic.Uint64

// NewConfig returns the Config of policy p with a fresh Version.
func NewConfig(p *sdk.Policy) *Config {
	return &Config{Version: configVersions.Add(1), Policy: p}
}

// configKey is what an instance was configured with: the policy's Config
// version and the plugin's settings version.
type configKey struct{ policy, settings uint64 }

// SetSettings replaces the plugin's settings (the "config" of configure,
// and ScanInput.Config of a v1 scan built by Input.JSON is not affected);
// each instance receives them before its next v2 scan.
func (p *Plugin) SetSettings(settings map[string]any) {
	p.settingsMu.Lock()
	p.settings = settings
	p.settingsMu.Unlock()
	p.settingsVer.Add(1)
}

// ensureConfigured calls configure on inst unless it already holds cfg and
// the plugin's current settings. configure is bounded by the size of the
// policy, which the host controls, so it runs on the caller's goroutine
// even for a bounded plugin.
func (p *Plugin) ensureConfigured(ctx context.Context, inst *instance, cfg *Config) error {
	key := configKey{cfg.Version, p.settingsVer.Load()}
	if inst.cfgKey == key {
		return nil
	}
	p.settingsMu.Lock()
	doc, err := json.Marshal(struct {
		Policy *sdk.Policy    `json:"policy"`
		Config map[string]any `json:"config,omitempty"`
	}{cfg.Policy, p.settings})
	p.settingsMu.Unlock()
	if err != nil {
		return fmt.Errorf("configure: encode policy: %w", err)
	}
	cctx, cancel := context.WithTimeout(ctx, p.host.opts.CallTimeout)
	defer cancel()
	in, n, err := p.stage(ctx, cctx, inst, doc)
	if err != nil {
		return fmt.Errorf("configure: %w", err)
	}
	p.configures.Add(1)
	res, err := inst.configure.Call(cctx, uint64(in), uint64(n))
	if err != nil {
		return callErr(ctx, cctx, "configure", err)
	}
	if res[0] != 0 {
		msg, err := inst.take(cctx, res[0])
		if err != nil {
			return fmt.Errorf("configure failed, and its message could not be read: %w", err)
		}
		return fmt.Errorf("configure: plugin refused the policy: %s", msg)
	}
	inst.cfgKey = key
	return nil
}

// Input is one scan as the engine hands it to every plugin: the request's
// facts and context, the Config, and the encodings built from them on
// demand — v1's JSON once for all v1 plugins, v2's layout once per distinct
// selection of interests. It is safe for concurrent use by the plugins of
// one scan; Release it when every plugin has returned.
type Input struct {
	// Scan holds facts, content, language and context; its Policy is
	// ignored (Config's is used).
	Scan   *sdk.ScanInput
	Config *Config

	mu      sync.Mutex
	json    *[]byte
	jsonErr error
	jsonOK  bool
	layouts []encodedLayout
	// layoutBuf backs layouts for the usual one or two selections, so a
	// scan does not allocate the slice.
	layoutBuf [2]encodedLayout
}

type encodedLayout struct {
	sel *layout.Selection
	buf *[]byte
	err error
}

// buffers pools the encodings' memory across scans.
var buffers = sync.Pool{New: func() any { return new([]byte) }}

// encoders pools layout encoders (their tables) across scans.
var encoders = sync.Pool{New: func() any { return new(layout.Encoder) }}

// maxPooledBuffer is the largest encoding kept for reuse.
const maxPooledBuffer = 4 << 20

// JSON returns the ABI v1 input document, encoding it on first use.
func (in *Input) JSON() ([]byte, error) {
	in.mu.Lock()
	defer in.mu.Unlock()
	if !in.jsonOK {
		in.jsonOK = true
		s := *in.Scan
		s.Policy = in.Config.Policy
		buf := buffers.Get().(*[]byte)
		*buf, in.jsonErr = sdk.AppendScanInput((*buf)[:0], &s)
		in.json = buf
	}
	if in.jsonErr != nil {
		return nil, fmt.Errorf("encode input: %w", in.jsonErr)
	}
	return *in.json, nil
}

// Layout returns the ABI v2 input layout for sel, encoding it on first use.
func (in *Input) Layout(sel *layout.Selection) ([]byte, error) {
	in.mu.Lock()
	defer in.mu.Unlock()
	for _, l := range in.layouts {
		if l.sel == sel {
			if l.err != nil {
				return nil, l.err
			}
			return *l.buf, nil
		}
	}
	enc := encoders.Get().(*layout.Encoder)
	buf := buffers.Get().(*[]byte)
	var err error
	*buf, err = enc.AppendScanInput((*buf)[:0], in.Scan, sel)
	encoders.Put(enc)
	if err != nil {
		err = fmt.Errorf("encode input layout: %w", err)
	}
	if in.layouts == nil {
		in.layouts = in.layoutBuf[:0]
	}
	in.layouts = append(in.layouts, encodedLayout{sel: sel, buf: buf, err: err})
	if err != nil {
		return nil, err
	}
	return *buf, nil
}

// Release returns the encodings' memory for later scans. Nothing returned
// by JSON or Layout may be used afterwards.
func (in *Input) Release() {
	in.mu.Lock()
	defer in.mu.Unlock()
	put := func(b *[]byte) {
		if b != nil && cap(*b) <= maxPooledBuffer {
			*b = (*b)[:0]
			buffers.Put(b)
		}
	}
	if in.json != nil {
		put(in.json)
		in.json, in.jsonOK = nil, false
	}
	for _, l := range in.layouts {
		put(l.buf)
	}
	clear(in.layoutBuf[:])
	in.layouts = nil
}

// Judge scans in with the plugin in the plugin's own ABI: v1's JSON scan,
// or, for v2, configure (when due) and scan_v2 on a layout holding only
// what the plugin declared interest in. A v2 plugin none of whose
// interests occur in the facts is not called at all (nil, nil), and
// counted in Stats.Skipped. Failures are errors, as for Scan.
func (p *Plugin) Judge(ctx context.Context, in *Input) ([]sdk.Finding, error) {
	if in == nil || in.Scan == nil || in.Config == nil {
		return nil, fmt.Errorf("wasm rule %s: judge: incomplete input", p.name)
	}
	if p.abi != sdk.ABIVersion2 {
		b, err := in.JSON()
		if err != nil {
			return nil, fmt.Errorf("wasm rule %s: %w", p.name, err)
		}
		return p.scanWith(ctx, b, nil)
	}
	if p.sel.Empty(in.Scan.Facts) {
		p.skipped.Add(1)
		return nil, nil
	}
	b, err := in.Layout(p.sel)
	if err != nil {
		return nil, fmt.Errorf("wasm rule %s: %w", p.name, err)
	}
	return p.scanWith(ctx, b, in.Config)
}

// checkOutputV2 decodes a scan_v2 result and completes its findings like
// checkOutput. The findings' strings share raw, a copy of the guest's
// buffer made for this call.
func (p *Plugin) checkOutputV2(raw []byte) ([]sdk.Finding, error) {
	var dec layout.Decoder
	out, err := dec.DecodeScanOutput(raw)
	if err != nil {
		return nil, fmt.Errorf("decode scan output: %w", err)
	}
	return p.complete(out)
}

// CompleteFindings validates findings against the rules declared in info
// and fills what a plugin may leave to the host: risk type, risk level and
// decision from the rule, and message and recommendation from the rule's
// templates. The engine's native packs use it so both builds complete
// findings identically.
func CompleteFindings(info sdk.PluginInfo, rules map[string]sdk.RuleInfo, fs []sdk.Finding) error {
	if len(fs) > maxFindings {
		return fmt.Errorf("scan output has %d findings, limit %d", len(fs), maxFindings)
	}
	for i := range fs {
		f := &fs[i]
		decl, ok := rules[f.RuleID]
		if !ok {
			return fmt.Errorf("finding %d has undeclared rule id %q", i, f.RuleID)
		}
		if f.RiskType == "" {
			f.RiskType = decl.RiskType
		}
		if f.RiskLevel == "" {
			f.RiskLevel = decl.Risk
		} else if f.RiskLevel.Rank() < 0 {
			return fmt.Errorf("finding %d (%s) has invalid risk_level %q", i, f.RuleID, f.RiskLevel)
		}
		if f.Decision == "" {
			f.Decision = decl.Decision
		} else if !f.Decision.Valid() {
			return fmt.Errorf("finding %d (%s) has invalid decision %q", i, f.RuleID, f.Decision)
		}
		if f.Message == "" && decl.Message != "" {
			f.Message = ExpandTemplate(decl.Message, f)
		}
		if f.Recommendation == "" && decl.Recommendation != "" {
			f.Recommendation = ExpandTemplate(decl.Recommendation, f)
		}
	}
	return nil
}

// RuleMap indexes a plugin's declared rules by id, for CompleteFindings.
func RuleMap(info sdk.PluginInfo) map[string]sdk.RuleInfo {
	m := make(map[string]sdk.RuleInfo, len(info.Rules))
	for _, r := range info.Rules {
		m[r.ID] = r
	}
	return m
}

func (p *Plugin) complete(out *sdk.ScanOutput) ([]sdk.Finding, error) {
	if out.Error != "" {
		return nil, fmt.Errorf("plugin reported an error: %s", out.Error)
	}
	if err := CompleteFindings(p.info, p.rules, out.Findings); err != nil {
		return nil, err
	}
	return out.Findings, nil
}

// ExpandTemplate fills a rule's message or recommendation template from a
// finding: {evidence}, {line} and {rule_id}, and {key} for each metadata
// key (strings as they are, other values as JSON). An unknown or
// unterminated placeholder is kept as written.
func ExpandTemplate(tmpl string, f *sdk.Finding) string {
	if !strings.Contains(tmpl, "{") {
		return tmpl
	}
	var b strings.Builder
	for {
		i := strings.IndexByte(tmpl, '{')
		if i < 0 {
			b.WriteString(tmpl)
			return b.String()
		}
		j := strings.IndexByte(tmpl[i:], '}')
		if j < 0 {
			b.WriteString(tmpl)
			return b.String()
		}
		b.WriteString(tmpl[:i])
		key := tmpl[i+1 : i+j]
		if v, ok := placeholder(key, f); ok {
			b.WriteString(v)
		} else {
			b.WriteString(tmpl[i : i+j+1])
		}
		tmpl = tmpl[i+j+1:]
	}
}

func placeholder(key string, f *sdk.Finding) (string, bool) {
	switch key {
	case "evidence":
		return f.Evidence, true
	case "line":
		return strconv.Itoa(f.Line), true
	case "rule_id":
		return f.RuleID, true
	}
	v, ok := f.Metadata[key]
	if !ok {
		return "", false
	}
	if s, ok := v.(string); ok {
		return s, true
	}
	b, err := json.Marshal(v)
	if err != nil {
		return "", false
	}
	return string(b), true
}
