package bash

import (
	"strings"
)

// Small string helpers shared by the command topics.

// contains reports whether list holds s.
func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// dedup returns in without repeated strings, in first-seen order.
func dedup(in []string) []string {
	var out []string
	for _, s := range in {
		if !contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// isStdinPath reports paths that name the process's stdin.
func isStdinPath(p string) bool {
	return p == "/dev/stdin" || p == "/proc/self/fd/0" || p == "/dev/fd/0"
}

// shellQuote quotes s as one shell word.
func shellQuote(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\n'\"\\$`;&|<>()*?[]{}~#") {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
