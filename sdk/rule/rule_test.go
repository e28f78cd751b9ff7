package rule

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/toolwarden/toolwarden/sdk"
)

// reset clears the registration so each test starts from an empty kit.
func reset(t *testing.T) {
	t.Helper()
	mu.Lock()
	registered, plugin, scanFn = false, sdk.PluginInfo{}, nil
	mu.Unlock()
	t.Cleanup(func() {
		mu.Lock()
		registered, plugin, scanFn = false, sdk.PluginInfo{}, nil
		mu.Unlock()
	})
}

var testInfo = sdk.PluginInfo{Name: "t", Version: "1", Rules: []sdk.RuleInfo{
	{ID: "T_RULE", RiskType: sdk.RiskTypeProcess, Risk: sdk.RiskHigh, Decision: sdk.Deny, Description: "test"},
}}

func decode(t *testing.T, b []byte) sdk.ScanOutput {
	t.Helper()
	var out sdk.ScanOutput
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatalf("Handle returned invalid JSON %q: %v", b, err)
	}
	return out
}

func TestHandleRunsRegisteredScan(t *testing.T) {
	reset(t)
	Register(testInfo, func(in *sdk.ScanInput) ([]sdk.Finding, error) {
		if !strings.Contains(in.Content, "sudo") {
			return nil, nil
		}
		return []sdk.Finding{{RuleID: "T_RULE", Evidence: in.Content, Metadata: map[string]any{"lang": in.Language}}}, nil
	})
	out := decode(t, Handle([]byte(`{"content":"sudo rm x","language":"bash"}`)))
	if out.Error != "" || len(out.Findings) != 1 || out.Findings[0].Evidence != "sudo rm x" || out.Findings[0].Metadata["lang"] != "bash" {
		t.Fatalf("output = %+v", out)
	}
	// No findings encode as an empty list, not null.
	raw := Handle([]byte(`{"content":"ls"}`))
	if !strings.Contains(string(raw), `"findings":[]`) {
		t.Fatalf("no findings encoded as %s", raw)
	}
}

func TestHandleFailsClosed(t *testing.T) {
	reset(t)
	if out := decode(t, Handle([]byte(`{}`))); !strings.Contains(out.Error, "no rule pack registered") {
		t.Fatalf("before Register: %+v", out)
	}
	mode := ""
	Register(testInfo, func(in *sdk.ScanInput) ([]sdk.Finding, error) {
		switch mode {
		case "error":
			return nil, errors.New("cannot judge")
		case "panic":
			var m map[string]int
			m["boom"] = 1 // nil map write: a runtime panic
		case "unencodable":
			return []sdk.Finding{{RuleID: "T_RULE", Metadata: map[string]any{"ch": make(chan int)}}}, nil
		}
		return nil, nil
	})
	cases := map[string]string{
		"error":       "scan: cannot judge",
		"panic":       "rule panicked: assignment to entry in nil map",
		"unencodable": "encode scan output",
	}
	for m, want := range cases {
		mode = m
		out := decode(t, Handle([]byte(`{"content":"x"}`)))
		if !strings.Contains(out.Error, want) || len(out.Findings) != 0 {
			t.Errorf("%s: output = %+v, want error containing %q", m, out, want)
		}
	}
	mode = ""
	if out := decode(t, Handle([]byte(`not json`))); !strings.Contains(out.Error, "decode input") {
		t.Errorf("bad input: %+v", out)
	}
}

func TestDescribe(t *testing.T) {
	reset(t)
	if _, err := Describe(); err == nil {
		t.Fatal("Describe before Register succeeded")
	}
	Register(testInfo, func(*sdk.ScanInput) ([]sdk.Finding, error) { return nil, nil })
	b, err := Describe()
	if err != nil {
		t.Fatal(err)
	}
	var got sdk.PluginInfo
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if got.Name != "t" || len(got.Rules) != 1 || got.Rules[0].Decision != sdk.Deny {
		t.Fatalf("Describe = %s", b)
	}
}

func TestRegisterTwicePanics(t *testing.T) {
	reset(t)
	Register(testInfo, func(*sdk.ScanInput) ([]sdk.Finding, error) { return nil, nil })
	defer func() {
		if r := recover(); r == nil || !strings.Contains(r.(string), "already registered") {
			t.Fatalf("second Register: recover() = %v", r)
		}
	}()
	Register(testInfo, func(*sdk.ScanInput) ([]sdk.Finding, error) { return nil, nil })
}
