package python_test

import (
	"fmt"

	"github.com/toolwarden/toolwarden/internal/engine/analyze/python"
	"github.com/toolwarden/toolwarden/internal/engine/facts"
)

// The engine registers the Python analyzer (and the bash one) with a
// facts.Builder; nested shell commands found in Python go to "bash".
func ExampleAnalyze() {
	var shell []string
	b := facts.NewBuilder("python", map[string]facts.AnalyzeFunc{
		"python": python.Analyze,
		"bash": func(b *facts.Builder, src string, at facts.Frame) {
			shell = append(shell, at.Via+": "+src)
		},
	})
	python.Analyze(b, "import os\nrun = os.system\nrun('/ fr- mr'[::-1])\n", facts.Top)

	c := b.Facts.Calls[0]
	fmt.Println(c.Name, c.Indirect, c.Args[0].Str, c.Args[0].Encoded)
	fmt.Println(shell)
	// Output:
	// os.system true rm -rf / true
	// [os.system: rm -rf /]
}
