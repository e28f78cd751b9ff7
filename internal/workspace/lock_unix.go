//go:build unix

package workspace

import (
	"errors"
	"fmt"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// Lock modes for lockFile: flock(2) operations.
const (
	lockShared    = unix.LOCK_SH
	lockExclusive = unix.LOCK_EX
	lockNonBlock  = unix.LOCK_NB
	oNoFollow     = unix.O_NOFOLLOW
)

// lockFile takes a flock (how: lockExclusive or lockShared, optionally
// |lockNonBlock) on path, creating it 0600. The lock is taken again if the file
// was unlinked or replaced meanwhile, so two holders never lock different
// inodes of one name.
func (m *Manager) lockFile(path string, how int) (func(), error) {
	for {
		f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
		if err != nil {
			return nil, fmt.Errorf("workspace: open lock %s: %w", path, err)
		}
		if err := flock(int(f.Fd()), how); err != nil {
			_ = f.Close()
			if errors.Is(err, unix.EWOULDBLOCK) {
				return nil, ErrBusy
			}
			return nil, fmt.Errorf("workspace: lock %s: %w", path, err)
		}
		var held, now unix.Stat_t
		if unix.Fstat(int(f.Fd()), &held) == nil && unix.Stat(path, &now) == nil && held.Ino == now.Ino && held.Dev == now.Dev {
			return func() { _ = f.Close() }, nil
		}
		_ = f.Close()
	}
}

func flock(fd, how int) error {
	for {
		err := unix.Flock(fd, how)
		if !errors.Is(err, unix.EINTR) {
			return err
		}
	}
}

// ownerOf is the owner uid of a file (-1 when the platform says nothing).
func ownerOf(fi os.FileInfo) int {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return int(st.Uid)
	}
	return -1
}
