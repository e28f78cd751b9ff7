package main

import (
	"fmt"
	"os"
	"regexp"
)

// minAdminKeyLen is the shortest TOOLWARDEN_ADMIN_KEY accepted (the key
// store's minimum for imported tokens).
const minAdminKeyLen = 16

// checkAdminKeyEnv names the variable when the bootstrap admin key is too
// short, instead of the key store's "key bootstrap: token …".
func checkAdminKeyEnv(v string) error {
	if v != "" && len(v) < minAdminKeyLen {
		return fmt.Errorf("TOOLWARDEN_ADMIN_KEY is %d characters; it must be at least %d (e.g. `openssl rand -hex 24`)", len(v), minAdminKeyLen)
	}
	return nil
}

// bodyLimitPattern is what echo's BodyLimit accepts: a number and an
// optional B, K, M, G, T or P.
var bodyLimitPattern = regexp.MustCompile(`^[0-9]+(\.[0-9]+)?[BKMGTP]?$`)

// checkBodyLimit refuses a body limit the server could not parse (echo
// panics on one).
func checkBodyLimit(v string) error {
	if !bodyLimitPattern.MatchString(v) {
		return fmt.Errorf("--body-limit %q: want a size such as 512K, 2M or 10M", v)
	}
	return nil
}

// envOr is the environment variable name, or def when unset or empty.
func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}
