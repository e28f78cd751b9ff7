package plugins

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"io"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"aead.dev/minisign"

	"github.com/toolwarden/toolwarden/engine"
	"github.com/toolwarden/toolwarden/internal/policies"
	"github.com/toolwarden/toolwarden/sdk"
)

func readTestdata(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func newEngine(t testing.TB) *engine.Engine {
	t.Helper()
	e, err := engine.New(context.Background(), engine.Options{Policy: policies.Default(), CallTimeout: time.Minute})
	if err != nil {
		t.Fatalf("engine.New: %v", err)
	}
	t.Cleanup(func() { e.Close(context.Background()) })
	return e
}

// testLimits are generous where a loaded test machine could miss a
// deadline on good code; the refusal tests set their own.
func testLimits() Limits {
	return Limits{Deadline: 5 * time.Second, CacheDir: os.TempDir() + "/toolwarden-plugins-test-cache"}
}

func newManager(t testing.TB, store Store, eng *engine.Engine, mut ...func(*Config)) *Manager {
	t.Helper()
	cfg := Config{Store: store, Engine: eng, Limits: testLimits(), ReconcileEvery: 200 * time.Millisecond}
	for _, f := range mut {
		f(&cfg)
	}
	m, err := NewManager(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		m.mu.Lock()
		defer m.mu.Unlock()
		for _, p := range m.loaded {
			_ = p.Close(context.Background())
		}
	})
	return m
}

