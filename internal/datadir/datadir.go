// Package datadir makes toolwarden's data directory private: the directory
// and every directory below it 0700, every file 0600, whatever the umask
// the process started with and whatever an earlier version or an operator
// left behind. The data directory holds the execution store (results,
// requests), the API key store, the secrets key, spilled outputs and audit
// logs; another local user, or a run that can see the host's filesystem,
// must not read any of it.
package datadir

import (
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
)

// Skip names top-level entries whose permissions belong to someone else
// (the run workspaces, which the workload's uid must reach); Secure leaves
// them as they are.
var Skip = map[string]bool{"workspace": true, "workspaces": true}

// Secure creates dir (0700) if needed and fixes the modes of dir and of
// what it holds: directories 0700, regular files 0600. Every change is
// logged as a warning naming the path and the mode it had, because a data
// directory readable by others may already have leaked. Symlinks are not
// followed.
func Secure(dir string, log *slog.Logger) error {
	if log == nil {
		log = slog.Default()
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("create data dir %s: %w", dir, err)
	}
	root := filepath.Clean(dir)
	return filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return fmt.Errorf("secure data dir: %w", err)
		}
		if p != root && filepath.Dir(p) == root && Skip[d.Name()] {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		var want fs.FileMode
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			return nil
		case d.IsDir():
			want = 0o700
		case d.Type().IsRegular():
			want = 0o600
		default:
			return nil // sockets, fifos: not ours to change
		}
		info, err := d.Info()
		if err != nil {
			return fmt.Errorf("secure data dir: %w", err)
		}
		if info.Mode().Perm() == want {
			return nil
		}
		if err := os.Chmod(p, want); err != nil {
			return fmt.Errorf("secure data dir: chmod %s: %w", p, err)
		}
		if p == root {
			log.Warn("data dir was accessible by others; fixed (its contents may already have been read)",
				"path", p, "was", info.Mode().Perm().String(), "now", want.String())
		} else {
			log.Warn("data dir entry was accessible by others; fixed", "path", p,
				"was", info.Mode().Perm().String(), "now", want.String())
		}
		return nil
	})
}
