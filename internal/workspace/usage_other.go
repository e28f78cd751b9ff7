//go:build !unix

package workspace

import (
	"errors"
	"io/fs"
	"path/filepath"
)

// Usage is the disk a workspace holds, off Unix approximated by the
// apparent size of its regular files (no block counts or inode numbers
// here). The walk stops as soon as the total passes stopAt (when
// stopAt > 0); entries is how many directory entries were visited.
func Usage(path string, stopAt int64) (bytes int64, entries int, err error) {
	errStop := errors.New("stop")
	werr := filepath.WalkDir(path, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		entries++
		if info, ierr := d.Info(); ierr == nil && info.Mode().IsRegular() {
			bytes += info.Size()
		}
		if stopAt > 0 && bytes > stopAt {
			return errStop
		}
		return nil
	})
	if werr != nil && !errors.Is(werr, errStop) {
		return bytes, entries, werr
	}
	return bytes, entries, nil
}
