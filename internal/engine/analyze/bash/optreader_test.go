package bash

import (
	"strings"
	"testing"
)

// TestOptReader checks the two option syntaxes the reader knows: getopt
// clusters with attached or next-word values, and whole words.
func TestOptReader(t *testing.T) {
	getopt := &optTable{short: "Cf", long: map[string]int{"--dir": 1, "--bind": 2}}
	words := &optTable{words: true, long: vals("-dest")}
	for _, tc := range []struct {
		t    *optTable
		src  string
		want string // items: name=value, operands bare, "--" for the end
	}{
		{getopt, "-xC /etc a", "-x -C=/etc a"},
		{getopt, "-xvf/tmp/a b", "-x -v -f=/tmp/a b"},
		{getopt, "--dir=/x --dir /y --bind s d op", "--dir=/x --dir=/y --bind=s op"},
		{getopt, "- -- -C", "- -- -C"},
		{words, "-dest /x -force y", "-dest=/x -force y"},
		{words, "-dest=/x -d y", "-dest=/x -d y"},
	} {
		var args []field
		for _, w := range strings.Fields(tc.src) {
			args = append(args, field{s: w})
		}
		var got []string
		r := tc.t.read(args)
		for it, ok := r.next(); ok; it, ok = r.next() {
			switch {
			case it.end:
				got = append(got, "--")
			case it.operand():
				got = append(got, it.word.s)
			case it.hasVal:
				got = append(got, it.name+"="+it.val.s)
			default:
				got = append(got, it.name)
			}
		}
		if g := strings.Join(got, " "); g != tc.want {
			t.Errorf("%q: got %q, want %q", tc.src, g, tc.want)
		}
	}
	if i := skipOpts([]field{{s: "-p"}, {s: "5"}, {s: "cmd"}}, &optTable{short: "p"}, nil, 0); i != 2 {
		t.Errorf("skipOpts: %d, want 2", i)
	}
	if i := skipOpts([]field{{s: "-ap"}, {s: "5"}}, &optTable{}, []string{"-p"}, 0); i != -1 {
		t.Errorf("skipOpts noRun: %d, want -1", i)
	}
}
