package sdk

import "testing"

func TestResolveProcAliases(t *testing.T) {
	for in, want := range map[string]string{
		"/proc/self/root/etc/shadow":                 "/etc/shadow",
		"/proc/self/root":                            "/",
		"/proc/self/cwd/.env":                        ".env",
		"/proc/thread-self/root/root/.ssh/id_rsa":    "/root/.ssh/id_rsa",
		"/proc/self/root/proc/self/root/etc/sudoers": "/etc/sudoers",
		"/proc/self/status":                          "/proc/self/status",
		"/etc/hosts":                                 "/etc/hosts",
		"relative/path":                              "relative/path",
	} {
		if got := ResolveProcAliases(in); got != want {
			t.Errorf("ResolveProcAliases(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestResolveProcAliasesAnyProcess(t *testing.T) {
	for in, want := range map[string]string{
		"/proc/1/cwd/.env":                   ".env",
		"/proc/4242/root/etc/shadow":         "/etc/shadow",
		"/proc/self/task/17/root/etc/passwd": "/etc/passwd",
		"/proc/self/cwd":                     ".",
		"/dev/fd/../root/etc/shadow":         "/etc/shadow",
		"/proc/1/status":                     "/proc/1/status",
		"/proc/abc/root/etc/shadow":          "/proc/abc/root/etc/shadow",
		"/proc/self/rootx/a":                 "/proc/self/rootx/a",
	} {
		if got := ResolveProcAliases(in); got != want {
			t.Errorf("ResolveProcAliases(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestResolveProcAliasesDynamicProcess: a pid that is an expansion or a
// glob names some process, and its root is this tree's root all the same.
func TestResolveProcAliasesDynamicProcess(t *testing.T) {
	for in, want := range map[string]string{
		"/proc/$$/root/etc/shadow":             "/etc/shadow",
		"/proc/$BASHPID/root/etc/shadow":       "/etc/shadow",
		"/proc/${PPID}/cwd/.env":               ".env",
		"/proc/$(pgrep sshd)/root/etc/shadow":  "/etc/shadow",
		"/proc/*/root/root/.ssh/id_rsa":        "/root/.ssh/id_rsa",
		"/proc/[0-9]*/root/etc/shadow":         "/etc/shadow",
		"/proc/{os.getpid()}/root/etc/shadow":  "/etc/shadow",
		"/proc/self/task/$TID/root/etc/passwd": "/etc/passwd",
		"/proc/$$/status":                      "/proc/$$/status",
		"/proc/$$/environ":                     "/proc/$$/environ",
	} {
		if got := ResolveProcAliases(in); got != want {
			t.Errorf("ResolveProcAliases(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestNormalizePath(t *testing.T) {
	for in, want := range map[string]string{
		"/etc//shadow":                "/etc/shadow",
		"/etc/./shadow":               "/etc/shadow",
		"/tmp/../etc/shadow":          "/etc/shadow",
		"/proc/self/root/etc/shadow":  "/etc/shadow",
		"/proc/1/cwd/../../etc/passw": "../../etc/passw",
		"$HOME/.ssh/id_rsa":           "~/.ssh/id_rsa",
		"${HOME}//.netrc":             "~/.netrc",
		"$HOMEDIR/x":                  "$HOMEDIR/x",
		"~/./.ssh/config":             "~/.ssh/config",
		"~/x/../.aws/credentials":     "~/.aws/credentials",
		"~/../../../../etc/shadow":    "/etc/shadow",
		"~":                           "~",
		"~/":                          "~",
		"~bob/.aws/credentials":       "~bob/.aws/credentials",
		"~bob/x/../.ssh":              "~bob/.ssh",
		"~bob/../alice/.ssh":          "/home/alice/.ssh",
		"~root/../etc/shadow":         "/etc/shadow",
		"./././.env":                  ".env",
		"src/../.env":                 ".env",
		"./.env":                      ".env",
		"build/":                      "build",
		"/":                           "/",
		"":                            "",
		"https://x.io/a/../b":         "https://x.io/a/../b",
		"docs/../README.md":           "README.md",
	} {
		if got := NormalizePath(in); got != want {
			t.Errorf("NormalizePath(%q) = %q, want %q", in, got, want)
		}
	}
}
