// Command go-git-guard is an example toolwarden rule plugin in Go, on the
// public sdk/rule API: it holds rewriting a protected branch's history for
// a human. Build it with
//
//	toolwarden plugin build examples/plugins/go-git-guard
//
// and try it with
//
//	toolwarden plugin test examples/plugins/go-git-guard/go-git-guard.wasm \
//	    --corpus examples/plugins/go-git-guard/cases.jsonl
package main

import "github.com/toolwarden/toolwarden/sdk/rule"

func init() { rule.Register(Info(), Scan) }

func main() {}
