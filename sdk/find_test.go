package sdk

import (
	"slices"
	"testing"
)

func TestFindTargets(t *testing.T) {
	cases := []struct {
		starts, expr, want []string
	}{
		{[]string{"/tmp"}, []string{"-maxdepth", "1", "-name", "build-*", "-delete"}, []string{"/tmp/build-*"}},
		{[]string{"/var/tmp/"}, []string{"-iname", "Cache-*", "-exec", "rm", "-rf", "{}", "+"}, []string{"/var/tmp/cache-*"}},
		{[]string{"."}, []string{"-name", "__pycache__", "-type", "d", "-exec", "rm", "-rf", "{}", "+"}, []string{"./__pycache__"}},
		// no filter, two filters, a widening operator, a path pattern: the starts
		{[]string{"/tmp"}, []string{"-delete"}, []string{"/tmp"}},
		{[]string{"/tmp"}, []string{"-name", "a", "-o", "-delete"}, []string{"/tmp"}},
		{[]string{"/tmp"}, []string{"!", "-name", "keep", "-delete"}, []string{"/tmp"}},
		{[]string{"/tmp"}, []string{"-name", "a", "-name", "b", "-delete"}, []string{"/tmp"}},
		{[]string{"/tmp"}, []string{"-name", "x/y", "-delete"}, []string{"/tmp"}},
		// wide starts are not narrowed
		{[]string{"/"}, []string{"-name", "x", "-delete"}, []string{"/"}},
		{[]string{"~"}, []string{"-name", "*.pyc", "-delete"}, []string{"~"}},
		{[]string{"$HOME"}, []string{"-name", "*.pyc", "-delete"}, []string{"$HOME"}},
		{[]string{"/home/bob"}, []string{"-name", "config", "-delete"}, []string{"/home/bob"}},
	}
	for _, c := range cases {
		if got := FindTargets(c.starts, c.expr, nil); !slices.Equal(got, c.want) {
			t.Errorf("FindTargets(%q, %q) = %q, want %q", c.starts, c.expr, got, c.want)
		}
	}
	dyn := func(i int) bool { return i == 1 }
	if got := FindTargets([]string{"/tmp"}, []string{"-name", "$P", "-delete"}, dyn); !slices.Equal(got, []string{"/tmp"}) {
		t.Errorf("dynamic pattern narrowed: %q", got)
	}
}
