package bash

import "testing"

// TestTreeCopyIntoRoot: what a copy or move into / lands as is recorded —
// a named source as /NAME, a source whose entries land (DIR/., a glob,
// rsync's DIR/) as a recursive write of / itself.
func TestTreeCopyIntoRoot(t *testing.T) {
	cases := []struct{ src, op, path string }{
		{"cp -r etc /", "copy_to", "/etc"},
		{"cp -rt / etc", "copy_to", "/etc"},
		{"mv etc /", "copy_to", "/etc"},
		{"cp -a rootfs/. /", "write", "/"},
		{"mv x/* /", "write", "/"},
		{"rsync -a x/ /", "write", "/"},
		{"rsync -av ./ /", "write", "/"},
		{"rsync -a usr //", "copy_to", "/usr"},
		{"cd / && cp -a /tmp/r/. .", "write", "/"},
		{`cp -r "$X" /`, "write", "/"},
	}
	for _, tc := range cases {
		f := run(t, tc.src)
		x := findFile(f, tc.op, tc.path)
		if x == nil || !x.Recursive {
			t.Errorf("%q: want a recursive %s of %s\n%s", tc.src, tc.op, tc.path, dump(f))
		}
	}
	// Copies elsewhere, and copies of files only (no -r/-a), land no
	// tree in /.
	for _, src := range []string{"cp -r x ./out/", "cp -a rootfs/. ./dist/", "rsync -a x/ /tmp/y/", "cp x /",
		"cp x/* /", `cp "$X" /`, "rsync x/ /"} {
		f := run(t, src)
		if x := findFile(f, "write", "/"); x != nil {
			t.Errorf("%q: unexpected write of /\n%s", src, dump(f))
		}
	}
}
