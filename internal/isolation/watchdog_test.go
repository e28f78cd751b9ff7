//go:build linux

package isolation

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestWatchdogEmptiesRunWhenDaemonIsKilled(t *testing.T) {
	for _, mode := range []string{ModeRequired, ModeProcessGroup} {
		t.Run(mode, func(t *testing.T) { testDaemonKilled(t, mode) })
	}
}

// testDaemonKilled runs a "daemon" as a child of the test binary, SIGKILLs
// it mid-run, and requires the run to be killed and its cgroup removed by
// the watchdog (cgroup backends) or the supervisor (process_group).
func testDaemonKilled(t *testing.T, mode string) {
	l := needCgroups(t)
	cfg := testConfig(t, l)
	t.Cleanup(func() {
		os.Remove(cfg.CgroupRoot)
		for _, c := range v1Controllers {
			if m, ok := l.V1Mounts[c]; ok && !l.pureV2() {
				os.Remove(filepath.Join(m, l.V1Self[c], filepath.Base(cfg.CgroupRoot)))
			}
		}
	})
	daemon := exec.Command(os.Args[0])
	daemon.Env = append(os.Environ(), "TW_TEST_HELPER=daemon", "TW_TEST_ROOT="+cfg.CgroupRoot, "TW_TEST_MODE="+mode)
	daemon.Stderr = os.Stderr
	out, err := daemon.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := daemon.Start(); err != nil {
		t.Fatal(err)
	}
	line := readLine(t, bufio.NewReader(out))
	f := strings.Fields(line)
	if len(f) != 3 || f[0] == "error" {
		daemon.Process.Kill()
		t.Fatalf("daemon helper: %q", line)
	}
	runDir := f[0]
	pid, _ := strconv.Atoi(f[1])
	guard, _ := strconv.Atoi(f[2])
	if !alive(pid) || !alive(guard) {
		t.Fatalf("run %d or watchdog/supervisor %d not running before the daemon dies", pid, guard)
	}
	if err := daemon.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = daemon.Wait()
	deadline := time.Now().Add(30 * time.Second)
	for alive(pid) || (runDir != "-" && dirExists(runDir)) || alive(guard) {
		if time.Now().After(deadline) {
			t.Fatalf("30s after daemon SIGKILL: run alive=%v, cgroup present=%v, watchdog alive=%v",
				alive(pid), dirExists(runDir), alive(guard))
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestWatchdogIsRestartedWhenItDies(t *testing.T) {
	l := needCgroups(t)
	b := openTest(t, testConfig(t, l))
	wd := b.(*cgroupBackend).wd
	p, err := b.Start(context.Background(), Spec{Path: "/bin/sleep", Args: []string{"sleep", "1000"}, Hardening: bare})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Kill()
	old := wd.pid()
	if err := syscall.Kill(old, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for wd.pid() == old {
		if time.Now().After(deadline) {
			t.Fatal("watchdog not restarted within 30s")
		}
		time.Sleep(10 * time.Millisecond)
	}
	// The live run was replayed to the new watchdog.
	wd.mu.Lock()
	_, registered := wd.runs[p.(*cgProcess).id]
	wd.mu.Unlock()
	if !registered {
		t.Fatal("live run not registered after restart")
	}
	q, err := b.Start(context.Background(), Spec{Path: "/bin/true", Args: []string{"true"}, Hardening: bare})
	if err != nil {
		t.Fatalf("Start after watchdog restart: %v", err)
	}
	if ex, err := q.Wait(); err != nil || ex.Code != 0 {
		t.Fatalf("run after restart: %+v %v", ex, err)
	}
}

func TestLimitsAreWrittenPerRun(t *testing.T) {
	l := needCgroups(t)
	cfg := testConfig(t, l)
	cfg.Limits = Limits{MaxProcesses: 33, MemoryMaxBytes: 48 << 20, CPUQuotaMicros: 25000}
	b := openTest(t, cfg)
	p, err := b.Start(context.Background(), Spec{Path: "/bin/sleep", Args: []string{"sleep", "1000"}, Hardening: bare,
		Limits: Limits{MaxProcesses: 34}})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Kill()
	cp := p.(*cgProcess)
	read := func(dir, file string) string {
		b, err := os.ReadFile(filepath.Join(dir, file))
		if err != nil {
			t.Fatal(err)
		}
		return strings.TrimSpace(string(b))
	}
	if !cp.b.hybrid {
		if got := read(cp.v2, "pids.max"); got != "34" {
			t.Errorf("pids.max = %s", got)
		}
		if got := read(cp.v2, "memory.max"); got != strconv.Itoa(48<<20) {
			t.Errorf("memory.max = %s", got)
		}
		if got := read(cp.v2, "cpu.max"); got != "25000 100000" {
			t.Errorf("cpu.max = %s", got)
		}
		return
	}
	cpuDir := filepath.Join(cp.b.v1Roots["cpu"], "run-"+cp.id)
	checks := []struct{ dir, file, want string }{
		{cp.v1Pids, "pids.max", "34"}, // the Spec overrides the default
		{cp.v1Mem, "memory.limit_in_bytes", strconv.Itoa(48 << 20)},
		{cpuDir, "cpu.cfs_quota_us", "25000"},
	}
	for _, c := range checks {
		if got := read(c.dir, c.file); got != c.want {
			t.Errorf("%s = %s, want %s", c.file, got, c.want)
		}
	}
	// The workload really sits in those cgroups.
	cg, err := os.ReadFile(fmt.Sprintf("/proc/%d/cgroup", p.Pid()))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(cg), "run-"+cp.id); n != 4 {
		t.Errorf("workload in %d run cgroups, want 4 (v2 + pids, memory, cpu):\n%s", n, cg)
	}
}

func dirExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

func TestPatrolRetriesFailedCleanup(t *testing.T) {
	l := needCgroups(t)
	b := openTest(t, testConfig(t, l)).(*cgroupBackend)
	// A run whose cleanup failed earlier: its cgroup still holds a process.
	dir := filepath.Join(b.root, "run-stuck")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	fd, err := syscall.Open(dir, syscall.O_RDONLY|syscall.O_DIRECTORY, 0)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("sleep", "1000")
	cmd.SysProcAttr = &syscall.SysProcAttr{UseCgroupFD: true, CgroupFD: fd}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	syscall.Close(fd)
	waited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(waited) }()
	b.addPending(&cgProcess{id: "stuck", v2: dir})
	b.retryPending()
	select {
	case <-waited:
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		t.Fatal("patrol did not kill the stuck run")
	}
	if dirExists(dir) {
		t.Error("patrol left the stuck cgroup")
	}
	b.mu.Lock()
	n := len(b.pending)
	b.mu.Unlock()
	if n != 0 {
		t.Errorf("%d runs still pending", n)
	}
}
