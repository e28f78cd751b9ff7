package policies

import (
	"strings"
	"testing"

	"github.com/toolwarden/toolwarden/sdk"
)

func TestCheckRuleIDs(t *testing.T) {
	known := []string{"BASH_LONG_SLEEP", "BASH_RECURSIVE_DELETE", "DEPENDENCY_INSTALL"}
	p := &sdk.Policy{Name: "p", Rules: map[string]sdk.RuleOverride{"BASH_LONG_SLEEP": {}}}
	if err := CheckRuleIDs(p, known); err != nil {
		t.Fatalf("known id refused: %v", err)
	}
	p.Rules["DEPENDENCY_INSTAL"] = sdk.RuleOverride{}
	err := CheckRuleIDs(p, known)
	if err == nil || !strings.Contains(err.Error(), "rules.DEPENDENCY_INSTAL: unknown rule id (did you mean DEPENDENCY_INSTALL?)") {
		t.Fatalf("misspelt id: got %v", err)
	}
	p.Rules = map[string]sdk.RuleOverride{"SOMETHING_ELSE_ENTIRELY": {}}
	err = CheckRuleIDs(p, known)
	if err == nil || strings.Contains(err.Error(), "did you mean") {
		t.Fatalf("far id: got %v, want an error without a suggestion", err)
	}
}
