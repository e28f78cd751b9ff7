//go:build unix

package workspace

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// Usage is the disk a workspace holds: the allocated blocks of every
// entry under path (the directory itself included), in bytes. Symlinks are
// counted as themselves and never followed; a file with several hard links
// is counted once. Sparse files count what they allocate, not their
// apparent size, because the bound protects the host's disk.
//
// The walk stops as soon as the total passes stopAt (when stopAt > 0), so
// measuring a workspace far over its bound costs no more than measuring
// one at it. entries is how many directory entries were visited, for
// callers that pace their polling by the walk's cost.
func Usage(path string, stopAt int64) (bytes int64, entries int, err error) {
	seen := map[[2]uint64]bool{}
	errStop := errors.New("stop")
	werr := filepath.WalkDir(path, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil // removed by the run meanwhile
			}
			return err
		}
		entries++
		var st unix.Stat_t
		if err := unix.Lstat(p, &st); err != nil {
			if errors.Is(err, unix.ENOENT) {
				return nil
			}
			return &os.PathError{Op: "lstat", Path: p, Err: err}
		}
		if st.Nlink > 1 && st.Mode&unix.S_IFMT != unix.S_IFDIR {
			key := [2]uint64{uint64(st.Dev), st.Ino}
			if seen[key] {
				return nil
			}
			seen[key] = true
		}
		bytes += st.Blocks * 512
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
