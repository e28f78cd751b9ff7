package bash

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/toolwarden/toolwarden/engine/facts"
)

func TestDebugDump(t *testing.T) {
	src := os.Getenv("BASH_SRC")
	if src == "" {
		t.Skip()
	}
	b := facts.NewBuilder("bash", map[string]facts.AnalyzeFunc{"bash": Analyze})
	Analyze(b, src, facts.Top)
	out, _ := json.MarshalIndent(b.Facts, "", " ")
	fmt.Println(string(out))
}

func TestDebugCorpus(t *testing.T) {
	if os.Getenv("BASH_CORPUS") == "" {
		t.Skip()
	}
	data, _ := os.ReadFile("testdata/dev_cases_bash.jsonl")
	for _, line := range splitLines(string(data)) {
		var c struct{ ID, Content, Expect string }
		json.Unmarshal([]byte(line), &c)
		b := facts.NewBuilder("bash", map[string]facts.AnalyzeFunc{"bash": Analyze})
		Analyze(b, c.Content, facts.Top)
		f := b.Facts
		fmt.Printf("=== %s (%s)\n", c.ID, c.Expect)
		if len(c.Content) < 200 {
			fmt.Printf("   %q\n", c.Content)
		}
		for _, x := range f.Commands {
			fmt.Printf("  cmd %s %q path=%s cand=%v dyn=%v reach=%v dargs=%v\n", x.Name, x.Args, x.Path, x.Candidates, x.Dynamic, x.Reach, x.DynamicArgs)
		}
		for _, x := range f.Files {
			fmt.Printf("  file %s %s by=%s rec=%v force=%v glob=%v dyn=%v mode=%s d=%d\n", x.Op, x.Path, x.By, x.Recursive, x.Force, x.Glob, x.Dynamic, x.Mode, x.Pos.Depth)
		}
		for _, x := range f.Network {
			j, _ := json.Marshal(x)
			fmt.Printf("  net %s\n", j)
		}
		for _, x := range f.DynamicExec {
			x.Evidence = ""
			j, _ := json.Marshal(x)
			fmt.Printf("  dyn %s\n", j)
		}
		for _, x := range f.Loops {
			fmt.Printf("  loop %+v\n", x.Kind)
		}
		for _, x := range f.Sleeps {
			fmt.Printf("  sleep %v\n", x.Seconds)
		}
		for _, x := range f.Functions {
			fmt.Printf("  func %+v\n", x)
		}
		for _, x := range f.Outputs {
			fmt.Printf("  out %s %v\n", x.Sink, x.Vars)
		}
		for _, x := range f.Assignments {
			fmt.Printf("  assign %s %s=%q dyn=%v\n", x.Op, x.Name, x.Value, x.Dynamic)
		}
		var feats []string
		for _, x := range f.ShellFeatures {
			feats = append(feats, x.Kind)
		}
		if len(feats) > 0 {
			fmt.Printf("  features %v\n", feats)
		}
		for _, x := range f.ParseErrors {
			fmt.Printf("  PARSE %s\n", x.Message)
		}
	}
}

func splitLines(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.TrimSpace(l) != "" {
			out = append(out, l)
		}
	}
	return out
}
