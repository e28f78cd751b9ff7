package runner

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/toolwarden/toolwarden/internal/reduction"
)

func opts(t *testing.T, cmd string) Options {
	t.Helper()
	return Options{
		Command:       cmd,
		Dir:           t.TempDir(),
		ReductionRoot: t.TempDir(),
		ExecutionID:   "exec-" + strings.ReplaceAll(t.Name(), "/", "_"),
	}
}

func run(t *testing.T, o Options) *Result {
	t.Helper()
	res, err := Run(context.Background(), pgBackend{}, o)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	return res
}

func TestExitCodesAndStatus(t *testing.T) {
	for _, tc := range []struct {
		cmd    string
		status string
		code   int
		out    string
	}{
		{"echo hello; echo err >&2", StatusCompleted, 0, "hello\nerr\n"},
		{"echo partial; exit 3", StatusFailed, 3, "partial\n"},
		{"false", StatusFailed, 1, ""},
		{"kill -TERM $$", StatusFailed, -1, ""},
	} {
		res := run(t, opts(t, tc.cmd))
		if res.Status != tc.status || res.ExitCode != tc.code || res.Output != tc.out {
			t.Errorf("%q: status %s code %d output %q; want %s %d %q", tc.cmd, res.Status, res.ExitCode, res.Output, tc.status, tc.code, tc.out)
		}
		if res.Backend != "test_process_group" || len(res.Layers) == 0 || res.Ended.Before(res.Started) {
			t.Errorf("%q: backend %q layers %v times %v..%v", tc.cmd, res.Backend, res.Layers, res.Started, res.Ended)
		}
	}
	res := run(t, opts(t, "kill -TERM $$"))
	if res.Signal != "SIGTERM" {
		t.Errorf("signal = %q", res.Signal)
	}
}

func TestHardTimeoutKills(t *testing.T) {
	o := opts(t, "echo started; sleep 30")
	o.Timeout = 300 * time.Millisecond
	res := run(t, o)
	if res.Status != StatusHardTimeout || res.NoOutputTimeout {
		t.Fatalf("status %s noOutput %v, want hard_timeout", res.Status, res.NoOutputTimeout)
	}
	if res.Output != "started\n" || res.Signal == "" {
		t.Fatalf("output %q signal %q", res.Output, res.Signal)
	}
}

func TestNoOutputTimeoutKillsSilentRun(t *testing.T) {
	o := opts(t, "echo one; sleep 30")
	o.NoOutputTimeout = 300 * time.Millisecond
	res := run(t, o)
	if res.Status != StatusHardTimeout || !res.NoOutputTimeout {
		t.Fatalf("status %s noOutput %v, want hard_timeout from silence", res.Status, res.NoOutputTimeout)
	}
	if res.Output != "one\n" {
		t.Fatalf("output %q", res.Output)
	}
}

// TestOutputKeepsNoOutputTimeoutAway prints steadily for longer than the
// no-output timeout; the run must complete. The command paces itself on
// output lines, not on time, so a slow machine only makes it slower.
func TestOutputKeepsNoOutputTimeoutAway(t *testing.T) {
	o := opts(t, "for i in 1 2 3 4 5 6 7 8; do echo $i; sleep 0.2; done")
	o.NoOutputTimeout = 2 * time.Second
	res := run(t, o)
	if res.Status != StatusCompleted || res.NoOutputTimeout {
		t.Fatalf("status %s noOutput %v output %q", res.Status, res.NoOutputTimeout, res.Output)
	}
}

func procGone(pid int) bool {
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return true
	}
	// A zombie waiting for a non-reaping init counts as gone.
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true
	}
	s := string(b)
	if i := strings.LastIndexByte(s, ')'); i > 0 && len(s) > i+2 {
		return s[i+2] == 'Z'
	}
	return false
}

// waitGone polls for the pid to disappear; the bound is generous because
// it only guards against a hang.
func waitGone(pid int) bool {
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if procGone(pid) {
			return true
		}
	}
	return false
}

