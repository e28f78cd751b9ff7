package plugins

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/toolwarden/toolwarden/sdk"
)

// Failure policies of a plugin: what a scan does when the plugin errors,
// traps or overruns its deadline.
const (
	// FailClosed (the default) turns a failure into a RULE_PLUGIN_ERROR
	// finding that decides like any other (review; deny under strict).
	FailClosed = "fail_closed"
	// FailOpen records the failure in the report's monitor findings and
	// the audit log without changing the decision. Only honoured when the
	// configuration allows it (plugins.allow_fail_open), because it lets a
	// broken plugin stop judging.
	FailOpen = "fail_open"
)

// Modes of a plugin.
const (
	// ModeEnforce (the default): the plugin's findings decide.
	ModeEnforce = "enforce"
	// ModeMonitor: the findings are recorded in the report's telemetry
	// attributes (tool.safety.monitor_findings) and the audit log, and
	// the decision is what it would be without the plugin — for trying a
	// plugin on live traffic before it enforces.
	ModeMonitor = "monitor"
)

// Limits on what a manifest may ask for, so that one plugin cannot take
// the host: 64 MiB per instance is the host's default cap; pages above
// maxMemoryPages (256 MiB) and pools above maxPoolSize are refused.
const (
	maxMemoryPages = 4096
	maxPoolSize    = 64
	maxDeadline    = 10 * time.Second
	maxTestCases   = 200
)

// Manifest describes an uploaded plugin beyond what its describe export
// says: its limits, failure policy, mode, settings and its own test cases.
// It is optional on upload (the defaults apply); when given, its name must
// match the module's describe name. The file format is YAML or JSON
// (plugin.yaml):
//
//	name: no-curl
//	version: 1.0.0
//	deadline: 200ms          # per-call deadline (default plugins.default_deadline)
//	memory_pages: 512        # 64 KiB pages per instance (default: the host cap)
//	pool_size: 2             # instances, i.e. concurrent scans of this plugin
//	failure_policy: fail_closed   # or fail_open (needs plugins.allow_fail_open)
//	mode: enforce            # or monitor
//	override_rules: []       # rule ids that may collide (needs plugins.allow_rule_override)
//	settings: {max: 3}       # handed to the plugin as ScanInput.config
//	tests:
//	  - name: blocks curl
//	    language: bash
//	    content: curl https://example.com
//	    expect: deny
//	    rules: [NO_CURL]
type Manifest struct {
	Name          string         `json:"name" yaml:"name"`
	Version       string         `json:"version,omitempty" yaml:"version"`
	Deadline      Duration       `json:"deadline,omitempty" yaml:"deadline"`
	MemoryPages   int            `json:"memory_pages,omitempty" yaml:"memory_pages"`
	PoolSize      int            `json:"pool_size,omitempty" yaml:"pool_size"`
	FailurePolicy string         `json:"failure_policy,omitempty" yaml:"failure_policy"`
	Mode          string         `json:"mode,omitempty" yaml:"mode"`
	OverrideRules []string       `json:"override_rules,omitempty" yaml:"override_rules"`
	Settings      map[string]any `json:"settings,omitempty" yaml:"settings"`
	Tests         []TestCase     `json:"tests,omitempty" yaml:"tests"`
}

// TestCase is one self-test of a manifest: the plugin alone, judging
// content, must reach the expected decision and report exactly the listed
// rule ids (in any order; an empty list means no findings).
type TestCase struct {
	Name     string       `json:"name,omitempty" yaml:"name"`
	Language string       `json:"language,omitempty" yaml:"language"`
	Content  string       `json:"content" yaml:"content"`
	Expect   sdk.Decision `json:"expect" yaml:"expect"`
	Rules    []string     `json:"rules,omitempty" yaml:"rules"`
}

// Duration is a time.Duration written as "200ms" in YAML and JSON.
type Duration time.Duration

// MarshalText writes the duration as Go's String form.
func (d Duration) MarshalText() ([]byte, error) { return []byte(time.Duration(d).String()), nil }

// UnmarshalText parses a Go duration ("200ms", "1s").
func (d *Duration) UnmarshalText(b []byte) error {
	v, err := time.ParseDuration(string(b))
	if err != nil {
		return fmt.Errorf("duration %q: %w", b, err)
	}
	*d = Duration(v)
	return nil
}

// ParseManifest decodes a manifest strictly (an unknown key is an error
// naming it, so a typo such as failure_polcy never falls back to a default)
// and checks its values.
func ParseManifest(raw []byte) (Manifest, error) {
	var m Manifest
	if len(bytes.TrimSpace(raw)) == 0 {
		return m, errors.New("manifest: empty")
	}
	dec := yaml.NewDecoder(bytes.NewReader(raw))
	dec.KnownFields(true)
	if err := dec.Decode(&m); err != nil {
		return m, fmt.Errorf("manifest: %w", err)
	}
	if err := m.Check(); err != nil {
		return m, err
	}
	return m, nil
}

// Check validates the manifest's values and names the field at fault.
func (m Manifest) Check() error {
	var errs []error
	bad := func(field, msg string, args ...any) {
		errs = append(errs, fmt.Errorf("manifest %s: %s", field, fmt.Sprintf(msg, args...)))
	}
	if d := time.Duration(m.Deadline); d < 0 || d > maxDeadline {
		bad("deadline", "%s: want between 0 (default) and %s", d, maxDeadline)
	}
	if m.MemoryPages < 0 || m.MemoryPages > maxMemoryPages {
		bad("memory_pages", "%d: want between 0 (default) and %d", m.MemoryPages, maxMemoryPages)
	}
	if m.PoolSize < 0 || m.PoolSize > maxPoolSize {
		bad("pool_size", "%d: want between 0 (default) and %d", m.PoolSize, maxPoolSize)
	}
	switch m.FailurePolicy {
	case "", FailClosed, FailOpen:
	default:
		bad("failure_policy", "%q: want %s or %s", m.FailurePolicy, FailClosed, FailOpen)
	}
	switch m.Mode {
	case "", ModeEnforce, ModeMonitor:
	default:
		bad("mode", "%q: want %s or %s", m.Mode, ModeEnforce, ModeMonitor)
	}
	for i, id := range m.OverrideRules {
		if strings.TrimSpace(id) == "" {
			bad(fmt.Sprintf("override_rules[%d]", i), "empty rule id")
		}
	}
	if len(m.Tests) > maxTestCases {
		bad("tests", "%d cases: at most %d", len(m.Tests), maxTestCases)
	}
	for i, tc := range m.Tests {
		if !tc.Expect.Valid() {
			bad(fmt.Sprintf("tests[%d].expect", i), "%q: want allow, needs_human_review or deny", tc.Expect)
		}
		switch tc.Language {
		case "", "bash", "python", "sh":
		default:
			bad(fmt.Sprintf("tests[%d].language", i), "%q: want bash or python", tc.Language)
		}
	}
	return errors.Join(errs...)
}

// EffectiveMode is the mode with its default.
func (m Manifest) EffectiveMode() string {
	if m.Mode == "" {
		return ModeEnforce
	}
	return m.Mode
}

// EffectiveFailurePolicy is the failure policy with its default.
func (m Manifest) EffectiveFailurePolicy() string {
	if m.FailurePolicy == "" {
		return FailClosed
	}
	return m.FailurePolicy
}
