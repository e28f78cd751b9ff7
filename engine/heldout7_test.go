package engine_test

import (
	"testing"
)

// heldout7Floor is the floor TestHeldout7CorpusBars holds the scanner to on
// testdata/heldout7_cases.jsonl: the seventh self-made held-out set, written
// from RULES.md and the eval policy alone, without reading the analyzers, the
// rule packs or the other case lists (inline interpreters' own file, process
// and network APIs, command runners and config hooks, shell indirection,
// other ways to a secret, network routing options and address forms, Python
// value flow, environment dumps, private keys, downloaded code run later,
// listening sockets, system and block-device writes, defense evasion,
// deletes, exfiltration, and benign build, CI, test, data and ops scripts and
// harmless look-alikes so false denies show). It is kept out of the tuning
// loop: the floor is the figure measured once, rounded down, never tuned
// towards.
//
// Measured once at code a33fdaf (before any fix aimed at it): deny recall
// 0.934 (242/259), on evasions 0.925 (210/227), false denies 0/96, agreement
// 0.951 (374/393).
var heldout7Floor = corpusFigures{recall: 0.934, evasionRecall: 0.925, falseDeny: 0, agreement: 0.951}

// TestHeldout7CorpusBars holds the scanner to the figures measured on the
// seventh self-made held-out set (see heldout7Floor). With
// TOOLWARDEN_HELDOUT7_REPORT=1 it logs the per-category figures (counts only,
// never the cases) for BENCHMARKS.md.
func TestHeldout7CorpusBars(t *testing.T) {
	holdFloor(t, "heldout7_cases.jsonl", 390, "TOOLWARDEN_HELDOUT7_REPORT", heldout7Floor)
}