// startAndReadChild starts a run that backgrounds a sleeping child and
// prints its pid, and returns the handle and that pid.
func startAndReadChild(t *testing.T, ctx context.Context) (*Handle, int) {
	t.Helper()
	o := opts(t, "sleep 60 & echo child=$!; wait")
	h, err := Start(ctx, pgBackend{}, o)
	if err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		p := h.Partial(0)
		if s, ok := strings.CutPrefix(p.Text, "child="); ok && strings.HasSuffix(s, "\n") {
			pid, err := strconv.Atoi(strings.TrimSpace(s))
			if err != nil {
				t.Fatalf("bad pid line %q", p.Text)
			}
			if procGone(pid) {
				t.Fatalf("child %d not running before cancel", pid)
			}
			return h, pid
		}
	}
	h.Cancel()
	t.Fatal("child pid never printed")
	return nil, 0
}

func TestContextCancelKillsChildTree(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	h, child := startAndReadChild(t, ctx)
	cancel()
	res := h.Wait()
	if res.Status != StatusCancelled {
		t.Fatalf("status %s, want cancelled", res.Status)
	}
	if !waitGone(child) || !waitGone(h.Pid()) {
		t.Fatalf("child %d or main %d survived cancellation", child, h.Pid())
	}
}

func TestHandleCancelKillsChildTree(t *testing.T) {
	h, child := startAndReadChild(t, context.Background())
	h.Cancel()
	h.Cancel() // idempotent
	select {
	case <-h.Done():
	case <-time.After(30 * time.Second):
		t.Fatal("run did not end after Cancel")
	}
	res := h.Wait()
	if res.Status != StatusCancelled || res.Output == "" {
		t.Fatalf("status %s output %q", res.Status, res.Output)
	}
	if !waitGone(child) {
		t.Fatalf("child %d survived Cancel", child)
	}
}

func TestKillFailureIsRecorded(t *testing.T) {
	o := opts(t, "sleep 30")
	o.Timeout = 200 * time.Millisecond
	res, err := Run(context.Background(), brokenKillBackend{}, o)
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != StatusHardTimeout {
		t.Fatalf("status %s", res.Status)
	}
	if !strings.Contains(res.Cleanup, "cleanup_unconfirmed") || !strings.Contains(res.Cleanup, "device busy") {
		t.Fatalf("cleanup %q lost the kill error or the backend outcome", res.Cleanup)
	}
}

func TestStartFailureRunsNothingAndLeavesNoScript(t *testing.T) {
	o := opts(t, "")
	o.Command, o.Script = "", "echo never"
	_, err := Run(context.Background(), failingBackend{}, o)
	if err == nil || !strings.Contains(err.Error(), "no isolation today") {
		t.Fatalf("err = %v", err)
	}
	ents, _ := os.ReadDir(o.Dir)
	if len(ents) != 0 {
		t.Fatalf("script left behind: %v", ents)
	}
}

func TestOptionValidation(t *testing.T) {
	for name, o := range map[string]Options{
		"neither":  {Dir: t.TempDir()},
		"both":     {Command: "x", Script: "y", Dir: t.TempDir()},
		"language": {Command: "x", Language: "ruby", Dir: t.TempDir()},
		"dir":      {Command: "x", Dir: filepath.Join(t.TempDir(), "missing")},
		"cap":      {Command: "x", Dir: t.TempDir(), MaxResultBytes: 10},
		// "BASH_ENV=x.sh" with value "" would set BASH_ENV to "x.sh=".
		"env =":     {Command: "x", Dir: t.TempDir(), Env: map[string]string{"BASH_ENV=x.sh": ""}},
		"env empty": {Command: "x", Dir: t.TempDir(), Env: map[string]string{"": "x"}},
		"env NUL":   {Command: "x", Dir: t.TempDir(), Env: map[string]string{"A\x00": "x"}},
	} {
		if _, err := Start(context.Background(), pgBackend{}, o); err == nil {
			t.Errorf("%s: invalid options accepted", name)
		}
	}
	if _, err := Start(context.Background(), nil, Options{Command: "true"}); err == nil {
		t.Error("nil backend accepted")
	}
}

