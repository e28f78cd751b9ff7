//go:build linux

package isolation

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// waitWarm waits until b has a warm shim ready and returns its pid.
func waitWarm(t *testing.T, be Backend) int {
	t.Helper()
	b := be.(*cgroupBackend)
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		b.mu.Lock()
		if len(b.warm) > 0 {
			pid := b.warm[0].p.cmd.Process.Pid
			b.mu.Unlock()
			return pid
		}
		b.mu.Unlock()
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("no warm shim after 60s")
	return 0
}

// confinedScript prints what a run must see: its uid, no_new_privs and
// seccomp, its pid, its root, that the workspace is writable, that the
// system is not, and stdout and stderr in the order written.
const confinedScript = `id -u; grep -E '^(NoNewPrivs|Seccomp):' /proc/self/status | tr -s '\t' ' '; echo pid $$
ls / | tr '\n' ' '; echo
echo ok > f && cat f; touch /usr/x 2>/dev/null || echo ro; echo one; echo two >&2; echo three`

// TestWarmShimRunsConfined: a run started on a warm shim (the pid of the
// prepared shim becomes the workload) is confined exactly as one on a fresh
// shim: same layers, same uid, no_new_privs, seccomp, pid 1, the same root,
// a writable workspace below /tmp and a read-only system, and its stdout
// and stderr arrive in the order written.
func TestWarmShimRunsConfined(t *testing.T) {
	l := needCgroups(t)
	b := openTest(t, defaultConfig(t, l))
	run := func(spec Spec) (string, []string, int) {
		var out bytes.Buffer
		spec.Stdout, spec.Stderr = &out, &out
		p, err := b.Start(context.Background(), spec)
		if err != nil {
			t.Fatalf("Start: %v", err)
		}
		pid := p.Pid()
		if ex, err := p.Wait(); err != nil || ex.Code != 0 {
			t.Fatalf("exit %+v err %v out %q", ex, err, out.String())
		}
		if c := p.Cleanup(); c != "" {
			t.Fatalf("cleanup %q", c)
		}
		return out.String(), p.Layers(), pid
	}
	ws := workspace(t)
	spec := Spec{Path: "sh", Args: []string{"sh", "-c", confinedScript}, Env: []string{"PATH=/usr/bin:/bin"},
		Workspace: ws, Dir: ws, Hardening: DefaultHardening()}
	warmPid := waitWarm(t, b)
	warmOut, warmLayers, pid := run(spec)
	if pid != warmPid {
		t.Fatalf("run pid %d, want the warm shim's %d", pid, warmPid)
	}
	// Stdin makes the backend start a fresh shim.
	fresh := spec
	fresh.Stdin = strings.NewReader("")
	freshOut, freshLayers, pid := run(fresh)
	if pid == warmPid {
		t.Fatal("a run with stdin took a warm shim")
	}
	if warmOut != freshOut {
		t.Errorf("warm run saw\n%s\nfresh run saw\n%s", warmOut, freshOut)
	}
	if !slices.Equal(warmLayers, freshLayers) {
		t.Errorf("warm layers %v, fresh %v", warmLayers, freshLayers)
	}
	want := []string{"65534", "NoNewPrivs: 1", "Seccomp: 2", "pid 1", "ok", "ro", "one\ntwo\nthree"}
	for _, w := range want {
		if !strings.Contains(warmOut, w) {
			t.Errorf("warm run output lacks %q:\n%s", w, warmOut)
		}
	}
	for _, host := range []string{" root ", " home ", " var ", " run ", " srv "} {
		if strings.Contains(" "+strings.Split(warmOut, "\n")[3]+" ", host) {
			t.Errorf("warm run's root lists %q: %s", host, warmOut)
		}
	}
	if got, err := os.ReadFile(filepath.Join(ws, "f")); err != nil || string(got) != "ok\n" {
		t.Errorf("workspace file %q %v", got, err)
	}
}

