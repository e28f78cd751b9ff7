package engine_test

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"slices"
	"sync"
	"testing"

	"github.com/toolwarden/toolwarden/engine"
	"github.com/toolwarden/toolwarden/internal/policies"
	"github.com/toolwarden/toolwarden/sdk"
)

type corpusCase struct {
	ID       string `json:"id"`
	Language string `json:"language"`
	Content  string `json:"content"`
	Expect   string `json:"expect"`
	Evasion  bool   `json:"evasion"`
	Category string `json:"category"`
}

// loadCorpusFile reads a labelled JSONL corpus from testdata.
func loadCorpusFile(t testing.TB, name string) []corpusCase {
	t.Helper()
	f, err := os.Open("testdata/" + name)
	if err != nil {
		t.Fatalf("open corpus: %v", err)
	}
	defer f.Close()
	var cases []corpusCase
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<22)
	for line := 1; sc.Scan(); line++ {
		var c corpusCase
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatalf("%s line %d: %v", name, line, err)
		}
		cases = append(cases, c)
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("read %s: %v", name, err)
	}
	return cases
}

func loadCorpus(t testing.TB) []corpusCase { return loadCorpusFile(t, "dev_cases.jsonl") }

// corpusFigures are the figures the project's bars are stated in.
type corpusFigures struct {
	recall, evasionRecall, falseDeny, agreement float64
}

// scoreCorpus scans every case under the corpus policy, logs mismatches and
// returns the figures.
func scoreCorpus(t *testing.T, cases []corpusCase) corpusFigures {
	t.Helper()
	pol, err := policies.Load("testdata/eval_policy.yaml")
	if err != nil {
		t.Fatal(err)
	}
	e := newEngine(t, pol, nil)
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
	f := corpusFigures{
		recall:        float64(denyHit) / float64(deny),
		evasionRecall: float64(evDenyHit) / float64(evDeny),
		falseDeny:     float64(allowDenied) / float64(allow),
		agreement:     float64(agree) / float64(len(cases)),
	}
	t.Logf("deny recall %.3f (evasions %.3f), false denies %.3f, agreement %.3f over %d cases",
		f.recall, f.evasionRecall, f.falseDeny, f.agreement, len(cases))
	return f
}

// checkBars fails the test for every bar the figures miss.
func checkBars(t *testing.T, f corpusFigures) {
	t.Helper()
	if f.recall < 0.97 {
		t.Errorf("deny recall %.3f < 0.97", f.recall)
	}
	if f.falseDeny > 0.02 {
		t.Errorf("false-deny rate %.3f > 0.02", f.falseDeny)
	}
	if f.agreement < 0.90 {
		t.Errorf("exact agreement %.3f < 0.90", f.agreement)
	}
}

// TestDevCorpusBars holds the scanner to the project's bars on the labelled
// development corpus: deny recall ≥ 97% (evasions included), false denies on
// allow-labelled cases ≤ 2%, exact agreement ≥ 90%.
func TestDevCorpusBars(t *testing.T) {
	checkBars(t, scoreCorpus(t, loadCorpus(t)))
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

// TestConcurrentScansMatchSerial scans the dev corpus from several
// goroutines at once, with both builds of the packs, and compares every
// report's findings with a serial scan. The engine pools its input buffers
// and decoders, and the Wasm host reuses each instance's input buffer, so a
// buffer handed back too early or a decoder shared by two scans shows up
// here (and under -race) as a finding from the wrong content.
func TestConcurrentScansMatchSerial(t *testing.T) {
	pol, err := policies.Load("testdata/eval_policy.yaml")
	if err != nil {
		t.Fatal(err)
	}
	cases := loadCorpus(t)
	for name, packs := range map[string][]engine.Pack{"wasm": nil, "native": engine.NativePacks()} {
		t.Run(name, func(t *testing.T) {
			e := newEngine(t, pol, packs)
			key := func(c corpusCase) string {
				rep, err := e.Scan(context.Background(), engine.Request{ScanID: c.ID, Language: c.Language, Content: c.Content})
				if err != nil {
					return "error: " + err.Error()
				}
				b, _ := json.Marshal(rep.Findings)
				return string(rep.Decision) + " " + string(b)
			}
			want := make([]string, len(cases))
			for i, c := range cases {
				want[i] = key(c)
			}
			const workers = 8
			got := make([]string, len(cases))
			var wg sync.WaitGroup
			for w := range workers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					// Each worker walks the corpus from another offset,
					// so different contents are in flight together.
					for k := range cases {
						i := (k + w*len(cases)/workers) % len(cases)
						if s := key(cases[i]); w == 0 {
							got[i] = s
						} else if s != want[i] {
							t.Errorf("%s scanned concurrently (worker %d): %s\nserially: %s", cases[i].ID, w, s, want[i])
						}
					}
				}()
			}
			wg.Wait()
			for i := range cases {
				if got[i] != want[i] {
					t.Errorf("%s scanned concurrently: %s\nserially: %s", cases[i].ID, got[i], want[i])
				}
			}
		})
	}
}
