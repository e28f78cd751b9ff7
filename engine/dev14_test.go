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
// benign look-alikes (RULES.md principle 6).
var dev14Floor = corpusFigures{recall: 0, evasionRecall: 0, falseDeny: 1, agreement: 0}

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
