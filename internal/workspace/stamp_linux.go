//go:build linux

package workspace

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// rootStamp is the root directory's dirStamp.
func (m *Manager) rootStamp() (dirStamp, error) {
	var st unix.Stat_t
	if err := unix.Stat(m.cfg.Root, &st); err != nil {
		return dirStamp{}, fmt.Errorf("workspace: stat %s: %w", m.cfg.Root, err)
	}
	return dirStamp{mtime: st.Mtim.Nano(), ctime: st.Ctim.Nano(), nlink: uint64(st.Nlink), size: st.Size, ino: st.Ino}, nil
}
