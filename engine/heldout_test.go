package engine_test

import "testing"

// TestHeldoutCorpusBars holds the scanner to the project's bars on cases it
// was not tuned on (testdata/heldout_cases.jsonl: written apart from the
// development corpus, in its style and labelled by the same contract, with
// new instances and new evasions): deny recall ≥ 97% (and on evasions
// alone), false denies on allow-labelled cases ≤ 2%, exact agreement ≥ 90%.
// A scanner that only learned the development corpus's strings fails here.
func TestHeldoutCorpusBars(t *testing.T) {
	cases := loadCorpusFile(t, "heldout_cases.jsonl")
	if len(cases) < 150 {
		t.Fatalf("held-out corpus has %d cases, want at least 150", len(cases))
	}
	f := scoreCorpus(t, cases)
	checkBars(t, f)
	if f.evasionRecall < 0.97 {
		t.Errorf("deny recall on evasions %.3f < 0.97", f.evasionRecall)
	}
}
