package engine_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"

	"github.com/toolwarden/toolwarden/engine"
	"github.com/toolwarden/toolwarden/internal/engine/analyze"
	"github.com/toolwarden/toolwarden/internal/engine/builtin"
	"github.com/toolwarden/toolwarden/internal/engine/wasmhost"
	"github.com/toolwarden/toolwarden/internal/policies"
	"github.com/toolwarden/toolwarden/sdk"
)

func benchScript(b *testing.B, size int) string {
	b.Helper()
	one, err := os.ReadFile("testdata/bench_1k.sh")
	if err != nil {
		b.Fatal(err)
	}
	// Whole lines only, and cut back until the script parses: a cut
	// construct (an `|| {` block, a loop) would turn the benchmark into one
	// of the parse-error path, which judges almost nothing.
	lines := strings.SplitAfter(string(one), "\n")
	var kept []string
	n := 0
	for i := 0; n+len(lines[i%len(lines)]) <= size; i++ {
		kept = append(kept, lines[i%len(lines)])
		n += len(lines[i%len(lines)])
	}
	for ; len(kept) > 0; kept = kept[:len(kept)-1] {
		src := strings.Join(kept, "")
		f, err := analyze.Analyze("bash", src, analyze.Options{})
		if err == nil && len(f.ParseErrors) == 0 {
			return src
		}
	}
	b.Fatalf("no prefix of %d bytes of testdata/bench_1k.sh parses", size)
	return ""
}

// shortCommand is a typical agent command (≤ 100 bytes).
const shortCommand = "cd /srv/app && git status --short && go test ./... 2>&1 | tail -n 20"

func benchScan(b *testing.B, packs []engine.Pack, size int) {
	benchScanReq(b, packs, false, benchScript(b, size))
}

// benchScanReq times full scans of content ("" = the 1 KB script).
func benchScanReq(b *testing.B, packs []engine.Pack, checked bool, content string) {
	if content == "" {
		content = benchScript(b, 1024)
	}
	e, err := engine.New(context.Background(), engine.Options{Policy: policies.Default(), Packs: packs, CheckedBuiltins: checked})
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close(context.Background())
	req := engine.Request{Language: "bash", Content: content}
	if _, err := e.Scan(context.Background(), req); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(req.Content)))
	lat := make([]time.Duration, 0, max(b.N, 1))
	cpu0 := processCPU()
	b.ResetTimer()
	for b.Loop() {
		t0 := time.Now()
		rep, err := e.Scan(context.Background(), req)
		if err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(t0))
		checkNoPluginError(b, rep)
	}
	b.StopTimer()
	reportLatency(b, lat, processCPU()-cpu0)
}

// checkNoPluginError stops a benchmark whose rule pack failed: a pack that
// overran its deadline fails closed with a finding, not an error, and the
// benchmark would go on timing the failure path.
func checkNoPluginError(b *testing.B, rep *sdk.SafetyReport) {
	for _, f := range rep.Findings {
		if f.RuleID == engine.RulePluginError {
			b.Fatalf("rule pack failed: %s", f.Message)
		}
	}
}

// reportLatency adds the p50 and p99 of the recorded scan latencies, and
// the process CPU time per scan, to the benchmark's output. On a machine
// shared with other work the wall-clock figures grow with the load while
// cpu-µs/op does not, so both are reported.
func reportLatency(b *testing.B, lat []time.Duration, cpu time.Duration) {
	if len(lat) == 0 {
		return
	}
	slices.Sort(lat)
	q := func(p float64) float64 {
		return float64(lat[min(len(lat)-1, int(p*float64(len(lat))))].Microseconds())
	}
	b.ReportMetric(q(0.50), "p50-µs")
	b.ReportMetric(q(0.99), "p99-µs")
	if cpu > 0 {
		b.ReportMetric(float64(cpu.Microseconds())/float64(len(lat)), "cpu-µs/op")
	}
}

// BenchmarkScanWasm1KB is a full scan — analyzers plus every built-in pack
// in Wasm with deadlines on — of 1 KB of bash.
func BenchmarkScanWasm1KB(b *testing.B)   { benchScan(b, nil, 1024) }
func BenchmarkScanWasmShort(b *testing.B) { benchScanReq(b, nil, false, shortCommand) }
func BenchmarkScanNativeShort(b *testing.B) {
	benchScanReq(b, engine.NativePacks(), false, shortCommand)
}