func embeddedStore(t testing.TB) *EmbeddedStore {
	t.Helper()
	s, err := OpenEmbedded(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func decide(t testing.TB, e *engine.Engine, content string) *sdk.SafetyReport {
	t.Helper()
	rep, err := e.Scan(context.Background(), engine.Request{Language: "bash", Content: content})
	if err != nil {
		t.Fatalf("scan %q: %v", content, err)
	}
	return rep
}

func hasRule(rep *sdk.SafetyReport, id string) bool { return slices.Contains(rep.RuleIDs(), id) }

// TestHandWrittenWATPluginUploadedActivatedAndJudges: the WAT plugin,
// uploaded and activated, denies content with its marker and leaves
// other content alone.
func TestHandWrittenWATPluginUploadedActivatedAndJudges(t *testing.T) {
	ctx := context.Background()
	eng := newEngine(t)
	m := newManager(t, embeddedStore(t), eng)
	if rep := decide(t, eng, "echo twmarker-deny"); hasRule(rep, "WAT_MARKER") {
		t.Fatal("rule fires before upload")
	}
	res, err := m.Upload(ctx, UploadRequest{Module: readTestdata(t, "marker.wasm"), Activate: true, By: "admin-key"})
	if err != nil {
		t.Fatalf("Upload: %v (%+v)", err, res.Validation)
	}
	if res.Name != "marker" || res.Status != StatusActive || !res.Validation.OK || res.ABIVersion != 1 ||
		!strings.HasPrefix(res.Digest, "sha256:") || len(res.Rules) != 1 || res.Activation == nil || !res.Activation.LoadedHere {
		t.Fatalf("upload result: %+v", res)
	}
	rep := decide(t, eng, "echo twmarker-deny")
	if rep.Decision != sdk.Deny || !hasRule(rep, "WAT_MARKER") {
		t.Fatalf("after activation: %s %v", rep.Decision, rep.RuleIDs())
	}
	if rep := decide(t, eng, "echo hello"); rep.Decision != sdk.Allow {
		t.Fatalf("benign content: %s %v", rep.Decision, rep.RuleIDs())
	}
	d, err := m.Get(ctx, "marker")
	if err != nil {
		t.Fatal(err)
	}
	if d.ActiveDigest != res.Digest || len(d.Replicas) != 1 || d.Replicas[0].LoadedDigest != res.Digest || d.Stats.Calls < 2 || d.Stats.FindingsByRule["WAT_MARKER"] < 1 {
		t.Fatalf("detail: %+v", d)
	}
	list, err := m.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var builtins, uploaded int
	for _, s := range list {
		if s.Builtin {
			builtins++
		} else if s.Name == "marker" && s.ActiveDigest == res.Digest {
			uploaded++
		}
	}
	if builtins == 0 || uploaded != 1 {
		t.Fatalf("list: %+v", list)
	}
}

// TestRefusedBeforeActivation: every kind of bad module is refused with
// the reason, nothing is stored, and scans go on with the set in force.
func TestRefusedBeforeActivation(t *testing.T) {
	ctx := context.Background()
	eng := newEngine(t)
	store := embeddedStore(t)
	m := newManager(t, store, eng, func(c *Config) {
		c.Limits.Deadline = time.Second
		c.Limits.MemoryBytes = 64 << 20
	})
	if _, err := m.Upload(ctx, UploadRequest{Module: readTestdata(t, "marker.wasm"), Activate: true}); err != nil {
		t.Fatal(err)
	}
	marker := readTestdata(t, "marker.wasm")
	collideOther := bytes.Replace(marker, []byte(`"name":"marker"`), []byte(`"name":"other1"`), 1)
	collideBuiltin := bytes.Replace(bytes.Replace(marker, []byte(`"name":"marker"`), []byte(`"name":"other2"`), 1),
		[]byte(`WAT_MARKER","risk_type":"process_command"`), []byte(`PERSISTENCE","risk_type":"process_comman"`), 1)
	cases := []struct {
		name     string
		module   []byte
		manifest string
		check    string
		detail   string
	}{
		{"garbage", []byte("this is not a wasm module\x00\x01\x02"), "", "format", "not a WebAssembly"},
		{"truncated wasm", marker[:40], "", "compile", ""},
		{"never returns", pluginWasm["loop"], "", "self_test", "deadline"},
		{"memory hog", pluginWasm["hog"], "", "self_test", ""},
		{"panics", pluginWasm["panic"], "", "self_test", ""},
		{"bad pointer", pluginWasm["badptr"], "", "self_test", ""},
		{"rule id of another plugin", collideOther, "", "rule_ids", "plugin marker"},
		{"rule id of a built-in pack", collideBuiltin, "", "rule_ids", "built-in pack"},
		{"override without config", collideOther, "override_rules: [WAT_MARKER]\n", "rule_ids", "allow_rule_override is false"},
		{"manifest case fails", marker, "tests:\n  - {name: c1, content: echo twmarker-deny, expect: allow}\n", "manifest_tests", "got deny [WAT_MARKER], want allow"},
		{"manifest names another plugin", marker, "name: nope\n", "manifest_name", "nope"},
		{"fail_open not allowed", marker, "failure_policy: fail_open\n", "failure_policy", "allow_fail_open"},
		{"unknown manifest key", marker, "failure_polcy: fail_open\n", "manifest", "failure_polcy"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res, err := m.Upload(ctx, UploadRequest{Module: tc.module, Manifest: []byte(tc.manifest), Activate: true})
			var re *RefusedError
			if !errors.As(err, &re) {
				t.Fatalf("Upload = %+v, %v; want a refusal", res, err)
			}
			failed, ok := res.Validation.Failed()
			if !ok || failed.Name != tc.check || !strings.Contains(failed.Detail, tc.detail) || res.Validation.OK || res.Status != StatusRefused {
				t.Fatalf("failed check %+v (ok %v), want %s containing %q; all: %+v", failed, ok, tc.check, tc.detail, res.Validation.Checks)
			}
			names, _ := store.Names(ctx)
			if !slices.Equal(names, []string{"marker"}) {
				t.Fatalf("stored plugins after a refusal: %v", names)
			}
			if rep := decide(t, eng, "echo twmarker-deny"); rep.Decision != sdk.Deny || !hasRule(rep, "WAT_MARKER") {
				t.Fatalf("scans after a refusal: %s %v", rep.Decision, rep.RuleIDs())
			}
		})
	}
	big := make([]byte, 2<<20)
	m.val.lim.MaxModuleBytes = 1 << 20
	res, err := m.Upload(ctx, UploadRequest{Module: big})
	if failed, _ := res.Validation.Failed(); err == nil || failed.Name != "size" {
		t.Fatalf("oversized module: %+v, %v", res.Validation, err)
	}
}

func signWith(t *testing.T, priv minisign.PrivateKey, module []byte) []byte {
	t.Helper()
	r := minisign.NewReader(bytes.NewReader(module))
	if _, err := io.Copy(io.Discard, r); err != nil {
		t.Fatal(err)
	}
	return r.SignWithComments(priv, "plugin marker", "signature")
}

func TestSignatures(t *testing.T) {
	ctx := context.Background()
	eng := newEngine(t)
	pub, priv, err := minisign.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	_, otherPriv, _ := minisign.GenerateKey(rand.Reader)
	v, err := NewVerifier([]string{pub.String()}, true)
	if err != nil {
		t.Fatal(err)
	}
	m := newManager(t, embeddedStore(t), eng, func(c *Config) { c.Verifier = v })
	module := readTestdata(t, "marker.wasm")
	sig := signWith(t, priv, module)
	prehashed := sig
	// the module signed, then altered (one byte of the describe JSON)
	altered := bytes.Replace(module, []byte(`"version":"1.0.0"`), []byte(`"version":"6.6.6"`), 1)
	for _, tc := range []struct {
		name   string
		module []byte
		sig    []byte
		want   error
	}{
		{"unsigned", module, nil, ErrUnsigned},
		{"untrusted key", module, signWith(t, otherPriv, module), ErrUntrustedSigner},
		{"signature of other bytes", altered, sig, ErrInvalidSignature},
		{"garbage signature", module, []byte("untrusted comment: x\nnot base64\n"), ErrInvalidSignature},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := m.Upload(ctx, UploadRequest{Module: tc.module, Signature: tc.sig, Activate: true})
			failed, _ := res.Validation.Failed()
			if err == nil || failed.Name != "signature" || !strings.Contains(failed.Detail, tc.want.Error()[:20]) {
				t.Fatalf("Upload = %+v, %v; want signature refusal %v", res.Validation, err, tc.want)
			}
		})
	}
	res, err := m.Upload(ctx, UploadRequest{Module: module, Signature: prehashed, Activate: true})
	if err != nil {
		t.Fatalf("signed upload: %v", err)
	}
	if res.Signer != KeyID(pub.ID()) || res.Status != StatusActive {
		t.Fatalf("signed upload: %+v", res)
	}
	rev, err := m.cfg.Store.Revision(ctx, "marker", res.Digest)
	if err != nil || rev.Signer != KeyID(pub.ID()) {
		t.Fatalf("stored signer: %+v, %v", rev.Signer, err)
	}
	// Legacy (not prehashed) minisign signatures verify too.
	if _, err := v.Check(module, minisign.Sign(priv, module)); err != nil {
		t.Fatalf("legacy signature: %v", err)
	}
	if _, err := NewVerifier(nil, true); err == nil {
		t.Fatal("require_signature without trusted keys accepted")
	}
}

