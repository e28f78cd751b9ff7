// Command picky is a guest-kit rule plugin that declares ABI v2 interests:
// commands named rm only. It reports what it was sent (the command names,
// how many file facts, how long the content) in metadata and leaves the
// message to its rule's template, so tests can see that the host filters
// the facts, skips the plugin when none is of interest, and fills messages
// host-side.
package main

import (
	"strings"

	"github.com/toolwarden/toolwarden/sdk"
	"github.com/toolwarden/toolwarden/sdk/rule"
)

func info() sdk.PluginInfo {
	return sdk.PluginInfo{
		Name:    "picky",
		Version: "1.0.0",
		Rules: []sdk.RuleInfo{{ID: "PICKY", RiskType: sdk.RiskTypeFile, Risk: sdk.RiskHigh, Decision: sdk.Deny,
			Description: "sees rm commands only", Message: "saw {names} with {files} file facts",
			Recommendation: "do not run {evidence}"}},
		Interests: &sdk.Interests{Commands: []string{"rm"}},
	}
}

func scan(in *sdk.ScanInput) ([]sdk.Finding, error) {
	var names []string
	for _, c := range in.Facts.Commands {
		names = append(names, c.Name)
	}
	files := 0
	if in.Facts != nil {
		files = len(in.Facts.Files)
	}
	return []sdk.Finding{{RuleID: "PICKY", Evidence: "rm", Line: 1,
		Metadata: map[string]any{"names": strings.Join(names, ","), "files": files, "content": len(in.Content),
			"policy": in.Policy.Name}}}, nil
}

func init() { rule.Register(info(), scan) }

func main() {}
