// Package staged finds the workspace files a command would run or load —
// `python3 x.py`, `bash x.sh`, `./x`, `source f`, `make`, `python -m mod`,
// `import localmod` — and the startup and config files programs load on
// their own (a user-site .pth, a .git/config, .git/hooks, package.json
// scripts, conftest.py; see startupRefs) — and reads them from the run's
// workspace without ever
// following a path out of it, so the scan can judge the code that will
// really run, and the executor can check, right before exec, that the
// files are still the ones the scan read.
package staged

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
)

// States of a workspace file.
const (
	// StateFile: a regular file, read and hashed.
	StateFile = "file"
	// StateAbsent: no such file; a run that finds one there later was
	// staged after the scan.
	StateAbsent = "absent"
	// StateOutside: the path, or a symlink on it, leads out of the
	// workspace; nothing was read.
	StateOutside = "outside"
	// StateDir: a directory (never recorded; callers try the next
	// candidate, e.g. dir/__main__.py).
	StateDir = "dir"
	// StateUnreadable: not a regular file (fifo, device, socket), no
	// permission, or too large to verify.
	StateUnreadable = "unreadable"
	// StateListing: a directory whose entry names were read (a listing
	// path, see IsListing): SHA256 covers the sorted names, Size is their
	// number. A file added to or removed from it later changes the hash.
	StateListing = "listing"
)

// MaxListNames bounds the entries of a listed directory.
const MaxListNames = 4096

// IsListing reports whether rel names a directory's listing rather than a
// file: it ends in "/" (`.local/lib/`). Reading it yields the directory's
// entry names, so the scan can record which startup files a program would
// find there (site-packages/*.pth, .git/hooks/*) and the executor can see
// one added after the scan.
func IsListing(rel string) bool { return strings.HasSuffix(rel, "/") }

// joinNames is the listing body: sorted names, one a line.
func joinNames(names []string) string {
	sorted := append([]string(nil), names...)
	sort.Strings(sorted)
	return strings.Join(sorted, "\n")
}

// File is what the scan knew of one workspace path.
type File struct {
	// Path is relative to the workspace root, slash-separated, clean.
	Path string `json:"path"`
	// State is one of the State constants.
	State string `json:"state"`
	// SHA256 is the hex digest of the content (StateFile only).
	SHA256 string `json:"sha256,omitempty"`
	// Size is the file size in bytes (StateFile only).
	Size int64 `json:"size,omitempty"`
}

// Same reports whether g describes the same file as f.
func (f File) Same(g File) bool {
	return f.Path == g.Path && f.State == g.State && f.SHA256 == g.SHA256 && f.Size == g.Size
}

// Read is the result of reading one path.
type Read struct {
	File
	// Content is the file's bytes when State is StateFile and the size is
	// within the read bound (Truncated is set otherwise).
	Content   []byte
	Truncated bool
}

// Source reads workspace files.
type Source interface {
	// Rel maps name, as a command names it (relative to the run's working
	// directory, or absolute), to a clean slash-separated path relative to
	// the workspace root. ok is false when name lies outside the workspace
	// lexically (an absolute system path such as /usr/bin/python3): such
	// paths are not staged files and are neither read nor recorded.
	Rel(name string) (rel string, ok bool)
	// ReadRel reads the workspace-relative path rel, returning at most max
	// bytes of content (the hash covers the whole file).
	ReadRel(rel string, max int64) Read
}

// Dir is a Source over a workspace directory on this host.
type Dir struct {
	// Root is the workspace (absolute).
	Root string
	// Cwd is the run's working directory: Root or a directory under it
	// (absolute). Empty means Root.
	Cwd string
}

// MaxHashBytes bounds the size of a file the scan hashes. A bigger one is
// StateUnreadable: it cannot be verified, so it cannot be vouched for.
const MaxHashBytes = 256 << 20

// Rel maps name to a clean path relative to Root, or ok=false when it
// lies outside Root lexically.
func (d Dir) Rel(name string) (string, bool) {
	if name == "" || strings.ContainsRune(name, 0) {
		return "", false
	}
	root := filepath.Clean(d.Root)
	cwd := d.Cwd
	if cwd == "" {
		cwd = root
	}
	p := name
	if !filepath.IsAbs(p) {
		p = filepath.Join(cwd, p)
	}
	rel, err := filepath.Rel(root, filepath.Clean(p))
	if err != nil || rel == ".." || strings.HasPrefix(rel, "../") || filepath.IsAbs(rel) {
		return "", false
	}
	rel = filepath.ToSlash(rel)
	if IsListing(name) {
		if rel == "." {
			return "", false // the workspace root itself is never listed
		}
		rel += "/"
	}
	return rel, true
}

// ReadRel implements Source.
func (d Dir) ReadRel(rel string, max int64) Read {
	return readBeneath(filepath.Clean(d.Root), rel, max)
}

// digest returns the hex SHA-256 of b.
func digest(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// Describe says in words what changed between the scanned file f and the
// file found now, for a refusal reason.
func Describe(f, now File) string {
	switch {
	case f.State == StateFile && now.State == StateAbsent:
		return fmt.Sprintf("%s was removed after the scan", f.Path)
	case f.State == StateAbsent && now.State != StateAbsent:
		return fmt.Sprintf("%s did not exist at scan time and was created before the run", f.Path)
	case f.State == StateListing && now.State == StateListing:
		return fmt.Sprintf("%s gained or lost entries after the scan (%d entries, now %d)", f.Path, f.Size, now.Size)
	case f.State == StateFile && now.State == StateFile:
		return fmt.Sprintf("%s changed after the scan (sha256 %.12s… size %d, now %.12s… size %d)",
			f.Path, f.SHA256, f.Size, now.SHA256, now.Size)
	}
	return fmt.Sprintf("%s changed after the scan (was %s, now %s)", f.Path, f.State, now.State)
}
