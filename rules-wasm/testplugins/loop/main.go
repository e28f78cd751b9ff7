// Command loop is a rule plugin, built with the guest kit, whose scan never
// returns when the content contains "loop": only the host's per-call
// deadline can stop it.
package main

import (
	"strings"

	"github.com/toolwarden/toolwarden/sdk"
	"github.com/toolwarden/toolwarden/sdk/rule"
)

var spins uint64

func scan(in *sdk.ScanInput) ([]sdk.Finding, error) {
	if strings.Contains(in.Content, "loop") {
		for {
			spins++
		}
	}
	return nil, nil
}

func init() {
	rule.Register(sdk.PluginInfo{Name: "loop", Version: "1.0.0", Rules: []sdk.RuleInfo{
		{ID: "LOOP", RiskType: sdk.RiskTypeUnknown, Risk: sdk.RiskLow, Decision: sdk.Allow, Description: "never reported"},
	}}, scan)
}

func main() {}