// TestRollbackAndDeactivate walks a plugin through two revisions, a
// rollback, a deactivation and a delete, checking what scans decide.
func TestRollbackAndDeactivate(t *testing.T) {
	ctx := context.Background()
	eng := newEngine(t)
	m := newManager(t, embeddedStore(t), eng)
	v1, err := m.Upload(ctx, UploadRequest{Module: readTestdata(t, "marker.wasm"), Activate: true})
	if err != nil {
		t.Fatal(err)
	}
	v2, err := m.Upload(ctx, UploadRequest{Module: readTestdata(t, "marker2.wasm")})
	if err != nil {
		t.Fatal(err)
	}
	if v2.Status != StatusInactive || v2.Digest == v1.Digest {
		t.Fatalf("v2 upload: %+v", v2)
	}
	if rep := decide(t, eng, "echo twmarker-new2"); hasRule(rep, "WAT_MARKER") {
		t.Fatal("inactive revision judges")
	}
	if _, err := m.Activate(ctx, "marker", v2.Digest); err != nil {
		t.Fatal(err)
	}
	if !hasRule(decide(t, eng, "echo twmarker-new2"), "WAT_MARKER") || hasRule(decide(t, eng, "echo twmarker-deny"), "WAT_MARKER") {
		t.Fatal("v2 not in force after activation")
	}
	if err := m.DeleteRevision(ctx, "marker", v2.Digest); !errors.Is(err, ErrConflict) {
		t.Fatalf("delete active revision: %v", err)
	}
	rb, err := m.Rollback(ctx, "marker")
	if err != nil || rb.ActiveDigest != v1.Digest || rb.Previous != v2.Digest || !rb.LoadedHere {
		t.Fatalf("rollback: %+v, %v", rb, err)
	}
	if !hasRule(decide(t, eng, "echo twmarker-deny"), "WAT_MARKER") || hasRule(decide(t, eng, "echo twmarker-new2"), "WAT_MARKER") {
		t.Fatal("v1 not in force after rollback")
	}
	if _, err := m.Deactivate(ctx, "marker"); err != nil {
		t.Fatal(err)
	}
	if hasRule(decide(t, eng, "echo twmarker-deny"), "WAT_MARKER") {
		t.Fatal("deactivated plugin still judges")
	}
	if _, err := m.Deactivate(ctx, "marker"); !errors.Is(err, ErrConflict) {
		t.Fatalf("second deactivate: %v", err)
	}
	if err := m.DeleteRevision(ctx, "marker", v2.Digest); err != nil {
		t.Fatal(err)
	}
	d, err := m.Get(ctx, "marker")
	if err != nil || len(d.Revisions) != 1 || d.Revisions[0].Digest != v1.Digest || slices.Contains(d.History, v2.Digest) {
		t.Fatalf("after delete: %+v, %v", d, err)
	}
	if _, err := m.cfg.Store.Module(ctx, v2.Digest); !errors.Is(err, ErrNotFound) {
		t.Fatalf("deleted module still stored: %v", err)
	}
}

