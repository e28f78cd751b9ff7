// Command core is every built-in rule pack in one Wasm rule plugin,
// "toolwarden-core" (GOOS=wasip1 GOARCH=wasm, -buildmode=c-shared).
//
// One module instead of one per pack means a scan crosses into Wasm once and
// decodes its input once: the packs judge the same facts, so four modules
// would pay the call, the interrupt checks and the input decoding four times
// for nothing. The packs stay separate Go packages (rules-wasm/packs) so
// they can be tested one by one; engine.NativePacks uses the same
// packs.Core() for the native comparison.
package main

import (
	"github.com/toolwarden/toolwarden/rules-wasm/packs"
	"github.com/toolwarden/toolwarden/sdk/rule"
)

func init() {
	core := packs.Core()
	rule.Register(core.Info(), core.Scan)
}

func main() {}
