//go:build linux

package isolation

import (
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// TestRunHasOwnIPCNamespace: System V IPC objects a run creates live in an
// IPC namespace of its own — not in the host's, where they would outlast
// the run and be open to other conversations' runs and host processes — and
// the run cannot see the host's.
func TestRunHasOwnIPCNamespace(t *testing.T) {
	l := needCgroups(t)
	strong := openTest(t, defaultConfig(t, l))
	pgcfg := defaultConfig(t, l)
	pgcfg.Mode = ModeProcessGroup
	pg := openTest(t, pgcfg)

	// A host segment the run must not see.
	hostKey := 0x7760 + unix.Getpid()%0x100
	hostID, err := unix.SysvShmGet(hostKey, 4096, unix.IPC_CREAT|0o666)
	if err != nil {
		t.Skipf("System V shared memory unavailable: %v", err)
	}
	defer unix.SysvShmCtl(hostID, unix.IPC_RMID, nil)

	for name, b := range map[string]Backend{strong.Name(): strong, pg.Name(): pg} {
		t.Run(name, func(t *testing.T) {
			ws := workspace(t)
			runKey := 0x7700 + unix.Getpid()%0x40
			script := `
import ctypes
libc = ctypes.CDLL(None, use_errno=True)
print("HOST_SEEN" if libc.shmget(` + strconv.Itoa(hostKey) + `, 0, 0) >= 0 else "host absent")
print("CREATED" if libc.shmget(` + strconv.Itoa(runKey) + `, 1 << 20, 0o1000 | 0o666) >= 0 else "create failed")
`
			out, ex := runOutput(t, b, Spec{Path: "/usr/bin/python3", Args: []string{"python3", "-c", script},
				Workspace: ws, Dir: ws, Hardening: DefaultHardening()})
			t.Logf("exit %+v\n%s", ex, out)
			if !strings.Contains(out, "CREATED") || !strings.Contains(out, "host absent") {
				t.Errorf("run output %q, want CREATED and host absent", out)
			}
			if id, err := unix.SysvShmGet(runKey, 0, 0); err == nil {
				unix.SysvShmCtl(id, unix.IPC_RMID, nil)
				t.Errorf("the run's shared memory segment (key %#x) is in the host's IPC namespace after the run", runKey)
			}
		})
	}
}
