package engine_test

import "testing"

// dev9Floor is the floor TestDev9CorpusBars holds the scanner to on
// testdata/dev9_cases.jsonl: a development list of Python value flow
// (decorators and context managers, functools.partial, operator callers,
// static and class methods, dict methods, comprehensions, starred unpacking,
// loops over functions, try bodies, base classes and __call__, dict merges,
// map/filter and executors, both branches of an if, environment values sent
// out, proxies, netrc, /proc/*/environ, pip.main and printed secrets). It is
// the tuning loop for the Python analyzer, so its mismatches may be named;
// the floor is the figure measured after the work, so a regression shows.
//
// Before the work (code 3ee936e): deny recall 0.595 (100/168), on evasions
// 0.595, false denies 0/33, agreement 0.664 (144/217). After (BENCHMARKS.md,
// "Detection: Python value flow (dev list)"): 0.976 (164/168), 0.976, 0/33,
// 0.972 (211/217).
//
// Extended with decorators applied at the def (replacements, wrappers that
// change arguments, class decorators), exceptions carrying what was raised
// into handlers, objects printed through __str__/__repr__/__format__, pip.main
// with dynamic arguments (review), globs over secret directories and
// /proc/*/environ, and credential literals in secret-named variables, with
// benign look-alikes (code 4d354bf..): 302 cases, deny recall 0.995, on
// evasions 0.995, false denies 0/52, agreement 0.996; the miss is a
// decorator made with functools.partial.
var dev9Floor = corpusFigures{recall: 0.995, evasionRecall: 0.995, falseDeny: 0, agreement: 0.996}

// TestDev9CorpusBars holds the scanner to the figures measured on the Python
// value-flow development list (see dev9Floor). With TOOLWARDEN_DEV9_REPORT=1
// it logs the per-category figures for BENCHMARKS.md.
func TestDev9CorpusBars(t *testing.T) {
	holdFloor(t, "dev9_cases.jsonl", 200, "TOOLWARDEN_DEV9_REPORT", dev9Floor)
}
