package catalog_test

import (
	"compress/gzip"
	"encoding/json"
	"io"
	"os"
	"testing"

	"github.com/toolwarden/toolwarden/rules-wasm/packs"
	"github.com/toolwarden/toolwarden/rules-wasm/packs/internal/packtest"
	"github.com/toolwarden/toolwarden/sdk"
)

// loadScan reads a frozen scan input (content plus the facts the analyzers
// produced for it) from testdata and returns it encoded with the evaluation
// policy, as the host sends it to a pack. bench_1k and bench_20k are
// engine/testdata/bench_1k.sh repeated to 1 KB and 20 KB, the sizes of the
// engine's scan benchmarks.
func loadScan(tb testing.TB, name string) []byte {
	tb.Helper()
	f, err := os.Open("testdata/" + name + ".json.gz")
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		tb.Fatalf("open %s: %v", name, err)
	}
	raw, err := io.ReadAll(z)
	if err != nil {
		tb.Fatalf("read %s: %v", name, err)
	}
	var in sdk.ScanInput
	if err := json.Unmarshal(raw, &in); err != nil {
		tb.Fatalf("decode %s: %v", name, err)
	}
	if in.Facts == nil || len(in.Facts.Commands) == 0 {
		tb.Fatalf("%s has no commands", name)
	}
	in.Policy = packtest.Policy()
	out, err := json.Marshal(&in)
	if err != nil {
		tb.Fatal(err)
	}
	return out
}

// TestPacksOnBenchInputs keeps the benchmark inputs meaningful: every pack
// judges them without error and the script's commands outside
// allowed_commands are reported.
func TestPacksOnBenchInputs(t *testing.T) {
	for _, name := range []string{"bench_1k", "bench_20k"} {
		var in sdk.ScanInput
		if err := json.Unmarshal(loadScan(t, name), &in); err != nil {
			t.Fatal(err)
		}
		rules := map[string]int{}
		for _, p := range packs.All() {
			fs, err := p.Scan(&in)
			if err != nil {
				t.Fatalf("%s: %s: %v", name, p.Info().Name, err)
			}
			for _, f := range fs {
				rules[f.RuleID]++
			}
		}
		if rules["BASH_COMMAND_REVIEW"] == 0 {
			t.Errorf("%s: no BASH_COMMAND_REVIEW among %v", name, rules)
		}
	}
}

func benchScan(b *testing.B, name string, decode bool) {
	raw := loadScan(b, name)
	shared, err := sdk.DecodeScanInput(raw)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(shared.Content)))
	b.ReportAllocs()
	for b.Loop() {
		in := shared
		if decode {
			if in, err = sdk.DecodeScanInput(raw); err != nil {
				b.Fatal(err)
			}
		}
		for _, p := range packs.All() {
			if _, err := p.Scan(in); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkPacks1KB runs every pack on the decoded facts of 1 KB of bash
// with a shared policy pointer, as the native host does.
func BenchmarkPacks1KB(b *testing.B) { benchScan(b, "bench_1k", false) }

// BenchmarkPacks20KB is BenchmarkPacks1KB on 20 KB: it grows linearly
// unless some check is quadratic in the script's length.
func BenchmarkPacks20KB(b *testing.B) { benchScan(b, "bench_20k", false) }

// BenchmarkPacksDecode1KB decodes the input once and runs every pack on it,
// as the combined Wasm plugin does on each call: the facts and policy
// pointers are new every time, so nothing cached by pointer survives.
func BenchmarkPacksDecode1KB(b *testing.B) { benchScan(b, "bench_1k", true) }

// BenchmarkPacksDecode20KB is BenchmarkPacksDecode1KB on 20 KB.
func BenchmarkPacksDecode20KB(b *testing.B) { benchScan(b, "bench_20k", true) }
