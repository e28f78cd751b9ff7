package match

import (
	"path"
	"testing"
)

// TestCompiledComponentsAgreeWithPathMatch checks the one-star fast path
// and the precomputed witness against path.Match on every pairing of
// patterns and names, including overlapping prefix and suffix ("a*a"
// against "a") and patterns that must keep using path.Match.
func TestCompiledComponentsAgreeWithPathMatch(t *testing.T) {
	pats := []string{"*.pem", "id_rsa*", "credentials.*", "*", "a*a", ".*", "*.", "x*y*z", "id_?sa",
		"[ab]*", `\*x`, ".env", "*.tar.gz", "*[.]key"}
	names := []string{"a", "aa", "aba", "key.pem", ".pem", "pem", "id_rsa", "id_rsa.pub", "id_dsa",
		"credentials", "credentials.json", ".env", "env", "x.tar.gz", "tar.gz", "*x", "xyz", "xy", "b", "", ".", "k.key"}
	for _, p := range pats {
		c := compileComp(p)
		if c.wit != witness(p) || c.glob != HasGlob(p) {
			t.Errorf("compileComp(%q) = %+v", p, c)
		}
		for _, n := range names {
			want, _ := path.Match(p, n)
			if p == n {
				want = true
			}
			if got := compMatch(&c, n, globView{}); got != want {
				t.Errorf("compMatch(%q, %q) = %v, path.Match says %v", p, n, got, want)
			}
		}
	}
	if c := compileComp("*.pem"); !c.star || c.pre != "" || c.suf != ".pem" {
		t.Errorf("*.pem should take the fast path: %+v", c)
	}
	if c := compileComp("x*y*z"); c.star {
		t.Errorf("two stars must use path.Match: %+v", c)
	}
}

func TestAppendCompsMatchesSplit(t *testing.T) {
	for p, want := range map[string]string{"/a//b/./c/": "a|b|c", "~/.ssh": "~|.ssh", ".": "", "/": "", "a": "a",
		"../x": "..|x"} {
		got := ""
		for i, s := range splitComps(p) {
			if i > 0 {
				got += "|"
			}
			got += s
		}
		if got != want {
			t.Errorf("splitComps(%q) = %q, want %q", p, got, want)
		}
	}
	m := NewPathMatcher([]string{"~/.ssh", "*.pem", ".aws/credentials"})
	if n := testing.AllocsPerRun(50, func() {
		if _, ok := m.Match("/home/bob/.aws/credentials", false); !ok {
			t.Fatal("no match")
		}
	}); n != 0 {
		t.Errorf("Match of a clean literal path allocates %.0f times", n)
	}
}

func TestIsSecretNameTokensWithoutAllocating(t *testing.T) {
	for name, want := range map[string]bool{"DB_PASS": true, "MY_KEY_": true, "_AUTH": true, "A__B": false,
		"KEYBOARD_LAYOUT": false, "PAT": true} {
		if got := IsSecretName(name); got != want {
			t.Errorf("IsSecretName(%q) = %v, want %v", name, got, want)
		}
	}
	if n := testing.AllocsPerRun(50, func() { IsSecretName("BUILD_NUMBER_FOR_CI") }); n != 0 {
		t.Errorf("IsSecretName of an upper-case name allocates %.0f times", n)
	}
}