// TestWarmShimIsNeverReused: every run gets a shim of its own — the warm
// shim a run used is gone with its cgroup afterwards, and the next run has
// another pid and another cgroup.
func TestWarmShimIsNeverReused(t *testing.T) {
	l := needCgroups(t)
	be := openTest(t, defaultConfig(t, l))
	b := be.(*cgroupBackend)
	seen := map[string]bool{}
	for i := 0; i < 3; i++ {
		waitWarm(t, be)
		var out bytes.Buffer
		p, err := be.Start(context.Background(), Spec{Path: "/bin/true", Args: []string{"true"}, Stdout: &out, Stderr: &out})
		if err != nil {
			t.Fatal(err)
		}
		cp := p.(*cgProcess)
		if seen[cp.v2] {
			t.Fatalf("cgroup %s used twice", cp.v2)
		}
		seen[cp.v2] = true
		if _, err := p.Wait(); err != nil {
			t.Fatal(err)
		}
		if fileExists(cp.v2) {
			t.Errorf("cgroup %s left after the run", cp.v2)
		}
		b.mu.Lock()
		for _, w := range b.warm {
			if w.p.v2 == cp.v2 {
				t.Errorf("used shim %s back in the pool", cp.v2)
			}
		}
		b.mu.Unlock()
	}
}

// TestWarmShimFallsBackWhenWorkspaceIsNew: a workspace on a mount made
// after the warm shim copied its mount namespace is not visible to it; the
// run still succeeds, on a fresh shim, and writes its workspace.
func TestWarmShimFallsBackWhenWorkspaceIsNew(t *testing.T) {
	l := needCgroups(t)
	b := openTest(t, defaultConfig(t, l))
	warmPid := waitWarm(t, b)
	mnt := t.TempDir()
	if err := unix.Mount("tmpfs", mnt, "tmpfs", 0, "size=1m,mode=0755"); err != nil {
		t.Fatalf("mount: %v", err)
	}
	t.Cleanup(func() { _ = unix.Unmount(mnt, unix.MNT_DETACH) })
	ws := filepath.Join(mnt, "ws")
	if err := os.Mkdir(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(ws, nobodyID, nobodyID); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	p, err := b.Start(context.Background(), Spec{Path: "sh", Args: []string{"sh", "-c", "echo new > f; cat f"},
		Env: []string{"PATH=/usr/bin:/bin"}, Workspace: ws, Dir: ws, Stdout: &out, Stderr: &out})
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	if p.Pid() == warmPid {
		t.Errorf("the run kept the warm shim %d", warmPid)
	}
	if ex, err := p.Wait(); err != nil || ex.Code != 0 || out.String() != "new\n" {
		t.Fatalf("exit %+v err %v out %q", ex, err, out.String())
	}
	// The stale shim is discarded in the background.
	for deadline := time.Now().Add(15 * time.Second); alive(warmPid); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the stale warm shim %d is still alive", warmPid)
		}
	}
}

// TestCloseRemovesWarmShims: closing the backend kills the warm shims and
// removes their cgroups.
func TestCloseRemovesWarmShims(t *testing.T) {
	l := needCgroups(t)
	be, err := Open(context.Background(), defaultConfig(t, l))
	if err != nil {
		t.Fatal(err)
	}
	b := be.(*cgroupBackend)
	waitWarm(t, be)
	b.mu.Lock()
	var pids []int
	var dirs []string
	for _, w := range b.warm {
		pids = append(pids, w.p.cmd.Process.Pid)
		dirs = append(dirs, w.p.v2)
		dirs = append(dirs, w.p.v1...)
	}
	b.mu.Unlock()
	if err := be.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	for _, pid := range pids {
		if alive(pid) {
			t.Errorf("warm shim %d alive after Close", pid)
		}
	}
	for _, d := range dirs {
		if fileExists(d) {
			t.Errorf("cgroup %s left after Close", d)
		}
	}
}
