// Package rule is the guest kit for toolwarden rule plugins written in Go.
//
// A rule pack is an ordinary Go package with an Info and a Scan function; its
// main package only registers them:
//
//	package main
//
//	import (
//		"github.com/toolwarden/toolwarden/rules-wasm/packs/fs"
//		"github.com/toolwarden/toolwarden/sdk/rule"
//	)
//
//	func init() { rule.Register(fs.Info(), fs.Scan) }
//	func main() {}
//
// Built with
//
//	GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -trimpath -o fs.wasm ./packs/fs/cmd
//
// the kit supplies the exports of the Wasm rule ABI (abi_version, describe,
// alloc, free, configure, scan_v2, and v1's scan; see ../ABI.md), so a pack
// author never touches pointers, JSON, layouts or the Go wasm runtime's
// quirks. The kit speaks ABI v2: the host sends the policy and settings
// once per instance (configure; the kit hands them to every scan as
// ScanInput.Policy and ScanInput.Config) and each scan's facts as a binary
// layout that the kit reads in place — strings point into the input
// buffer, records land in arenas reused from scan to scan, so a warm scan
// allocates no facts. How a rule is written did not change: the same
// Register(info, scan) serves both ABIs. A pack may narrow what it is sent
// with PluginInfo.Interests, and leave finding messages to the host with
// RuleInfo.Message/Recommendation templates. The export shims live in a file built
// only for wasip1; everything else (Register, Handle, Describe) is plain Go
// so a pack can be unit-tested natively through exactly the code path the
// host reaches.
//
// Built with the rule_v2only tag (go build -tags rule_v2only …), the module
// leaves out ABI v1: no scan export, no Handle and no JSON decoding of the
// facts. It then loads only on a host that speaks v2 (toolwarden's does,
// and builds its built-in packs so); without the tag a module serves
// either.
package rule

import (
	"encoding/json"
	"fmt"
	"sync"

	"github.com/toolwarden/toolwarden/sdk"
)

// ScanFunc judges one scan input and returns the findings of the pack. It is
// the one function a pack author writes. Returning an error makes the host
// fail closed (a RULE_PLUGIN_ERROR finding), so return one only when the
// input cannot be judged, never for "nothing found".
//
// The input, and every string and slice reachable from it, lives only
// until the function returns: the kit decodes each scan into the memory of
// the previous one (see sdk.Decoder and layout.Decoder), so a pack that keeps anything from it
// across scans must copy it (strings.Clone). Findings may quote the input
// freely; they are encoded before the memory is reused.
type ScanFunc func(in *sdk.ScanInput) ([]sdk.Finding, error)

var (
	mu         sync.Mutex
	registered bool
	plugin     sdk.PluginInfo
	scanFn     ScanFunc
)

// Register installs the pack's description and scan function. It is called
// once, from the main package's init, so that the ABI exports have something
// to serve as soon as the host runs _initialize. A second call panics: two
// packs in one module would silently shadow each other's rules otherwise.
func Register(info sdk.PluginInfo, scan func(in *sdk.ScanInput) ([]sdk.Finding, error)) {
	if scan == nil {
		panic("rule.Register: nil scan function")
	}
	mu.Lock()
	defer mu.Unlock()
	if registered {
		panic(fmt.Sprintf("rule.Register: plugin %q already registered, cannot register %q", plugin.Name, info.Name))
	}
	registered = true
	plugin = info
	scanFn = scan
}

// Describe returns the JSON of the registered sdk.PluginInfo, the payload of
// the describe export. It returns an error before Register has been called so
// that a pack that forgot to register fails to load instead of declaring no
// rules.
func Describe() ([]byte, error) {
	mu.Lock()
	ok, info := registered, plugin
	mu.Unlock()
	if !ok {
		return nil, fmt.Errorf("describe: no rule pack registered (call rule.Register from init)")
	}
	b, err := json.Marshal(info)
	if err != nil {
		return nil, fmt.Errorf("describe: encode plugin info %q: %w", info.Name, err)
	}
	return b, nil
}
