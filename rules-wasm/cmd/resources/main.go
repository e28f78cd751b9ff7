// Command resources is the resources rule pack built as a Wasm rule plugin
// (GOOS=wasip1 GOARCH=wasm, -buildmode=c-shared).
package main

import (
	"github.com/toolwarden/toolwarden/rules-wasm/packs/resources"
	"github.com/toolwarden/toolwarden/sdk/rule"
)

func init() { rule.Register(resources.Info(), resources.Scan) }

func main() {}
