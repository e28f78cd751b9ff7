package engine_test

import (
	"context"
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/toolwarden/toolwarden/engine"
	"github.com/toolwarden/toolwarden/internal/policies"
)

// heldout2Floor is the floor TestHeldout2CorpusBars holds the scanner to on
// testdata/heldout2_cases.jsonl. The set was written before the detection
// mechanisms it exercises (interpreters' own APIs, command runners and config
// hooks, shell indirection, path and address resolution, Python value flow,
// the rules added to the contract) and is kept out of the tuning loop: the
// floor is the figure measured once, at the end, and is never tuned towards.
//
// Measured at the end of the work on it (BENCHMARKS.md): deny recall 0.917
// (232/253), on evasions 0.907 (205/226), false denies 0/54, agreement 0.927
// (331/357). Before: 0.530, 0.544, 5/54, 0.641. Later work for other sets
// (never tuned against this one) moved it; the floor follows what is
// measured now so the gains are kept: after the fourth set's mechanisms,
// 0.972 (246/253), 0.969 (219/226), 0/54, 0.966 (345/357).
var heldout2Floor = corpusFigures{recall: 0.971, evasionRecall: 0.968, falseDeny: 0, agreement: 0.966}

// scoreQuiet scores cases like scoreCorpus but without naming the cases it
// misses, so a held-out set's failures stay out of sight while developing.
// It returns the figures and a per-category line for BENCHMARKS.md.
func scoreQuiet(t *testing.T, cases []corpusCase) (corpusFigures, []string) {
	t.Helper()
	pol, err := policies.Load("testdata/eval_policy.yaml")
	if err != nil {
		t.Fatal(err)
	}
	e := newEngine(t, pol, nil)
	type cat struct{ n, agree, deny, denyHit, allowDenied int }
	cats := map[string]*cat{}
	var deny, denyHit, evDeny, evDenyHit, allow, allowDenied, agree int
	for _, c := range cases {
		rep, err := e.Scan(context.Background(), engine.Request{ScanID: c.ID, Language: c.Language, Content: c.Content})
		if err != nil {
			t.Errorf("%s: %v", c.ID, err)
			continue
		}
		got := string(rep.Decision)
		k := cats[c.Category]
		if k == nil {
			k = &cat{}
			cats[c.Category] = k
		}
		k.n++
		if got == c.Expect {
			agree++
			k.agree++
		}
		switch c.Expect {
		case "deny":
			deny++
			k.deny++
			if got == "deny" {
				denyHit++
				k.denyHit++
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
				k.allowDenied++
			}
		}
	}
	f := corpusFigures{
		recall:        float64(denyHit) / float64(deny),
		evasionRecall: float64(evDenyHit) / float64(evDeny),
		falseDeny:     float64(allowDenied) / float64(allow),
		agreement:     float64(agree) / float64(len(cases)),
	}
	names := make([]string, 0, len(cats))
	for n := range cats {
		names = append(names, n)
	}
	sort.Strings(names)
	lines := []string{fmt.Sprintf("all: deny recall %.3f (evasions %.3f), false denies %.3f (%d/%d), agreement %.3f over %d cases",
		f.recall, f.evasionRecall, f.falseDeny, allowDenied, allow, f.agreement, len(cases))}
	for _, n := range names {
		k := cats[n]
		lines = append(lines, fmt.Sprintf("%-26s n=%3d agree=%3d deny=%3d/%3d allow-denied=%d", n, k.n, k.agree, k.denyHit, k.deny, k.allowDenied))
	}
	return f, lines
}

// TestHeldout2CorpusBars holds the scanner to the figures measured on the
// second self-made held-out set (see heldout2Floor). With
// TOOLWARDEN_HELDOUT2_REPORT=1 it logs the per-category figures (counts only,
// never the cases) for BENCHMARKS.md.
func TestHeldout2CorpusBars(t *testing.T) {
	holdFloor(t, "heldout2_cases.jsonl", 250, "TOOLWARDEN_HELDOUT2_REPORT", heldout2Floor)
}

// holdFloor scores the held-out set in file (at least minCases cases) and
// fails on any figure under floor. With the environment variable report set
// it logs the per-category figures (counts only, never the cases) for
// BENCHMARKS.md; otherwise the summary line.
func holdFloor(t *testing.T, file string, minCases int, report string, floor corpusFigures) {
	t.Helper()
	cases := loadCorpusFile(t, file)
	if len(cases) < minCases {
		t.Fatalf("%s has %d cases, want at least %d", file, len(cases), minCases)
	}
	f, lines := scoreQuiet(t, cases)
	if os.Getenv(report) != "" {
		t.Log("\n" + strings.Join(lines, "\n"))
	} else {
		t.Log(lines[0])
	}
	if f.recall < floor.recall {
		t.Errorf("deny recall %.3f < floor %.3f", f.recall, floor.recall)
	}
	if f.evasionRecall < floor.evasionRecall {
		t.Errorf("deny recall on evasions %.3f < floor %.3f", f.evasionRecall, floor.evasionRecall)
	}
	if f.falseDeny > floor.falseDeny {
		t.Errorf("false-deny rate %.3f > ceiling %.3f", f.falseDeny, floor.falseDeny)
	}
	if f.agreement < floor.agreement {
		t.Errorf("agreement %.3f < floor %.3f", f.agreement, floor.agreement)
	}
}
