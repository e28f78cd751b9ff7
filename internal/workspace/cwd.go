package workspace

import (
	"fmt"
	"path/filepath"
	"strings"
)

// CwdError says why a requested working directory was refused.
type CwdError struct {
	Cwd, Msg string
}

// Error names the cwd and the reason.
func (e *CwdError) Error() string { return fmt.Sprintf("cwd %q: %s", e.Cwd, e.Msg) }

// ResolveCwd maps a requested cwd onto the workspace at ws, lexically:
// empty is the workspace itself; a relative path is joined to it; an
// absolute path must be the workspace or under it. After cleaning, no `..`
// may leave the workspace. It does not touch the filesystem: the executor
// also calls CheckCwd at exec time, when symlinks can be resolved.
func ResolveCwd(ws, cwd string) (string, error) {
	ws = filepath.Clean(ws)
	if cwd == "" {
		return ws, nil
	}
	if strings.ContainsRune(cwd, 0) {
		return "", &CwdError{cwd, "contains a NUL byte"}
	}
	var p string
	if filepath.IsAbs(cwd) {
		p = filepath.Clean(cwd)
	} else {
		rel := filepath.Clean(cwd)
		if rel == ".." || strings.HasPrefix(rel, "../") {
			return "", &CwdError{cwd, "leaves the workspace (..)"}
		}
		p = filepath.Join(ws, rel)
	}
	if !Within(ws, p) {
		return "", &CwdError{cwd, "must be the run's workspace or a directory under it (relative paths are joined to the workspace)"}
	}
	return p, nil
}

// CheckCwd resolves every symlink of dir (which ResolveCwd returned) and
// refuses it unless the result is still the workspace or under it, so a
// link a run planted cannot move a later run's cwd out. It returns the
// resolved directory.
func CheckCwd(ws, dir string) (string, error) {
	realWS, err := filepath.EvalSymlinks(ws)
	if err != nil {
		return "", fmt.Errorf("workspace %s: %w", ws, err)
	}
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return "", &CwdError{dir, fmt.Sprintf("cannot be resolved: %v", err)}
	}
	if !Within(realWS, real) {
		return "", &CwdError{dir, "resolves outside the run's workspace (symlink)"}
	}
	return real, nil
}

// Within reports whether p is root or under it (both clean and absolute).
func Within(root, p string) bool {
	root, p = filepath.Clean(root), filepath.Clean(p)
	return p == root || strings.HasPrefix(p, root+string(filepath.Separator))
}
