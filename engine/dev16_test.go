package engine_test

import "testing"

// dev16Floor is the floor TestDev16CorpusBars holds the scanner to on
// testdata/dev16_cases.jsonl: a development list of commands run through
// wrappers (capsh -- -c, watch, flock, sg, start-stop-daemon, runuser),
// of output piped into them, of xargs input split by xargs' own quoting,
// and of writes whose destination under / is completed by an unknown
// variable (RULES.md SYSTEM_FILE_WRITE: a system tree with an unknown tail
// is denied, "/$X" reviewed), with look-alikes that only print, run
// harmless commands or write inside the workspace or /tmp.
//
// Before the work (code c5eb699): deny recall 0.727 (32/44), on evasions
// 0.467 (7/15), false denies 0/4, agreement 0.794 (54/68). After: 1.000
// (44/44), 1.000 (15/15), 0/4, 1.000 (68/68).
var dev16Floor = corpusFigures{recall: 1, evasionRecall: 1, falseDeny: 0, agreement: 1}

// TestDev16CorpusBars holds the scanner to the figures measured on the
// wrapper and pipe list (see dev16Floor). With TOOLWARDEN_DEV16_REPORT=1
// it logs the per-category figures.
func TestDev16CorpusBars(t *testing.T) {
	holdFloor(t, "dev16_cases.jsonl", 68, "TOOLWARDEN_DEV16_REPORT", dev16Floor)
}
