package wasmhost

import (
	"context"
	"testing"

	"github.com/toolwarden/toolwarden/sdk"
)

// BenchmarkScanEcho measures the host's per-call overhead: pool acquire,
// alloc, input copy, a trivial Go scan (JSON in, one finding out), result
// copy, free, and output validation.
func BenchmarkScanEcho(b *testing.B) {
	h := newHost(b, Options{PoolSize: 1})
	p := load(b, h, "echo")
	in := input(b, "ls -la /tmp && echo done", nil)
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := p.Scan(ctx, in); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkJudgeEchoV2 is BenchmarkScanEcho through ABI v2 (layout in,
// finding records out, configured once): run beside it, the ratio is the
// per-call saving of v2 for a guest that does almost no work.
func BenchmarkJudgeEchoV2(b *testing.B) {
	h := newHost(b, Options{PoolSize: 1})
	p := load(b, h, "echo")
	in := &Input{Scan: &sdk.ScanInput{Facts: &sdk.Facts{Version: 1}, Content: "ls -la /tmp && echo done", Language: "bash",
		Context: sdk.RequestContext{ToolName: "run_shell"}}, Config: NewConfig(&sdk.Policy{Name: "bench"})}
	defer in.Release()
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := p.Judge(ctx, in); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkScanHandmade is the same for the hand-assembled module: what the
// ABI costs with a guest that does no work.
func BenchmarkScanHandmade(b *testing.B) {
	h := newHost(b, Options{PoolSize: 1})
	p, err := h.Load(context.Background(), "handmade", constPlugin{abiVersion: 1, describe: constDescribe, scan: constScan}.wasm())
	if err != nil {
		b.Fatal(err)
	}
	in := input(b, "ls -la /tmp && echo done", nil)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := p.Scan(ctx, in); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLoadCold compiles the echo plugin without a cache each time.
func BenchmarkLoadCold(b *testing.B) {
	ctx := context.Background()
	for b.Loop() {
		h, err := New(ctx, Options{PoolSize: 1})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := h.Load(ctx, "echo", pluginWasm["echo"]); err != nil {
			b.Fatal(err)
		}
		h.Close(ctx)
	}
}

// BenchmarkLoadWarmCache loads the echo plugin in a new Host each time from
// a disk compilation cache populated once before timing.
func BenchmarkLoadWarmCache(b *testing.B) {
	ctx := context.Background()
	dir := b.TempDir()
	load := func() {
		h, err := New(ctx, Options{PoolSize: 1, CacheDir: dir})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := h.Load(ctx, "echo", pluginWasm["echo"]); err != nil {
			b.Fatal(err)
		}
		h.Close(ctx)
	}
	load()
	for b.Loop() {
		load()
	}
}

// BenchmarkInstantiate measures creating one pooled instance (what a
// discarded or recycled instance costs its replacement).
func BenchmarkInstantiate(b *testing.B) {
	h := newHost(b, Options{PoolSize: 1})
	p := load(b, h, "echo")
	ctx := context.Background()
	for b.Loop() {
		inst, err := p.instantiate(ctx)
		if err != nil {
			b.Fatal(err)
		}
		inst.close()
	}
}

// BenchmarkEchoBounded is BenchmarkScanEcho (v1) and BenchmarkJudgeEchoV2
// on the runtime without the interrupt check, where the built-in packs
// run: the guest kit's fixed cost per call in production.
func BenchmarkEchoBounded(b *testing.B) {
	h := newHost(b, Options{PoolSize: 1})
	p, err := h.LoadBounded(context.Background(), "echo", pluginWasm["echo"])
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	b.Run("v1", func(b *testing.B) {
		in := input(b, "ls -la /tmp && echo done", nil)
		for b.Loop() {
			if _, err := p.Scan(ctx, in); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("v2", func(b *testing.B) {
		in := &Input{Scan: &sdk.ScanInput{Facts: &sdk.Facts{Version: 1}, Content: "ls -la /tmp && echo done", Language: "bash",
			Context: sdk.RequestContext{ToolName: "run_shell"}}, Config: NewConfig(&sdk.Policy{Name: "bench"})}
		defer in.Release()
		for b.Loop() {
			if _, err := p.Judge(ctx, in); err != nil {
				b.Fatal(err)
			}
		}
	})
}
