package policies

import (
	"fmt"
	"sort"
	"strings"

	"github.com/toolwarden/toolwarden/sdk"
)

// CheckRuleIDs reports a load error for every `rules:` override of p that
// names a rule none of the loaded packs has (known), with the closest known
// id as a suggestion: a misspelt override would otherwise change nothing,
// silently — a policy that looks strict and is not. known holds the rule ids
// of the packs and plugins the policy will run with (and the ids the host
// emits itself, such as RULE_PLUGIN_ERROR).
func CheckRuleIDs(p *sdk.Policy, known []string) error {
	if p == nil || len(p.Rules) == 0 {
		return nil
	}
	set := make(map[string]bool, len(known))
	for _, id := range known {
		set[id] = true
	}
	var errs []string
	for _, id := range sortedKeys(p.Rules) {
		if set[id] {
			continue
		}
		msg := fmt.Sprintf("rules.%s: unknown rule id", id)
		if s := closest(id, known); s != "" {
			msg += fmt.Sprintf(" (did you mean %s?)", s)
		}
		errs = append(errs, msg)
	}
	if len(errs) == 0 {
		return nil
	}
	name := p.Name
	if name == "" {
		name = "(unnamed)"
	}
	return fmt.Errorf("policy %s: %s", name, strings.Join(errs, "; "))
}

// closest returns the known id nearest to id by edit distance, or "" when
// none is near enough to be a plausible misspelling.
func closest(id string, known []string) string {
	sorted := append([]string(nil), known...)
	sort.Strings(sorted)
	best, bestD := "", -1
	for _, k := range sorted {
		d := editDistance(id, k)
		if bestD < 0 || d < bestD {
			best, bestD = k, d
		}
	}
	if bestD < 0 || bestD > len(id)/2+1 {
		return ""
	}
	return best
}

// editDistance is the Levenshtein distance between a and b.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
