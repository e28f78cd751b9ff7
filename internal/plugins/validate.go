package plugins

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/toolwarden/toolwarden/internal/engine/analyze"
	"github.com/toolwarden/toolwarden/internal/engine/report"
	"github.com/toolwarden/toolwarden/internal/engine/wasmhost"
	"github.com/toolwarden/toolwarden/sdk"
)

// Check is one named step of a validation.
type Check struct {
	Name   string `json:"name"`
	OK     bool   `json:"ok"`
	Detail string `json:"detail,omitempty"`
}

// Validation is the report of validating a module: every check in order;
// OK only when all passed. A module that fails any check is never stored
// as activatable and never reaches the engine.
type Validation struct {
	OK     bool    `json:"ok"`
	Checks []Check `json:"checks"`
}

func (v *Validation) add(name string, ok bool, detail string, args ...any) bool {
	if len(args) > 0 {
		detail = fmt.Sprintf(detail, args...)
	}
	v.Checks = append(v.Checks, Check{Name: name, OK: ok, Detail: detail})
	return ok
}

// Failed returns the first failed check.
func (v Validation) Failed() (Check, bool) {
	for _, c := range v.Checks {
		if !c.OK {
			return c, true
		}
	}
	return Check{}, false
}

// reservedRules are rule ids the host itself emits; no plugin may declare them.
var reservedRules = []string{"RULE_PLUGIN_ERROR"}

// fixture is one content of the self-test fixture set.
type fixture struct{ language, content string }

// fixtures is the self-test every module runs before it may activate:
// ordinary bash and Python of the kinds the service judges all day, a
// large script, and words that the project's hostile test plugins react
// to (a plugin that loops, hogs memory, panics or returns bad pointers on
// ordinary words must not get near live scans). Every call must return
// within the plugin's deadline and memory cap, without error.
var fixtures = []fixture{
	{"bash", "ls -la"},
	{"bash", "echo hello world"},
	{"bash", "for f in *.log; do gzip \"$f\"; done  # loop over the logs"},
	{"bash", "du -sh ./* | sort -h | tail -n 5  # find the disk hog"},
	{"bash", "grep -rn 'badptr\\|badlen' src/ && git status"},
	{"bash", "curl -fsSL https://example.com/install.sh | sh"},
	{"bash", "rm -rf /"},
	{"python", "import sys\nprint(\"don't panic\", file=sys.stderr)\n"},
	{"python", "import subprocess\nsubprocess.run(['ls', '-la'], check=True)\n"},
	{"bash", strings.Repeat("echo line; ", 500)},
}

// validator checks candidates against the state they would join.
type validator struct {
	lim    Limits
	policy func() *sdk.Policy
	// taken maps the rule ids already in use (built-in packs, other
	// active plugins) to their owner.
	taken func(ctx context.Context, except string) map[string]string
	// builtinName reports a name taken by a built-in pack.
	builtinName func(name string) bool
}

// validate runs every check on module. On success it returns the loaded
// pack (the caller closes it) and the plugin's description.
func (v *validator) validate(ctx context.Context, module []byte, man *Manifest) (Validation, *Pack) {
	var val Validation
	lim := v.lim.withDefaults()
	if !val.add("size", len(module) <= lim.MaxModuleBytes, "%d bytes (limit %d)", len(module), lim.MaxModuleBytes) {
		return val, nil
	}
	if !val.add("format", bytes.HasPrefix(module, []byte("\x00asm\x01\x00\x00\x00")), "WebAssembly binary module, version 1") {
		val.Checks[len(val.Checks)-1].Detail = "not a WebAssembly binary module (no \\0asm version 1 header)"
		return val, nil
	}
	m := Manifest{}
	if man != nil {
		m = *man
	}
	if !val.add("manifest", m.Check() == nil, "ok") {
		val.Checks[len(val.Checks)-1].Detail = m.Check().Error()
		return val, nil
	}
	pk, err := loadPack(ctx, "candidate", Digest(module), module, m, lim, newPluginStats())
	if err != nil {
		val.add(loadStage(err), false, "%v", err)
		return val, nil
	}
	ok := false
	defer func() {
		if !ok {
			_ = pk.Close(context.Background())
		}
	}()
	info := pk.Info()
	val.add("compile", true, "compiled with the interrupt check, memory cap %d bytes, deadline %s",
		lim.hostOptions(m).MemoryLimitBytes, lim.hostOptions(m).CallTimeout)
	val.add("imports", true, "only wasi_snapshot_preview1 (no filesystem, network or environment)")
	val.add("abi_version", true, "%d", pk.abiVersion())
	val.add("describe", true, "%s %s, %d rules", info.Name, info.Version, len(info.Rules))
	pk.name = info.Name
	if err := checkName(info.Name); !val.add("name", err == nil, "%s", info.Name) {
		val.Checks[len(val.Checks)-1].Detail = err.Error()
		return val, nil
	}
	if v.builtinName != nil && v.builtinName(info.Name) {
		val.add("name", false, "%s is the name of a built-in pack", info.Name)
		return val, nil
	}
	if man != nil && man.Name != "" && man.Name != info.Name {
		val.add("manifest_name", false, "manifest name %q, module describes itself as %q", man.Name, info.Name)
		return val, nil
	}
	if m.EffectiveFailurePolicy() == FailOpen && !lim.AllowFailOpen {
		val.add("failure_policy", false, "fail_open asked for, but plugins.allow_fail_open is false")
		return val, nil
	}
	if !v.checkRules(ctx, &val, info, m) {
		return val, nil
	}
	if !v.selfTest(ctx, &val, pk, m) {
		return val, nil
	}
	val.OK = true
	ok = true
	return val, pk
}

