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
		d := distance(id, k)
		if bestD < 0 || d < bestD {
			best, bestD = k, d
		}
	}
	if bestD < 0 || bestD > len(id)/2+1 {
		return ""
	}
	return best
}
