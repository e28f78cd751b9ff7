package wasmhost

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/toolwarden/toolwarden/sdk"
)

func newHost(t testing.TB, opts Options) *Host {
	t.Helper()
	if opts.CacheDir == "" {
		opts.CacheDir = testCacheDir
	}
	// Calls that are meant to succeed get a deadline no loaded machine or
	// race detector can miss; tests of the deadline set their own.
	if opts.CallTimeout == 0 {
		opts.CallTimeout = time.Minute
	}
	h, err := New(context.Background(), opts)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	t.Cleanup(func() {
		if err := h.Close(context.Background()); err != nil {
			t.Errorf("Host.Close: %v", err)
		}
	})
	return h
}

func load(t testing.TB, h *Host, name string) *Plugin {
	t.Helper()
	p, err := h.Load(context.Background(), name, pluginWasm[name])
	if err != nil {
		t.Fatalf("Load %s: %v", name, err)
	}
	// The tests count instances: let the background pre-warm finish.
	<-p.Warmed()
	return p
}

// input encodes a ScanInput the way the engine does.
func input(t testing.TB, content string, config map[string]any) []byte {
	t.Helper()
	b, err := json.Marshal(sdk.ScanInput{
		Content:  content,
		Language: "bash",
		Context:  sdk.RequestContext{ToolName: "run_shell"},
		Config:   config,
	})
	if err != nil {
		t.Fatalf("marshal input: %v", err)
	}
	return b
}

// mustServe shows the plugin still answers a good call after a bad one.
func mustServe(t *testing.T, p *Plugin) {
	t.Helper()
	findings, err := p.Scan(context.Background(), input(t, "harmless", nil))
	if err != nil {
		t.Fatalf("good scan after a bad one: %v", err)
	}
	if p.Info().Name == "echo" && (len(findings) != 1 || findings[0].Evidence != "harmless") {
		t.Fatalf("good scan after a bad one returned %+v", findings)
	}
}

func TestEchoScanRoundTrip(t *testing.T) {
	h := newHost(t, Options{PoolSize: 1})
	p := load(t, h, "echo")

	info := p.Info()
	if info.Name != "echo" || info.Version != "1.0.0" || len(info.Rules) != 2 || info.Rules[1].ID != "ECHO_DENY" {
		t.Fatalf("Info() = %+v", info)
	}
	content := "rm -rf build/ && echo 'ünïcode \"quoted\"'\n"
	findings, err := p.Scan(context.Background(), input(t, content, nil))
	if err != nil {
		t.Fatalf("Scan: %v", err)
	}
	if len(findings) != 1 {
		t.Fatalf("got %d findings, want 1: %+v", len(findings), findings)
	}
	f := findings[0]
	if f.RuleID != "ECHO" || f.Evidence != content {
		t.Errorf("finding = %+v, want ECHO with the content as evidence", f)
	}
	// Left empty by the plugin, filled from the declared rule.
	if f.Decision != sdk.NeedsHumanReview || f.RiskLevel != sdk.RiskLow || f.RiskType != sdk.RiskTypeUnknown {
		t.Errorf("declared fields not filled: decision=%q risk=%q type=%q", f.Decision, f.RiskLevel, f.RiskType)
	}
	if f.Metadata["language"] != "bash" || f.Metadata["tool_name"] != "run_shell" {
		t.Errorf("metadata = %v, want the input's language and tool name", f.Metadata)
	}
	if f.Column == nil || *f.Column != 1 {
		t.Errorf("column = %v, want 1", f.Column)
	}

	// A decision the plugin sets explicitly is kept.
	findings, err = p.Scan(context.Background(), input(t, "x", map[string]any{"rule_id": "ECHO_DENY", "decision": "allow"}))
	if err != nil {
		t.Fatalf("Scan: %v", err)
	}
	if findings[0].Decision != sdk.Allow || findings[0].RiskLevel != sdk.RiskCritical {
		t.Errorf("explicit decision/declared risk: %+v", findings[0])
	}
	if s := p.Stats(); s.Calls != 2 || s.Discarded != 0 || s.Instantiated != 1 {
		t.Errorf("stats = %+v, want 2 calls on the one pre-warmed instance", s)
	}
}

