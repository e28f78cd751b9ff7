package main

// The tests of this package are end to end: TestMain builds the toolwarden
// binary once and every test runs it as a user would, with arguments,
// standard input, a working directory and an exit code, so that what is
// asserted is what a shell script wrapping toolwarden would see.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// bin is the toolwarden binary built by TestMain.
var bin string

// commandDeadline bounds one invocation so that a hung binary fails its
// test instead of the whole run. It is a guard, not a speed requirement:
// every command here finishes in seconds on an idle machine.
const commandDeadline = 3 * time.Minute

func TestMain(m *testing.M) { os.Exit(testMain(m)) }

func testMain(m *testing.M) int {
	packs, _ := filepath.Glob(filepath.Join("..", "..", "internal", "engine", "builtin", "wasm", "*.wasm"))
	if len(packs) == 0 {
		fmt.Fprintln(os.Stderr, "cmd/toolwarden tests: internal/engine/builtin/wasm holds no rule packs (.wasm); "+
			"build them first with `go tool task rules` (or run the tests through `go tool task test`)")
		return 1
	}
	// The directory must be searchable by the unprivileged uid that the
	// isolation backends run workloads (and the check-isolation probe) as.
	dir, err := os.MkdirTemp("", "toolwarden-cli-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "cmd/toolwarden tests: temp dir for the binary:", err)
		return 1
	}
	defer os.RemoveAll(dir)
	if err := os.Chmod(dir, 0o755); err != nil {
		fmt.Fprintln(os.Stderr, "cmd/toolwarden tests: chmod binary dir:", err)
		return 1
	}
	bin = filepath.Join(dir, "toolwarden")
	build := exec.Command("go", "build", "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "cmd/toolwarden tests: go build: %v\n%s", err, out)
		return 1
	}
	return m.Run()
}

// result is what one invocation of the binary produced.
type result struct {
	args   []string
	stdout string
	stderr string
	code   int
}

// String describes the invocation for failure messages.
func (r result) String() string {
	return fmt.Sprintf("toolwarden %s\nexit %d\n--- stdout ---\n%s\n--- stderr ---\n%s",
		strings.Join(r.args, " "), r.code, clip(r.stdout), clip(r.stderr))
}

// clip shortens long output in failure messages.
func clip(s string) string {
	const max = 4000
	if len(s) <= max {
		return s
	}
	return s[:max] + fmt.Sprintf("\n… (%d more bytes)", len(s)-max)
}

// invocation configures one run of the binary.
type invocation struct {
	dir   string    // working directory ("" = the package directory)
	stdin io.Reader // standard input (nil = empty)
	// uid, when non-zero, runs the binary as that uid and gid (needs root).
	uid int
	// env is added to the test's environment.
	env []string
}

// tw runs the binary with args in the package directory.
func tw(t *testing.T, args ...string) result {
	t.Helper()
	return invocation{}.run(t, args...)
}

// run runs the binary with args and returns its output and exit code. Only
// a failure to start or a blown deadline fails the test here; exit codes
// are the caller's to judge.
func (in invocation) run(t *testing.T, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), commandDeadline)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = in.dir
	cmd.Stdin = in.stdin
	if len(in.env) > 0 {
		cmd.Env = append(os.Environ(), in.env...)
	}
	if in.uid != 0 {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(in.uid), Gid: uint32(in.uid)}}
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	res := result{args: args, stdout: stdout.String(), stderr: stderr.String()}
	var ee *exec.ExitError
	switch {
	case ctx.Err() != nil:
		t.Fatalf("still running after %s, killed:\n%s", commandDeadline, res)
	case errors.As(err, &ee):
		res.code = ee.ExitCode()
	case err != nil:
		t.Fatalf("start toolwarden %s: %v", strings.Join(args, " "), err)
	}
	return res
}

// wantCode fails the test unless the invocation exited with code.
func wantCode(t *testing.T, r result, code int) {
	t.Helper()
	if r.code != code {
		t.Fatalf("exit code %d, want %d:\n%s", r.code, code, r)
	}
}

// wantContains fails the test unless s contains every one of subs.
func wantContains(t *testing.T, what, s string, subs ...string) {
	t.Helper()
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			t.Errorf("%s does not contain %q:\n%s", what, sub, clip(s))
		}
	}
}

// decodeJSON decodes one JSON document (the whole of s) into v.
func decodeJSON(t *testing.T, what, s string, v any) {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	if err := dec.Decode(v); err != nil {
		t.Fatalf("%s is not JSON: %v\n%s", what, err, clip(s))
	}
	if dec.More() {
		t.Fatalf("%s holds more than one JSON document:\n%s", what, clip(s))
	}
}

// writeFile writes content to name in dir, readable by everyone (workloads
// run as an unprivileged uid), and returns its path.
func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatalf("write %s: %v", p, err)
	}
	return p
}

// workspace makes a directory that a workload may read and write whatever
// uid the isolation backend runs it as (t.TempDir is 0700 and owned by the
// test's user), removed when the test ends.
func workspace(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "toolwarden-cli-ws-")
	if err != nil {
		t.Fatalf("workspace: %v", err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatalf("chmod workspace: %v", err)
	}
	return dir
}

// exists reports whether path exists.
func exists(t *testing.T, path string) bool {
	t.Helper()
	_, err := os.Stat(path)
	if err == nil {
		return true
	}
	if !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("stat %s: %v", path, err)
	}
	return false
}

func TestHelpListsSubcommands(t *testing.T) {
	r := tw(t, "--help")
	wantCode(t, r, 0)
	for _, sub := range []string{"scan", "eval", "policy", "run", "check-isolation", "serve", "executor", "mcp"} {
		wantContains(t, "toolwarden --help", r.stdout, "\n  "+sub+" ")
	}
}

func TestUnknownSubcommandIsUsageError(t *testing.T) {
	r := tw(t, "no-such-command")
	wantCode(t, r, 3)
	wantContains(t, "stderr", r.stderr, "no-such-command")
}

func TestVersionPrintsBuildInfo(t *testing.T) {
	r := tw(t, "--version")
	wantCode(t, r, 0)
	wantContains(t, "toolwarden --version", r.stdout, "toolwarden ", "go1.")
	// Built from this checkout, the binary names the VCS revision when git
	// stamped one, and the version is never empty.
	fields := strings.Fields(r.stdout)
	if len(fields) < 3 || fields[1] == "" {
		t.Fatalf("version line %q", r.stdout)
	}
	if strings.Contains(r.stdout, "unknown") {
		t.Fatalf("no build info in the binary: %q", r.stdout)
	}
}
