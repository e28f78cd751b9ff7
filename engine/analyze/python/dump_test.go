package python

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"testing"

	"github.com/toolwarden/toolwarden/engine/facts"
)

func TestDumpCorpus(t *testing.T) {
	if os.Getenv("PYDUMP") == "" {
		t.Skip("set PYDUMP=all or a case id to print facts")
	}
	f, err := os.Open("testdata/python_cases.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var c corpusCase
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatal(err)
		}
		if p := os.Getenv("PYDUMP"); p != "all" && p != c.ID {
			continue
		}
		fb := &fakeBash{}
		b := newTestBuilder(fb)
		Analyze(b, c.Content, facts.Top)
		fa := *b.Facts
		fa.Calls = nil
		out, _ := json.Marshal(fa)
		fmt.Printf("== %s %s\n%s\n", c.ID, c.Expect, out)
		for _, cl := range b.Facts.Calls {
			o, _ := json.Marshal(cl.Args)
			fmt.Printf("   call %s ind=%v %s %v\n", cl.Name, cl.Indirect, o, cl.Pos)
		}
	}
}
