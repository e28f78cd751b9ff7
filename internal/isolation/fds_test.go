//go:build linux

package isolation

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// TestRunInheritsNoDescriptors: a run starts with stdin, stdout and stderr
// and nothing else. A descriptor the daemon holds without close-on-exec
// (one its launcher passed down, such as a socket-activation listener or a
// pipe of a process manager) and the shim's own config pipe never reach
// the workload, where it could read, write or connect through them from
// outside every namespace.
func TestRunInheritsNoDescriptors(t *testing.T) {
	l := needCgroups(t)
	strong := openTest(t, defaultConfig(t, l))
	pgcfg := defaultConfig(t, l)
	pgcfg.Mode = ModeProcessGroup
	pg := openTest(t, pgcfg)

	// A host file the daemon holds open without close-on-exec, as a
	// launcher's descriptor would be.
	secret := filepath.Join(t.TempDir(), "daemon-held")
	if err := os.WriteFile(secret, []byte("host secret"), 0o600); err != nil {
		t.Fatal(err)
	}
	fd, err := unix.Open(secret, unix.O_RDONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fd)
	if _, err := unix.FcntlInt(uintptr(fd), unix.F_SETFD, 0); err != nil {
		t.Fatal(err)
	}

	for name, b := range map[string]Backend{strong.Name(): strong, pg.Name(): pg} {
		t.Run(name, func(t *testing.T) {
			ws := workspace(t)
			// The shell waits for ls, which lists the shell's descriptors:
			// for one simple command without redirections, dash opens
			// none of its own, so they are what it inherited.
			out, ex := runOutput(t, b, Spec{Path: "/bin/sh", Args: []string{"sh", "-c", `ls -l /proc/$$/fd/`},
				Workspace: ws, Dir: ws, Hardening: DefaultHardening()})
			t.Logf("exit %+v\n%s", ex, out)
			if ex.Code != 0 {
				t.Fatalf("run failed: %+v\n%s", ex, out)
			}
			checkOnlyStdio(t, out)
		})
	}
}

// checkOnlyStdio reads an `ls -l /proc/PID/fd/` listing and fails the test
// for every descriptor but 0, 1 and 2, and when fewer than those three are
// listed (the listing did not work).
func checkOnlyStdio(t *testing.T, out string) {
	t.Helper()
	seen := 0
	for _, line := range strings.Split(out, "\n") {
		// "lr-x------ 1 65534 65534 64 Dec  2 04:28 3 -> pipe:[1]"
		f := strings.Fields(line)
		if len(f) < 3 || f[len(f)-2] != "->" {
			continue
		}
		seen++
		switch f[len(f)-3] {
		case "0", "1", "2":
		default:
			t.Errorf("run inherited descriptor %s", strings.Join(f[len(f)-3:], " "))
		}
	}
	if seen < 3 {
		t.Errorf("listed %d descriptors, want at least stdin, stdout and stderr:\n%s", seen, out)
	}
}

// TestRunCannotDumpCore: a run's core-file limit is 0, hard, so a crash
// writes no core into the workspace or through a file core_pattern, and the
// workload cannot raise it.
func TestRunCannotDumpCore(t *testing.T) {
	l := needCgroups(t)
	b := openTest(t, defaultConfig(t, l))
	ws := workspace(t)
	out, ex := runOutput(t, b, Spec{Path: "/bin/sh", Args: []string{"sh", "-c", `echo "soft=$(ulimit -c) hard=$(ulimit -Hc)"; ulimit -c 1000 2>/dev/null && echo RAISED; :`},
		Workspace: ws, Dir: ws, Hardening: DefaultHardening()})
	if ex.Code != 0 || strings.TrimSpace(out) != "soft=0 hard=0" {
		t.Errorf("run: %+v %q, want soft=0 hard=0 and no raise", ex, out)
	}
}
