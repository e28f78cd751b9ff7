// Command filesystem is the filesystem rule pack built as a Wasm rule plugin
// (GOOS=wasip1 GOARCH=wasm, -buildmode=c-shared).
package main

import (
	"github.com/toolwarden/toolwarden/rules-wasm/packs/filesystem"
	"github.com/toolwarden/toolwarden/sdk/rule"
)

func init() { rule.Register(filesystem.Info(), filesystem.Scan) }

func main() {}
