//go:build !linux

package workspace

import (
	"fmt"
	"os"
)

// rootStamp is the root directory's dirStamp (modification time and size;
// the allocation generation carries the rest).
func (m *Manager) rootStamp() (dirStamp, error) {
	fi, err := os.Stat(m.cfg.Root)
	if err != nil {
		return dirStamp{}, fmt.Errorf("workspace: stat %s: %w", m.cfg.Root, err)
	}
	return dirStamp{mtime: fi.ModTime().UnixNano(), size: fi.Size()}, nil
}
