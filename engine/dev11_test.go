package engine_test

import "testing"

// dev11Floor is the floor TestDev11CorpusBars holds the scanner to on
// testdata/dev11_cases.jsonl: a development list of the network and file
// APIs of inline interpreter code (node -e/-p/--eval and stdin, ruby -e,
// perl -e, php -r, lua -e, awk, python -c and stdin), each language against
// an allowed host, another host, the metadata address, a secret file and
// environment values sent out, with look-alikes that only print a URL
// (RULES.md principle 6). Its mismatches may be named; the floor is the
// figure measured after the work, so a regression shows.
//
// Before the work (code 821e60a): deny recall 0.544 (31/57), on evasions
// 0.118 (2/17), false denies 0/1, agreement 0.658 (50/76), before the look-alike
// perl-look-02 was added. After: 1.000 (57/57), 1.000 (17/17), 0/1, 1.000 (77/77).
//
// The d11-h4-* cases (node module bindings, deno/bun, perl/ruby -n/-p and
// argv operands, with look-alikes) measured at b0a755c, before that work:
// 4 of their 27 denies (node-bind-04, node-bind-08, deno-03, bun-01),
// agreement 13/36; after: 1.000 on all 113 cases.
var dev11Floor = corpusFigures{recall: 1, evasionRecall: 1, falseDeny: 0, agreement: 1}

// TestDev11CorpusBars holds the scanner to the figures measured on the
// inline-interpreter network list (see dev11Floor). With
// TOOLWARDEN_DEV11_REPORT=1 it logs the per-category figures.
func TestDev11CorpusBars(t *testing.T) {
	holdFloor(t, "dev11_cases.jsonl", 70, "TOOLWARDEN_DEV11_REPORT", dev11Floor)
}
