package engine_test

import (
	"testing"
)

// heldout6Floor is the floor TestHeldout6CorpusBars holds the scanner to on
// testdata/heldout6_cases.jsonl: the sixth self-made held-out set, written
// from RULES.md and the eval policy alone, without reading the analyzers or
// the rule packs (other interpreters' file, process and network APIs, client
// programs with shell escapes, config hooks and command runners, shell
// indirection, other ways to a secret, routing options and address forms,
// downloaded code run later, listening sockets, system writes, defense
// evasion, exfiltration to allowed and other hosts, Python value flow, and
// benign build, test, data and ops scripts and harmless look-alikes so false
// denies show). It is kept out of the tuning loop: the floor is the figure
// measured once, rounded down, never tuned towards (BENCHMARKS.md has the
// figures).
//
// Measured once at code 03b5218 (before any fix aimed at it): deny recall
// 0.882 (202/229), on evasions 0.869 (179/206), false denies 0/99, agreement
// 0.922 (357/387). After the rest of this stop's work (code 32e0115 and the
// branches merged after it; none of it developed against this set): deny
// recall 0.926, evasions 0.917, false denies 0/99, agreement 0.951. The
// floor is the after figure, rounded down.
var heldout6Floor = corpusFigures{recall: 0.925, evasionRecall: 0.916, falseDeny: 0, agreement: 0.950}

// TestHeldout6CorpusBars holds the scanner to the figures measured on the
// sixth self-made held-out set (see heldout6Floor). With
// TOOLWARDEN_HELDOUT6_REPORT=1 it logs the per-category figures (counts only,
// never the cases) for BENCHMARKS.md.
func TestHeldout6CorpusBars(t *testing.T) {
	holdFloor(t, "heldout6_cases.jsonl", 380, "TOOLWARDEN_HELDOUT6_REPORT", heldout6Floor)
}
