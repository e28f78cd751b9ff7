package python

import (
	"strings"
	"testing"

	"github.com/toolwarden/toolwarden/internal/engine/facts"
)

// FuzzAnalyze checks that no input makes the analyzer panic or hang, and
// that what it cannot parse is reported rather than dropped.
func FuzzAnalyze(f *testing.F) {
	for _, c := range loadCases(f) {
		f.Add(c.Content)
	}
	for _, s := range []string{
		"", "(", "'''", "f'{", "f'{x!r:>{w}}'", "def f(:\n", "if x:\npass", "\tif 1:\n  \tpass\n",
		"x = [1,\n", "a = b'\\xff' * 99999999999", "exec(exec(exec('1')))", "lambda *a, **k: a",
		"match p:\n    case [1, *rest]:\n        pass\n", "x = '''\n", "\\\n", "@\n", "a[::0]", "chr(-1)",
		"while True:\n    for x in y:\n        break\n", "u'\\N{DASH}'", "rb'\\x00'", "0x_ff + 1e309",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		fb := &fakeBash{}
		b := newTestBuilder(fb)
		Analyze(b, src, facts.Top)
		for _, pe := range b.Facts.ParseErrors {
			if pe.Language != Language || pe.Message == "" {
				t.Fatalf("bad parse error %+v", pe)
			}
			if strings.Contains(pe.Message, "analyzer failed") {
				t.Fatalf("analyzer panicked: %s", pe.Message)
			}
		}
	})
}
