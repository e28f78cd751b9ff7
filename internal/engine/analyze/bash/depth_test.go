package bash

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"mvdan.cc/sh/v3/syntax"
)

// TestTreeScanMatchesTreeDepth checks treeScan against the syntax.Walk
// based treeDepth: same verdict on the depth bound for every tree it does
// not mark odd, on the corpus and on shapes nested right around the bound.
func TestTreeScanMatchesTreeDepth(t *testing.T) {
	var srcs []string
	for _, c := range loadCorpus(t) {
		srcs = append(srcs, c.Content)
	}
	seeds, _ := filepath.Glob("testdata/fuzz/*/*")
	for _, f := range seeds {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatalf("read seed: %v", err)
		}
		srcs = append(srcs, string(b))
	}
	srcs = append(srcs, typicalScript, "echo $(( ))", "for ((;;)); do :; done", "x=(a [1]=b); echo ${x[@]:1:2} ${y/a/b} ${z:-$(id)}",
		"case $x in a|b) echo;; esac", "[[ -n $a && ( $b == c || ! -e d ) ]]", "let x=1+2 y=3", "coproc cat", "time ls",
		"f() { echo; } >/dev/null", "cat <<EOF\n$x $(id)\nEOF", "echo @(a|b) <(ls) >(wc)")
	shapes := map[string]func(k int) string{
		"subshell":  func(k int) string { return strings.Repeat("(", k) + "a" + strings.Repeat(")", k) },
		"pipe":      func(k int) string { return strings.Repeat("a | ", k) + "a" },
		"and":       func(k int) string { return strings.Repeat("a && ", k) + "a" },
		"cmdsubst":  func(k int) string { return strings.Repeat("echo $(", k) + "a" + strings.Repeat(")", k) },
		"arith":     func(k int) string { return "echo $((" + strings.Repeat("1+", k) + "1))" },
		"arithR":    func(k int) string { return "echo $((" + strings.Repeat("a=", k) + "1))" },
		"test":      func(k int) string { return "[[ " + strings.Repeat("a && ", k) + "a ]]" },
		"if":        func(k int) string { return strings.Repeat("if a; then ", k) + "b" + strings.Repeat("; fi", k) },
		"dquote":    func(k int) string { return strings.Repeat(`"$(`, k) + "a" + strings.Repeat(`)"`, k) },
		"paramsubs": func(k int) string { return strings.Repeat("${x:-$(", k) + "a" + strings.Repeat(")}", k) },
	}
	for name, shape := range shapes {
		// Find how many levels make the tree cross the bound (depth grows
		// with the levels), then try the levels around it.
		lo, hi := 1, 1200
		if treeDepth(parseForTest(t, shape(hi))) <= maxTreeDepth {
			t.Fatalf("%s: never deeper than %d", name, maxTreeDepth)
		}
		for lo < hi {
			mid := (lo + hi) / 2
			if treeDepth(parseForTest(t, shape(mid))) > maxTreeDepth {
				hi = mid
			} else {
				lo = mid + 1
			}
		}
		crossed := lo
		for k := crossed - 2; k <= crossed+2; k++ {
			srcs = append(srcs, shape(k))
		}
	}
	compared, deep := 0, 0
	for _, src := range srcs {
		p := syntax.NewParser(syntax.Variant(syntax.LangBash), syntax.KeepComments(false))
		file, err := p.Parse(strings.NewReader(src), "")
		if err != nil {
			continue
		}
		var scan treeScan
		got := scan.tooDeep(file)
		if scan.odd {
			continue
		}
		want := treeDepth(file) > maxTreeDepth
		if got != want {
			t.Errorf("treeScan says too deep = %v, treeDepth %v, for %.80q", got, want, src)
		}
		compared++
		if want {
			deep++
		}
	}
	if compared < len(srcs)/2 || deep < 20 {
		t.Fatalf("compared %d of %d trees (%d too deep): too few", compared, len(srcs), deep)
	}
}

func parseForTest(t *testing.T, src string) *syntax.File {
	t.Helper()
	p := syntax.NewParser(syntax.Variant(syntax.LangBash), syntax.KeepComments(false))
	file, err := p.Parse(strings.NewReader(src), "")
	if err != nil {
		t.Fatalf("parse %.60q: %v", src, err)
	}
	return file
}