func TestScanOutputFailsClosed(t *testing.T) {
	h := newHost(t, Options{PoolSize: 1})
	p := load(t, h, "echo")
	cases := []struct {
		name   string
		config map[string]any
		want   string
	}{
		{"undeclared rule id", map[string]any{"rule_id": "NOT_DECLARED"}, `undeclared rule id "NOT_DECLARED"`},
		{"invalid decision", map[string]any{"decision": "maybe"}, `invalid decision "maybe"`},
		{"plugin error", map[string]any{"error": "cannot judge this"}, "cannot judge this"},
		{"recovered panic", map[string]any{"panic": true}, "rule panicked: echo asked to panic"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			findings, err := p.Scan(context.Background(), input(t, "content", tc.config))
			if err == nil {
				t.Fatalf("Scan succeeded with %+v, want an error", findings)
			}
			if !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "wasm rule echo") {
				t.Fatalf("error %q does not contain %q", err, tc.want)
			}
			if findings != nil {
				t.Errorf("findings %+v returned alongside an error", findings)
			}
			mustServe(t, p)
		})
	}
	// An empty result is no findings, not an error.
	findings, err := p.Scan(context.Background(), input(t, "content", map[string]any{"none": true}))
	if err != nil || len(findings) != 0 {
		t.Fatalf("none: findings=%+v err=%v", findings, err)
	}
	// Every failed call cost its instance; the good calls did not.
	if s := p.Stats(); s.Discarded != int64(len(cases)) || s.Calls != int64(2*len(cases)+1) {
		t.Errorf("stats = %+v, want %d instances discarded", s, len(cases))
	}
}

func TestHostileEndlessLoopTimesOut(t *testing.T) {
	const timeout = 100 * time.Millisecond
	h := newHost(t, Options{PoolSize: 1, CallTimeout: timeout})
	p := load(t, h, "loop")
	start := time.Now()
	_, err := p.Scan(context.Background(), input(t, "loop forever", nil))
	elapsed := time.Since(start)
	if err == nil {
		t.Fatal("endless loop returned without error")
	}
	if !errors.Is(err, ErrCallTimeout) {
		t.Errorf("error %v does not wrap ErrCallTimeout", err)
	}
	if elapsed > timeout+2*time.Second {
		t.Errorf("timeout took %s, want about %s", elapsed, timeout)
	}
	mustServe(t, p)
	if s := p.Stats(); s.Discarded != 1 || s.Instantiated != 2 {
		t.Errorf("stats = %+v, want the looping instance discarded and replaced", s)
	}
}

func TestCallerCancelIsNotATimeout(t *testing.T) {
	h := newHost(t, Options{PoolSize: 1, CallTimeout: time.Hour})
	p := load(t, h, "loop")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := p.Scan(ctx, input(t, "loop", nil))
		done <- err
	}()
	waitFor(t, func() bool { return p.Stats().Calls == 1 })
	cancel()
	err := <-done
	if err == nil || errors.Is(err, ErrCallTimeout) || !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled and not ErrCallTimeout", err)
	}
	mustServe(t, p)
}

func TestHostileUnboundedAllocationHitsMemoryCap(t *testing.T) {
	const limit = 48 << 20
	h := newHost(t, Options{PoolSize: 1, MemoryLimitBytes: limit, CallTimeout: time.Minute})
	p := load(t, h, "hog")
	_, err := p.Scan(context.Background(), input(t, "hog all memory", nil))
	if err == nil {
		t.Fatal("unbounded allocation returned without error")
	}
	if errors.Is(err, ErrCallTimeout) {
		t.Fatalf("allocation was stopped by the deadline, not the memory cap: %v", err)
	}
	t.Logf("memory cap error: %v", err)
	var used, capBytes uint64
	if _, serr := fmt.Sscanf(err.Error()[strings.Index(err.Error(), "(guest memory"):], "(guest memory %d of %d bytes)", &used, &capBytes); serr != nil {
		t.Fatalf("error %q does not report guest memory: %v", err, serr)
	}
	if capBytes != limit || used < limit/2 {
		t.Errorf("guest memory %d of %d bytes: want the cap %d nearly exhausted", used, capBytes, limit)
	}
	mustServe(t, p)
	if s := p.Stats(); s.Discarded != 1 {
		t.Errorf("stats = %+v, want the exhausted instance discarded", s)
	}
}