func TestEnvAllowlist(t *testing.T) {
	t.Setenv("TOOLWARDEN_TEST_SECRET", "s3cr3t")
	t.Setenv("TOOLWARDEN_TEST_PASSED", "visible")
	t.Setenv("TZ", "UTC")
	o := opts(t, `echo "secret=${TOOLWARDEN_TEST_SECRET-unset} passed=${TOOLWARDEN_TEST_PASSED-unset} tz=${TZ-unset} home=$HOME pwd=$PWD x=$X"`)
	res := run(t, o)
	want := fmt.Sprintf("secret=unset passed=unset tz=UTC home=%s pwd=%s x=\n", o.Dir, o.Dir)
	if res.Output != want {
		t.Fatalf("default allowlist: %q, want %q", res.Output, want)
	}
	o.EnvAllowlist = []string{"PATH", "TOOLWARDEN_TEST_PASSED"}
	o.Env = map[string]string{"X": "explicit"}
	res = run(t, o)
	want = fmt.Sprintf("secret=unset passed=visible tz=unset home=%s pwd=%s x=explicit\n", o.Dir, o.Dir)
	if res.Output != want {
		t.Fatalf("custom allowlist: %q, want %q", res.Output, want)
	}
}

func TestScriptModeBashAndPython(t *testing.T) {
	o := opts(t, "")
	o.Command = ""
	o.Script = "set -e\nname=world\necho \"hello $name\"\nf() { echo \"in f $1\"; }\nf 1\ncat <<EOF\nheredoc\nEOF\necho \"stdin:$(cat)\"\nls -A\nexit 4\n"
	res := run(t, o)
	if res.Status != StatusFailed || res.ExitCode != 4 || res.Output != "hello world\nin f 1\nheredoc\nstdin:\n" {
		t.Fatalf("bash script: %s %d %q", res.Status, res.ExitCode, res.Output)
	}

	o.Language = LanguagePython
	o.Script = "import os, sys\nprint(sum(range(10)))\nprint('stdin', repr(sys.stdin.read()))\nprint(os.listdir('.'))\n"
	res = run(t, o)
	if res.Status != StatusCompleted || res.Output != "45\nstdin ''\n[]\n" {
		t.Fatalf("python script: %s %d %q", res.Status, res.ExitCode, res.Output)
	}
	ents, _ := os.ReadDir(o.Dir)
	if len(ents) != 0 {
		t.Fatalf("script files left in the workspace: %v", ents)
	}

	// With Stdin of its own (the local CLI), the script is a 0600 file
	// in the workspace, removed after the run.
	o.Stdin = strings.NewReader("ignored")
	o.Script = "import os, stat, sys\nst = os.stat(sys.argv[0])\nprint('mode', oct(stat.S_IMODE(st.st_mode)))\n"
	res = run(t, o)
	if res.Status != StatusCompleted || res.Output != "mode 0o600\n" {
		t.Fatalf("python script file: %s %d %q", res.Status, res.ExitCode, res.Output)
	}
	ents, _ = os.ReadDir(o.Dir)
	if len(ents) != 0 {
		t.Fatalf("script files left in the workspace: %v", ents)
	}

	o.Script = ""
	o.Command = "import sys; sys.stdout.write(sys.stdin.read().upper())"
	o.Stdin = strings.NewReader("piped in")
	res = run(t, o)
	if res.Output != "PIPED IN" {
		t.Fatalf("python -c with stdin: %q", res.Output)
	}
}

