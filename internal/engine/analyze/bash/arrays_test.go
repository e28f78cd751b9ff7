package bash

import "testing"

// TestArrayIndexesAndMapfile checks that array elements reached by literal
// and variable indexes, negative indexes, element assignments and mapfile's
// lines are the values the shell uses.
func TestArrayIndexesAndMapfile(t *testing.T) {
	hasFile(t, "q=([1]=/etc/shadow); n=1; cat ${q[$n]}", "/etc/shadow", "read")
	hasFile(t, "q=(a /etc/shadow); n=1; cat ${q[n]}", "/etc/shadow", "read")
	hasFile(t, "q=(a /etc/shadow); cat ${q[-1]}", "/etc/shadow", "read")
	hasFile(t, "q=(x y); q[1]=/etc/shadow; cat \"${q[1]}\"", "/etc/shadow", "read")
	hasFile(t, "declare -a q=([1]=/etc/shadow); cat ${q[1]}", "/etc/shadow", "read")
	hasFile(t, "mapfile -t L <<< $'cat\\n/etc/shadow'; \"${L[0]}\" \"${L[1]}\"", "/etc/shadow", "read")
	hasFile(t, "mapfile -t -s 1 L <<< $'x\\n/etc/shadow'; cat \"${L[0]}\"", "/etc/shadow", "read")
	hasNested(t, "mapfile -C 'shred k' -c 1 L < f.txt", "shred", "k")
	if f := run(t, "readarray -t L <<'E'\nshred\n-u\nk\nE\n\"${L[@]}\""); findCmd(f, "shred", "-u", "k") == nil {
		t.Errorf("readarray lines as a command: %s", dump(f))
	}
	// the element an index names, not another one
	f := run(t, "q=(a /etc/shadow); i=0; cat ${q[$i]}")
	for _, fa := range f.Files {
		if fa.Path == "/etc/shadow" {
			t.Errorf("index 0 read element 1: %s", dump(f))
		}
	}
}

// TestPipedWhileRead checks that `… | while read VAR` gives VAR the first
// line the earlier stages print when it is static.
func TestPipedWhileRead(t *testing.T) {
	hasFile(t, "echo /etc/shadow | while read f; do cat \"$f\"; done", "/etc/shadow", "read")
	if f := run(t, "printf '%s\\n' 'shred -u k' | while read -r c; do $c; done"); findCmd(f, "shred", "-u", "k") == nil {
		t.Errorf("piped command line not followed: %s", dump(f))
	}
	f := run(t, "cat list.txt | while read f; do cat \"$f\"; done")
	for _, fa := range f.Files {
		if fa.Path == "list.txt" && fa.Op != "read" {
			t.Errorf("unexpected %+v", fa)
		}
	}
}