func TestMemoryLimitBelowGuestMinimumFailsLoad(t *testing.T) {
	h := newHost(t, Options{PoolSize: 1, MemoryLimitBytes: 1 << 20})
	if _, err := h.Load(context.Background(), "echo", pluginWasm["echo"]); err == nil {
		t.Fatal("Go plugin loaded under a 1 MiB cap")
	}
	// A module whose initial memory exceeds the cap is refused.
	m := constPlugin{abiVersion: 1, describe: constDescribe, scan: constScan}.module()
	m.memPages = 17
	if _, err := h.Load(context.Background(), "bigmin", m.encode()); err == nil || !strings.Contains(err.Error(), "over limit") {
		t.Fatalf("module with 17 initial pages under a 16-page cap: err = %v", err)
	}
	// A declared maximum above the cap is clamped to the cap, not trusted.
	m.memPages = 1
	big := uint32(100)
	m.memMax = &big
	if _, err := h.Load(context.Background(), "bigmax", m.encode()); err != nil {
		t.Fatalf("module with a 100-page maximum: %v", err)
	}
}

func TestHostileRawPanicTraps(t *testing.T) {
	h := newHost(t, Options{PoolSize: 1})
	p := load(t, h, "panic")
	if _, err := p.Scan(context.Background(), input(t, "panic now", nil)); err == nil {
		t.Fatal("unrecovered panic returned without error")
	} else {
		t.Logf("panic error: %v", err)
	}
	mustServe(t, p)
	if s := p.Stats(); s.Discarded != 1 {
		t.Errorf("stats = %+v, want the panicked instance discarded", s)
	}
}

func TestHostileBadResultPointer(t *testing.T) {
	h := newHost(t, Options{PoolSize: 1})
	p := load(t, h, "badptr")
	for _, content := range []string{"badptr", "badlen"} {
		_, err := p.Scan(context.Background(), input(t, content, nil))
		if err == nil {
			t.Fatalf("%s: returned without error", content)
		}
		if !strings.Contains(err.Error(), "outside") && !strings.Contains(err.Error(), "exceeds") {
			t.Errorf("%s: error %q does not name the bad range", content, err)
		}
		mustServe(t, p)
	}
	if s := p.Stats(); s.Discarded != 2 {
		t.Errorf("stats = %+v, want both lying instances discarded", s)
	}
}

func TestForeignLanguagePlugin(t *testing.T) {
	h := newHost(t, Options{PoolSize: 2})
	wasm := constPlugin{abiVersion: 1, describe: constDescribe, scan: constScan}.wasm()
	p, err := h.Load(context.Background(), "handmade", wasm)
	if err != nil {
		t.Fatalf("Load hand-assembled module: %v", err)
	}
	if p.Info().Name != "handmade" || p.Info().Rules[0].ID != "CONST_RULE" {
		t.Fatalf("Info() = %+v", p.Info())
	}
	findings, err := p.Scan(context.Background(), input(t, "anything", nil))
	if err != nil {
		t.Fatalf("Scan: %v", err)
	}
	want := sdk.Finding{RuleID: "CONST_RULE", RiskType: sdk.RiskTypeProcess, RiskLevel: sdk.RiskHigh, Decision: sdk.Deny,
		Evidence: "hand-assembled", Line: 1, Message: "constant finding"}
	if len(findings) != 1 || fmt.Sprint(findings[0]) != fmt.Sprint(want) {
		t.Fatalf("findings = %+v, want [%+v]", findings, want)
	}
	info, err := Validate(context.Background(), wasm)
	if err != nil || info.Name != "handmade" {
		t.Fatalf("Validate = %+v, %v", info, err)
	}
}