// BenchmarkScanWasmChecked1KB is BenchmarkScanWasm1KB with the built-in
// packs under the interrupt check (Options.CheckedBuiltins), what every
// scan cost before they ran bounded.
func BenchmarkScanWasmChecked1KB(b *testing.B) {
	benchScanReq(b, nil, true, "")
}
func BenchmarkScanWasm20KB(b *testing.B)   { benchScan(b, nil, 20*1024) }
func BenchmarkScanNative1KB(b *testing.B)  { benchScan(b, engine.NativePacks(), 1024) }
func BenchmarkScanNative20KB(b *testing.B) { benchScan(b, engine.NativePacks(), 20*1024) }

// BenchmarkScanWasmParallel1KB measures throughput with all cores scanning.
func BenchmarkScanWasmParallel1KB(b *testing.B) {
	e, err := engine.New(context.Background(), engine.Options{Policy: policies.Default()})
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close(context.Background())
	req := engine.Request{Language: "bash", Content: benchScript(b, 1024)}
	cpu0 := processCPU()
	start := time.Now()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := e.Scan(context.Background(), req); err != nil {
				b.Error(err)
				return
			}
		}
	})
	b.StopTimer()
	if n := b.N; n > 0 {
		b.ReportMetric(float64(n)/time.Since(start).Seconds(), "scans/s")
		b.ReportMetric(float64((processCPU()-cpu0).Microseconds())/float64(n), "cpu-µs/op")
	}
}

// BenchmarkStartCold builds an engine with an empty compilation cache. The
// time is New's, until the engine can scan; closing it (which waits for the
// pool's background pre-warm) is not counted.
func BenchmarkStartCold(b *testing.B) {
	for b.Loop() {
		b.StopTimer()
		dir := b.TempDir()
		b.StartTimer()
		e, err := engine.New(context.Background(), engine.Options{Policy: policies.Default(), CacheDir: dir})
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		e.Close(context.Background())
		b.StartTimer()
	}
}

// BenchmarkStartWarm builds an engine from a populated compilation cache
// (timed like BenchmarkStartCold).
func BenchmarkStartWarm(b *testing.B) {
	dir := b.TempDir()
	e, err := engine.New(context.Background(), engine.Options{Policy: policies.Default(), CacheDir: dir})
	if err != nil {
		b.Fatal(err)
	}
	e.Close(context.Background())
	b.ResetTimer()
	for b.Loop() {
		e, err := engine.New(context.Background(), engine.Options{Policy: policies.Default(), CacheDir: dir})
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		e.Close(context.Background())
		b.StartTimer()
	}
}

// BenchmarkInterruptChecks scans the 1 KB benchmark input with the built-in
// Wasm module directly on wazero, with and without WithCloseOnContextDone,
// the way the host calls it (input buffer kept, output freed). The
// difference is what the deadline costs: wazero v1.12 exits to Go at every
// loop header, and Go-compiled Wasm reaches its function's dispatch loop on
// every taken branch, so the checks multiply the guest's time by its branch
// count (see RATIONALE.md). The host always runs with the checks on.
func BenchmarkInterruptChecks(b *testing.B) {
	all, err := builtin.Packs()
	if err != nil {
		b.Skip(err)
	}
	src := benchScript(b, 1024)
	f, err := analyze.Analyze("bash", src, analyze.Options{})
	if err != nil {
		b.Fatal(err)
	}
	input, err := json.Marshal(&sdk.ScanInput{Facts: f, Content: src, Language: "bash", Policy: policies.Default()})
	if err != nil {
		b.Fatal(err)
	}
	for _, checks := range []bool{true, false} {
		b.Run(fmt.Sprintf("checks=%v", checks), func(b *testing.B) {
			ctx := context.Background()
			rt := wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfig().WithCloseOnContextDone(checks))
			defer rt.Close(ctx)
			wasi_snapshot_preview1.MustInstantiate(ctx, rt)
			mod, err := rt.InstantiateWithConfig(ctx, all[0].Wasm, wazero.NewModuleConfig().WithStartFunctions("_initialize").WithName(""))
			if err != nil {
				b.Fatal(err)
			}
			alloc, scan, free := mod.ExportedFunction("alloc"), mod.ExportedFunction("scan"), mod.ExportedFunction("free")
			res, err := alloc.Call(ctx, uint64(len(input)))
			if err != nil || !mod.Memory().Write(uint32(res[0]), input) {
				b.Fatalf("alloc: %v", err)
			}
			for b.Loop() {
				cctx, cancel := context.WithTimeout(ctx, time.Minute)
				out, err := scan.Call(cctx, res[0], uint64(len(input)))
				if err != nil {
					b.Fatal(err)
				}
				if _, err := free.Call(cctx, out[0]>>32); err != nil {
					b.Fatal(err)
				}
				cancel()
			}
		})
	}
}

