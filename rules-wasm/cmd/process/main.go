// Command process is the process rule pack built as a Wasm rule plugin
// (GOOS=wasip1 GOARCH=wasm, -buildmode=c-shared).
package main

import (
	"github.com/toolwarden/toolwarden/rules-wasm/packs/process"
	"github.com/toolwarden/toolwarden/sdk/rule"
)

func init() { rule.Register(process.Info(), process.Scan) }

func main() {}
