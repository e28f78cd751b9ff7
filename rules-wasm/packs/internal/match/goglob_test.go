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
