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
