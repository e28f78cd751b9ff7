//go:build linux

package isolation

import (
	"bytes"
	"context"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The lite backend is the one of macOS and the BSDs; its logic is plain
// POSIX (process groups, rlimits, pipes), so it is tested here on Linux
// with real processes.

func openLiteTest(t *testing.T) *liteBackend {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	b, err := openLite(context.Background(), Config{Mode: ModeProcessGroup, AllowSharedHost: true, WatchdogPath: self, Limits: DefaultLimits()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	return b
}

func TestLiteRefusesWithoutAllowSharedHost(t *testing.T) {
	for _, mode := range []string{ModeAuto, ModeProcessGroup, ModeRequired} {
		_, err := openLite(context.Background(), Config{Mode: mode})
		if err == nil {
			t.Fatalf("mode %s: opened without allow_shared_host", mode)
		}
		want := "allow_shared_host"
		if mode == ModeRequired {
			want = "required"
		}
		if !strings.Contains(err.Error(), want) {
			t.Errorf("mode %s: %v, want it to name %s", mode, err, want)
		}
	}
}

func TestLiteRunsAndReportsExit(t *testing.T) {
	needRoot(t)
	b := openLiteTest(t)
	var out bytes.Buffer
	p, err := b.Start(context.Background(), Spec{Path: "/bin/sh", Args: []string{"sh", "-c", "id -u; echo hi; exit 3"}, Env: []string{"PATH=/usr/bin:/bin"}, Stdout: &out})
	if err != nil {
		t.Fatal(err)
	}
	ex, err := p.Wait()
	if err != nil {
		t.Fatal(err)
	}
	if ex.Code != 3 || out.String() != "65534\nhi\n" {
		t.Fatalf("exit %+v output %q, want code 3 and uid 65534 then hi", ex, out.String())
	}
	if c := p.Cleanup(); c != "" {
		t.Errorf("cleanup %q", c)
	}
	if !contains(p.Layers(), "uid") || !contains(p.Layers(), "process_group") {
		t.Errorf("layers %v", p.Layers())
	}
}

func TestLiteKillsLeftoversAndTree(t *testing.T) {
	needRoot(t)
	b := openLiteTest(t)
	ws := workspace(t)
	// The main process exits and leaves a sleeper behind: the run ends
	// with it.
	p, err := b.Start(context.Background(), Spec{Path: "/bin/sh", Args: []string{"sh", "-c", "sleep 1000 & echo $! > " + ws + "/pid"}, Dir: ws, Workspace: ws})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Wait(); err != nil {
		t.Fatal(err)
	}
	pid := waitPidFile(t, filepath.Join(ws, "pid"))
	if alive(pid) {
		t.Fatalf("leftover sleeper %d alive after the run ended", pid)
	}
	// Kill ends a running tree.
	p, err = b.Start(context.Background(), Spec{Path: "/bin/sh", Args: []string{"sh", "-c", "sleep 1000 & sleep 1000"}})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { p.Wait(); close(done) }()
	if err := p.Kill(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("Wait did not return after Kill")
	}
	if !groupEmpty(p.Pid()) {
		t.Fatal("process group not empty after Kill")
	}
}

// TestLiteWatchdogKillsWhenDaemonGoes: the watchdog's pipe reaching EOF
// (the daemon died) kills every registered group.
func TestLiteWatchdogKillsWhenDaemonGoes(t *testing.T) {
	needRoot(t)
	b := openLiteTest(t)
	p, err := b.Start(context.Background(), Spec{Path: "/bin/sleep", Args: []string{"sleep", "1000"}})
	if err != nil {
		t.Fatal(err)
	}
	b.wd.mu.Lock()
	b.wd.in.Close() // as if the daemon died: no "del", just EOF
	b.wd.in = nil
	b.wd.mu.Unlock()
	done := make(chan struct{})
	go func() { p.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("run survived its watchdog's EOF")
	}
	if ex, _ := p.Wait(); ex.Signal != "SIGKILL" {
		t.Errorf("exit %+v, want SIGKILL from the watchdog", ex)
	}
}

// TestLiteShimWaitsForRegistration: a shim whose gate closes without the
// go-ahead (the daemon died before registering it) runs nothing.
func TestLiteShimWaitsForRegistration(t *testing.T) {
	needRoot(t)
	b := openLiteTest(t)
	ws := workspace(t)
	marker := filepath.Join(ws, "ran")
	// Break the watchdog so registration fails: Start must refuse and the
	// workload must never run.
	b.wd.mu.Lock()
	b.wd.in.Close()
	b.wd.in = nil
	b.wd.mu.Unlock()
	_, err := b.Start(context.Background(), Spec{Path: "/bin/touch", Args: []string{"touch", marker}, Dir: ws, Workspace: ws})
	if err == nil || !strings.Contains(err.Error(), "watchdog") {
		t.Fatalf("start with a dead watchdog = %v, want a refusal naming the watchdog", err)
	}
	time.Sleep(200 * time.Millisecond)
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("workload ran although it was never registered")
	}
}

func TestLiteRefusesEgressAndOutsideCwd(t *testing.T) {
	needRoot(t)
	b := openLiteTest(t)
	ws := workspace(t)
	if _, err := b.Start(context.Background(), Spec{Path: "/bin/true", Dir: "/", Workspace: ws}); err == nil {
		t.Error("cwd / outside the workspace accepted")
	}
	if _, err := b.Start(context.Background(), Spec{Path: "/bin/true", EgressProxy: func(net.Listener) error { return nil }}); err == nil {
		t.Error("egress proxy accepted without a network namespace")
	}
}

// TestLiteRunInheritsNoDescriptors: the lite backend's workload starts with
// stdin, stdout and stderr only, as the strong backends' do — a host file
// the daemon holds without close-on-exec (a launcher's descriptor) never
// reaches it, nor the shim's gate and config pipes.
func TestLiteRunInheritsNoDescriptors(t *testing.T) {
	needRoot(t)
	b := openLiteTest(t)
	secret := filepath.Join(t.TempDir(), "daemon-held")
	if err := os.WriteFile(secret, []byte("host secret"), 0o600); err != nil {
		t.Fatal(err)
	}
	fd, err := syscall.Open(secret, syscall.O_RDONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Close(fd)
	if _, _, e := syscall.Syscall(syscall.SYS_FCNTL, uintptr(fd), syscall.F_SETFD, 0); e != 0 {
		t.Fatal(e)
	}
	var out bytes.Buffer
	p, err := b.Start(context.Background(), Spec{Path: "/bin/sh", Args: []string{"sh", "-c", `ls -l /proc/$$/fd/`},
		Env: []string{"PATH=/usr/bin:/bin"}, Stdout: &out})
	if err != nil {
		t.Fatal(err)
	}
	if ex, err := p.Wait(); err != nil || ex.Code != 0 {
		t.Fatalf("exit %+v %v\n%s", ex, err, out.String())
	}
	checkOnlyStdio(t, out.String())
}
