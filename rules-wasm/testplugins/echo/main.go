// Command echo is a well-behaved rule plugin built with the guest kit. It
// reports one finding whose evidence is the scanned content, so tests can see
// that the input crossed the ABI intact, and its config steers the result so
// tests can exercise the host's validation of plugin output:
//
//	rule_id   report this rule ID instead of ECHO (e.g. an undeclared one)
//	decision  set this decision on the finding (e.g. an invalid one)
//	error     return this error instead of findings
//	panic     panic inside the scan function (the kit recovers it)
//	none      report no finding at all
package main

import (
	"errors"
	"fmt"

	"github.com/toolwarden/toolwarden/sdk"
	"github.com/toolwarden/toolwarden/sdk/rule"
)

func info() sdk.PluginInfo {
	return sdk.PluginInfo{
		Name:    "echo",
		Version: "1.0.0",
		Rules: []sdk.RuleInfo{
			{ID: "ECHO", RiskType: sdk.RiskTypeUnknown, Risk: sdk.RiskLow, Decision: sdk.NeedsHumanReview, Description: "echoes the scanned content as evidence"},
			{ID: "ECHO_DENY", RiskType: sdk.RiskTypeProcess, Risk: sdk.RiskCritical, Decision: sdk.Deny, Description: "a denying rule for tests"},
		},
	}
}

func scan(in *sdk.ScanInput) ([]sdk.Finding, error) {
	str := func(k string) string { s, _ := in.Config[k].(string); return s }
	if s := str("error"); s != "" {
		return nil, errors.New(s)
	}
	if in.Config["panic"] == true {
		panic("echo asked to panic")
	}
	if in.Config["none"] == true {
		return nil, nil
	}
	id := str("rule_id")
	if id == "" {
		id = "ECHO"
	}
	col := 1
	return []sdk.Finding{{
		RuleID:   id,
		Decision: sdk.Decision(str("decision")),
		Evidence: in.Content,
		Line:     1,
		Column:   &col,
		Message:  fmt.Sprintf("echo of %d bytes of %s", len(in.Content), in.Language),
		Metadata: map[string]any{"language": in.Language, "tool_name": in.Context.ToolName},
	}}, nil
}

func init() { rule.Register(info(), scan) }

func main() {}