func TestLoadRejectsBadModules(t *testing.T) {
	h := newHost(t, Options{PoolSize: 1})
	good := constPlugin{abiVersion: 1, describe: constDescribe, scan: constScan}
	withDescribe := func(d string) []byte {
		c := good
		c.describe = d
		return c.wasm()
	}
	rule := func(fields string) string {
		return `{"name":"x","version":"1","rules":[` + fields + `]}`
	}
	noMem := good.module()
	noMem.noMemory = true
	missing := good.module()
	missing.funcs = missing.funcs[:4] // no scan
	wrongSig := good.module()
	wrongSig.funcs[4].results = []byte{i32}
	wrongSig.funcs[4].body = i32const(0)
	foreign := good.module()
	foreign.imports = []wimport{{module: "env", name: "system", params: []byte{i32}, results: []byte{i32}}}

	cases := []struct {
		name string
		wasm []byte
		want string
	}{
		{"not wasm", []byte("#!/bin/sh\n"), "compile"},
		{"wrong abi version", func() []byte { c := good; c.abiVersion = 2; return c.wasm() }(), "abi_version 2"},
		{"missing export", missing.encode(), `missing export "scan"`},
		{"wrong signature", wrongSig.encode(), `export "scan" has signature`},
		{"no memory export", noMem.encode(), `exported memory "memory"`},
		{"foreign import", foreign.encode(), "imports env.system"},
		{"describe empty", withDescribe(""), "empty result"},
		{"describe not json", withDescribe("{nope"), "decode plugin info"},
		{"describe unknown field", withDescribe(`{"name":"x","rules":[],"extra":1}`), "unknown field"},
		{"no name", withDescribe(`{"name":"","rules":[{"id":"A","risk_type":"t","risk":"low","decision":"allow"}]}`), "empty name"},
		{"no rules", withDescribe(rule("")), "declares no rules"},
		{"empty id", withDescribe(rule(`{"id":"","risk_type":"t","risk":"low","decision":"allow"}`)), "empty id"},
		{"space in id", withDescribe(rule(`{"id":"A B","risk_type":"t","risk":"low","decision":"allow"}`)), "whitespace"},
		{"duplicate id", withDescribe(rule(`{"id":"A","risk_type":"t","risk":"low","decision":"allow"},{"id":"A","risk_type":"t","risk":"low","decision":"deny"}`)), "declared twice"},
		{"no risk type", withDescribe(rule(`{"id":"A","risk":"low","decision":"allow"}`)), "empty risk_type"},
		{"bad risk", withDescribe(rule(`{"id":"A","risk_type":"t","risk":"extreme","decision":"allow"}`)), `invalid risk "extreme"`},
		{"bad decision", withDescribe(rule(`{"id":"A","risk_type":"t","risk":"low","decision":"block"}`)), `invalid decision "block"`},
		{"describe out of memory", func() []byte {
			m := good.module()
			m.funcs[1].body = packedConst(60000, 10000)
			return m.encode()
		}(), "outside"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p, err := h.Load(context.Background(), "bad", tc.wasm)
			if err == nil {
				p.Close(context.Background())
				t.Fatalf("loaded; want an error containing %q", tc.want)
			}
			if !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "load wasm rule bad") {
				t.Fatalf("error %q does not contain %q", err, tc.want)
			}
			if _, verr := Validate(context.Background(), tc.wasm); verr == nil {
				t.Fatalf("Validate accepted what Load rejected")
			}
		})
	}
}

func TestForeignPluginBadScanResults(t *testing.T) {
	h := newHost(t, Options{PoolSize: 1})
	cases := []struct {
		name, scan string
		body       []byte
		want       string
	}{
		{"not json", "{{", nil, "decode scan output"},
		{"undeclared", `{"findings":[{"rule_id":"OTHER"}]}`, nil, "undeclared"},
		{"bad risk level", `{"findings":[{"rule_id":"CONST_RULE","risk_level":"huge"}]}`, nil, `invalid risk_level "huge"`},
		{"error field", `{"findings":[],"error":"boom"}`, nil, "boom"},
		{"zero length", "", packedConst(constScanAt, 0), "empty result"},
		{"too large", "", packedConst(0, maxResultBytes+1), "exceeds"},
		{"trap", "", []byte{0x00}, "unreachable"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := constPlugin{abiVersion: 1, describe: constDescribe, scan: tc.scan, scanBody: tc.body}
			p, err := h.Load(context.Background(), "bad", c.wasm())
			if err != nil {
				t.Fatalf("Load: %v", err)
			}
			defer p.Close(context.Background())
			findings, err := p.Scan(context.Background(), input(t, "x", nil))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Scan = %+v, %v; want an error containing %q", findings, err, tc.want)
			}
		})
	}
}