func TestLargeOutputIsReducedAndSpilled(t *testing.T) {
	o := opts(t, `python3 -c 'print("A" * 200000)'`)
	res := run(t, o)
	if res.Status != StatusCompleted || res.TotalBytes != 200001 {
		t.Fatalf("status %s total %d", res.Status, res.TotalBytes)
	}
	if len(res.Output) > reduction.DefaultMaxLength || !strings.HasPrefix(res.Output, "<persisted-output>\nOutput too large (200001). Full output saved to: "+res.SpillPath+"\n") {
		t.Fatalf("output %d bytes: %.200q", len(res.Output), res.Output)
	}
	data, err := os.ReadFile(res.SpillPath)
	if err != nil || string(data) != strings.Repeat("A", 200000)+"\n" {
		t.Fatalf("spill file %d bytes, %v", len(data), err)
	}
	want, _ := reduction.SpillPath(o.ReductionRoot, "", o.ExecutionID)
	if res.SpillPath != want {
		t.Fatalf("spill path %s, want %s", res.SpillPath, want)
	}
}

// TestHugeOutputBounded pipes 200 MB through a real process and checks the
// daemon's heap stays bounded and the spill file is byte-identical.
func TestHugeOutputBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("200 MB")
	}
	o := opts(t, "head -c 200000000 /dev/zero | tr '\\0' 'x'")
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base := ms.HeapInuse
	var peak uint64
	var mu sync.Mutex
	o.PartialInterval = 20 * time.Millisecond
	o.OnPartial = func(p reduction.PartialOutput) {
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		mu.Lock()
		peak = max(peak, m.HeapInuse)
		mu.Unlock()
	}
	res := run(t, o)
	runtime.ReadMemStats(&ms)
	mu.Lock()
	peak = max(peak, ms.HeapInuse)
	mu.Unlock()
	if growth := int64(peak) - int64(base); growth > 64<<20 {
		t.Fatalf("heap grew by %d MiB", growth>>20)
	}
	if res.Status != StatusCompleted || res.TotalBytes != 200_000_000 || len(res.Output) > reduction.DefaultMaxLength {
		t.Fatalf("status %s total %d output %d bytes", res.Status, res.TotalBytes, len(res.Output))
	}
	f, err := os.Open(res.SpillPath)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, bufio.NewReader(f))
	if err != nil || n != 200_000_000 {
		t.Fatalf("spill %d bytes, %v", n, err)
	}
	want := sha256.New()
	chunk := bytes.Repeat([]byte("x"), 1<<20)
	for i := 0; i < 200_000_000/len(chunk); i++ {
		want.Write(chunk)
	}
	want.Write(chunk[:200_000_000%len(chunk)])
	if !bytes.Equal(h.Sum(nil), want.Sum(nil)) {
		t.Fatal("spill file differs from the output")
	}
}

func TestOnPartialReportsProgress(t *testing.T) {
	o := opts(t, "for i in $(seq 1 20); do echo line$i; sleep 0.05; done")
	o.PartialInterval = 30 * time.Millisecond
	var mu sync.Mutex
	var seen []reduction.PartialOutput
	o.OnPartial = func(p reduction.PartialOutput) {
		mu.Lock()
		seen = append(seen, p)
		mu.Unlock()
	}
	res := run(t, o)
	mu.Lock()
	defer mu.Unlock()
	if res.Status != StatusCompleted || len(seen) == 0 {
		t.Fatalf("status %s, %d partials", res.Status, len(seen))
	}
	for i, p := range seen {
		if i > 0 && p.TotalBytes <= seen[i-1].TotalBytes {
			t.Fatalf("partial %d did not grow: %d after %d", i, p.TotalBytes, seen[i-1].TotalBytes)
		}
		if !strings.HasPrefix(res.Output, p.Text) && !strings.Contains(res.Output, p.Text) {
			t.Fatalf("partial %q is not part of the output", p.Text)
		}
	}
}

func TestPanickingOnPartialIsRecorded(t *testing.T) {
	o := opts(t, "for i in 1 2 3 4 5; do echo $i; sleep 0.1; done")
	o.PartialInterval = 20 * time.Millisecond
	o.OnPartial = func(reduction.PartialOutput) { panic("boom") }
	res := run(t, o)
	if res.Status != StatusCompleted || !strings.Contains(res.Error, "boom") {
		t.Fatalf("status %s error %q", res.Status, res.Error)
	}
}