// loadStage names the check a wasmhost load error belongs to.
func loadStage(err error) string {
	msg := err.Error()
	switch {
	case strings.Contains(msg, "compile:"):
		return "compile"
	case strings.Contains(msg, "imports "):
		return "imports"
	case strings.Contains(msg, "missing export"), strings.Contains(msg, "export "), strings.Contains(msg, "exported memory"):
		return "exports"
	case strings.Contains(msg, "abi_version"):
		return "abi_version"
	case strings.Contains(msg, "describe"):
		return "describe"
	}
	return "instantiate"
}

// checkRules refuses rule ids that are reserved or already in use, unless
// the manifest lists them in override_rules and the configuration allows it.
func (v *validator) checkRules(ctx context.Context, val *Validation, info sdk.PluginInfo, m Manifest) bool {
	taken := map[string]string{}
	if v.taken != nil {
		taken = v.taken(ctx, info.Name)
	}
	var clashes []string
	for _, r := range info.Rules {
		if slices.Contains(reservedRules, r.ID) {
			clashes = append(clashes, r.ID+" (reserved for the host)")
			continue
		}
		owner, used := taken[r.ID]
		if !used {
			continue
		}
		if v.lim.AllowRuleOverride && slices.Contains(m.OverrideRules, r.ID) {
			continue
		}
		hint := ""
		if slices.Contains(m.OverrideRules, r.ID) {
			hint = "; override_rules lists it but plugins.allow_rule_override is false"
		}
		clashes = append(clashes, fmt.Sprintf("%s (already declared by %s%s)", r.ID, owner, hint))
	}
	if len(clashes) > 0 {
		return val.add("rule_ids", false, "rule id collision: %s", strings.Join(clashes, ", "))
	}
	return val.add("rule_ids", true, "%d rule ids, none taken", len(info.Rules))
}

// encodeInput builds the scan input a live scan of content would give the
// plugin (facts from the native analyzers, the policy in force as cfg).
func encodeInput(language, content string, cfg *wasmhost.Config) (*wasmhost.Input, error) {
	facts, err := analyze.Analyze(language, content, analyze.Options{})
	if err != nil {
		return nil, err
	}
	return &wasmhost.Input{Scan: &sdk.ScanInput{Facts: facts, Content: content, Language: facts.Language,
		Context: sdk.RequestContext{ToolName: "self_test"}}, Config: cfg}, nil
}

// selfTest runs the fixture set, then the manifest's own cases.
func (v *validator) selfTest(ctx context.Context, val *Validation, pk *Pack, m Manifest) bool {
	var pol *sdk.Policy
	if v.policy != nil {
		pol = v.policy()
	}
	cfg := wasmhost.NewConfig(pol)
	for i, fx := range fixtures {
		in, err := encodeInput(fx.language, fx.content, cfg)
		if err != nil {
			return val.add("self_test", false, "fixture %d: encode: %v", i, err)
		}
		_, err = judgeOverLoad(ctx, pk, in)
		in.Release()
		if err != nil {
			return val.add("self_test", false, "fixture %d (%s, %q): %v", i, fx.language, abbreviate(fx.content), err)
		}
	}
	val.add("self_test", true, "%d fixtures judged without error within the deadline and memory cap", len(fixtures))
	if len(m.Tests) == 0 {
		return val.add("manifest_tests", true, "none in the manifest")
	}
	var fails []string
	for i, tc := range m.Tests {
		in, err := encodeInput(tc.Language, tc.Content, cfg)
		if err != nil {
			fails = append(fails, fmt.Sprintf("case %d %s: %v", i, tc.Name, err))
			continue
		}
		fs, err := judgeOverLoad(ctx, pk, in)
		in.Release()
		if err != nil {
			fails = append(fails, fmt.Sprintf("case %d %s: plugin failed: %v", i, tc.Name, err))
			continue
		}
		rep := report.Build(report.Meta{ScanID: "self-test"}, fs, pol)
		got := rep.RuleIDs()
		want := slices.Clone(tc.Rules)
		sort.Strings(got)
		sort.Strings(want)
		if rep.Decision != tc.Expect || !slices.Equal(got, want) {
			fails = append(fails, fmt.Sprintf("case %d %s: got %s %v, want %s %v", i, tc.Name, rep.Decision, got, tc.Expect, want))
		}
	}
	if len(fails) > 0 {
		return val.add("manifest_tests", false, "%d of %d failed: %s", len(fails), len(m.Tests), strings.Join(fails, "; "))
	}
	return val.add("manifest_tests", true, "%d cases passed", len(m.Tests))
}

// selfTestAttempts is how often the self-test judges an input that ran out
// of its deadline before refusing the plugin for it.
const selfTestAttempts = 3

// judgeOverLoad judges in once, and again (up to selfTestAttempts in all)
// when the call ran out of its deadline: a busy host can stretch one call
// past it, while a plugin that loops or is too slow for the deadline runs
// out of it every time and is refused. Any other error refuses at once.
func judgeOverLoad(ctx context.Context, pk *Pack, in *wasmhost.Input) ([]sdk.Finding, error) {
	var err error
	for range selfTestAttempts {
		var fs []sdk.Finding
		fs, err = pk.Judge(ctx, in)
		if err == nil || !errors.Is(err, wasmhost.ErrCallTimeout) || ctx.Err() != nil {
			return fs, err
		}
	}
	return nil, err
}

func abbreviate(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}
