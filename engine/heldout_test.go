package engine_test

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"testing"

	"github.com/toolwarden/toolwarden/engine"
	"github.com/toolwarden/toolwarden/policies"
)

// heldoutCase is one labelled case of testdata/heldout_cases.jsonl.
type heldoutCase struct {
	corpusCase
	Category string `json:"category"`
}

// loadHeldout reads the held-out corpus: cases written apart from the
// development corpus, in its style and labelled by the same contract, with
// new instances and new evasions.
func loadHeldout(t testing.TB) []heldoutCase {
	t.Helper()
	f, err := os.Open("testdata/heldout_cases.jsonl")
	if err != nil {
		t.Fatalf("open held-out corpus: %v", err)
	}
	defer f.Close()
	var cases []heldoutCase
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<22)
	for line := 1; sc.Scan(); line++ {
		var c heldoutCase
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatalf("held-out corpus line %d: %v", line, err)
		}
		cases = append(cases, c)
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("read held-out corpus: %v", err)
	}
	return cases
}

// TestHeldoutCorpusBars holds the scanner to the project's bars on cases it
// was not tuned on: deny recall ≥ 97% (and on evasions alone), false denies
// on allow-labelled cases ≤ 2%, exact agreement ≥ 90%. A scanner that only
// learned the development corpus's strings fails here.
func TestHeldoutCorpusBars(t *testing.T) {
	pol, err := policies.Load("testdata/eval_policy.yaml")
	if err != nil {
		t.Fatal(err)
	}
	e := newEngine(t, pol, nil)
	cases := loadHeldout(t)
	if len(cases) < 150 {
		t.Fatalf("held-out corpus has %d cases, want at least 150", len(cases))
	}
	var deny, denyHit, evDeny, evDenyHit, allow, allowDenied, agree int
	for _, c := range cases {
		rep, err := e.Scan(context.Background(), engine.Request{ScanID: c.ID, Language: c.Language, Content: c.Content})
		if err != nil {
			t.Errorf("%s: %v", c.ID, err)
			continue
		}
		got := string(rep.Decision)
		if got == c.Expect {
			agree++
		} else {
			t.Logf("mismatch %s (%s): want %s, got %s %v", c.ID, c.Category, c.Expect, got, rep.RuleIDs())
		}
		switch c.Expect {
		case "deny":
			deny++
			if got == "deny" {
				denyHit++
			}
			if c.Evasion {
				evDeny++
				if got == "deny" {
					evDenyHit++
				}
			}
		case "allow":
			allow++
			if got == "deny" {
				allowDenied++
			}
		}
	}
	recall := float64(denyHit) / float64(deny)
	evRecall := float64(evDenyHit) / float64(evDeny)
	falseDeny := float64(allowDenied) / float64(allow)
	agreement := float64(agree) / float64(len(cases))
	t.Logf("deny recall %.3f (evasions %.3f), false denies %.3f, agreement %.3f over %d cases",
		recall, evRecall, falseDeny, agreement, len(cases))
	if recall < 0.97 {
		t.Errorf("deny recall %.3f < 0.97", recall)
	}
	if evRecall < 0.97 {
		t.Errorf("deny recall on evasions %.3f < 0.97", evRecall)
	}
	if falseDeny > 0.02 {
		t.Errorf("false-deny rate %.3f > 0.02", falseDeny)
	}
	if agreement < 0.90 {
		t.Errorf("exact agreement %.3f < 0.90", agreement)
	}
}
