package bash

import (
	"reflect"
	"testing"
)

// TestXargsWords checks xargs' own splitting of its input: quotes group
// and are removed, a backslash takes the next character.
func TestXargsWords(t *testing.T) {
	for in, want := range map[string][]string{
		`"/"`:              {"/"},
		`'/etc' /usr`:      {"/etc", "/usr"},
		`/e\tc`:            {"/etc"},
		`'a b.txt' c.txt`:  {"a b.txt", "c.txt"},
		"a\nb  c\n":        {"a", "b", "c"},
		`"it's" x`:         {"it's", "x"},
		`ok 'unterminated`: {"ok"},
		`""`:               {""},
	} {
		if got := xargsWords(in); !reflect.DeepEqual(got, want) {
			t.Errorf("xargsWords(%q) = %q, want %q", in, got, want)
		}
	}
}