// v1Pack serves a Wasm plugin through ABI v1 (the JSON input with the
// policy, on every scan) even when it speaks v2: the built-in module
// exports v1's scan beside scan_v2, so the benchmarks below compare the
// two protocols on the very same rules.
type v1Pack struct{ p *wasmhost.Plugin }

func (v v1Pack) Info() sdk.PluginInfo { return v.p.Info() }
func (v v1Pack) Judge(ctx context.Context, in *wasmhost.Input) ([]sdk.Finding, error) {
	b, err := in.JSON()
	if err != nil {
		return nil, err
	}
	return v.p.Scan(ctx, b)
}

// builtinV1 loads the built-in module (bounded, as production does) and
// serves it through ABI v1.
func builtinV1(b *testing.B) []engine.Pack { return builtinV1Load(b, false) }

// builtinV1Load is builtinV1, under the interrupt check when checked.
func builtinV1Load(b *testing.B, checked bool) []engine.Pack {
	all, err := builtin.Packs()
	if err != nil {
		b.Skip(err)
	}
	h, err := wasmhost.New(context.Background(), wasmhost.Options{CallTimeout: engine.DefaultCallTimeout})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { h.Close(context.Background()) })
	var out []engine.Pack
	for _, p := range all {
		load := h.LoadBounded
		if checked {
			load = h.Load
		}
		pl, err := load(context.Background(), p.Name, p.Wasm)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := pl.Scan(context.Background(), []byte(`{}`)); err != nil && strings.Contains(err.Error(), "without v1's scan export") {
			b.Skipf("the built-in module is built with -tags rule_v2only (no v1 scan): %v", err)
		}
		out = append(out, v1Pack{pl})
	}
	return out
}

// BenchmarkScanWasmV1_1KB and its siblings are BenchmarkScanWasm1KB, …
// with the built-in module served by ABI v1: run beside them, the ratio is
// what ABI v2 saves.
func BenchmarkScanWasmV1_1KB(b *testing.B)  { benchScan(b, builtinV1(b), 1024) }
func BenchmarkScanWasmV1_20KB(b *testing.B) { benchScan(b, builtinV1(b), 20*1024) }
func BenchmarkScanWasmV1Short(b *testing.B) { benchScanReq(b, builtinV1(b), false, shortCommand) }

// BenchmarkScanWasmV1Checked1KB and BenchmarkScanWasmV1CheckedShort are the
// v1 protocol under the interrupt check (how custom plugins run), beside
// BenchmarkScanWasmChecked1KB / BenchmarkScanWasmCheckedShort (v2).
func BenchmarkScanWasmV1Checked1KB(b *testing.B) {
	benchScanReq(b, builtinV1Load(b, true), false, "")
}
func BenchmarkScanWasmV1CheckedShort(b *testing.B) {
	benchScanReq(b, builtinV1Load(b, true), false, shortCommand)
}
func BenchmarkScanWasmCheckedShort(b *testing.B) { benchScanReq(b, nil, true, shortCommand) }

// variantPacks loads the module named by TOOLWARDEN_BENCH_WASM (bounded,
// served by ABI v2) in place of the built-in one, to measure a build
// variant of the same packs — e.g. a different guest GOGC — beside the
// embedded module in one run; skipped without it.
func variantPacks(b *testing.B) []engine.Pack {
	path := os.Getenv("TOOLWARDEN_BENCH_WASM")
	if path == "" {
		b.Skip("TOOLWARDEN_BENCH_WASM names no module")
	}
	wasm, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	h, err := wasmhost.New(context.Background(), wasmhost.Options{CallTimeout: engine.DefaultCallTimeout})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { h.Close(context.Background()) })
	pl, err := h.LoadBounded(context.Background(), "variant", wasm)
	if err != nil {
		b.Fatal(err)
	}
	return []engine.Pack{pl}
}

func BenchmarkScanWasmVariant1KB(b *testing.B) { benchScan(b, variantPacks(b), 1024) }
func BenchmarkScanWasmVariantShort(b *testing.B) {
	benchScanReq(b, variantPacks(b), false, shortCommand)
}
