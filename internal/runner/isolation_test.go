package runner

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/toolwarden/toolwarden/internal/isolation"
)

// workspace makes a directory the workload's unprivileged uid can use, as
// a real deployment's workspace would be.
func workspace(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "runner-ws-")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// cgroupTestRoot returns a fresh exclusive cgroup root for one test
// backend ("auto:NAME", a sibling of the daemon's auto root), or "" when
// this process is in no cgroup2 hierarchy.
func cgroupTestRoot(t *testing.T) string {
	t.Helper()
	if b, err := os.ReadFile("/proc/self/cgroup"); err != nil || !strings.Contains(string(b), "0::") {
		return ""
	}
	return fmt.Sprintf("auto:runner-test-%d-%d", os.Getpid(), time.Now().UnixNano()%1e9)
}

// realBackends opens the backends this host offers; the process-group one
// always, the cgroup one when running as root with cgroup2.
func realBackends(t *testing.T) map[string]isolation.Backend {
	t.Helper()
	out := map[string]isolation.Backend{}
	open := func(name string, cfg isolation.Config) {
		b, err := isolation.Open(context.Background(), cfg)
		if err != nil {
			if name == isolation.ModeProcessGroup {
				t.Fatalf("open %s: %v", name, err)
			}
			t.Logf("open %s: %v (skipped)", name, err)
			return
		}
		t.Cleanup(func() {
			if err := b.Close(); err != nil {
				t.Errorf("close %s: %v", name, err)
			}
		})
		out[name] = b
	}
	open(isolation.ModeProcessGroup, isolation.Config{Mode: isolation.ModeProcessGroup})
	if root := cgroupTestRoot(t); root != "" && os.Geteuid() == 0 {
		open(isolation.ModeRequired, isolation.Config{Mode: isolation.ModeRequired, CgroupRoot: root,
			Limits: isolation.Limits{MaxProcesses: 64, MemoryMaxBytes: 512 << 20}})
	}
	return out
}

// TestRealBackends runs the runner's contract through the isolation
// backends themselves: unprivileged uid, scripts readable by it, exit
// codes, hard timeout and cancellation of a background child.
func TestRealBackends(t *testing.T) {
	if testing.Short() {
		t.Skip("starts real isolation backends")
	}
	for name, b := range realBackends(t) {
		t.Run(name, func(t *testing.T) {
			o := Options{Dir: workspace(t), ReductionRoot: t.TempDir(), ExecutionID: "x"}

			o.Command = "id -u; echo err >&2; exit 5"
			res, err := Run(context.Background(), b, o)
			if err != nil {
				t.Fatal(err)
			}
			wantUID := strconv.Itoa(os.Geteuid())
			if os.Geteuid() == 0 {
				wantUID = "65534"
			}
			if res.Status != StatusFailed || res.ExitCode != 5 || res.Output != wantUID+"\nerr\n" {
				t.Fatalf("command: %s %d %q (cleanup %q)", res.Status, res.ExitCode, res.Output, res.Cleanup)
			}
			if res.Backend != b.Name() || len(res.Layers) == 0 {
				t.Fatalf("backend %q layers %v", res.Backend, res.Layers)
			}

			o.Command, o.Language = "", LanguagePython
			o.Script = "import os\nprint('uid', os.getuid())\n"
			res, err = Run(context.Background(), b, o)
			if err != nil {
				t.Fatal(err)
			}
			if res.Status != StatusCompleted || res.Output != "uid "+wantUID+"\n" {
				t.Fatalf("python script: %s %d %q", res.Status, res.ExitCode, res.Output)
			}

			o.Script, o.Language = "", LanguageBash
			o.Command = "sleep 30"
			o.Timeout = 300 * time.Millisecond
			res, err = Run(context.Background(), b, o)
			if err != nil {
				t.Fatal(err)
			}
			if res.Status != StatusHardTimeout || res.Cleanup != "" {
				t.Fatalf("timeout: %s cleanup %q", res.Status, res.Cleanup)
			}

			o.Timeout = 0
			o.Command = "sleep 60 & echo child=$!; wait"
			h, err := Start(context.Background(), b, o)
			if err != nil {
				t.Fatal(err)
			}
			var child int
			for deadline := time.Now().Add(10 * time.Second); child == 0 && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
				for _, line := range strings.SplitAfter(h.Partial(0).Text, "\n") {
					if s, ok := strings.CutPrefix(line, "child="); ok && strings.HasSuffix(s, "\n") {
						child, _ = strconv.Atoi(strings.TrimSpace(s))
					}
				}
			}
			h.Cancel()
			res = h.Wait()
			if res.Status != StatusCancelled {
				t.Fatalf("cancel: %s, output %q", res.Status, res.Output)
			}
			if child == 0 {
				t.Fatal("child pid never printed")
			}
			// In a PID namespace the printed pid is not a host pid; only
			// check it on the host's view when it is one of ours.
			if !strings.Contains(strings.Join(res.Layers, ","), "pidns") && !waitGone(child) {
				t.Fatalf("child %d survived cancellation", child)
			}
		})
	}
}
