package wasmhost

import (
	"context"
	"strings"
	"testing"

	"github.com/toolwarden/toolwarden/sdk"
	"github.com/toolwarden/toolwarden/sdk/layout"
)

func judgeInput(content string, facts *sdk.Facts, cfg *Config) *Input {
	if facts == nil {
		facts = &sdk.Facts{Version: 1, Language: "bash"}
	}
	return &Input{Scan: &sdk.ScanInput{Facts: facts, Content: content, Language: "bash",
		Context: sdk.RequestContext{ToolName: "run_shell"}}, Config: cfg}
}

// TestV1HandmadeModuleJudges: a module hand-assembled against ABI v1 is
// served through Judge by the JSON protocol.
func TestV1HandmadeModuleJudges(t *testing.T) {
	h := newHost(t, Options{PoolSize: 1})
	p, err := h.Load(context.Background(), "v1", constPlugin{abiVersion: 1, describe: constDescribe, scan: constScan}.wasm())
	if err != nil {
		t.Fatal(err)
	}
	in := judgeInput("x", nil, NewConfig(&sdk.Policy{Name: "p"}))
	defer in.Release()
	fs, err := p.Judge(context.Background(), in)
	if err != nil || len(fs) != 1 || fs[0].RuleID != "CONST_RULE" || fs[0].Decision != sdk.Deny {
		t.Fatalf("Judge = %+v, %v", fs, err)
	}
	if s := p.Stats(); s.ABI != 1 || s.Configures != 0 {
		t.Fatalf("stats %+v", s)
	}
}

// TestV2RequiresItsExports: a module that claims abi_version 2 without
// configure and scan_v2 is rejected at load.
func TestV2RequiresItsExports(t *testing.T) {
	h := newHost(t, Options{PoolSize: 1})
	_, err := h.Load(context.Background(), "v2", constPlugin{abiVersion: 2, describe: constDescribe, scan: constScan}.wasm())
	if err == nil || !strings.Contains(err.Error(), "configure") {
		t.Fatalf("Load = %v, want a missing configure export", err)
	}
}

// TestV2KitPluginConfiguresOncePerVersion: a guest-kit plugin speaks v2;
// the policy and settings reach it once per instance and version, and the
// content crosses the layout intact.
func TestV2KitPluginConfiguresOncePerVersion(t *testing.T) {
	h := newHost(t, Options{PoolSize: 1})
	p := load(t, h, "echo")
	if p.Stats().ABI != sdk.ABIVersion2 {
		t.Fatalf("echo speaks ABI %d", p.Stats().ABI)
	}
	cfg := NewConfig(&sdk.Policy{Name: "one"})
	for _, content := range []string{"a b c", "ünïcode \x00 and \"quotes\"", strings.Repeat("x", 100<<10)} {
		in := judgeInput(content, nil, cfg)
		fs, err := p.Judge(context.Background(), in)
		in.Release()
		if err != nil || len(fs) != 1 || fs[0].Evidence != content {
			t.Fatalf("Judge(%.20q) = %+v, %v", content, fs, err)
		}
	}
	if n := p.Stats().Configures; n != 1 {
		t.Fatalf("%d configure calls for one policy version, want 1", n)
	}
	in := judgeInput("x", nil, NewConfig(&sdk.Policy{Name: "two"}))
	if _, err := p.Judge(context.Background(), in); err != nil {
		t.Fatal(err)
	}
	in.Release()
	if n := p.Stats().Configures; n != 2 {
		t.Fatalf("%d configure calls after a new policy version, want 2", n)
	}
	// Settings steer the plugin; a bad result fails closed.
	p.SetSettings(map[string]any{"rule_id": "UNDECLARED"})
	in = judgeInput("x", nil, cfg)
	if _, err := p.Judge(context.Background(), in); err == nil || !strings.Contains(err.Error(), "undeclared") {
		t.Fatalf("Judge with an undeclared rule = %v", err)
	}
	p.SetSettings(map[string]any{"error": "cannot judge"})
	if _, err := p.Judge(context.Background(), in); err == nil || !strings.Contains(err.Error(), "cannot judge") {
		t.Fatalf("Judge with a plugin error = %v", err)
	}
	p.SetSettings(nil)
	if fs, err := p.Judge(context.Background(), in); err != nil || len(fs) != 1 {
		t.Fatalf("Judge after clearing settings = %+v, %v", fs, err)
	}
	in.Release()
	// The same module still serves ABI v1's JSON scan.
	if fs, err := p.Scan(context.Background(), input(t, "v1", nil)); err != nil || len(fs) != 1 || fs[0].Evidence != "v1" {
		t.Fatalf("v1 Scan = %+v, %v", fs, err)
	}
}

