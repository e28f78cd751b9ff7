package main

import "testing"

func TestServeShortAdminKeyNamesTheVariable(t *testing.T) {
	r := invocation{env: []string{"TOOLWARDEN_ADMIN_KEY=short"}}.run(t, "serve", "--data-dir", t.TempDir(), "--listen", "127.0.0.1:0")
	wantCode(t, r, exitUsage)
	wantContains(t, "stderr", r.stderr, "TOOLWARDEN_ADMIN_KEY", "at least 16")
}

func TestServeBadBodyLimitIsUsageError(t *testing.T) {
	r := tw(t, "serve", "--data-dir", t.TempDir(), "--listen", "127.0.0.1:0", "--body-limit", "lots")
	wantCode(t, r, exitUsage)
	wantContains(t, "stderr", r.stderr, "--body-limit", "lots")
}
