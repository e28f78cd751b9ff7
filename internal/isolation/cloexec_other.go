//go:build unix && !linux

package isolation

import (
	"fmt"
	"os"
	"runtime"
	"strconv"

	"golang.org/x/sys/unix"
)

// closeOnExecFrom3 marks every descriptor above stderr close-on-exec, so
// the workload starts with stdin, stdout and stderr only (see the Linux
// version in shim.go). On macOS, whose /dev/fd lists every open descriptor
// of the process, it marks those; elsewhere (and when /dev/fd cannot be
// read) it walks the descriptor table up to the hard RLIMIT_NOFILE (capped
// at 1<<20). It fails closed: a run whose descriptors cannot be swept does
// not start.
func closeOnExecFrom3() error {
	if runtime.GOOS == "darwin" {
		if ents, err := os.ReadDir("/dev/fd"); err == nil {
			for _, e := range ents {
				fd, err := strconv.Atoi(e.Name())
				if err != nil || fd < 3 {
					continue
				}
				if _, err := unix.FcntlInt(uintptr(fd), unix.F_SETFD, unix.FD_CLOEXEC); err != nil && err != unix.EBADF {
					return fmt.Errorf("close-on-exec on descriptor %d: %w", fd, err)
				}
			}
			return nil
		}
	}
	var lim unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_NOFILE, &lim); err != nil {
		return fmt.Errorf("close-on-exec on inherited descriptors: %w", err)
	}
	max := uint64(lim.Max)
	if max > 1<<20 || max == 0 {
		max = 1 << 20
	}
	for fd := uint64(3); fd < max; fd++ {
		if _, err := unix.FcntlInt(uintptr(fd), unix.F_SETFD, unix.FD_CLOEXEC); err != nil && err != unix.EBADF {
			return fmt.Errorf("close-on-exec on descriptor %d: %w", fd, err)
		}
	}
	return nil
}
