package sdk_test

import (
	"bytes"
	"encoding/json"
	"math"
	"testing"

	"github.com/toolwarden/toolwarden/sdk"
)

// checkEncodeSame fails unless AppendScanOutput writes exactly the bytes
// json.Marshal writes for out, or both fail.
func checkEncodeSame(t *testing.T, name string, out sdk.ScanOutput) {
	t.Helper()
	want, jerr := json.Marshal(out)
	got, err := sdk.AppendScanOutput([]byte("prefix"), &out)
	switch {
	case jerr != nil && err != nil:
	case jerr != nil:
		t.Fatalf("%s: json.Marshal fails (%v), AppendScanOutput wrote %s", name, jerr, got)
	case err != nil:
		t.Fatalf("%s: AppendScanOutput: %v; json.Marshal wrote %s", name, err, want)
	case !bytes.HasPrefix(got, []byte("prefix")):
		t.Fatalf("%s: the buffer's prefix was overwritten: %q", name, got)
	case !bytes.Equal(got[len("prefix"):], want):
		t.Fatalf("%s:\n got %s\nwant %s", name, got[len("prefix"):], want)
	}
}

func TestAppendScanOutputMatchesEncodingJSON(t *testing.T) {
	col := 7
	weird := "tab\t nl\n cr\r bs\b ff\f nul\x00 esc\x1b del\x7f \"q\" \\ <a href='x'>&amp; é 😀 \u2028\u2029 bad\xff\xc3\x28 end"
	cases := map[string]sdk.ScanOutput{
		"nil findings":   {},
		"empty findings": {Findings: []sdk.Finding{}},
		"error":          {Findings: []sdk.Finding{}, Error: "scan: decode input: " + weird},
		"full": {Findings: []sdk.Finding{{
			RuleID: "BASH_RECURSIVE_DELETE", RiskType: sdk.RiskTypeFile, RiskLevel: sdk.RiskCritical, Decision: sdk.Deny,
			Evidence: weird, Line: 3, Column: &col, Message: "recursive delete of " + weird, Recommendation: "don't",
			Metadata: map[string]any{
				"path": "~", "recursive": true, "count": 3, "big": int64(math.MaxInt64), "neg": -12, "u": uint64(math.MaxUint64),
				"i32": int32(-5), "u32": uint32(5), "ratio": 0.5, "tiny": 1e-7, "huge": 1e21, "negtiny": -2.5e-9, "whole": 3.0,
				"f32": float32(0.1), "f32tiny": float32(1e-7), "zero": 0.0, "nil": nil, "list": []string{"a", weird},
				"nilList": []string(nil), "anys": []any{1.5, "x", nil, false, []any{}, map[string]any{"z": 1, "a": []string{}}},
				"nested": map[string]any{"b": 2, "a": map[string]any{}}, "nilMap": map[string]any(nil),
				"other": struct{ X int }{4}, "bytes": []byte("hi"), weird: "key with specials",
			},
		}, {RuleID: "R2"}}},
	}
	for name, out := range cases {
		checkEncodeSame(t, name, out)
	}
	for name, bad := range map[string]any{"NaN": math.NaN(), "Inf": math.Inf(1), "chan": make(chan int)} {
		checkEncodeSame(t, name, sdk.ScanOutput{Findings: []sdk.Finding{{RuleID: "R", Metadata: map[string]any{"v": bad}}}})
	}
}

func FuzzAppendScanOutput(f *testing.F) {
	f.Add("rm -rf ~", "<&>\u2028", 1.5, int64(3))
	f.Add("\xff\x00\"\\", "", 1e-7, int64(-1))
	f.Fuzz(func(t *testing.T, s1, s2 string, x float64, n int64) {
		checkEncodeSame(t, "fuzz", sdk.ScanOutput{Error: s2, Findings: []sdk.Finding{{
			RuleID: s1, Evidence: s2, Message: s1 + s2, Line: int(n),
			Metadata: map[string]any{s1: x, s2: n, "l": []any{s1, x}},
		}}})
	})
}
