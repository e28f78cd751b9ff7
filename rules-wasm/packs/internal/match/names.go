package match

import (
	"path"
	"strings"
)

// secretWords are name tokens that mark an environment variable as holding a
// credential. A name matches when one of its "_"-separated tokens is one of
// these, or when it contains one of secretInfixes.
var secretWords = map[string]bool{
	"TOKEN": true, "TOKENS": true, "SECRET": true, "SECRETS": true, "PASSWORD": true,
	"PASSWD": true, "PASS": true, "PWD_HASH": true, "PASSPHRASE": true, "KEY": true,
	"APIKEY": true, "CREDENTIAL": true, "CREDENTIALS": true, "CREDS": true,
	"AUTH": true, "BEARER": true, "COOKIE": true, "SESSION": true, "PAT": true,
	"DSN": true, "PRIVATE": true,
}

var secretInfixes = []string{"TOKEN", "SECRET", "PASSWORD", "PASSWD", "API_KEY", "APIKEY",
	"PRIVATE_KEY", "CREDENTIAL", "ACCESS_KEY", "PASSPHRASE", "AUTH_KEY"}

// notSecret are well-known variables that merely contain a secret-looking
// token ("KEYMAP") or are plainly not credentials.
var notSecret = map[string]bool{
	"HOME": true, "PATH": true, "USER": true, "PWD": true, "OLDPWD": true, "SHELL": true,
	"LANG": true, "TERM": true, "HOSTNAME": true, "LOGNAME": true, "TMPDIR": true,
	"GOPATH": true, "GOROOT": true, "PYTHONPATH": true, "KEYMAP": true,
	"SSH_AUTH_SOCK": true, "GPG_TTY": true, "SESSION_MANAGER": true, "XDG_SESSION_TYPE": true,
	"XDG_SESSION_ID": true, "XDG_SESSION_CLASS": true, "XDG_SESSION_DESKTOP": true,
	"DBUS_SESSION_BUS_ADDRESS": true, "TOKENIZERS_PARALLELISM": true,
}

// settingQualifiers end names that describe a credential's handling
// rather than hold it; a name ending in one is a setting.
var settingQualifiers = map[string]bool{
	"LENGTH": true, "LEN": true, "MIN": true, "MAX": true, "TTL": true, "TIMEOUT": true,
	"EXPIRY": true, "EXPIRES": true, "EXPIRATION": true, "DAYS": true, "SECONDS": true,
	"POLICY": true, "HINT": true, "PROMPT": true, "ENABLED": true, "DISABLED": true,
	"REQUIRED": true, "RETRIES": true, "HEADER": true, "ALGORITHM": true, "PREFIX": true,
	"URL": true, "ENDPOINT": true, "HOST": true, "PORT": true,
}

// IsSecretName reports whether an environment variable name looks like it
// holds a credential (API_TOKEN, AWS_SECRET_ACCESS_KEY, DB_PASSWORD,
// github_token). HOME, PATH, USER and similar never do.
func IsSecretName(name string) bool {
	n := strings.ToUpper(strings.TrimSpace(name))
	n = strings.TrimLeft(n, "$")
	n = strings.Trim(n, "{}")
	if n == "" || notSecret[n] {
		return false
	}
	if i := strings.LastIndexByte(n, '_'); i > 0 && settingQualifiers[n[i+1:]] {
		// PASSWORD_MIN_LENGTH, TOKEN_TTL, AUTH_URL: a setting about a
		// credential, not the credential.
		return false
	}
	for _, inf := range secretInfixes {
		if strings.Contains(n, inf) {
			return true
		}
	}
	for n != "" {
		tok := n
		if i := strings.IndexByte(n, '_'); i >= 0 {
			tok, n = n[:i], n[i+1:]
		} else {
			n = ""
		}
		if secretWords[tok] {
			return true
		}
	}
	return false
}

// systemRoots are trees whose recursive deletion destroys the machine or a
// user's home; deleting them or anything inside the first group is deny.
var systemRoots = map[string]bool{
	"/": true, "/etc": true, "/usr": true, "/bin": true, "/sbin": true, "/lib": true,
	"/lib32": true, "/lib64": true, "/libx32": true, "/var": true, "/boot": true, "/home": true, "/root": true,
	"/opt": true, "/sys": true, "/proc": true, "/dev": true, "/srv": true, "/mnt": true,
	"/media": true, "/run": true, "/snap": true, "/tmp": true, "/var/tmp": true, "/var/lib": true,
	"/var/log": true, "/Users": true, "/System": true, "/Library": true, "/Applications": true,
	"/private": true, "/nix": true,
}

// systemSubtrees are trees where anything inside is system state: deleting
// /usr/lib or /etc/nginx is as bad as deleting the tree.
var systemSubtrees = []string{"/etc/", "/usr/", "/bin/", "/sbin/", "/lib/", "/lib32/", "/lib64/",
	"/boot/", "/sys/", "/proc/", "/dev/", "/var/lib/", "/var/log/", "/System/", "/Library/"}

// IsSystemTree reports whether deleting p recursively would destroy the
// system or a home: "/", "/*", "~", "~/", "~/*", "$HOME" (normalized to "~"),
// "/etc", "/usr/lib", "/home", another user's home, or a glob that could
// expand to one of these ("/e*", "/.*").
func IsSystemTree(p string) bool {
	p = strings.TrimSpace(p)
	if p == "" {
		return false
	}
	c := CleanPath(p)
	if systemRoots[c] {
		return true
	}
	// Home itself, or everything directly in it.
	if owner, rel, ok := SplitHome(c); ok {
		if rel == "" || rel == "/" {
			return true
		}
		if HasGlob(rel) && strings.Count(rel, "/") == 1 {
			g := GoGlob(rel[1:])
			a, _ := path.Match(g, "x")
			b, _ := path.Match(g, ".x")
			if a || b {
				return true // ~/*, ~/.*: everything in the home
			}
		}
		_ = owner
	}
	for _, sub := range systemSubtrees {
		if strings.HasPrefix(c+"/", sub) {
			return true
		}
	}
	if HasGlob(c) && strings.HasPrefix(c, "/") {
		// A glob at the top level: /* or /e* could expand to /etc.
		first := splitComps(c)
		if len(first) >= 1 && HasGlob(first[0]) {
			for root := range systemRoots {
				rc := splitComps(root)
				if len(rc) == 1 {
					if ok, _ := path.Match(GoGlob(first[0]), rc[0]); ok && len(first) == 1 {
						return true
					}
				}
			}
			if len(first) == 1 {
				return false
			}
		}
		// A glob deeper inside a system subtree: /usr/*.
		for _, sub := range systemSubtrees {
			if strings.HasPrefix(c, sub) {
				return true
			}
		}
	}
	return false
}
