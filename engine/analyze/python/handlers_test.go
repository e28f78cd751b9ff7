package python

import (
	"os"
	"strings"
	"testing"
)

// TestHandlersSurviveOddArguments calls every API the analyzer knows with
// no arguments, None, wrong types and keywords only: the analysis must
// never fail (a failure would turn into a parse error and a needless
// review).
func TestHandlersSurviveOddArguments(t *testing.T) {
	src, err := os.ReadFile("dispatch.go")
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, part := range strings.Split(string(src), `"`) {
		if strings.Count(part, ".") >= 1 && len(part) < 60 && strings.Trim(part, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.") == "" && !strings.HasPrefix(part, ".") && !strings.HasSuffix(part, ".") {
			names[part] = true
		}
	}
	for n := range knownQuals {
		names[n] = true
	}
	if len(names) < 100 {
		t.Fatalf("only %d API names found", len(names))
	}
	argSets := []string{"", "None", "1", "b'x'", "[]", "[1, None]", "('h',)", "{}", "x", "*y", "**z", "'a', 'b', 'c', 'd', 'e'", "input=None, shell=True, url=None"}
	var b strings.Builder
	mods := map[string]bool{}
	for n := range names {
		mods[strings.SplitN(n, ".", 2)[0]] = true
	}
	for m := range mods {
		b.WriteString("import " + m + "\n")
	}
	for n := range names {
		for _, args := range argSets {
			b.WriteString(n + "(" + args + ")\n")
			b.WriteString("v = " + n + "(" + args + ")\nv.x(" + args + ")\nfor e in v:\n    e.unlink()\n")
		}
	}
	f, _ := analyzeSrc(b.String())
	if f.Truncated {
		t.Errorf("analysis truncated before every handler ran")
	}
	for _, pe := range f.ParseErrors {
		t.Errorf("%+v", pe)
	}
}
