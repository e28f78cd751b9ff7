package python

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestHandlersSurviveOddArguments calls every API the analyzer knows with
// no arguments, None, wrong types and keywords only: the analysis must
// never fail (a failure would turn into a parse error and a needless
// review).
func TestHandlersSurviveOddArguments(t *testing.T) {
	// the registry's names, plus the names the topic files' matchers
	// compare against (os.exec*, HTTP client methods, …)
	names := map[string]bool{}
	for n := range apis {
		names[n] = true
	}
	files, err := filepath.Glob("api_*.go")
	if err != nil || len(files) == 0 {
		t.Fatalf("no topic files: %v", err)
	}
	var all strings.Builder
	for _, fn := range files {
		src, err := os.ReadFile(fn)
		if err != nil {
			t.Fatal(err)
		}
		all.Write(src)
	}
	for _, part := range strings.Split(all.String(), `"`) {
		if strings.Count(part, ".") >= 1 && len(part) < 60 && strings.Trim(part, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.") == "" && !strings.HasPrefix(part, ".") && !strings.HasSuffix(part, ".") && (part[0] < '0' || part[0] > '9') {
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