// TestV2InterestsFilterSkipAndTemplates: a plugin interested in rm gets
// only rm commands, no other fact kinds, no content; it is not called for
// content without rm; its message comes from the rule's template.
func TestV2InterestsFilterSkipAndTemplates(t *testing.T) {
	h := newHost(t, Options{PoolSize: 1})
	p := load(t, h, "picky")
	cfg := NewConfig(&sdk.Policy{Name: "pol"})
	facts := &sdk.Facts{Version: 1, Language: "bash",
		Commands: []sdk.Command{{ID: 1, Name: "ls"}, {ID: 2, Name: "rm"}, {ID: 3, Name: "curl"}},
		Files:    []sdk.FileAccess{{Path: "x", Op: "delete", By: "rm"}}}
	in := judgeInput("ls; rm x; curl y", facts, cfg)
	fs, err := p.Judge(context.Background(), in)
	in.Release()
	if err != nil || len(fs) != 1 {
		t.Fatalf("Judge = %+v, %v", fs, err)
	}
	f := fs[0]
	if f.Metadata["names"] != "rm" || f.Metadata["files"] != float64(0) || f.Metadata["content"] != float64(0) || f.Metadata["policy"] != "pol" {
		t.Fatalf("plugin was sent %v", f.Metadata)
	}
	if f.Message != "saw rm with 0 file facts" || f.Recommendation != "do not run rm" {
		t.Fatalf("templates gave %q / %q", f.Message, f.Recommendation)
	}
	calls := p.Stats().Calls
	in = judgeInput("ls; curl y", &sdk.Facts{Version: 1, Commands: []sdk.Command{{Name: "ls"}, {Name: "curl"}}}, cfg)
	fs, err = p.Judge(context.Background(), in)
	in.Release()
	if err != nil || fs != nil {
		t.Fatalf("Judge without rm = %+v, %v", fs, err)
	}
	if s := p.Stats(); s.Calls != calls || s.Skipped != 1 {
		t.Fatalf("a plugin without facts of interest was called: %+v", s)
	}
}

func TestExpandTemplate(t *testing.T) {
	f := &sdk.Finding{RuleID: "R", Evidence: "rm -rf /", Line: 4, Metadata: map[string]any{"path": "/", "n": 2}}
	for tmpl, want := range map[string]string{
		"plain":                           "plain",
		"{rule_id} at {line}: {evidence}": "R at 4: rm -rf /",
		"delete {path} ({n})":             "delete / (2)",
		"{unknown} {unterminated":         "{unknown} {unterminated",
	} {
		if got := ExpandTemplate(tmpl, f); got != want {
			t.Errorf("ExpandTemplate(%q) = %q, want %q", tmpl, got, want)
		}
	}
}

// TestV2HandAssembledModule: ABI v2 is language-neutral — a module written
// by hand (no Go, no kit) that answers configure with 0 and scan_v2 with a
// constant output layout loads and judges; without v1's scan export the
// JSON protocol is refused instead of guessed.
func TestV2HandAssembledModule(t *testing.T) {
	var enc layout.Encoder
	out, err := enc.AppendScanOutput(nil, &sdk.ScanOutput{Findings: []sdk.Finding{{RuleID: "CONST_RULE", Evidence: "by hand",
		Metadata: map[string]any{"k": "v"}}}})
	if err != nil {
		t.Fatal(err)
	}
	describe := `{"name":"handmade2","version":"0.1","rules":[{"id":"CONST_RULE","risk_type":"process_command","risk":"high","decision":"deny","description":"always fires","message":"fired with {k}"}]}`
	h := newHost(t, Options{PoolSize: 1})
	p, err := h.Load(context.Background(), "v2", constPlugin{abiVersion: 2, describe: describe, v2Out: out, noScan: true}.wasm())
	if err != nil {
		t.Fatal(err)
	}
	in := judgeInput("x", nil, NewConfig(&sdk.Policy{Name: "p"}))
	defer in.Release()
	fs, err := p.Judge(context.Background(), in)
	if err != nil || len(fs) != 1 || fs[0].Evidence != "by hand" || fs[0].Decision != sdk.Deny || fs[0].Message != "fired with v" {
		t.Fatalf("Judge = %+v, %v", fs, err)
	}
	if s := p.Stats(); s.ABI != 2 || s.Configures != 1 {
		t.Fatalf("stats %+v", s)
	}
	if _, err := p.Scan(context.Background(), input(t, "x", nil)); err == nil {
		t.Fatal("v1 Scan of a module without scan succeeded")
	}
}
