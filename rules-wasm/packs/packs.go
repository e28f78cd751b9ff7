// Package packs lists the built-in rule packs so the host can run the very
// same code natively (benchmarks, tests) that it loads as Wasm in production.
package packs

import (
	"github.com/toolwarden/toolwarden/rules-wasm/packs/filesystem"
	"github.com/toolwarden/toolwarden/rules-wasm/packs/network"
	"github.com/toolwarden/toolwarden/rules-wasm/packs/process"
	"github.com/toolwarden/toolwarden/rules-wasm/packs/resources"
	"github.com/toolwarden/toolwarden/sdk"
)

// Pack is one built-in rule pack: its description and its scan function,
// exactly what rules-wasm/cmd/<pack> registers with the guest kit.
type Pack struct {
	Info func() sdk.PluginInfo
	Scan func(*sdk.ScanInput) ([]sdk.Finding, error)
}

// All returns every built-in pack. Together they implement each rule of the
// RULES.md catalog once (RULE_PLUGIN_ERROR is the host's).
func All() []Pack {
	return []Pack{
		{Info: filesystem.Info, Scan: filesystem.Scan},
		{Info: network.Info, Scan: network.Scan},
		{Info: process.Info, Scan: process.Scan},
		{Info: resources.Info, Scan: resources.Scan},
	}
}
