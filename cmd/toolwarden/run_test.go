package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/toolwarden/toolwarden/sdk"
)

// busyRoot is how `toolwarden run` reports that another toolwarden (a
// running serve or executor on this host) holds the exclusive cgroup root.
const busyRoot = "is in use by another toolwarden"

// runIn runs `toolwarden run ARGS` in the workspace ws. When the strong
// backend's exclusive cgroup root is held by another toolwarden process on
// the host, the call is repeated under the process_group backend, so the
// behaviour under test (exit codes, output, blocking) is still checked;
// the fallback is logged.
func runIn(t *testing.T, ws string, args ...string) result {
	t.Helper()
	full := append([]string{"run"}, args...)
	r := invocation{dir: ws}.run(t, full...)
	if r.code == exitBlocked && strings.Contains(r.stderr, busyRoot) {
		t.Logf("cgroup root busy (another toolwarden runs on this host); repeating under process_group:\n%s", r.stderr)
		full = append([]string{"run", "--isolation", "process_group"}, args...)
		r = invocation{dir: ws}.run(t, full...)
	}
	return r
}

// blockedReport checks that r is a blocked run: exit 126, the SafetyReport
// as JSON on stderr, nothing on stdout.
func blockedReport(t *testing.T, r result) sdk.SafetyReport {
	t.Helper()
	wantCode(t, r, exitBlocked)
	if r.stdout != "" {
		t.Errorf("a blocked run printed output: %q", r.stdout)
	}
	rep := checkReport(t, "blocked run's stderr", r.stderr)
	if !rep.Blocked {
		t.Errorf("exit 126 with a report that is not blocked:\n%s", r)
	}
	return rep
}

func TestRunEchoPrintsOutput(t *testing.T) {
	ws := workspace(t)
	r := runIn(t, ws, "-c", "echo hi")
	wantCode(t, r, 0)
	if r.stdout != "hi\n" {
		t.Errorf("stdout %q, want %q", r.stdout, "hi\n")
	}
	if r.stderr != "" {
		t.Errorf("an allowed, successful run wrote to stderr: %s", r.stderr)
	}
}

func TestRunPropagatesExitCode(t *testing.T) {
	ws := workspace(t)
	for _, code := range []int{7, 1, 42} {
		r := runIn(t, ws, "-c", "exit "+strconv.Itoa(code))
		wantCode(t, r, code)
	}
}

func TestRunMergesStderrIntoResult(t *testing.T) {
	ws := workspace(t)
	r := runIn(t, ws, "-c", "ls /no-such-dir-for-toolwarden")
	if r.code == 0 || r.code == exitBlocked {
		t.Fatalf("ls of a missing directory: exit %d, want its own non-zero code:\n%s", r.code, r)
	}
	wantContains(t, "stdout (stdout and stderr merged)", r.stdout, "no-such-dir-for-toolwarden")
}

func TestRunBlockedRunsNothing(t *testing.T) {
	ws := workspace(t)
	marker := filepath.Join(ws, "MARKER")

	// Control: the same workspace lets a run create the marker, so its
	// absence below means that nothing ran.
	r := runIn(t, ws, "-c", "touch MARKER")
	wantCode(t, r, 0)
	if !exists(t, marker) {
		t.Fatalf("control run did not create %s:\n%s", marker, r)
	}
	if err := os.Remove(marker); err != nil {
		t.Fatal(err)
	}

	r = runIn(t, ws, "-c", "touch MARKER && rm -rf /")
	rep := blockedReport(t, r)
	if rep.Decision != sdk.Deny || !hasRule(rep, "BASH_RECURSIVE_DELETE") {
		t.Errorf("decision %s rules %v, want deny by BASH_RECURSIVE_DELETE", rep.Decision, rep.RuleIDs())
	}
	if exists(t, marker) {
		t.Errorf("a blocked command ran: %s exists", marker)
	}
}