// TestActiveSetSurvivesRestart: a new engine and manager on the same data
// dir judge with the stored active set before anything else happens.
func TestActiveSetSurvivesRestart(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s1, _ := OpenEmbedded(dir)
	m1 := newManager(t, s1, newEngine(t))
	if _, err := m1.Upload(ctx, UploadRequest{Module: readTestdata(t, "marker.wasm"), Activate: true}); err != nil {
		t.Fatal(err)
	}
	s2, _ := OpenEmbedded(dir)
	eng2 := newEngine(t)
	m2 := newManager(t, s2, eng2)
	sctx, cancel := context.WithCancel(ctx)
	defer cancel()
	m2.Start(sctx)
	if rep := decide(t, eng2, "echo twmarker-deny"); !hasRule(rep, "WAT_MARKER") {
		t.Fatalf("after restart: %v", rep.RuleIDs())
	}
	for _, f := range []string{"active.json", "modules"} {
		st, err := os.Stat(dir + "/" + f)
		if err != nil || st.Mode().Perm()&0o077 != 0 {
			t.Fatalf("%s: mode %v, %v", f, st.Mode(), err)
		}
	}
}

// TestMonitorModeRecordsWithoutDeciding: a monitor-mode plugin's finding
// is in the report's monitor attributes, and the decision is unaffected.
func TestMonitorModeRecordsWithoutDeciding(t *testing.T) {
	ctx := context.Background()
	eng := newEngine(t)
	m := newManager(t, embeddedStore(t), eng)
	res, err := m.Upload(ctx, UploadRequest{Module: readTestdata(t, "marker.wasm"), Manifest: []byte("mode: monitor\n"), Activate: true})
	if err != nil || res.Mode != ModeMonitor {
		t.Fatalf("upload: %+v, %v", res, err)
	}
	rep := decide(t, eng, "echo twmarker-deny")
	if rep.Decision != sdk.Allow || hasRule(rep, "WAT_MARKER") {
		t.Fatalf("monitor plugin decided: %s %v", rep.Decision, rep.RuleIDs())
	}
	if rep.TelemetryAttributes[engine.AttrMonitorRuleIDs] != "WAT_MARKER" {
		t.Fatalf("monitor attributes: %v", rep.TelemetryAttributes)
	}
	fs, ok := rep.TelemetryAttributes[engine.AttrMonitorFindings].([]sdk.Finding)
	if !ok || len(fs) != 1 || fs[0].Decision != sdk.Deny {
		t.Fatalf("monitor findings: %#v", rep.TelemetryAttributes[engine.AttrMonitorFindings])
	}
}

