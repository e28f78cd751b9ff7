package rule

import (
	"strings"
	"testing"

	"github.com/toolwarden/toolwarden/sdk"
	"github.com/toolwarden/toolwarden/sdk/layout"
)

func resetConfig(t *testing.T) {
	t.Helper()
	clear := func() {
		mu.Lock()
		configured, confPolicy, confConfig = false, nil, nil
		mu.Unlock()
	}
	clear()
	t.Cleanup(clear)
}

func decodeV2(t *testing.T, b []byte) *sdk.ScanOutput {
	t.Helper()
	var dec layout.Decoder
	out, err := dec.DecodeScanOutput(b)
	if err != nil {
		t.Fatalf("HandleV2 returned a bad layout: %v", err)
	}
	return out
}

// TestHandleV2JudgesUnderConfiguredPolicy: a v2 scan sees the policy and
// settings of the last configure, not anything in the scan input, and
// fails closed before configure.
func TestHandleV2JudgesUnderConfiguredPolicy(t *testing.T) {
	reset(t)
	resetConfig(t)
	Register(testInfo, func(in *sdk.ScanInput) ([]sdk.Finding, error) {
		return []sdk.Finding{{RuleID: "T_RULE", Evidence: in.Content + "|" + in.Policy.Name,
			Metadata: map[string]any{"k": in.Config["k"], "cmd": in.Facts.Commands[0].Name}}}, nil
	})
	var enc layout.Encoder
	msg, err := enc.AppendScanInput(nil, &sdk.ScanInput{Content: "sudo x", Language: "bash",
		Facts: &sdk.Facts{Version: 1, Commands: []sdk.Command{{Name: "sudo"}}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if out := decodeV2(t, HandleV2(nil, msg)); !strings.Contains(out.Error, "configure") {
		t.Fatalf("scan before configure: %+v", out)
	}
	if err := Configure([]byte(`{"policy":{"name":"strict"},"config":{"k":2}}`)); err != nil {
		t.Fatal(err)
	}
	out := decodeV2(t, HandleV2(nil, msg))
	if out.Error != "" || len(out.Findings) != 1 {
		t.Fatalf("output %+v", out)
	}
	f := out.Findings[0]
	if f.Evidence != "sudo x|strict" || f.Metadata["k"] != float64(2) || f.Metadata["cmd"] != "sudo" {
		t.Fatalf("finding %+v", f)
	}
	if err := Configure([]byte(`{"policy":`)); err == nil {
		t.Fatal("malformed configure accepted")
	}
	if out := decodeV2(t, HandleV2(nil, msg[:len(msg)-2])); !strings.Contains(out.Error, "decode input") {
		t.Fatalf("truncated input: %+v", out)
	}
}

// TestHandleV2RecoversPanics: a panicking pack is an error output.
func TestHandleV2RecoversPanics(t *testing.T) {
	reset(t)
	resetConfig(t)
	Register(testInfo, func(in *sdk.ScanInput) ([]sdk.Finding, error) { panic("boom") })
	if err := Configure([]byte(`{"policy":null}`)); err != nil {
		t.Fatal(err)
	}
	var enc layout.Encoder
	msg, _ := enc.AppendScanInput(nil, &sdk.ScanInput{Facts: &sdk.Facts{}}, nil)
	if out := decodeV2(t, HandleV2(nil, msg)); !strings.Contains(out.Error, "panicked: boom") {
		t.Fatalf("panic: %+v", out)
	}
}
