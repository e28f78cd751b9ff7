package sdk

import "strings"

// procAliases are /proc paths that name another directory: the process's
// root and working directory. A path through them reaches the same file as
// the path without them, so judges must see the plain path.
var procAliases = []struct{ prefix, to string }{
	{"/proc/self/root", ""},
	{"/proc/thread-self/root", ""},
	{"/proc/1/root", ""},
	{"/proc/self/cwd", "."},
	{"/proc/thread-self/cwd", "."},
	{"/dev/fd/../root", ""},
}

// ResolveProcAliases rewrites a path through /proc/self/root (and the
// like) to the absolute path it reaches, and one through /proc/self/cwd to
// a path relative to the working directory:
// "/proc/self/root/etc/shadow" → "/etc/shadow", "/proc/self/cwd/.env" →
// ".env". Other paths are returned unchanged. It is shared by the host's
// analyzers and the guest rule packs, so both judge the same path.
func ResolveProcAliases(p string) string {
	if !strings.HasPrefix(p, "/proc/") && !strings.HasPrefix(p, "/dev/fd/") {
		return p
	}
	for range 4 { // /proc/self/root/proc/self/root/…
		changed := false
		for _, a := range procAliases {
			if p == a.prefix {
				p = a.to
				if p == "" {
					p = "/"
				}
				changed = true
			} else if strings.HasPrefix(p, a.prefix+"/") {
				rest := p[len(a.prefix)+1:]
				if a.to == "" {
					p = "/" + rest
				} else {
					p = rest
				}
				changed = true
			}
		}
		if !changed {
			break
		}
	}
	return p
}
