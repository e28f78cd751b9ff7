// Command network is the network rule pack built as a Wasm rule plugin
// (GOOS=wasip1 GOARCH=wasm, -buildmode=c-shared).
package main

import (
	"github.com/toolwarden/toolwarden/rules-wasm/packs/network"
	"github.com/toolwarden/toolwarden/sdk/rule"
)

func init() { rule.Register(network.Info(), network.Scan) }

func main() {}
