package sdk

import (
	"path"
	"strings"
)

// ResolveProcAliases rewrites a path through a process's root or working
// directory in /proc to the path it reaches: "/proc/self/root/etc/shadow"
// (also thread-self, any numeric pid, a pid that is an expansion or a glob,
// /proc/self/task/<tid>) →
// "/etc/shadow", "/proc/self/cwd/.env" → ".env" (relative to the working
// directory: the workload's processes share the workspace). Other paths
// are returned unchanged. It is shared by the host's analyzers and the
// guest rule packs, so both judge the same path.
func ResolveProcAliases(p string) string {
	if !strings.HasPrefix(p, "/proc/") && !strings.HasPrefix(p, "/dev/fd/") {
		return p
	}
	for range 4 { // /proc/self/root/proc/self/root/…
		q, ok := resolveProcAlias(p)
		if !ok {
			break
		}
		p = q
	}
	return p
}

// resolveProcAlias removes one leading /proc/<proc>/{root,cwd} (or
// /dev/fd/../root, which is /proc/self/root).
func resolveProcAlias(p string) (string, bool) {
	if rest, ok := strings.CutPrefix(p, "/dev/fd/../root"); ok && (rest == "" || rest[0] == '/') {
		return "/" + strings.TrimPrefix(rest, "/"), true
	}
	rest, ok := strings.CutPrefix(p, "/proc/")
	if !ok {
		return p, false
	}
	proc, rest, _ := strings.Cut(rest, "/")
	if !(proc == "self" || proc == "thread-self" || allDigits(proc) || anyProcess(proc)) {
		return p, false
	}
	if t, ok := strings.CutPrefix(rest, "task/"); ok {
		tid, more, _ := strings.Cut(t, "/")
		if !allDigits(tid) && !anyProcess(tid) {
			return p, false
		}
		rest = more
	}
	link, tail, _ := strings.Cut(rest, "/")
	switch link {
	case "root":
		return "/" + tail, true
	case "cwd":
		if tail == "" {
			return ".", true
		}
		return tail, true
	}
	return p, false
}

// anyProcess reports whether a /proc component is not static — an
// expansion ("$$", "$BASHPID", "$PPID", "${pid}", "$(pgrep sshd)", a Python
// "{os.getpid()}") or a glob ("*", "[0-9]*"). Whatever process it names,
// its root and cwd links lead into this mount namespace's tree as self's
// do, so such a path is judged as the path it reaches.
func anyProcess(s string) bool {
	return strings.ContainsAny(s, "$`{*?[")
}

func allDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// AssumedHome stands for the home directory when a path climbs out of it
// ("~/../../etc"): any home under /home reaches the same ancestors.
const AssumedHome = "/home/user"

// NormalizePath is the one spelling of a path that the host's analyzers
// emit and the guest's path rules compare, so "/etc//shadow",
// "/etc/./shadow", "/tmp/../etc/shadow", "/proc/self/root/etc/shadow" and
// "/proc/1/cwd/../../etc/shadow" are all "/etc/shadow":
//   - /proc/<pid>/root and /proc/<pid>/cwd are resolved (ResolveProcAliases);
//   - "$HOME" and "${HOME}" are spelled "~";
//   - duplicate slashes, "." and ".." elements and a trailing slash go,
//     and a leading "./" (not "./~", which is a directory named "~");
//   - a path under "~" or "~user" is cleaned against a concrete home, so
//     climbing out of it reaches the absolute path ("~/../../etc" is
//     "/etc", "~bob/../alice" is "/home/alice") while one that stays inside
//     keeps its home spelling ("~/x/../.ssh" is "~/.ssh").
//
// URLs and the empty string are returned unchanged; dynamic text ($X) is
// kept as written.
func NormalizePath(p string) string {
	p = ResolveProcAliases(p)
	p = SpellHome(p)
	if p == "" || IsCleanPath(p) || strings.Contains(p, "://") {
		return p
	}
	for len(p) > 2 && p[0] == '.' && p[1] == '/' && p[2] != '/' && p[2] != '~' {
		p = p[2:]
	}
	if p == "~" || strings.HasPrefix(p, "~/") {
		return cleanUnder(AssumedHome, "~", p[1:])
	}
	if p[0] == '~' {
		user, rest, _ := strings.Cut(p[1:], "/")
		if userName(user) {
			home := "/home/" + user
			if user == "root" {
				home = "/root"
			}
			return cleanUnder(home, "~"+user, "/"+rest)
		}
	}
	return path.Clean(p)
}

// userName reports whether s can be a login name ("~s" is then s's home):
// letters, digits, "_", "-" and ".", not starting with "." or "-".
func userName(s string) bool {
	if s == "" || s[0] == '.' || s[0] == '-' {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.') {
			return false
		}
	}
	return true
}

// cleanUnder cleans home+rest and spells the result with the home's name
// when it stays inside the home.
func cleanUnder(home, name, rest string) string {
	c := path.Clean(home + rest)
	switch {
	case c == home:
		return name
	case strings.HasPrefix(c, home+"/"):
		return name + c[len(home):]
	}
	return c
}

// SpellHome spells a path under $HOME or ${HOME} with "~" and leaves
// the rest as written (for dynamic paths, whose prefix must keep its
// trailing slash).
func SpellHome(p string) string {
	if p == "" || p[0] != '$' {
		return p
	}
	for _, h := range []string{"$HOME", "${HOME}"} {
		if p == h || strings.HasPrefix(p, h+"/") {
			return "~" + p[len(h):]
		}
	}
	return p
}

// IsCleanPath reports whether NormalizePath would leave p unchanged apart
// from /proc and $HOME aliases: no empty, "." or ".." element and no
// trailing slash (a lone "/" is clean). Most paths are, and checking is
// much cheaper than cleaning.
func IsCleanPath(p string) bool {
	if p == "/" {
		return true
	}
	if p == "" || p[len(p)-1] == '/' || strings.Contains(p, "//") {
		return false
	}
	for i := strings.IndexByte(p, '.'); i >= 0; {
		if i == 0 || p[i-1] == '/' {
			j := i + 1
			if j < len(p) && p[j] == '.' {
				j++
			}
			if j == len(p) || p[j] == '/' {
				return false
			}
		}
		k := strings.IndexByte(p[i+1:], '.')
		if k < 0 {
			break
		}
		i += 1 + k
	}
	return true
}