// waitFor polls cond; the test's own deadline bounds it, not a timer here.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for !cond() {
		time.Sleep(time.Millisecond)
	}
}

// TestCloseDuringPrewarm closes a plugin right after Load, while its pool
// is still being instantiated in the background: Close must find every
// slot (filled or left empty) within its deadline, and the pre-warm must
// be over when it returns.
func TestCloseDuringPrewarm(t *testing.T) {
	const size = 6
	h := newHost(t, Options{PoolSize: size})
	p, err := h.Load(context.Background(), "echo", pluginWasm["echo"])
	if err != nil {
		t.Fatal(err)
	}
	if s := p.Stats(); s.Instantiated < 1 || s.Available < 1 {
		t.Fatalf("stats right after Load = %+v, want the first instance ready", s)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := p.Close(ctx); err != nil {
		t.Fatalf("Close during pre-warm: %v", err)
	}
	select {
	case <-p.Warmed():
	default:
		t.Fatal("Close returned before the background pre-warm ended")
	}
	if _, err := p.Scan(context.Background(), input(t, "ls", nil)); !errors.Is(err, ErrClosed) {
		t.Fatalf("Scan after Close = %v, want ErrClosed", err)
	}
}

func TestPoolBoundsConcurrency(t *testing.T) {
	const size = 2
	h := newHost(t, Options{PoolSize: size})
	p := load(t, h, "echo")
	if s := p.Stats(); s.PoolSize != size || s.Available != size || s.Instantiated != size {
		t.Fatalf("stats after Load = %+v, want %d pre-warmed instances", s, size)
	}
	// Hold every instance, as N scans in flight would.
	var held []*instance
	for range size {
		inst, err := p.acquire(context.Background())
		if err != nil {
			t.Fatalf("acquire: %v", err)
		}
		held = append(held, inst)
	}
	// Scan N+1 waits...
	done := make(chan error, 1)
	go func() {
		_, err := p.Scan(context.Background(), input(t, "extra", nil))
		done <- err
	}()
	waitFor(t, func() bool { return p.Stats().Waiting == 1 })
	select {
	case err := <-done:
		t.Fatalf("scan beyond the pool size ran without an instance: %v", err)
	default:
	}
	// ...and a waiter whose context ends gives up with the context's error.
	ctx, cancel := context.WithCancel(context.Background())
	cancelled := make(chan error, 1)
	go func() {
		_, err := p.Scan(ctx, input(t, "cancelled", nil))
		cancelled <- err
	}()
	waitFor(t, func() bool { return p.Stats().Waiting == 2 })
	cancel()
	if err := <-cancelled; !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled waiter: err = %v, want context.Canceled", err)
	}
	// Releasing one instance lets the first waiter run.
	p.release(held[0], false)
	if err := <-done; err != nil {
		t.Fatalf("waiting scan: %v", err)
	}
	p.release(held[1], false)
	if s := p.Stats(); s.Waiting != 0 || s.Available != size || s.Instantiated != size {
		t.Errorf("stats = %+v, want all slots back and no extra instances", s)
	}
}

