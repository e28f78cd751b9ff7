package engine_test

import (
	"testing"
)

// heldout4Floor is the floor TestHeldout4CorpusBars holds the scanner to on
// testdata/heldout4_cases.jsonl: the fourth self-made held-out set, written
// before the mechanisms it exercises (listeners started from any language or
// CLI, reads and deletes through symlinks the script creates, interpreters'
// own file, process and network APIs, command runners and config hooks,
// shell indirection, path and address resolution, Python value flow and
// builtins lookups, env dumps, split private keys, downloaded code saved and
// run, evasions that mix two tricks, and benign build, CI and data scripts so
// false denies show). It is kept out of the tuning loop: fixes are developed
// against a separate dev list, and the floor is the figure measured once
// after the work, never tuned towards (BENCHMARKS.md has before and after).
//
// Measured at the end of the work on it (BENCHMARKS.md): deny recall 0.945
// (208/220), on evasions 0.929 (157/169), false denies 0/46, agreement 0.952
// (277/291). Before (code db5dcb2): 0.823 (181/220), 0.822 (139/169), 0/46,
// 0.859 (250/291).
var heldout4Floor = corpusFigures{recall: 0.945, evasionRecall: 0.928, falseDeny: 0, agreement: 0.951}

// TestHeldout4CorpusBars holds the scanner to the figures measured on the
// fourth self-made held-out set (see heldout4Floor). With
// TOOLWARDEN_HELDOUT4_REPORT=1 it logs the per-category figures (counts only,
// never the cases) for BENCHMARKS.md.
func TestHeldout4CorpusBars(t *testing.T) {
	holdFloor(t, "heldout4_cases.jsonl", 150, "TOOLWARDEN_HELDOUT4_REPORT", heldout4Floor)
}
