package python

import (
	"encoding/json"
	"fmt"
	"os"
	"testing"
)

func TestDumpFile(t *testing.T) {
	p := os.Getenv("PYFILE")
	if p == "" {
		t.Skip("set PYFILE to print the facts of a file")
	}
	src, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	f, _ := analyzeSrc(string(src))
	calls := f.Calls
	f.Calls = nil
	out, _ := json.MarshalIndent(f, "", " ")
	fmt.Println(string(out))
	for _, cl := range calls {
		o, _ := json.Marshal(cl.Args)
		fmt.Printf("   call %s ind=%v %s %v\n", cl.Name, cl.Indirect, o, cl.Pos)
	}
}
