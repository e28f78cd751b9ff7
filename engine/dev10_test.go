package engine_test

import "testing"

// dev10Floor is the floor TestDev10CorpusBars holds the scanner to on
// testdata/dev10_cases.jsonl: a development list of bash ways to the same
// effect (principle 6): extracting or copying into system directories,
// deletes that reach outside the workspace by glob, file-system tools on
// every block-device name family (and on image files, review), security
// agents stopped through any service manager or kill, and history wiping,
// with look-alikes that must stay allowed or reviewed. The floor is the
// figure measured after the work, so a regression shows.
//
// Measured (code after 0646e33): deny recall 0.989 (87/88), on evasions
// 0.985, false denies 0/9, agreement 0.992 (126/127); the one miss is
// `rm -rf ~/.[!.]*` (a negated bracket glob over the home is reviewed,
// not denied).
var dev10Floor = corpusFigures{recall: 0.989, evasionRecall: 0.985, falseDeny: 0, agreement: 0.992}

// TestDev10CorpusBars holds the scanner to the figures measured on the bash
// same-effect development list (see dev10Floor). With
// TOOLWARDEN_DEV10_REPORT=1 it logs the per-category figures.
func TestDev10CorpusBars(t *testing.T) {
	holdFloor(t, "dev10_cases.jsonl", 120, "TOOLWARDEN_DEV10_REPORT", dev10Floor)
}
