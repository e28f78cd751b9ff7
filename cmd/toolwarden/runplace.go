package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// workloadID is the uid and gid the isolation backends run a workload as
// when toolwarden runs as root (isolation.Hardening's default).
const workloadID = 65534

// runPlace is where a `toolwarden run` started by root works. The workload
// runs as an unprivileged uid, which can neither write the caller's
// directory (root's, 0755) nor should leave files owned by another user
// in it. So the run gets a private place of its own, outside the caller's
// directory:
//
//	base/        0700, the workload's: the run's workspace (all it may write)
//	base/work/   a copy of the caller's directory, the run's working directory
//	base/home/   HOME, and every cache a toolchain keeps (Go, XDG, npm, pip)
//
// After the run, what changed in base/work is copied back into the
// caller's directory by toolwarden itself (so it is owned by the caller),
// through an os.Root so that no symlink the run made leads a write
// outside that directory, with setuid/setgid bits dropped; files the run
// deleted are deleted. base is then removed with every cache in it.
type runPlace struct {
	caller string // the caller's directory
	base   string
	work   string
	home   string
	// copied records every entry as it was after the copy in (relative
	// path → size, mtime, mode), to tell what the run changed.
	copied map[string]entryState
	// withheld are entries the workload could not have read in place (not
	// readable, or a directory not searchable, by others): they are not
	// copied in, and the run's results never replace them.
	withheld map[string]bool
}

type entryState struct {
	size  int64
	mtime time.Time
	mode  fs.FileMode
}

// newRunPlace copies caller into a fresh private place owned by the
// workload uid.
func newRunPlace(caller string) (*runPlace, error) {
	base, err := os.MkdirTemp("", "toolwarden-run-")
	if err != nil {
		return nil, fmt.Errorf("run place: %w", err)
	}
	p := &runPlace{caller: caller, base: base, work: filepath.Join(base, "work"), home: filepath.Join(base, "home"),
		copied: map[string]entryState{}, withheld: map[string]bool{}}
	if err := p.prepare(); err != nil {
		_ = os.RemoveAll(base)
		return nil, err
	}
	return p, nil
}

func (p *runPlace) prepare() error {
	for _, d := range []string{p.work, p.home} {
		if err := os.Mkdir(d, 0o700); err != nil {
			return fmt.Errorf("run place: %w", err)
		}
	}
	// Go's telemetry would try to start a child process (refused in the
	// run) and say so in the output: its mode file turns it off.
	tel := filepath.Join(p.home, ".config", "go", "telemetry")
	if err := os.MkdirAll(tel, 0o700); err != nil {
		return fmt.Errorf("run place: %w", err)
	}
	if err := os.WriteFile(filepath.Join(tel, "mode"), []byte("off\n"), 0o600); err != nil {
		return fmt.Errorf("run place: %w", err)
	}
	if err := copyTree(p.caller, p.work, p.withheld); err != nil {
		return fmt.Errorf("run place: copy %s in: %w", p.caller, err)
	}
	if err := chownTree(p.base, workloadID, workloadID); err != nil {
		return fmt.Errorf("run place: hand over to the workload uid: %w", err)
	}
	return filepath.WalkDir(p.work, func(path string, d fs.DirEntry, err error) error {
		if err != nil || path == p.work {
			return err
		}
		rel, _ := filepath.Rel(p.work, path)
		st, err := os.Lstat(path)
		if err != nil {
			return err
		}
		p.copied[rel] = entryState{size: st.Size(), mtime: st.ModTime(), mode: st.Mode()}
		return nil
	})
}

// Env is the run's HOME and caches, all below base/home.
func (p *runPlace) Env() map[string]string {
	cache := filepath.Join(p.home, ".cache")
	return map[string]string{
		"HOME":             p.home,
		"XDG_CACHE_HOME":   cache,
		"GOCACHE":          filepath.Join(cache, "go-build"),
		"GOPATH":           filepath.Join(p.home, "go"),
		"GOFLAGS":          "-modcacherw",
		"XDG_CONFIG_HOME":  filepath.Join(p.home, ".config"),
		"npm_config_cache": filepath.Join(p.home, ".npm"),
		"PIP_CACHE_DIR":    filepath.Join(cache, "pip"),
	}
}