// TestShadowReportsChangedDecision replays recorded scans against a
// candidate and reports the decision it would change.
func TestShadowReportsChangedDecision(t *testing.T) {
	ctx := context.Background()
	eng := newEngine(t)
	recs := []Recorded{
		{ScanID: "s-1", Request: engine.Request{Language: "bash", Content: "echo twmarker-deny"}, Decision: sdk.Allow},
		{ScanID: "s-2", Request: engine.Request{Language: "bash", Content: "ls -la"}, Decision: sdk.Allow},
	}
	m := newManager(t, embeddedStore(t), eng, func(c *Config) {
		c.RequireShadow = true
		c.Recent = func(_ context.Context, n int) ([]Recorded, error) { return recs[:min(n, len(recs))], nil }
	})
	res, err := m.Upload(ctx, UploadRequest{Module: readTestdata(t, "marker.wasm")})
	if err != nil {
		t.Fatal(err)
	}
	var re *RefusedError
	if _, err := m.Activate(ctx, "marker", res.Digest); !errors.As(err, &re) || !strings.Contains(err.Error(), "shadow") {
		t.Fatalf("activation without a shadow run: %v", err)
	}
	sh, err := m.Shadow(ctx, "marker", res.Digest, 10)
	if err != nil {
		t.Fatal(err)
	}
	if sh.Replayed != 2 || sh.ChangedCount != 1 || len(sh.Changed) != 1 || !sh.OK {
		t.Fatalf("shadow: %+v", sh)
	}
	c := sh.Changed[0]
	if c.ScanID != "s-1" || c.Before != sdk.Allow || c.After != sdk.Deny || !slices.Contains(c.RulesAfter, "WAT_MARKER") || slices.Contains(c.RulesBefore, "WAT_MARKER") {
		t.Fatalf("change: %+v", c)
	}
	if hasRule(decide(t, eng, "echo twmarker-deny"), "WAT_MARKER") {
		t.Fatal("shadow run activated the candidate")
	}
	if _, err := m.Activate(ctx, "marker", res.Digest); err != nil {
		t.Fatalf("activation after a passing shadow run: %v", err)
	}
	if !hasRule(decide(t, eng, "echo twmarker-deny"), "WAT_MARKER") {
		t.Fatal("not active")
	}
}

// TestSettingsReachThePlugin: manifest settings arrive as ScanInput.config
// (the echo test plugin reports the rule its config names).
func TestSettingsReachThePlugin(t *testing.T) {
	ctx := context.Background()
	eng := newEngine(t)
	m := newManager(t, embeddedStore(t), eng)
	if _, err := m.Upload(ctx, UploadRequest{Module: pluginWasm["echo"], Manifest: []byte("settings: {rule_id: ECHO_DENY}\npool_size: 1\n"), Activate: true}); err != nil {
		t.Fatal(err)
	}
	rep := decide(t, eng, "ls")
	if !hasRule(rep, "ECHO_DENY") || hasRule(rep, "ECHO") || rep.Decision != sdk.Deny {
		t.Fatalf("settings not applied: %s %v", rep.Decision, rep.RuleIDs())
	}
}

// TestMonitorFindingsReachTheAuditLog: the audit event of a scan names the
// monitor-mode plugin's rule apart from the deciding ones.
func TestMonitorFindingsReachTheAuditLog(t *testing.T) {
	ctx := context.Background()
	path := t.TempDir() + "/audit.jsonl"
	eng, err := engine.New(ctx, engine.Options{Policy: policies.Default(), CallTimeout: time.Minute, AuditLogPath: path})
	if err != nil {
		t.Fatal(err)
	}
	m := newManager(t, embeddedStore(t), eng)
	if _, err := m.Upload(ctx, UploadRequest{Module: readTestdata(t, "marker.wasm"), Manifest: []byte("mode: monitor\n"), Activate: true}); err != nil {
		t.Fatal(err)
	}
	decide(t, eng, "echo twmarker-deny")
	eng.Close(ctx)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"monitor_rule_ids":["WAT_MARKER"]`) || !strings.Contains(string(b), `"decision":"allow"`) {
		t.Fatalf("audit log: %s", b)
	}
}

// TestConfigOverridePutsPluginInMonitorMode: plugins.overrides.NAME.mode
// beats the manifest.
func TestConfigOverridePutsPluginInMonitorMode(t *testing.T) {
	ctx := context.Background()
	eng := newEngine(t)
	m := newManager(t, embeddedStore(t), eng, func(c *Config) {
		c.Limits.Overrides = map[string]Manifest{"marker": {Mode: ModeMonitor}}
	})
	if _, err := m.Upload(ctx, UploadRequest{Module: readTestdata(t, "marker.wasm"), Manifest: []byte("mode: enforce\n"), Activate: true}); err != nil {
		t.Fatal(err)
	}
	rep := decide(t, eng, "echo twmarker-deny")
	if rep.Decision != sdk.Allow || rep.TelemetryAttributes[engine.AttrMonitorRuleIDs] != "WAT_MARKER" {
		t.Fatalf("override not applied: %s %v %v", rep.Decision, rep.RuleIDs(), rep.TelemetryAttributes)
	}
}
