package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The long-running subcommands (serve, mcp, executor) are driven end to
// end by the e2e package and by mcp_test.go; here they are checked to fail
// closed at start: a configuration they cannot honour is a usage error
// (exit 3) that says what is wrong, never a daemon running on a half-loaded
// policy or without its store.

func TestDaemonsRefuseInvalidPolicy(t *testing.T) {
	pol := filepath.Join("testdata", "policies", "negative_limit.yaml")
	for _, args := range [][]string{
		{"serve", "--no-executor", "--listen", "127.0.0.1:0", "--data-dir", filepath.Join(t.TempDir(), "data"), "--policy", pol},
		{"mcp", "--no-executor", "--data-dir", filepath.Join(t.TempDir(), "data"), "--policy", pol},
	} {
		r := invocation{stdin: strings.NewReader("")}.run(t, args...)
		wantCode(t, r, 3)
		wantContains(t, args[0]+" stderr", r.stderr, pol, `"max_output_bytes"`)
		if strings.Contains(r.stdout, "jsonrpc") || strings.Contains(r.stderr, "listening on") {
			t.Errorf("%s started under an invalid policy:\n%s", args[0], r)
		}
	}
}

func TestMCPRefusesEmptyIdentity(t *testing.T) {
	r := invocation{stdin: strings.NewReader("")}.run(t, "mcp", "--no-executor", "--identity", "",
		"--data-dir", filepath.Join(t.TempDir(), "data"))
	wantCode(t, r, 3)
	wantContains(t, "stderr", r.stderr, "--identity")
}

func TestExecutorNeedsItsStore(t *testing.T) {
	r := tw(t, "executor")
	wantCode(t, r, 3)
	wantContains(t, "stderr", r.stderr, "--redis")

	// Port 1 on loopback refuses connections: the store is unreachable.
	r = invocation{env: []string{"TOOLWARDEN_SECRETS_KEY=" + testSecretsKeyHex}}.run(t, "executor",
		"--redis", "redis://127.0.0.1:1/0", "--isolation", "process_group",
		"--data-dir", t.TempDir(), "--workspace", t.TempDir())
	wantCode(t, r, 3)
	wantContains(t, "stderr", r.stderr, "store", "127.0.0.1:1")
}

// testSecretsKeyHex is the master key of test deployments.
const testSecretsKeyHex = "0f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c4b5a69788796a5b4c3d2e1f0"

// TestRedisModeNeedsSecretsKey: serve and executor on Redis refuse to start
// without the master key (env values would otherwise be stored in plain
// text and key records trusted unsigned), and the error names the key.
func TestRedisModeNeedsSecretsKey(t *testing.T) {
	noKey := invocation{env: []string{"TOOLWARDEN_SECRETS_KEY="}}
	r := noKey.run(t, "executor", "--redis", "redis://127.0.0.1:1/0", "--isolation", "process_group",
		"--data-dir", t.TempDir(), "--workspace", t.TempDir())
	wantCode(t, r, 3)
	wantContains(t, "stderr", r.stderr, "security.secrets_key", "TOOLWARDEN_SECRETS_KEY")
	r = noKey.run(t, "serve", "--redis", "redis://127.0.0.1:1/0", "--no-executor", "--listen", "127.0.0.1:0",
		"--data-dir", t.TempDir())
	wantCode(t, r, 3)
	wantContains(t, "stderr", r.stderr, "security.secrets_key", "TOOLWARDEN_SECRETS_KEY")
	bad := invocation{env: []string{"TOOLWARDEN_SECRETS_KEY=short"}}
	r = bad.run(t, "serve", "--redis", "redis://127.0.0.1:1/0", "--no-executor", "--listen", "127.0.0.1:0",
		"--data-dir", t.TempDir())
	wantCode(t, r, 3)
	wantContains(t, "stderr", r.stderr, "security.secrets_key")
	if strings.Contains(r.stderr, "short") {
		t.Fatalf("the error repeats the key value: %s", r.stderr)
	}
}

// TestServeFixesOpenDataDir: at start-up serve makes a data dir left 0755
// with 0644 files private (0700 / 0600) and logs it naming the path —
// before anything else, so even a start that then fails (here on the
// policy) leaves it fixed; the run workspace keeps its own mode.
func TestServeFixesOpenDataDir(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	if err := os.MkdirAll(filepath.Join(dir, "reduction"), 0o755); err != nil {
		t.Fatal(err)
	}
	os.Chmod(dir, 0o755)
	for _, f := range []string{"executions.db", "executions.db-wal", "keys.json", "reduction/out.txt"} {
		os.WriteFile(filepath.Join(dir, f), []byte("x"), 0o644)
		os.Chmod(filepath.Join(dir, f), 0o644)
	}
	pol := filepath.Join("testdata", "policies", "negative_limit.yaml")
	r := invocation{}.run(t, "serve", "--no-executor", "--listen", "127.0.0.1:0", "--data-dir", dir, "--policy", pol)
	wantCode(t, r, 3)
	wantContains(t, "stderr", r.stderr, "data dir was accessible by others; fixed", dir)
	if fi, _ := os.Stat(dir); fi.Mode().Perm() != 0o700 {
		t.Fatalf("data dir %v after start-up", fi.Mode().Perm())
	}
	for _, f := range []string{"executions.db", "executions.db-wal", "keys.json", "reduction/out.txt"} {
		if fi, _ := os.Stat(filepath.Join(dir, f)); fi.Mode().Perm() != 0o600 {
			t.Fatalf("%s is %v after start-up", f, fi.Mode().Perm())
		}
	}

	// Created by serve under umask 000: 0700 as well.
	fresh := filepath.Join(t.TempDir(), "fresh")
	out, _ := exec.Command("sh", "-c", `umask 000; exec "$0" serve --no-executor --listen 127.0.0.1:0 --data-dir "$1" --policy "$2"`,
		bin, fresh, pol).CombinedOutput()
	if fi, err := os.Stat(fresh); err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("data dir created under umask 000: %v %v\n%s", fi, err, out)
	}
}