// copyBack brings the run's changes into the caller's directory.
func (p *runPlace) copyBack() error {
	dst, err := os.OpenRoot(p.caller)
	if err != nil {
		return fmt.Errorf("copy back: %w", err)
	}
	defer dst.Close()
	src, err := os.OpenRoot(p.work)
	if err != nil {
		return fmt.Errorf("copy back: %w", err)
	}
	defer src.Close()
	seen := map[string]bool{}
	var errs []error
	err = filepath.WalkDir(p.work, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			errs = append(errs, err)
			return nil
		}
		if path == p.work {
			return nil
		}
		rel, _ := filepath.Rel(p.work, path)
		seen[rel] = true
		if p.isWithheld(rel) {
			errs = append(errs, fmt.Errorf("%s: not replaced: the run could not read it in place", rel))
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		st, err := os.Lstat(path)
		if err != nil {
			errs = append(errs, err)
			return nil
		}
		if was, ok := p.copied[rel]; ok && was.size == st.Size() && was.mtime.Equal(st.ModTime()) && was.mode == st.Mode() {
			return nil // unchanged
		}
		if err := copyEntryBack(src, dst, rel, st); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", rel, err))
		}
		return nil
	})
	if err != nil {
		errs = append(errs, err)
	}
	for rel := range p.copied {
		if !seen[rel] {
			if err := dst.RemoveAll(rel); err != nil && !errors.Is(err, fs.ErrNotExist) {
				errs = append(errs, fmt.Errorf("remove %s: %w", rel, err))
			}
		}
	}
	return errors.Join(errs...)
}

// isWithheld reports whether rel is, or lies below, a withheld entry.
func (p *runPlace) isWithheld(rel string) bool {
	for r := rel; r != "." && r != string(filepath.Separator); r = filepath.Dir(r) {
		if p.withheld[r] {
			return true
		}
	}
	return false
}

// othersMay reports whether a workload of another uid could use st in
// place: read a file, read and search a directory.
func othersMay(st fs.FileInfo) bool {
	if st.IsDir() {
		return st.Mode().Perm()&0o005 == 0o005
	}
	return st.Mode().Perm()&0o004 != 0
}

// safePerm drops setuid, setgid and sticky bits from what the run made.
func safePerm(m fs.FileMode) fs.FileMode { return m.Perm() }

func copyEntryBack(src, dst *os.Root, rel string, st fs.FileInfo) error {
	old, err := dst.Lstat(rel)
	exists := err == nil
	switch {
	case st.IsDir():
		if exists && !old.IsDir() {
			if err := dst.RemoveAll(rel); err != nil {
				return err
			}
			exists = false
		}
		if !exists {
			if err := dst.Mkdir(rel, safePerm(st.Mode())|0o700); err != nil {
				return err
			}
			return nil
		}
		return dst.Chmod(rel, safePerm(st.Mode())|0o700)
	case st.Mode()&fs.ModeSymlink != 0:
		target, err := src.Readlink(rel)
		if err != nil {
			return err
		}
		if exists {
			if err := dst.RemoveAll(rel); err != nil {
				return err
			}
		}
		return dst.Symlink(target, rel)
	case st.Mode().IsRegular():
		if exists && !old.Mode().IsRegular() {
			// Never write through a symlink or into a directory.
			if err := dst.RemoveAll(rel); err != nil {
				return err
			}
		}
		in, err := src.Open(rel)
		if err != nil {
			return err
		}
		defer in.Close()
		out, err := dst.OpenFile(rel, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, safePerm(st.Mode()))
		if err != nil {
			return err
		}
		if err := writeAll(out, in); err != nil {
			return err
		}
		return dst.Chmod(rel, safePerm(st.Mode()))
	}
	return nil // sockets, fifos, devices: not brought back
}

// writeAll copies in to out and closes out, returning the first error (a
// failed Close means the data may not be on disk).
func writeAll(out *os.File, in io.Reader) error {
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// Close removes the private place.
func (p *runPlace) Close() error { return os.RemoveAll(p.base) }

// copyTree copies regular files, directories and symlinks of src into dst
// (which exists); other file types are skipped, and so is what others may
// not read (recorded in withheld): the copy gives the workload no more
// than running in place would have (a 0600 .env stays the caller's).
func copyTree(src, dst string, withheld map[string]bool) error {
	from, err := os.OpenRoot(src)
	if err != nil {
		return err
	}
	defer from.Close()
	return filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if path == src {
			return nil
		}
		rel, _ := filepath.Rel(src, path)
		target := filepath.Join(dst, rel)
		st, err := os.Lstat(path)
		if err != nil {
			return err
		}
		if st.Mode()&fs.ModeSymlink == 0 && !othersMay(st) {
			withheld[rel] = true
			if st.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		switch {
		case st.IsDir():
			return os.Mkdir(target, safePerm(st.Mode())|0o700)
		case st.Mode()&fs.ModeSymlink != 0:
			link, err := os.Readlink(path)
			if err != nil {
				return err
			}
			return os.Symlink(link, target)
		case st.Mode().IsRegular():
			in, err := from.Open(rel)
			if err != nil {
				return err
			}
			defer in.Close()
			out, err := os.OpenFile(target, os.O_WRONLY|os.O_CREATE|os.O_EXCL, safePerm(st.Mode()))
			if err != nil {
				return err
			}
			if err := writeAll(out, in); err != nil {
				return err
			}
			return os.Chtimes(target, st.ModTime(), st.ModTime())
		}
		return nil
	})
}

// chownTree hands every entry under root to uid:gid without following
// symlinks.
func chownTree(root string, uid, gid int) error {
	return filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(path, uid, gid)
	})
}
