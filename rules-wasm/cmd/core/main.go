// Command core is every built-in rule pack in one Wasm rule plugin,
// "toolwarden-core" (GOOS=wasip1 GOARCH=wasm, -buildmode=c-shared).
//
// One module instead of one per pack means a scan crosses into Wasm once and
// decodes its input once: the packs judge the same facts, so four modules
// would pay the call, the interrupt checks and the input decoding four times
// for nothing. The packs stay separate Go packages (rules-wasm/packs) so
// they can be tested one by one; engine.NativePacks combines the same
// packs.All() the same way for the native comparison.
package main

import (
	"fmt"

	"github.com/toolwarden/toolwarden/rules-wasm/packs"
	"github.com/toolwarden/toolwarden/sdk"
	"github.com/toolwarden/toolwarden/sdk/rule"
)

// Name is the plugin name of the combined pack.
const Name = "toolwarden-core"

func init() {
	info, scan := combine(packs.All())
	rule.Register(info, scan)
}

// combine declares every rule of every pack under one plugin and returns a
// scan function that runs each pack on the same decoded input. A pack that
// fails fails the whole scan: the host then fails closed for all of them,
// which is what four separate plugins failing together would have meant.
func combine(all []packs.Pack) (sdk.PluginInfo, rule.ScanFunc) {
	info := sdk.PluginInfo{Name: Name}
	for _, p := range all {
		pi := p.Info()
		if info.Version == "" {
			info.Version = pi.Version
		}
		info.Rules = append(info.Rules, pi.Rules...)
	}
	scan := func(in *sdk.ScanInput) ([]sdk.Finding, error) {
		var out []sdk.Finding
		for _, p := range all {
			fs, err := p.Scan(in)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", p.Info().Name, err)
			}
			out = append(out, fs...)
		}
		return out, nil
	}
	return info, scan
}

func main() {}
