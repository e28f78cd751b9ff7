package match

import "testing"

// TestShellNegatedBracket checks that "[!…]" is the shell's negation in
// the home and system-tree checks and in denied-path matching.
func TestShellNegatedBracket(t *testing.T) {
	if got := GoGlob(".[!.]*"); got != ".[^.]*" {
		t.Errorf("GoGlob = %q", got)
	}
	if !IsSystemTree("~/.[!.]*") {
		t.Errorf("~/.[!.]* reaches every hidden entry of the home")
	}
	if !IsSystemTree("/[!t]*") {
		t.Errorf("/[!t]* reaches /etc")
	}
	if !globMatch(".[!.]*", ".ssh") || globMatch(".[!s]*", ".ssh") {
		t.Errorf("globMatch does not negate [!…]")
	}
}

// TestHiddenGlobIsSpecific checks that a glob with a literal leading "."
// (".*") reaches the hidden denied names as ".??*" does, and that "*" and
// "docs/*" still do not.
func TestHiddenGlobIsSpecific(t *testing.T) {
	m := NewPathMatcher([]string{"~/.ssh", ".env"})
	for _, p := range []string{"~/.*", "~/.??*", ".*", "~/.*/id_rsa"} {
		if _, ok := m.Match(p, true); !ok {
			t.Errorf("%s: does not reach a denied hidden path", p)
		}
	}
	for _, p := range []string{"*", "docs/*", "~/*", "..", "~/.config/*"} {
		if pat, ok := m.Match(p, true); ok {
			t.Errorf("%s: matched %s", p, pat)
		}
	}
}
