//go:build unix

package workspace

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// minEntryBytes is the least an entry counts for in Usage: one block. An
// empty file, a short symlink or a tiny inline file allocates no data
// block but still takes one of the host filesystem's inodes, and a run
// that made millions of them would exhaust the host's inodes while its
// byte count stayed near zero.
const minEntryBytes = 4096

// Usage is the disk a workspace holds: the allocated blocks of every
// entry under path (the directory itself included), in bytes, each entry
// counted as at least one block (minEntryBytes). Symlinks are
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
		bytes += max(st.Blocks*512, minEntryBytes)
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
