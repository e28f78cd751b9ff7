// Command cmd writes sdk/layout/layout_gen.go and the generated section of
// sdk/ABI.md; go generate runs it in sdk/layout.
package main

import (
	"fmt"
	"os"

	"github.com/toolwarden/toolwarden/sdk/internal/layoutgen"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func run() error {
	code, doc, err := layoutgen.Generate()
	if err != nil {
		return err
	}
	if err := os.WriteFile("layout_gen.go", code, 0o644); err != nil {
		return err
	}
	abi, err := os.ReadFile("../ABI.md")
	if err != nil {
		return err
	}
	out, err := layoutgen.Splice(abi, doc)
	if err != nil {
		return err
	}
	return os.WriteFile("../ABI.md", out, 0o644)
}
