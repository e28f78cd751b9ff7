package packs_test

import (
	"encoding/json"
	"os"
	"reflect"
	"testing"

	"github.com/toolwarden/toolwarden/rules-wasm/packs"
	"github.com/toolwarden/toolwarden/sdk"
)

// loadScanInput reads testdata/scan_1k.json: the scan input (facts, content
// and the default policy) the engine hands the packs for its 1 KB bash
// benchmark script (engine/testdata/bench_1k.sh).
func loadScanInput(tb testing.TB) *sdk.ScanInput {
	tb.Helper()
	raw, err := os.ReadFile("testdata/scan_1k.json")
	if err != nil {
		tb.Fatal(err)
	}
	var in sdk.ScanInput
	if err := json.Unmarshal(raw, &in); err != nil {
		tb.Fatalf("decode testdata/scan_1k.json: %v", err)
	}
	if in.Facts == nil || len(in.Facts.Commands) == 0 || in.Policy == nil {
		tb.Fatal("testdata/scan_1k.json holds no commands or no policy")
	}
	return &in
}

// repeatFacts returns f's facts n times over, as if the script were n
// copies of itself: command IDs and their sources are renumbered and every
// position moves down by the script's line count per copy, so nothing
// collapses into duplicates of the first copy.
func repeatFacts(f *sdk.Facts, n int) *sdk.Facts {
	lines, maxID := 0, 0
	posType := reflect.TypeFor[sdk.Pos]()
	eachPos(reflect.ValueOf(f).Elem(), posType, func(p *sdk.Pos) { lines = max(lines, p.Line) })
	for _, c := range f.Commands {
		maxID = max(maxID, c.ID)
	}
	out := &sdk.Facts{}
	dst := reflect.ValueOf(out).Elem()
	for k := range n {
		var cp sdk.Facts
		raw, _ := json.Marshal(f)
		_ = json.Unmarshal(raw, &cp)
		eachPos(reflect.ValueOf(&cp).Elem(), posType, func(p *sdk.Pos) {
			if p.Line > 0 {
				p.Line += k * lines
			}
		})
		for i := range cp.Commands {
			c := &cp.Commands[i]
			c.ID += k * maxID
			for j := range c.StdinSources {
				c.StdinSources[j] += k * maxID
			}
			for j := range c.ArgSources {
				c.ArgSources[j] += k * maxID
			}
		}
		src := reflect.ValueOf(&cp).Elem()
		for i := 0; i < src.NumField(); i++ {
			if src.Field(i).Kind() == reflect.Slice {
				dst.Field(i).Set(reflect.AppendSlice(dst.Field(i), src.Field(i)))
			} else if k == 0 {
				dst.Field(i).Set(src.Field(i))
			}
		}
	}
	return out
}

// eachPos calls fn for every sdk.Pos reachable from v (fields, slices).
func eachPos(v reflect.Value, posType reflect.Type, fn func(*sdk.Pos)) {
	switch v.Kind() {
	case reflect.Struct:
		if v.Type() == posType {
			fn(v.Addr().Interface().(*sdk.Pos))
			return
		}
		for i := 0; i < v.NumField(); i++ {
			eachPos(v.Field(i), posType, fn)
		}
	case reflect.Slice:
		for i := 0; i < v.Len(); i++ {
			eachPos(v.Index(i), posType, fn)
		}
	case reflect.Pointer:
		if !v.IsNil() {
			eachPos(v.Elem(), posType, fn)
		}
	}
}

// BenchmarkCoreScan measures the combined built-in packs judging decoded
// facts natively, the proxy for their cost inside Wasm where every heap
// allocation and every call is expensive: allocs/op must stay flat per
// fact. "1k" is the engine's 1 KB benchmark script under the default
// policy (its one finding is the shell-feature review), "1k-quiet" the same
// facts with that review switched off, so nothing is found, and "20x" the
// facts twenty times over, which must cost about twenty times "1k".
//
// Consecutive scans alternate between two separately decoded copies of the
// input, as every Wasm call decodes its own: what the packs prepare per
// facts document or per policy is measured, not cached across scans.
func BenchmarkCoreScan(b *testing.B) {
	core := packs.Core()
	for _, bc := range []struct {
		name  string
		edit  func(*sdk.ScanInput)
		found int
	}{
		{"1k", func(*sdk.ScanInput) {}, 1},
		{"1k-quiet", func(in *sdk.ScanInput) { in.Policy.ReviewShellFeatures = false }, 0},
		{"20x", func(in *sdk.ScanInput) { in.Facts = repeatFacts(in.Facts, 20) }, 1},
	} {
		var ins [2]*sdk.ScanInput
		for i := range ins {
			ins[i] = loadScanInput(b)
			bc.edit(ins[i])
		}
		b.Run(bc.name, func(b *testing.B) {
			for _, in := range ins {
				if fs, err := core.Scan(in); err != nil || len(fs) != bc.found {
					b.Fatalf("scan = %d findings, %v; want %d", len(fs), err, bc.found)
				}
			}
			b.ReportAllocs()
			n := 0
			for b.Loop() {
				if _, err := core.Scan(ins[n&1]); err != nil {
					b.Fatal(err)
				}
				n++
			}
		})
	}
}
