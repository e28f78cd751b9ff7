package rule_test

import (
	"fmt"
	"strings"

	"github.com/toolwarden/toolwarden/sdk"
	"github.com/toolwarden/toolwarden/sdk/rule"
)

// A rule pack is an Info and a Scan function; its main package registers
// them from init. Handle is what the scan export runs, so a pack can be
// tested natively by feeding it the JSON the host would send.
func Example() {
	info := sdk.PluginInfo{
		Name:    "sudo",
		Version: "1.0.0",
		Rules: []sdk.RuleInfo{{
			ID: "BASH_PRIVILEGE_ESCALATION", RiskType: sdk.RiskTypeProcess,
			Risk: sdk.RiskHigh, Decision: sdk.Deny, Description: "sudo and friends",
		}},
	}
	scan := func(in *sdk.ScanInput) ([]sdk.Finding, error) {
		var out []sdk.Finding
		for i, line := range strings.Split(in.Content, "\n") {
			if strings.HasPrefix(line, "sudo ") {
				// risk_type, risk_level and decision may stay empty: the
				// host fills them from the declared rule.
				out = append(out, sdk.Finding{RuleID: "BASH_PRIVILEGE_ESCALATION", Evidence: line, Line: i + 1})
			}
		}
		return out, nil
	}
	rule.Register(info, scan) // in a pack: func init() { rule.Register(info, scan) }

	out := rule.Handle([]byte(`{"content":"ls\nsudo reboot","language":"bash"}`))
	fmt.Println(strings.Contains(string(out), `"evidence":"sudo reboot","line":2`))
	// Output: true
}