func TestConcurrentScansDoNotMixInputs(t *testing.T) {
	h := newHost(t, Options{PoolSize: 2})
	p := load(t, h, "echo")
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for g := range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 8 {
				content := fmt.Sprintf("goroutine %d call %d %s", g, i, strings.Repeat("x", g*100))
				findings, err := p.Scan(context.Background(), input(t, content, nil))
				if err != nil {
					errs <- err
					return
				}
				if len(findings) != 1 || findings[0].Evidence != content {
					errs <- fmt.Errorf("content %q came back as %+v", content, findings)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if s := p.Stats(); s.Calls != 48 || s.Instantiated != 2 {
		t.Errorf("stats = %+v, want 48 calls over the 2 pooled instances", s)
	}
}

func TestRecycleAfterCalls(t *testing.T) {
	h := newHost(t, Options{PoolSize: 1, RecycleAfterCalls: 3})
	p := load(t, h, "echo")
	for i := range 7 {
		if _, err := p.Scan(context.Background(), input(t, fmt.Sprint(i), nil)); err != nil {
			t.Fatalf("scan %d: %v", i, err)
		}
	}
	// Calls 3 and 6 retire their instance; calls 4 and 7 create new ones.
	if s := p.Stats(); s.Recycled != 2 || s.Instantiated != 3 || s.Discarded != 0 {
		t.Errorf("stats = %+v, want 2 recycled and 3 instantiated", s)
	}
}

func TestRecycleAboveBytes(t *testing.T) {
	h := newHost(t, Options{PoolSize: 1, RecycleAboveBytes: 1 << 20})
	p := load(t, h, "echo") // a Go guest's memory is several MiB
	for i := range 2 {
		if _, err := p.Scan(context.Background(), input(t, fmt.Sprint(i), nil)); err != nil {
			t.Fatalf("scan %d: %v", i, err)
		}
	}
	if s := p.Stats(); s.Recycled != 2 {
		t.Errorf("stats = %+v, want each call's instance recycled for its size", s)
	}
	// The small hand-made module (one page) stays below the threshold.
	q, err := h.Load(context.Background(), "handmade", constPlugin{abiVersion: 1, describe: constDescribe, scan: constScan}.wasm())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := q.Scan(context.Background(), input(t, "x", nil)); err != nil {
		t.Fatal(err)
	}
	if s := q.Stats(); s.Recycled != 0 {
		t.Errorf("stats = %+v, a one-page module must not be recycled", s)
	}
}

func TestCompilationCacheDir(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	timeLoad := func() (time.Duration, *Host) {
		h, err := New(ctx, Options{CacheDir: dir, PoolSize: 1})
		if err != nil {
			t.Fatalf("New: %v", err)
		}
		start := time.Now()
		p, err := h.Load(ctx, "echo", pluginWasm["echo"])
		if err != nil {
			t.Fatalf("Load: %v", err)
		}
		d := time.Since(start)
		if _, err := p.Scan(ctx, input(t, "cached", nil)); err != nil {
			t.Fatalf("Scan: %v", err)
		}
		return d, h
	}
	cold, h1 := timeLoad()
	if err := h1.Close(ctx); err != nil {
		t.Fatal(err)
	}
	var files int
	var size int64
	filepath.Walk(dir, func(_ string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() {
			files++
			size += fi.Size()
		}
		return nil
	})
	if files == 0 || size == 0 {
		t.Fatalf("cache dir %s is empty after a load", dir)
	}
	warm, h2 := timeLoad()
	defer h2.Close(ctx)
	t.Logf("cache: %d files, %d bytes; load cold %s, warm from cache %s", files, size, cold, warm)
}

func TestScanAfterCloseFails(t *testing.T) {
	h := newHost(t, Options{PoolSize: 1})
	p := load(t, h, "echo")
	if err := p.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Scan(context.Background(), input(t, "x", nil)); !errors.Is(err, ErrClosed) {
		t.Fatalf("Scan after Close: %v, want ErrClosed", err)
	}
	q := load(t, h, "echo")
	if err := h.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := q.Scan(context.Background(), input(t, "x", nil)); !errors.Is(err, ErrClosed) {
		t.Fatalf("Scan after Host.Close: %v, want ErrClosed", err)
	}
	if _, err := h.Load(context.Background(), "echo", pluginWasm["echo"]); !errors.Is(err, ErrClosed) {
		t.Fatalf("Load after Host.Close: %v, want ErrClosed", err)
	}
}

func TestOptionsDefaultsAndValidation(t *testing.T) {
	h, err := New(context.Background(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close(context.Background())
	o := h.Options()
	if o.MemoryLimitBytes != DefaultMemoryLimitBytes || o.CallTimeout != DefaultCallTimeout || o.PoolSize < 1 ||
		o.RecycleAfterCalls != DefaultRecycleAfterCalls || o.RecycleAboveBytes != DefaultRecycleAboveBytes {
		t.Errorf("defaults = %+v", o)
	}
	for _, bad := range []Options{
		{MemoryLimitBytes: 100},
		{MemoryLimitBytes: 5 << 30},
		{CallTimeout: -time.Second},
		{PoolSize: -1},
		{RecycleAfterCalls: -1},
	} {
		if h, err := New(context.Background(), bad); err == nil {
			h.Close(context.Background())
			t.Errorf("New(%+v) succeeded", bad)
		}
	}
}

func TestValidateGoPlugin(t *testing.T) {
	info, err := Validate(context.Background(), pluginWasm["echo"])
	if err != nil {
		t.Fatalf("Validate: %v", err)
	}
	if info.Name != "echo" || len(info.Rules) != 2 {
		t.Fatalf("Validate = %+v", info)
	}
}

func TestForeignEndlessLoops(t *testing.T) {
	loop := []byte{0x03, 0x40, 0x0c, 0x00, 0x0b} // loop; br 0; end
	t.Run("in _initialize", func(t *testing.T) {
		old := minInitTimeout
		minInitTimeout = 200 * time.Millisecond
		defer func() { minInitTimeout = old }()
		h := newHost(t, Options{PoolSize: 1, CallTimeout: time.Millisecond})
		m := constPlugin{abiVersion: 1, describe: constDescribe, scan: constScan}.module()
		m.funcs = append(m.funcs, wfunc{name: "_initialize", body: loop})
		start := time.Now()
		_, err := h.Load(context.Background(), "initloop", m.encode())
		if err == nil {
			t.Fatal("module whose _initialize never returns loaded")
		}
		if elapsed := time.Since(start); elapsed > minInitTimeout+2*time.Second {
			t.Errorf("Load took %s, want about %s", elapsed, minInitTimeout)
		}
	})
	t.Run("in scan", func(t *testing.T) {
		const timeout = 100 * time.Millisecond
		h := newHost(t, Options{PoolSize: 1, CallTimeout: timeout})
		body := append(append([]byte{}, loop...), packedConst(constScanAt, uint32(len(constScan)))...)
		p, err := h.Load(context.Background(), "scanloop", constPlugin{abiVersion: 1, describe: constDescribe, scan: constScan, scanBody: body}.wasm())
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		_, err = p.Scan(context.Background(), input(t, "x", nil))
		if !errors.Is(err, ErrCallTimeout) {
			t.Fatalf("err = %v, want ErrCallTimeout", err)
		}
		if elapsed := time.Since(start); elapsed > timeout+2*time.Second {
			t.Errorf("scan took %s, want about %s", elapsed, timeout)
		}
	})
}

// TestInputBufferReused shows that an instance keeps its input buffer from
// scan to scan while inputs fit, allocates a bigger one when they do not,
// and that every scan sees exactly its own input, never the tail of a
// longer earlier one left in the reused buffer.
func TestInputBufferReused(t *testing.T) {
	h := newHost(t, Options{PoolSize: 1})
	p := load(t, h, "echo")
	scan := func(content string) {
		t.Helper()
		findings, err := p.Scan(context.Background(), input(t, content, nil))
		if err != nil {
			t.Fatalf("Scan: %v", err)
		}
		if len(findings) != 1 || findings[0].Evidence != content {
			t.Fatalf("scan of %d bytes echoed %d bytes", len(content), len(findings[0].Evidence))
		}
	}
	scan(strings.Repeat("long input ", 100))
	scan("short")
	scan("")
	if s := p.Stats(); s.InputAllocs != 1 || s.Calls != 3 {
		t.Fatalf("stats = %+v, want 3 scans through one input buffer", s)
	}
	scan(strings.Repeat("x", 3*minInputBuffer))
	scan("short again")
	if s := p.Stats(); s.InputAllocs != 2 || s.Discarded != 0 {
		t.Fatalf("stats = %+v, want one more input buffer for the big input and none after", s)
	}
}
