package sdk

import (
	"fmt"
	"slices"
	"testing"
)

// TestRuleIDs checks distinct ids in first-seen order, below and past the
// number of ids at which RuleIDs switches to a set.
func TestRuleIDs(t *testing.T) {
	for _, n := range []int{0, 1, 3, 15, 16, 17, 40} {
		var r SafetyReport
		var want []string
		for i := 0; i < n; i++ {
			id := fmt.Sprintf("R%d", i)
			want = append(want, id)
			// Every id twice, the repeat later, as rules report them.
			r.Findings = append(r.Findings, Finding{RuleID: id})
			if i%2 == 1 {
				r.Findings = append(r.Findings, Finding{RuleID: fmt.Sprintf("R%d", i-1)}, Finding{RuleID: id})
			}
		}
		r.Findings = append(r.Findings, r.Findings...)
		if got := r.RuleIDs(); !slices.Equal(got, want) {
			t.Errorf("%d ids: RuleIDs() = %v, want %v", n, got, want)
		}
	}
}
