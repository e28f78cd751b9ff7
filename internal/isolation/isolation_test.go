//go:build linux

package isolation

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// bare is hardening with every optional layer off: only the uid switch,
// which is never optional. Tests that exercise the cgroup or process-group
// machinery itself use it so that seccomp does not already stop setsid.
var bare = Hardening{UID: nobodyID, GID: nobodyID}

// workspace makes a run workspace owned by the run uid under /tmp (so the
// private-/tmp bind path is exercised too).
func workspace(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "tw-ws-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chown(dir, nobodyID, nobodyID); err != nil {
		t.Fatal(err)
	}
	return dir
}

// backends returns the strong backend and the process_group backend, so
// lifecycle tests run against both.
func backends(t *testing.T) map[string]Backend {
	l := needCgroups(t)
	strong := openTest(t, testConfig(t, l))
	pgcfg := testConfig(t, l)
	pgcfg.Mode = ModeProcessGroup
	pg := openTest(t, pgcfg)
	return map[string]Backend{strong.Name(): strong, pg.Name(): pg}
}

func atoiOr0(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}

// alive reports whether pid exists and is not a zombie.
func alive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i >= 0 && !strings.HasPrefix(strings.TrimSpace(s[i+1:]), "Z")
}

// waitFile polls for a file with an integer (a pid) in it.
func waitPidFile(t *testing.T, path string) int {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if b, err := os.ReadFile(path); err == nil {
			if n, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && n > 0 {
				return n
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("no pid in %s after 30s", path)
	return 0
}

// doubleForkScript leaves a setsid'd, double-forked sleeper behind and
// records its pid (as seen in the run's PID namespace) in the workspace.
// The sleeper's argv carries a duration unique to ws, so the test finds
// its host pid (sleeperPid).
func doubleForkScript(ws string) string {
	return fmt.Sprintf(`(setsid sh -c 'sleep %s & echo $! > %s/pid.tmp; mv %s/pid.tmp %s/pid; wait' &) ; sleep 1000`, sleepToken(ws), ws, ws, ws)
}

// sleepToken is a sleep duration unique to ws ("1000.<digits>").
func sleepToken(ws string) string {
	var n uint32
	for _, c := range ws {
		n = n*31 + uint32(c)
	}
	return fmt.Sprintf("1000.%d", n)
}

// sleeperPid waits for the run to record its sleeper and returns the
// sleeper's host pid, found by its unique argv.
func sleeperPid(t *testing.T, ws string) int {
	t.Helper()
	waitPidFile(t, filepath.Join(ws, "pid"))
	want := "sleep\x00" + sleepToken(ws) + "\x00"
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		ents, _ := os.ReadDir("/proc")
		for _, e := range ents {
			pid, err := strconv.Atoi(e.Name())
			if err != nil {
				continue
			}
			if b, err := os.ReadFile("/proc/" + e.Name() + "/cmdline"); err == nil && string(b) == want {
				return pid
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("no host process runs sleep %s", sleepToken(ws))
	return 0
}

func TestKillReachesSetsidDoubleFork(t *testing.T) {
	for name, b := range backends(t) {
		t.Run(name, func(t *testing.T) {
			ws := workspace(t)
			p, err := b.Start(context.Background(), Spec{
				Path: "/bin/sh", Args: []string{"sh", "-c", doubleForkScript(ws)},
				Workspace: ws, Hardening: bare,
			})
			if err != nil {
				t.Fatal(err)
			}
			pid := sleeperPid(t, ws)
			if !alive(pid) {
				t.Fatalf("escaped sleeper %d not running before Kill", pid)
			}
			if err := p.Kill(); err != nil {
				t.Fatalf("Kill: %v", err)
			}
			ex, err := p.Wait()
			if err != nil {
				t.Fatalf("Wait: %v", err)
			}
			if alive(pid) {
				t.Fatalf("setsid'd grandchild %d survived Kill", pid)
			}
			if ex.Signal == "" && ex.Code == 0 {
				t.Errorf("killed run reported a clean exit: %+v", ex)
			}
			if c := p.Cleanup(); c != "" {
				t.Errorf("Cleanup = %q", c)
			}
		})
	}
}

func TestWaitKillsLeftoversWhenMainExits(t *testing.T) {
	for name, b := range backends(t) {
		t.Run(name, func(t *testing.T) {
			ws := workspace(t)
			script := fmt.Sprintf(`(setsid sh -c 'sleep %s & echo $! > %s/pid.tmp; mv %s/pid.tmp %s/pid' &); while [ ! -s %s/pid ]; do sleep 0.01; done; sleep 0.2; exit 7`, sleepToken(ws), ws, ws, ws, ws)
			p, err := b.Start(context.Background(), Spec{Path: "/bin/sh", Args: []string{"sh", "-c", script}, Workspace: ws, Hardening: bare})
			if err != nil {
				t.Fatal(err)
			}
			ex, err := p.Wait()
			if err != nil {
				t.Fatalf("Wait: %v", err)
			}
			if ex.Code != 7 {
				t.Errorf("exit = %+v, want code 7", ex)
			}
			waitPidFile(t, filepath.Join(ws, "pid"))
			// The leftover's host pid cannot be found after the fact:
			// look for any process still running its unique argv.
			want := "sleep\x00" + sleepToken(ws) + "\x00"
			ents, _ := os.ReadDir("/proc")
			for _, e := range ents {
				if b, err := os.ReadFile("/proc/" + e.Name() + "/cmdline"); err == nil && string(b) == want && alive(atoiOr0(e.Name())) {
					t.Fatalf("leftover %s still running after Wait", e.Name())
				}
			}
		})
	}
}

func TestCancelKillsTree(t *testing.T) {
	for name, b := range backends(t) {
		t.Run(name, func(t *testing.T) {
			ws := workspace(t)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			p, err := b.Start(ctx, Spec{Path: "/bin/sh", Args: []string{"sh", "-c", doubleForkScript(ws)}, Workspace: ws, Hardening: bare})
			if err != nil {
				t.Fatal(err)
			}
			pid := sleeperPid(t, ws)
			cancel()
			done := make(chan struct{})
			go func() { _, _ = p.Wait(); close(done) }()
			select {
			case <-done:
			case <-time.After(60 * time.Second): // generous: only a hang fails
				t.Fatal("Wait did not return within 60s of cancel")
			}
			if alive(pid) {
				t.Fatalf("grandchild %d survived cancel", pid)
			}
		})
	}
}

func TestForkStormIsCappedByPids(t *testing.T) {
	l := needCgroups(t)
	cfg := testConfig(t, l)
	cfg.Limits.MaxProcesses = 16
	b := openTest(t, cfg)
	storm := `(i=0; while [ $i -lt 500 ]; do sleep 1000 & i=$((i+1)); done; wait) & exec sleep 1000`
	p, err := b.Start(context.Background(), Spec{Path: "/bin/sh", Args: []string{"sh", "-c", storm}, Hardening: bare})
	if err != nil {
		t.Fatal(err)
	}
	cp := p.(*cgProcess)
	pidsDir := cp.v1Pids
	if pidsDir == "" {
		pidsDir = cp.v2
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		n, err := readKeyed(filepath.Join(pidsDir, "pids.events"), "max")
		if err == nil && n > 0 {
			break
		}
		if time.Now().After(deadline) {
			ev, _ := os.ReadFile(filepath.Join(pidsDir, "pids.events"))
			cur, _ := os.ReadFile(filepath.Join(pidsDir, "pids.current"))
			mx, _ := os.ReadFile(filepath.Join(pidsDir, "pids.max"))
			t.Fatalf("the storm never hit pids.max within 30s: events %q current %q max %q", ev, cur, mx)
		}
		time.Sleep(10 * time.Millisecond)
	}
	cur, err := os.ReadFile(filepath.Join(pidsDir, "pids.current"))
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := strconv.Atoi(strings.TrimSpace(string(cur))); n > 16 {
		t.Fatalf("pids.current = %d above the cap 16", n)
	}
	// The host still forks fine while the run is pinned at its cap.
	if err := exec.Command("/bin/true").Run(); err != nil {
		t.Fatalf("host cannot fork during the storm: %v", err)
	}
	if err := p.Kill(); err != nil {
		t.Fatal(err)
	}
	ex, _ := p.Wait()
	if !ex.PidsLimited {
		t.Errorf("Exit.PidsLimited = false after hitting the cap: %+v", ex)
	}
}

func TestMemoryHogIsOOMKilled(t *testing.T) {
	l := needCgroups(t)
	cfg := testConfig(t, l)
	cfg.Limits.MemoryMaxBytes = 32 << 20
	b := openTest(t, cfg)
	// tail buffers an endless line: memory grows until the limit.
	p, err := b.Start(context.Background(), Spec{Path: "/usr/bin/tail", Args: []string{"tail", "/dev/zero"}, Hardening: bare})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	var ex Exit
	go func() { ex, err = p.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(120 * time.Second):
		_ = p.Kill()
		t.Fatal("memory hog not stopped within 120s")
	}
	if err != nil {
		t.Fatalf("Wait: %v", err)
	}
	if !ex.OOMKilled {
		t.Fatalf("Exit = %+v, want OOMKilled", ex)
	}
	if ex.Signal != "SIGKILL" {
		t.Errorf("Signal = %q, want SIGKILL", ex.Signal)
	}
}

func TestLandlockConfinesFilesystem(t *testing.T) {
	l := needCgroups(t)
	if landlockABI() < 1 {
		t.Skip("Landlock not supported by this kernel")
	}
	b := openTest(t, testConfig(t, l))
	ws := workspace(t)
	// A home directory readable by everyone (so only Landlock can stop
	// it) and a world-writable directory outside the workspace.
	home, err := os.MkdirTemp("/home", "tw-landlock-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(home)
	os.Chmod(home, 0o755)
	if err := os.WriteFile(filepath.Join(home, "secret"), []byte("s3cr3t"), 0o644); err != nil {
		t.Fatal(err)
	}
	outside, err := os.MkdirTemp("/var/tmp", "tw-landlock-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(outside)
	os.Chmod(outside, 0o777)
	script := fmt.Sprintf(`
cat %[1]s/secret >/dev/null 2>&1 && echo READ_HOME
cat /root/.bashrc >/dev/null 2>&1 && echo READ_ROOT
echo x > %[2]s/f 2>/dev/null && echo WROTE_OUTSIDE
echo x > %[3]s/f && echo WROTE_WS
cat /etc/hostname >/dev/null && echo READ_SYSTEM
`, home, outside, ws)
	run := func(h Hardening) (string, []string) {
		var out bytes.Buffer
		p, err := b.Start(context.Background(), Spec{Path: "/bin/sh", Args: []string{"sh", "-c", script}, Workspace: ws, Hardening: h, Stdout: &out})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := p.Wait(); err != nil {
			t.Fatal(err)
		}
		return out.String(), p.Layers()
	}
	// Without Landlock, DAC alone would allow the home read and the
	// outside write; the run's own root already hides both directories.
	out, _ := run(bare)
	if strings.Contains(out, "READ_HOME") || strings.Contains(out, "WROTE_OUTSIDE") || !strings.Contains(out, "WROTE_WS") {
		t.Fatalf("run without Landlock: %q (want no home read, no outside write, workspace writable)", out)
	}
	h := bare
	h.Landlock = true
	out, layers := run(h)
	if !contains(layers, "landlock") {
		t.Fatalf("landlock layer not applied: %v", layers)
	}
	for _, bad := range []string{"READ_HOME", "READ_ROOT", "WROTE_OUTSIDE"} {
		if strings.Contains(out, bad) {
			t.Errorf("Landlock run did %s: %q", bad, out)
		}
	}
	for _, good := range []string{"WROTE_WS", "READ_SYSTEM"} {
		if !strings.Contains(out, good) {
			t.Errorf("Landlock run could not %s: %q", good, out)
		}
	}
}

func TestUnprivilegedRunCannotLeaveCgroup(t *testing.T) {
	l := needCgroups(t)
	b := openTest(t, testConfig(t, l))
	// The workload tries the escape a root workload could do: move itself
	// to the root cgroup.
	script := fmt.Sprintf(`echo $$ > %s/cgroup.procs && echo MOVED; id -u; cat /proc/self/cgroup`, l.V2Mount)
	var out, stderr bytes.Buffer
	p, err := b.Start(context.Background(), Spec{Path: "/bin/sh", Args: []string{"sh", "-c", script}, Hardening: bare, Stdout: &out, Stderr: &stderr})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Wait(); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out.String(), "MOVED") {
		t.Fatalf("workload moved itself out of its cgroup: %q", out.String())
	}
	if !strings.Contains(out.String(), strconv.Itoa(nobodyID)+"\n") {
		t.Errorf("workload not running as %d: %q", nobodyID, out.String())
	}
	if !strings.Contains(out.String(), "0::/"+strings.TrimPrefix(filepath.Join(l.V2Self, filepath.Base(p.(*cgProcess).b.root)), "/")) {
		t.Errorf("workload not in its run cgroup: %q", out.String())
	}
	if !contains(p.Layers(), "uid") {
		t.Errorf("layers %v lack uid", p.Layers())
	}
}

func TestSeccompDeniesEscapes(t *testing.T) {
	l := needCgroups(t)
	b := openTest(t, testConfig(t, l))
	script := `setsid true && echo SETSID; unshare -n true 2>/dev/null && echo UNSHARE; echo done`
	run := func(h Hardening) string {
		var out bytes.Buffer
		p, err := b.Start(context.Background(), Spec{Path: "/bin/sh", Args: []string{"sh", "-c", script}, Hardening: h, Stdout: &out, Stderr: &out})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := p.Wait(); err != nil {
			t.Fatal(err)
		}
		return out.String()
	}
	if out := run(bare); !strings.Contains(out, "SETSID") {
		t.Fatalf("control run could not setsid: %q", out)
	}
	h := bare
	h.Seccomp = true
	out := run(h)
	if strings.Contains(out, "SETSID") || strings.Contains(out, "UNSHARE") {
		t.Fatalf("seccomp let an escape through: %q", out)
	}
	if !strings.Contains(out, "done") {
		t.Fatalf("seccomp broke the ordinary shell: %q", out)
	}
}

func TestDefaultHardeningLayers(t *testing.T) {
	for name, b := range backends(t) {
		t.Run(name, func(t *testing.T) {
			ws := workspace(t)
			var out bytes.Buffer
			p, err := b.Start(context.Background(), Spec{
				Path: "sh", Args: []string{"sh", "-c", "pwd; echo ok > f; cat f; ls /tmp | wc -l; echo $$"},
				Env: []string{"PATH=/usr/bin:/bin"}, Workspace: ws, Stdout: &out, Stderr: &out,
			})
			if err != nil {
				t.Fatalf("%v (output %q)", err, out.String())
			}
			ex, err := p.Wait()
			if err != nil || ex.Code != 0 {
				t.Fatalf("exit %+v err %v out %q", ex, err, out.String())
			}
			want := []string{"uid", "pidns", "private-tmp", "rlimits", "seccomp"}
			if landlockABI() > 0 {
				want = append(want, "landlock")
			}
			for _, w := range want {
				if !contains(p.Layers(), w) {
					t.Errorf("layers %v lack %s", p.Layers(), w)
				}
			}
			lines := strings.Fields(out.String())
			// cwd is the workspace, it is writable, /tmp is empty (bind
			// mount point of the workspace aside) and the shell is pid 1.
			if len(lines) != 4 || lines[0] != ws || lines[1] != "ok" || lines[2] != "1" || lines[3] != "1" {
				t.Errorf("unexpected output %q", out.String())
			}
		})
	}
}

func TestStartFailsClosed(t *testing.T) {
	l := needCgroups(t)
	b := openTest(t, testConfig(t, l))
	_, err := b.Start(context.Background(), Spec{Path: "/nonexistent/tool", Args: []string{"tool"}})
	if err == nil {
		t.Fatal("Start of a missing binary succeeded")
	}
	if !strings.Contains(err.Error(), "/nonexistent/tool") {
		t.Errorf("error does not name the binary: %v", err)
	}
	warm := warmDirs(b.(*cgroupBackend))
	ents, _ := os.ReadDir(b.(*cgroupBackend).root)
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), "run-") && !warm[e.Name()] {
			t.Errorf("failed start left cgroup %s", e.Name())
		}
	}
}

// warmDirs waits until b's pool is not being filled and returns the names
// of the warm shims' run cgroups (runs prepared ahead, not leftovers).
func warmDirs(b *cgroupBackend) map[string]bool {
	b.fillWG.Wait()
	b.mu.Lock()
	defer b.mu.Unlock()
	out := map[string]bool{}
	for _, w := range b.warm {
		out[filepath.Base(w.p.v2)] = true
	}
	return out
}

func TestOpenReapsLeftovers(t *testing.T) {
	l := needCgroups(t)
	cfg := testConfig(t, l)
	if err := os.MkdirAll(cfg.CgroupRoot, 0o755); err != nil {
		t.Fatal(err)
	}
	// A leftover run with a live process, as a crashed daemon leaves it.
	left := filepath.Join(cfg.CgroupRoot, "run-leftover")
	if err := os.Mkdir(left, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("sleep", "1000")
	fd, err := syscall.Open(left, syscall.O_RDONLY|syscall.O_DIRECTORY, 0)
	if err != nil {
		t.Fatal(err)
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{UseCgroupFD: true, CgroupFD: fd}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	syscall.Close(fd)
	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }()
	openTest(t, cfg)
	select {
	case <-waited:
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		t.Fatal("Open did not kill the leftover run")
	}
	if _, err := os.Stat(left); !os.IsNotExist(err) {
		t.Errorf("leftover cgroup %s still exists: %v", left, err)
	}
}

func TestRequiredRefusesWithoutCgroups(t *testing.T) {
	needRoot(t)
	// Simulate a host without any cgroup2 mount.
	detect = func() (hostLayout, error) { return hostLayout{}, nil }
	defer func() { detect = detectLayout }()
	_, err := Open(context.Background(), Config{Mode: ModeRequired})
	if err == nil {
		t.Fatal("required mode opened without cgroup2")
	}
	if !strings.Contains(err.Error(), "required") || !strings.Contains(err.Error(), "no cgroup2") {
		t.Errorf("error does not say why: %v", err)
	}
	b, err := Open(context.Background(), Config{Mode: ModeAuto})
	if err != nil {
		t.Fatalf("auto mode: %v", err)
	}
	defer b.Close()
	if b.Name() != ModeProcessGroup {
		t.Fatalf("auto fell back to %s", b.Name())
	}
	if r := b.(Reasoner).Reasons(); len(r) == 0 || !strings.Contains(r[0], "no cgroup2") {
		t.Errorf("fallback reasons not recorded: %v", r)
	}
}

func TestBadCgroupRootIsAnErrorInEveryMode(t *testing.T) {
	l := needCgroups(t)
	cfg := testConfig(t, l)
	openTest(t, cfg) // holds the exclusive root
	for _, mode := range []string{ModeAuto, ModeRequired} {
		_, err := Open(context.Background(), Config{Mode: mode, CgroupRoot: l.V2Mount})
		if err == nil || !strings.Contains(err.Error(), "cgroup_root") {
			t.Errorf("%s: the host hierarchy root was accepted as cgroup_root: %v", mode, err)
		}
		_, err = Open(context.Background(), Config{Mode: mode, CgroupRoot: cfg.CgroupRoot})
		if err == nil || !strings.Contains(err.Error(), "in use") {
			t.Errorf("%s: a root held by another backend was accepted: %v", mode, err)
		}
		if err != nil && !strings.Contains(err.Error(), "security.process_isolation.cgroup_root") {
			t.Errorf("%s: the lock error does not name the setting to change: %v", mode, err)
		}
	}
	// check-isolation tells the truth: the held root is reported in use.
	rep, err := Check(context.Background(), Config{Mode: ModeAuto, CgroupRoot: cfg.CgroupRoot})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.CgroupRootInUse || !slices.ContainsFunc(rep.Reasons, func(r string) bool { return strings.Contains(r, "in use") }) {
		t.Errorf("check of a held root: in_use=%v reasons %v", rep.CgroupRootInUse, rep.Reasons)
	}
}

// TestInstanceRoot: "auto" derives one root per data dir: stable for one
// dir (relative or absolute), distinct for two, and a valid auto:NAME.
func TestInstanceRoot(t *testing.T) {
	dir := t.TempDir()
	a, b := InstanceRoot(filepath.Join(dir, "a")), InstanceRoot(filepath.Join(dir, "b"))
	if a == b {
		t.Fatalf("two data dirs share root %s", a)
	}
	if a != InstanceRoot(filepath.Join(dir, "a", ".")) {
		t.Errorf("one data dir, two roots")
	}
	t.Chdir(dir)
	if InstanceRoot("a") != a {
		t.Errorf("relative data dir resolves to another root")
	}
	if !validAutoName(a) {
		t.Errorf("%s is not a valid auto:NAME", a)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// readLine reads one line with a bound.
func readLine(t *testing.T, r *bufio.Reader) string {
	t.Helper()
	ch := make(chan string, 1)
	go func() { s, _ := r.ReadString('\n'); ch <- strings.TrimSpace(s) }()
	select {
	case s := <-ch:
		return s
	case <-time.After(60 * time.Second):
		t.Fatal("no line from helper within 60s")
		return ""
	}
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

func TestCheckReportsBackendAndLayers(t *testing.T) {
	l := needCgroups(t)
	cfg := testConfig(t, l)
	rep, err := Check(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Checked || !rep.RequiredMet || rep.Backend == "" || rep.Backend == ModeProcessGroup {
		t.Fatalf("report %+v", rep)
	}
	if !contains(rep.Layers, "cgroup2") || !contains(rep.Layers, "uid") {
		t.Errorf("layers %v", rep.Layers)
	}
	if rep.CgroupRoot != cfg.CgroupRoot || dirExists(cfg.CgroupRoot+".check") {
		t.Errorf("check root %q; probe root left behind: %v", rep.CgroupRoot, dirExists(cfg.CgroupRoot+".check"))
	}
	detect = func() (hostLayout, error) { return hostLayout{}, nil }
	defer func() { detect = detectLayout }()
	rep, err = Check(context.Background(), Config{Mode: ModeRequired})
	if err != nil {
		t.Fatal(err)
	}
	if rep.RequiredMet || len(rep.Reasons) == 0 {
		t.Errorf("required without cgroups: %+v", rep)
	}
	if _, err := Check(context.Background(), Config{Mode: "sometimes"}); err == nil {
		t.Error("invalid mode accepted")
	}
}
