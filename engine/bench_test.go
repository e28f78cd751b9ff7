package engine_test

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/toolwarden/toolwarden/engine"
	"github.com/toolwarden/toolwarden/policies"
)

func benchScript(b *testing.B, size int) string {
	b.Helper()
	one, err := os.ReadFile("testdata/bench_1k.sh")
	if err != nil {
		b.Fatal(err)
	}
	// Whole lines only, so the script parses: a cut construct would turn
	// the benchmark into one of the parse-error path.
	lines := strings.SplitAfter(string(one), "\n")
	var sb strings.Builder
	for i := 0; ; i++ {
		l := lines[i%len(lines)]
		if sb.Len()+len(l) > size {
			return sb.String()
		}
		sb.WriteString(l)
	}
}

func benchScan(b *testing.B, packs []engine.Pack, size int) {
	e, err := engine.New(context.Background(), engine.Options{Policy: policies.Default(), Packs: packs})
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close(context.Background())
	req := engine.Request{Language: "bash", Content: benchScript(b, size)}
	if _, err := e.Scan(context.Background(), req); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(req.Content)))
	b.ResetTimer()
	for b.Loop() {
		if _, err := e.Scan(context.Background(), req); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkScanWasm1KB is a full scan — analyzers plus every built-in pack
// in Wasm with deadlines on — of 1 KB of bash.
func BenchmarkScanWasm1KB(b *testing.B)    { benchScan(b, nil, 1024) }
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
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := e.Scan(context.Background(), req); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

// BenchmarkStartCold builds an engine with an empty compilation cache.
func BenchmarkStartCold(b *testing.B) {
	for b.Loop() {
		dir := b.TempDir()
		e, err := engine.New(context.Background(), engine.Options{Policy: policies.Default(), CacheDir: dir})
		if err != nil {
			b.Fatal(err)
		}
		e.Close(context.Background())
	}
}

// BenchmarkStartWarm builds an engine from a populated compilation cache.
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
		e.Close(context.Background())
	}
}
