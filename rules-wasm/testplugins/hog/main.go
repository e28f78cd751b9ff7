// Command hog is a rule plugin, built with the guest kit, that allocates
// without bound when the content contains "hog": only the host's memory cap
// stops it (the Go runtime then dies with "out of memory").
package main

import (
	"strings"

	"github.com/toolwarden/toolwarden/sdk"
	"github.com/toolwarden/toolwarden/sdk/rule"
)

var hoard [][]byte

func scan(in *sdk.ScanInput) ([]sdk.Finding, error) {
	if strings.Contains(in.Content, "hog") {
		for {
			b := make([]byte, 1<<20)
			for i := range b {
				b[i] = byte(i)
			}
			hoard = append(hoard, b)
		}
	}
	return nil, nil
}

func init() {
	rule.Register(sdk.PluginInfo{Name: "hog", Version: "1.0.0", Rules: []sdk.RuleInfo{
		{ID: "HOG", RiskType: sdk.RiskTypeUnknown, Risk: sdk.RiskLow, Decision: sdk.Allow, Description: "never reported"},
	}}, scan)
}

func main() {}
