package engine_test

import (
	"os"
	"testing"
)

// dev14Floor is the floor TestDev14CorpusBars holds the scanner to on
// testdata/dev14_cases.jsonl: a development list of the process, file and
// network APIs of inline interpreters (node/deno/bun, ruby, perl, php, lua,
// awk/gawk, sed, vim/ex/nvim, tclsh, Rscript), raw sockets wired to a shell
// (reverse shells), the same code written to a script file and run, and
// benign look-alikes (RULES.md principle 6). Its mismatches may be named;
// the floor is the figure measured after the work, so a regression shows.
//
// The first 128 cases (d14-*, 32 look-alikes), before the work (a33fdaf):
// deny recall 0.742 (66/89), on evasions 0.697, false denies 0/2,
// agreement 0.812 (104/128). The 35 d14-b2-* cases were written after
// the fixes, as a check on them: at a33fdaf 7 of their 19 denies were
// found (all 163: recall 0.676, agreement 0.779). After: 1.000 on all 163
// (108/108 denies, 0/2 false denies).
var dev14Floor = corpusFigures{recall: 1, evasionRecall: 1, falseDeny: 0, agreement: 1}

// TestDev14CorpusBars holds the scanner to the figures measured on the
// inline-interpreter API list (see dev14Floor). With
// TOOLWARDEN_DEV14_REPORT=1 it logs the per-category figures and each
// mismatch.
func TestDev14CorpusBars(t *testing.T) {
	holdFloor(t, "dev14_cases.jsonl", 100, "TOOLWARDEN_DEV14_REPORT", dev14Floor)
	if os.Getenv("TOOLWARDEN_DEV14_REPORT") != "" {
		scoreCorpus(t, loadCorpusFile(t, "dev14_cases.jsonl"))
	}
}
