//go:build linux

package isolation

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// defaultConfig is testConfig without limits: what a deployment that
// configures none gets (DefaultLimits).
func defaultConfig(t *testing.T, l hostLayout) Config {
	cfg := testConfig(t, l)
	cfg.Limits = Limits{}
	return cfg
}

// TestRunSeesOnlyItsRoot: a run's filesystem is the root built for it.
// Host directories that hold services, users and state are not there (a
// unix socket the test listens on under /run cannot even be named),
// /etc has no secrets, the system is read-only, /tmp and /dev/shm are
// private, and interpreters still work.
func TestRunSeesOnlyItsRoot(t *testing.T) {
	l := needCgroups(t)
	strong := openTest(t, defaultConfig(t, l))
	pgcfg := defaultConfig(t, l)
	pgcfg.Mode = ModeProcessGroup
	pg := openTest(t, pgcfg)
	sockDir, err := os.MkdirTemp("/run", "toolwarden-test-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(sockDir)
	os.Chmod(sockDir, 0o777)
	sock := filepath.Join(sockDir, "db.sock")
	uln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer uln.Close()
	os.Chmod(sock, 0o777)
	hostMarker := "tw-root-test-" + filepath.Base(sockDir)
	for name, b := range map[string]Backend{strong.Name(): strong, pg.Name(): pg} {
		t.Run(name, func(t *testing.T) {
			ws := workspace(t)
			// Another run's workspace next to this one.
			other := workspace(t)
			if err := os.WriteFile(filepath.Join(other, "script.py"), []byte("print(1)"), 0o644); err != nil {
				t.Fatal(err)
			}
			script := fmt.Sprintf(`
for d in /run /var/run /home /root /srv /var/lib /var/tmp /var /sys %[1]s %[5]s %[5]s/script.py; do [ -e "$d" ] && echo "VISIBLE $d"; done
python3 -c '
import socket
u = socket.socket(socket.AF_UNIX)
try:
    u.connect("%[2]s"); print("SOCKET_REACHED")
except FileNotFoundError: print("socket absent")
except OSError as e: print("socket error", e)
'
[ -s /etc/shadow ] && echo READ_SHADOW
head -c 1 /etc/shadow 2>/dev/null | grep -q . && echo READ_SHADOW
for d in / /usr /etc /var/tmp /bin; do touch "$d/tw-write-probe" 2>/dev/null && echo "WROTE $d"; done
echo tmp > /tmp/%[3]s && echo TMP_OK
echo shm > /dev/shm/%[3]s && echo SHM_OK
echo ws > %[4]s/f && echo WS_OK
[ "$(pwd)" = "%[4]s" ] && echo CWD_OK
bash -c 'echo BASH_OK'
python3 -c 'print("PYTHON_OK")'
[ -c /dev/null ] && [ -c /dev/urandom ] && [ -L /dev/fd ] && echo DEV_OK
ls /dev | tr '\n' ' '; echo
[ "$(cat /proc/1/cmdline | tr '\0' ' ')" != "" ] && ls /proc | grep -E '^[0-9]+$' | wc -l | sed 's/^/PROCS /'
`, sockDir, sock, hostMarker, ws, other)
			out, ex := runOutput(t, b, Spec{Path: "/bin/sh", Args: []string{"sh", "-c", script}, Workspace: ws, Dir: ws, Hardening: DefaultHardening(),
				Env: []string{"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=" + ws}})
			t.Logf("exit %+v\n%s", ex, out)
			for _, bad := range []string{"VISIBLE", "SOCKET_REACHED", "socket error", "READ_SHADOW", "WROTE"} {
				if strings.Contains(out, bad) {
					t.Errorf("run output has %s", bad)
				}
			}
			for _, good := range []string{"socket absent", "TMP_OK", "SHM_OK", "WS_OK", "CWD_OK", "BASH_OK", "PYTHON_OK", "DEV_OK"} {
				if !strings.Contains(out, good) {
					t.Errorf("run output lacks %s", good)
				}
			}
			// Its own PID namespace: only the run's few processes.
			procs := -1
			if i := strings.Index(out, "PROCS "); i >= 0 {
				fmt.Sscanf(out[i:], "PROCS %d", &procs)
			}
			if procs < 1 || procs > 10 {
				t.Errorf("run sees %d processes in /proc, want only its own few", procs)
			}
			for _, p := range []string{"/tmp/" + hostMarker, "/dev/shm/" + hostMarker, "/tw-write-probe", "/usr/tw-write-probe", "/etc/tw-write-probe", "/var/tmp/tw-write-probe"} {
				if fileExists(p) {
					os.Remove(p)
					t.Errorf("%s reached the host", p)
				}
			}
		})
	}
}

// TestTmpfsIsCapped: /tmp and /dev/shm hold at most the configured size
// (default 256 MiB each), and nothing is left on the host after the run.
func TestTmpfsIsCapped(t *testing.T) {
	l := needCgroups(t)
	b := openTest(t, defaultConfig(t, l))
	for _, dir := range []string{"/tmp", "/dev/shm"} {
		script := fmt.Sprintf(`dd if=/dev/zero of=%s/fill bs=1M count=300 2>/dev/null; echo "rc=$?"; du -m %s/fill | cut -f1`, dir, dir)
		out, _ := runOutput(t, b, Spec{Path: "/bin/sh", Args: []string{"sh", "-c", script}, Hardening: DefaultHardening()})
		t.Logf("%s: %q", dir, out)
		if strings.Contains(out, "rc=0") {
			t.Errorf("writing 300 MiB to %s succeeded (cap is 256 MiB): %q", dir, out)
		}
		if fileExists(dir + "/fill") {
			t.Errorf("%s/fill was left on the host", dir)
		}
	}
}

// TestDefaultLimitsStopBombs: under a configuration that sets no limits,
// a fork storm is capped by the default pids limit and a 3 GiB
// allocation is killed by the default 2 GiB memory limit.
func TestDefaultLimitsStopBombs(t *testing.T) {
	l := needCgroups(t)
	b := openTest(t, defaultConfig(t, l))
	fork := `
import os, time
n = 0
for i in range(600):
    try:
        if os.fork() == 0:
            time.sleep(60); os._exit(0)
        n += 1
    except OSError:
        break
print("forked", n)
`
	out, ex := runOutput(t, b, Spec{Path: "/usr/bin/python3", Args: []string{"python3", "-c", fork}, Hardening: DefaultHardening()})
	t.Logf("fork: exit %+v %q", ex, out)
	var n int
	if _, err := fmt.Sscanf(strings.TrimSpace(out), "forked %d", &n); err != nil || n >= 256 {
		t.Errorf("fork storm made %d processes (%q), want fewer than the default 256", n, out)
	}
	if !ex.PidsLimited {
		t.Errorf("Exit.PidsLimited not set: %+v", ex)
	}
	mem := `b = b"x" * (3 << 30); print("ALLOCATED", len(b))`
	out, ex = runOutput(t, b, Spec{Path: "/usr/bin/python3", Args: []string{"python3", "-c", mem}, Hardening: DefaultHardening()})
	t.Logf("memory: exit %+v %q", ex, out)
	if strings.Contains(out, "ALLOCATED") || ex.Code == 0 {
		t.Errorf("a 3 GiB allocation succeeded under the default limit: %+v %q", ex, out)
	}
}

// TestWorkdirOutsideWorkspaceRefused: a working directory outside the
// workspace (or a workspace of "/") never starts.
func TestWorkdirOutsideWorkspaceRefused(t *testing.T) {
	for name, b := range backends(t) {
		t.Run(name, func(t *testing.T) {
			ws := workspace(t)
			for _, sp := range []Spec{
				{Workspace: ws, Dir: "/"},
				{Workspace: ws, Dir: "/tmp"},
				{Workspace: ws, Dir: ws + "/../"},
				{Workspace: ws, Dir: ws + "-other"},
				{Workspace: ws, Dir: "relative"},
				{Workspace: "/", Dir: "/"},
				{Dir: "/var/tmp"},
			} {
				sp.Path, sp.Args = "/bin/true", []string{"true"}
				if p, err := b.Start(context.Background(), sp); err == nil {
					p.Wait()
					t.Errorf("Start with workspace %q dir %q: no error", sp.Workspace, sp.Dir)
				}
			}
		})
	}
}

// TestCheckSpec: the in-depth check of workspace and working directory
// (no root needed).
func TestCheckSpec(t *testing.T) {
	ok := []Spec{{}, {Dir: "/"}, {Workspace: "/w/a"}, {Workspace: "/w/a", Dir: "/w/a"}, {Workspace: "/w/a", Dir: "/w/a/b/../c"}, {Workspace: "/w/a/", Dir: "/w/a/x"}}
	bad := []Spec{{Workspace: "/"}, {Workspace: "w/a"}, {Workspace: "/w/a", Dir: "/w/ab"}, {Workspace: "/w/a", Dir: "/w/a/../b"},
		{Workspace: "/w/a", Dir: "/"}, {Workspace: "/w/a", Dir: "x"}, {Dir: "/tmp"}}
	for _, s := range ok {
		if err := checkSpec(s); err != nil {
			t.Errorf("checkSpec(%q, %q) = %v, want ok", s.Workspace, s.Dir, err)
		}
	}
	for _, s := range bad {
		if err := checkSpec(s); err == nil {
			t.Errorf("checkSpec(%q, %q) accepted", s.Workspace, s.Dir)
		}
	}
}
