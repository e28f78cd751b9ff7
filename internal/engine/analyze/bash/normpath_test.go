package bash

import (
	"path"
	"strings"
	"testing"
)

// referenceNormPath is normPath written plainly (always path.Clean): the
// fast paths of normPath must not change any result.
func referenceNormPath(p string) string {
	if p == "" || strings.Contains(p, "://") {
		return p
	}
	if p == "~" || strings.HasPrefix(p, "~/") {
		c := path.Clean(assumedHome + p[1:])
		switch {
		case c == assumedHome:
			return "~"
		case strings.HasPrefix(c, assumedHome+"/"):
			return "~" + c[len(assumedHome):]
		}
		return c
	}
	if user, rest, _ := strings.Cut(p, "/"); len(user) > 1 && user[0] == '~' && user[1] != '.' && !strings.Contains(user[1:], "~") {
		home := "/home/" + user[1:]
		if user == "~root" {
			home = "/root"
		}
		c := path.Clean(home + "/" + rest)
		switch {
		case c == home:
			return user
		case strings.HasPrefix(c, home+"/"):
			return user + c[len(home):]
		}
		return c
	}
	return path.Clean(p)
}

// TestNormPathMatchesClean compares normPath with the reference on every
// path of up to seven characters over an alphabet that makes all the
// cases: empty, ".", ".." and "~" elements, doubled and trailing slashes.
func TestNormPathMatchesClean(t *testing.T) {
	const alphabet = "./~a"
	var gen func(prefix string, n int)
	checked := 0
	gen = func(prefix string, n int) {
		if got, want := normPath(prefix), referenceNormPath(prefix); got != want {
			t.Errorf("normPath(%q) = %q, want %q", prefix, got, want)
		}
		checked++
		if n == 0 {
			return
		}
		for i := 0; i < len(alphabet); i++ {
			gen(prefix+alphabet[i:i+1], n-1)
		}
	}
	gen("", 7)
	for _, p := range []string{"./internal/policy", "build/out/", "/etc/../etc/shadow", "~/.ssh/../.aws", "./~/..",
		"$OUT/fmt.txt", "https://x.io/a/../b", "~user/../x", "././/a"} {
		if got, want := normPath(p), referenceNormPath(p); got != want {
			t.Errorf("normPath(%q) = %q, want %q", p, got, want)
		}
	}
	if checked < 20000 {
		t.Fatalf("only %d paths checked", checked)
	}
}
