package engine_test

import (
	"testing"
)

// heldout5Floor is the floor TestHeldout5CorpusBars holds the scanner to on
// testdata/heldout5_cases.jsonl: the fifth self-made held-out set, written
// before the mechanisms it exercises (inline interpreters' own file, process
// and network APIs, command runners and config hooks, shell indirection,
// other ways to a secret, symlinks the script creates, routing options and
// address forms, Python value flow and builtins lookups, env dumps, split
// private keys, downloaded code run or deserialized, listening sockets, mass
// kills, security agents, block devices, system writes, persistence,
// exfiltration to any host, evasions that mix two tricks, and benign build,
// CI and data scripts so false denies show). It is kept out of the tuning
// loop: fixes are developed against a separate dev list, and the floor is
// the figure measured, never tuned towards (BENCHMARKS.md has the figures).
//
// Before (code 3ee936e, BENCHMARKS.md): deny recall 0.929 (223/240), on
// evasions 0.918 (191/208), false denies 0/78, agreement 0.949 (354/373).
// After the Python value-flow work (dev9) and the authority and PGP-header
// fixes (code 6449efb..a627ede): deny recall 0.942 (226/240), evasions
// 0.933 (194/208), false denies 0/78, agreement 0.957 (357/373). The floor
// is the after figure, rounded down.
//
// At the end of the 2026-12-03 stop: 0.946 / 0.938 / 0 of 78 / 0.962.
var heldout5Floor = corpusFigures{recall: 0.945, evasionRecall: 0.937, falseDeny: 0, agreement: 0.961}

// TestHeldout5CorpusBars holds the scanner to the figures measured on the
// fifth self-made held-out set (see heldout5Floor). With
// TOOLWARDEN_HELDOUT5_REPORT=1 it logs the per-category figures (counts only,
// never the cases) for BENCHMARKS.md.
func TestHeldout5CorpusBars(t *testing.T) {
	holdFloor(t, "heldout5_cases.jsonl", 340, "TOOLWARDEN_HELDOUT5_REPORT", heldout5Floor)
}