func TestRunReviewRunsUnlessPolicyBlocksIt(t *testing.T) {
	ws := workspace(t)
	marker := filepath.Join(ws, "MARKER")
	const cmd = "touch MARKER && echo made"

	// Default policy: a review runs, and the reasons are shown on stderr.
	r := runIn(t, ws, "-c", cmd)
	wantCode(t, r, 0)
	if r.stdout != "made\n" || !exists(t, marker) {
		t.Fatalf("reviewed command did not run:\n%s", r)
	}
	wantContains(t, "stderr", r.stderr, "needs_human_review", "BASH_SHELL_FEATURE_REVIEW")
	if err := os.Remove(marker); err != nil {
		t.Fatal(err)
	}

	// block_on_review: the same command is blocked and nothing runs.
	pol, err := filepath.Abs(filepath.Join("testdata", "policies", "block_on_review.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	r = runIn(t, ws, "--policy", pol, "-c", cmd)
	rep := blockedReport(t, r)
	if rep.Decision != sdk.NeedsHumanReview {
		t.Errorf("decision %s, want needs_human_review (blocked by policy)", rep.Decision)
	}
	if exists(t, marker) {
		t.Errorf("a command blocked by block_on_review ran: %s exists", marker)
	}
}

func TestRunInvalidPolicyRunsNothing(t *testing.T) {
	ws := workspace(t)
	pol, err := filepath.Abs(filepath.Join("testdata", "policies", "wrong_type.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	r := runIn(t, ws, "--policy", pol, "-c", "touch MARKER")
	wantCode(t, r, 3)
	wantContains(t, "stderr", r.stderr, "wrong_type.yaml", `"max_timeout_seconds"`)
	if exists(t, filepath.Join(ws, "MARKER")) {
		t.Errorf("a run under an invalid policy ran")
	}
}

func TestRunUsageErrors(t *testing.T) {
	ws := workspace(t)
	for _, args := range [][]string{
		{},                                  // nothing to run
		{"-c", "   "},                       // empty command
		{"-c", "echo x", "script.sh"},       // both
		{"--language", "ruby", "-c", "ls"},  // unsupported language
		{"--max-output", "10", "-c", "ls"},  // below the reduction minimum
		{filepath.Join(ws, "absent.sh")},    // unreadable script
		{"--timeout", "0s", "-c", "echo x"}, // no time at all
	} {
		r := runIn(t, ws, args...)
		if r.code != 3 {
			t.Errorf("run %v: exit %d, want 3:\n%s", args, r.code, r)
		}
	}
}

func TestRunHardTimeout(t *testing.T) {
	ws := workspace(t)
	r := runIn(t, ws, "--timeout", "1s", "-c", "sleep 30")
	wantCode(t, r, exitTimeout)
	wantContains(t, "stderr", r.stderr, "hard_timeout")
	if strings.Contains(r.stderr, "no output for") {
		t.Errorf("a hard timeout reported as a no-output timeout: %s", r.stderr)
	}
}

func TestRunNoOutputTimeout(t *testing.T) {
	ws := workspace(t)
	// The hard timeout is far away; only the silence can end this run. The
	// output before the silence is still delivered.
	r := runIn(t, ws, "--timeout", "2m", "--no-output-timeout", "1s", "-c", "echo started; sleep 30")
	wantCode(t, r, exitTimeout)
	wantContains(t, "stderr", r.stderr, "no output for 1s")
	wantContains(t, "stdout", r.stdout, "started")

	r = runIn(t, ws, "--timeout", "2m", "--no-output-timeout", "1s", "-c", "sleep 30")
	wantCode(t, r, exitTimeout)
	wantContains(t, "stderr", r.stderr, "no output for 1s")
}

// persistedPath finds the spill file named in a <persisted-output> block.
var persistedPath = regexp.MustCompile(`Full output saved to: (\S+)`)

func TestRunLargeOutputIsReduced(t *testing.T) {
	ws := workspace(t)
	spill := filepath.Join(t.TempDir(), "reduction")
	const size = 200 * 1024
	r := runIn(t, ws, "--reduction-root", spill, "-c", "printf '%0"+strconv.Itoa(size)+"d' 0")
	wantCode(t, r, 0)
	if !strings.HasPrefix(r.stdout, "<persisted-output>") || !strings.Contains(r.stdout, "</persisted-output>") {
		t.Fatalf("200 KB of output not reduced to a <persisted-output> block:\n%s", r)
	}
	if len(r.stdout) > 50000 {
		t.Errorf("reduced result is %d bytes, above the default --max-output 50000", len(r.stdout))
	}
	m := persistedPath.FindStringSubmatch(r.stdout)
	if m == nil {
		t.Fatalf("no spill path in the reduced result:\n%s", clip(r.stdout))
	}
	if rel, err := filepath.Rel(spill, m[1]); err != nil || strings.HasPrefix(rel, "..") {
		t.Errorf("spill file %s is not under --reduction-root %s", m[1], spill)
	}
	data, err := os.ReadFile(m[1])
	if err != nil {
		t.Fatalf("read spill file: %v", err)
	}
	if len(data) != size || !bytes.Equal(data, bytes.Repeat([]byte("0"), size)) {
		t.Errorf("spill file holds %d bytes, want the full %d bytes of output", len(data), size)
	}
	// The preview is the start of the real output.
	if !strings.Contains(r.stdout, strings.Repeat("0", 1000)) {
		t.Errorf("reduced result has no preview of the output")
	}
}

func TestRunSmallOutputIsNotReduced(t *testing.T) {
	ws := workspace(t)
	spill := filepath.Join(t.TempDir(), "reduction")
	r := runIn(t, ws, "--reduction-root", spill, "--max-output", "2048", "-c", "printf '%01500d' 0")
	wantCode(t, r, 0)
	if r.stdout != strings.Repeat("0", 1500) {
		t.Errorf("1500 bytes under --max-output 2048 changed: %q", clip(r.stdout))
	}
	if exists(t, spill) {
		if entries, _ := os.ReadDir(spill); len(entries) > 0 {
			t.Errorf("output below the limit was spilled to %s", spill)
		}
	}
}

func TestRunPythonScriptFile(t *testing.T) {
	ws := workspace(t)
	script := writeFile(t, ws, "hello.py", "import sys\nprint('hello from', sys.version_info[0])\nsys.exit(3)\n")
	r := runIn(t, ws, script)
	wantCode(t, r, 3)
	if r.stdout != "hello from 3\n" {
		t.Errorf("stdout %q, want %q", r.stdout, "hello from 3\n")
	}

	// A python script is scanned as python: a denied read blocks it.
	bad := writeFile(t, ws, "leak.py", "print(open('.env').read())\n")
	writeFile(t, ws, ".env", "TOKEN=x\n")
	rep := blockedReport(t, runIn(t, ws, bad))
	if rep.Language != "python" || !hasRule(rep, "FILE_SECRET_PATH_ACCESS") {
		t.Errorf("language %s rules %v, want python with FILE_SECRET_PATH_ACCESS", rep.Language, rep.RuleIDs())
	}
}

func TestRunBashScriptFile(t *testing.T) {
	ws := workspace(t)
	script := writeFile(t, ws, "steps.sh", "echo one\necho two\nexit 5\n")
	r := runIn(t, ws, script)
	wantCode(t, r, 5)
	if r.stdout != "one\ntwo\n" {
		t.Errorf("stdout %q, want %q", r.stdout, "one\ntwo\n")
	}
}

func TestRunWorkingDirectory(t *testing.T) {
	ws := workspace(t)
	writeFile(t, ws, "present.txt", "x")
	r := runIn(t, t.TempDir(), "--cwd", ws, "-c", "cat present.txt; pwd")
	wantCode(t, r, 0)
	wantContains(t, "stdout", r.stdout, "x")
	// As root the run works in a private copy of --cwd (runplace.go); else
	// in --cwd itself.
	if pwd := strings.TrimSpace(strings.TrimPrefix(r.stdout, "x")); os.Geteuid() != 0 && pwd != ws {
		t.Errorf("pwd printed %q, want --cwd %s", pwd, ws)
	}
}

func TestRunWorkloadIsUnprivileged(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("only meaningful when toolwarden itself runs as root")
	}
	// A root workload could leave its cgroup and outlive its run; whatever
	// the backend, workloads run as an unprivileged uid.
	ws := workspace(t)
	r := runIn(t, ws, "-c", "id -u")
	wantCode(t, r, 0)
	if uid := strings.TrimSpace(r.stdout); uid == "0" || uid == "" {
		t.Errorf("workload ran as uid %q, want an unprivileged uid", uid)
	}
}

func TestRunScriptFromStandardInput(t *testing.T) {
	ws := workspace(t)
	r := invocation{dir: ws, stdin: strings.NewReader("echo from stdin\nexit 4\n")}.run(t, "run", "--isolation", "process_group", "-")
	wantCode(t, r, 4)
	if r.stdout != "from stdin\n" {
		t.Errorf("stdout %q, want %q", r.stdout, "from stdin\n")
	}
	r = invocation{dir: ws, stdin: strings.NewReader("rm -rf ~\n")}.run(t, "run", "--isolation", "process_group", "-")
	if rep := blockedReport(t, r); !hasRule(rep, "BASH_RECURSIVE_DELETE") {
		t.Errorf("rules %v, want BASH_RECURSIVE_DELETE", rep.RuleIDs())
	}
}

func TestRunRequestedLimitsAreScanned(t *testing.T) {
	ws := workspace(t)
	// Asking for more time or output than the policy allows is a review:
	// it runs under the default policy and is blocked under block_on_review.
	cases := []struct {
		flag, value, rule string
	}{
		{"--timeout", "400s", "RESOURCE_TIMEOUT_LIMIT_EXCEEDED"},
		{"--max-output", "5000000", "RESOURCE_OUTPUT_LIMIT_EXCEEDED"},
	}
	pol, err := filepath.Abs(filepath.Join("testdata", "policies", "block_on_review.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		r := runIn(t, ws, c.flag, c.value, "-c", "echo ran")
		wantCode(t, r, 0)
		if r.stdout != "ran\n" {
			t.Errorf("%s %s: stdout %q, want the command's output", c.flag, c.value, r.stdout)
		}
		wantContains(t, "stderr", r.stderr, c.rule)

		r = runIn(t, ws, "--policy", pol, c.flag, c.value, "-c", "echo ran")
		if rep := blockedReport(t, r); !hasRule(rep, c.rule) {
			t.Errorf("%s %s under block_on_review: rules %v, want %s", c.flag, c.value, rep.RuleIDs(), c.rule)
		}
	}
}

// processesWith returns the host's sleep processes whose arguments contain
// token: the children a workload leaves behind (toolwarden's and the
// shell's own command lines also contain the token, and do not count).
func processesWith(t *testing.T, token string) []string {
	t.Helper()
	files, err := filepath.Glob("/proc/[0-9]*/cmdline")
	if err != nil {
		t.Fatal(err)
	}
	var found []string
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			continue // the process ended meanwhile
		}
		argv := strings.Split(strings.TrimRight(string(b), "\x00"), "\x00")
		if len(argv) == 2 && filepath.Base(argv[0]) == "sleep" && strings.Contains(argv[1], token) {
			found = append(found, filepath.Base(filepath.Dir(p))+": "+strings.Join(argv, " "))
		}
	}
	return found
}

func TestRunLeavesNoProcessBehind(t *testing.T) {
	if _, err := os.Stat("/proc/self/cmdline"); err != nil {
		t.Skip("no /proc on this host")
	}
	ws := workspace(t)
	// Unique sleep lengths (below long_sleep_seconds) mark the children.
	token := strconv.Itoa(os.Getpid()) + strconv.Itoa(int(time.Now().UnixNano()%1e6))
	bg := func(n int) string { return "299." + token + strconv.Itoa(n) }

	// Background children left behind by a run that completes.
	r := runIn(t, ws, "-c", "nohup sleep "+bg(1)+" >/dev/null 2>&1 & (sleep "+bg(2)+" &); echo done")
	wantCode(t, r, 0)
	if left := processesWith(t, "299."+token); len(left) > 0 {
		t.Errorf("processes outlived a completed run:\n%s\n%s", strings.Join(left, "\n"), r)
	}

	// A run killed by its hard timeout takes its whole tree with it.
	r = runIn(t, ws, "--timeout", "1s", "-c", "nohup sleep "+bg(3)+" >/dev/null 2>&1 & (sleep "+bg(4)+" &); sleep "+bg(5))
	wantCode(t, r, exitTimeout)
	if left := processesWith(t, "299."+token); len(left) > 0 {
		t.Errorf("processes outlived a timed-out run:\n%s\n%s", strings.Join(left, "\n"), r)
	}
}

// nobody is the unprivileged uid and gid the tests run the binary as when
// they run as root.
const nobody = 65534

func TestRunWithoutRoot(t *testing.T) {
	// Without root there is no cgroup backend: mode required refuses to run
	// anything, auto falls back to process_group and runs. As root, the
	// binary is run as an unprivileged uid to reach this branch.
	ws := workspace(t)
	in := invocation{dir: ws, env: []string{"HOME=" + ws}}
	if os.Geteuid() == 0 {
		in.uid = nobody
	}
	marker := filepath.Join(ws, "MARKER")

	r := in.run(t, "run", "--isolation", "required", "-c", "touch MARKER")
	wantCode(t, r, exitBlocked)
	wantContains(t, "stderr", r.stderr, "required")
	if exists(t, marker) {
		t.Errorf("mode required without a cgroup backend still ran the command")
	}

	r = in.run(t, "run", "-c", "touch MARKER && echo fell back")
	wantCode(t, r, 0)
	if r.stdout != "fell back\n" || !exists(t, marker) {
		t.Errorf("auto without root did not run the command:\n%s", r)
	}

	r = in.run(t, "run", "--timeout", "1s", "-c", "sleep 30")
	wantCode(t, r, exitTimeout)
}

func TestRunInterruptCancelsTheRun(t *testing.T) {
	if _, err := os.Stat("/proc/self/cmdline"); err != nil {
		t.Skip("no /proc on this host")
	}
	ws := workspace(t)
	token := "299." + strconv.Itoa(os.Getpid()) + strconv.Itoa(int(time.Now().UnixNano()%1e6))
	script := "nohup sleep " + token + "1 >/dev/null 2>&1 & sleep " + token + "2"
	for _, mode := range []string{"auto", "process_group"} {
		ctx, cancel := context.WithTimeout(context.Background(), commandDeadline)
		defer cancel()
		cmd := exec.CommandContext(ctx, bin, "run", "--isolation", mode, "-c", script)
		cmd.Dir = ws
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		waited := make(chan error, 1)
		go func() { waited <- cmd.Wait() }()

		// Wait until both sleeps of the workload run, then interrupt
		// toolwarden as a terminal's ^C would.
		var err error
		exited := false
		for !exited && len(processesWith(t, token)) < 2 {
			select {
			case err = <-waited:
				exited = true
			case <-ctx.Done():
				t.Fatalf("the workload never started\nstderr:\n%s", stderr.String())
			case <-time.After(50 * time.Millisecond):
			}
		}
		if exited {
			if mode == "auto" && strings.Contains(stderr.String(), busyRoot) {
				t.Logf("cgroup root busy (another toolwarden runs on this host); repeating under process_group")
				continue
			}
			t.Fatalf("run ended before it was interrupted: %v\nstdout:\n%s\nstderr:\n%s", err, stdout.String(), stderr.String())
		}
		if err := cmd.Process.Signal(os.Interrupt); err != nil {
			t.Fatal(err)
		}
		err = <-waited
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != exitCancelled {
			t.Errorf("after SIGINT: %v, want exit %d\nstderr:\n%s", err, exitCancelled, stderr.String())
		}
		if left := processesWith(t, token); len(left) > 0 {
			t.Errorf("processes outlived a cancelled run:\n%s", strings.Join(left, "\n"))
		}
		return
	}
}

// rootWorkspace is a fresh 0755 directory owned by root, as a user's own
// checkout is: the workload's unprivileged uid cannot write it.
func rootWorkspace(t *testing.T) string {
	t.Helper()
	if os.Geteuid() != 0 {
		if os.Getenv("CI") == "true" {
			t.Fatal("CI runs as root; this test must run there")
		}
		t.Skip("needs root: toolwarden runs workloads as another uid only as root")
	}
	dir, err := os.MkdirTemp("", "toolwarden-cli-rootws-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// notRootOwned lists what under dir is not owned by root.
func notRootOwned(t *testing.T, dir string) []string {
	t.Helper()
	var bad []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		st, err := os.Lstat(p)
		if err != nil {
			return err
		}
		if sys, ok := st.Sys().(*syscall.Stat_t); ok && (sys.Uid != 0 || sys.Gid != 0) {
			bad = append(bad, fmt.Sprintf("%s (%d:%d)", p, sys.Uid, sys.Gid))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return bad
}

func TestRunAsRootGoBuildInOwnDirectory(t *testing.T) {
	dir := rootWorkspace(t)
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go toolchain on PATH")
	}
	writeFile(t, dir, "go.mod", "module example.com/hello\n\ngo 1.22\n")
	writeFile(t, dir, "main.go", "package main\n\nfunc main() { println(\"hi\") }\n")
	r := invocation{dir: dir, env: []string{"PATH=" + filepath.Dir(goBin) + ":/usr/bin:/bin"}}.run(t, "run", "-c", "go build ./... && echo built")
	wantCode(t, r, 0)
	wantContains(t, "stdout", r.stdout, "built")
	for _, bad := range []string{"permission denied", "telemetry"} {
		if strings.Contains(r.stdout+r.stderr, bad) {
			t.Errorf("%q in the run's output:\n%s", bad, r)
		}
	}
	// The binary go build wrote is in the caller's directory, no cache
	// (.cache, go/) landed there, and everything is root's.
	if !exists(t, filepath.Join(dir, "hello")) {
		t.Errorf("go build's binary did not come back into %s", dir)
	}
	for _, junk := range []string{".cache", "go", ".npm"} {
		if exists(t, filepath.Join(dir, junk)) {
			t.Errorf("%s left in the caller's directory", junk)
		}
	}
	if bad := notRootOwned(t, dir); len(bad) > 0 {
		t.Errorf("files not owned by root: %v", bad)
	}
}

func TestRunAsRootChangesComeBackSafely(t *testing.T) {
	dir := rootWorkspace(t)
	writeFile(t, dir, "keep.txt", "keep")
	writeFile(t, dir, "gone.txt", "delete me")
	writeFile(t, dir, "edit.txt", "old")
	outside := t.TempDir()
	// The run edits, deletes, creates, and plants a symlink pointing
	// outside the directory: the changes reach the caller's directory,
	// nothing reaches outside it.
	cmd := "rm gone.txt && echo new > edit.txt && mkdir -p sub && echo s > sub/made.txt && " +
		"ln -s " + outside + " out && echo HOME=$HOME"
	r := invocation{dir: dir}.run(t, "run", "-c", cmd)
	wantCode(t, r, 0)
	if strings.Contains(r.stdout, "HOME="+dir) {
		t.Errorf("HOME is the caller's directory: %s", r.stdout)
	}
	if exists(t, filepath.Join(dir, "gone.txt")) {
		t.Error("gone.txt was not deleted")
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "edit.txt")); string(b) != "new\n" {
		t.Errorf("edit.txt = %q", b)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "sub", "made.txt")); string(b) != "s\n" {
		t.Errorf("sub/made.txt = %q", b)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "keep.txt")); string(b) != "keep" {
		t.Errorf("keep.txt = %q", b)
	}
	if ents, _ := os.ReadDir(outside); len(ents) > 0 {
		t.Errorf("the run wrote outside the directory: %v", ents)
	}
	if bad := notRootOwned(t, dir); len(bad) > 0 {
		t.Errorf("files not owned by root: %v", bad)
	}
}
