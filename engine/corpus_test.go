package engine_test

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"slices"
	"testing"

	"github.com/toolwarden/toolwarden/engine"
	"github.com/toolwarden/toolwarden/policies"
	"github.com/toolwarden/toolwarden/sdk"
)

type corpusCase struct {
	ID       string `json:"id"`
	Language string `json:"language"`
	Content  string `json:"content"`
	Expect   string `json:"expect"`
	Evasion  bool   `json:"evasion"`
}

func loadCorpus(t testing.TB) []corpusCase {
	t.Helper()
	f, err := os.Open("testdata/dev_cases.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var cases []corpusCase
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<22)
	for sc.Scan() {
		var c corpusCase
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatal(err)
		}
		cases = append(cases, c)
	}
	return cases
}

// TestDevCorpusBars holds the scanner to the project's bars on the labelled
// development corpus: deny recall ≥ 97% (evasions included), false denies on
// allow-labelled cases ≤ 2%, exact agreement ≥ 90%.
func TestDevCorpusBars(t *testing.T) {
	pol, err := policies.Load("testdata/eval_policy.yaml")
	if err != nil {
		t.Fatal(err)
	}
	e := newEngine(t, pol, nil)
	var deny, denyHit, allow, allowDenied, agree int
	for _, c := range loadCorpus(t) {
		rep, err := e.Scan(context.Background(), engine.Request{ScanID: c.ID, Language: c.Language, Content: c.Content})
		if err != nil {
			t.Errorf("%s: %v", c.ID, err)
			continue
		}
		got := string(rep.Decision)
		if got == c.Expect {
			agree++
		} else {
			t.Logf("mismatch %s: want %s, got %s %v", c.ID, c.Expect, got, rep.RuleIDs())
		}
		switch c.Expect {
		case "deny":
			deny++
			if got == "deny" {
				denyHit++
			}
		case "allow":
			allow++
			if got == "deny" {
				allowDenied++
			}
		}
	}
	n := len(loadCorpus(t))
	recall := float64(denyHit) / float64(deny)
	falseDeny := float64(allowDenied) / float64(allow)
	agreement := float64(agree) / float64(n)
	t.Logf("deny recall %.3f, false denies %.3f, agreement %.3f over %d cases", recall, falseDeny, agreement, n)
	if recall < 0.97 {
		t.Errorf("deny recall %.3f < 0.97", recall)
	}
	if falseDeny > 0.02 {
		t.Errorf("false-deny rate %.3f > 0.02", falseDeny)
	}
	if agreement < 0.90 {
		t.Errorf("exact agreement %.3f < 0.90", agreement)
	}
}

// TestWasmMatchesNative checks the Wasm packs and the same packs compiled
// natively decide every corpus case alike, with the same rules — the native
// build is only a yardstick if it judges identically.
func TestWasmMatchesNative(t *testing.T) {
	pol, err := policies.Load("testdata/eval_policy.yaml")
	if err != nil {
		t.Fatal(err)
	}
	w := newEngine(t, pol, nil)
	n := newEngine(t, pol, engine.NativePacks())
	for _, c := range loadCorpus(t) {
		req := engine.Request{ScanID: c.ID, Language: c.Language, Content: c.Content}
		a, err1 := w.Scan(context.Background(), req)
		b, err2 := n.Scan(context.Background(), req)
		if err1 != nil || err2 != nil {
			t.Fatalf("%s: %v / %v", c.ID, err1, err2)
		}
		if a.Decision != b.Decision || !slices.Equal(a.RuleIDs(), b.RuleIDs()) {
			t.Errorf("%s: wasm %s %v, native %s %v", c.ID, a.Decision, a.RuleIDs(), b.Decision, b.RuleIDs())
		}
		if slices.Contains(a.RuleIDs(), engine.RulePluginError) {
			t.Errorf("%s: a Wasm pack failed: %+v", c.ID, a.Findings)
		}
	}
	_ = sdk.Allow
}
