//go:build unix

package isolation

import (
	"os"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// exitFrom converts a reaped process state into an Exit.
func exitFrom(st *os.ProcessState) Exit {
	if st == nil {
		return Exit{Code: -1}
	}
	ws, ok := st.Sys().(syscall.WaitStatus)
	if !ok {
		return Exit{Code: st.ExitCode()}
	}
	if ws.Signaled() {
		return Exit{Code: -1, Signal: unix.SignalName(ws.Signal())}
	}
	return Exit{Code: ws.ExitStatus()}
}

const (
	// pgGrace is how long a process-group run gets between SIGTERM and
	// SIGKILL.
	pgGrace = 3 * time.Second
	// killBound bounds how long a kill may take to leave the run's unit
	// (cgroup or process group) empty.
	killBound = 10 * time.Second
)
