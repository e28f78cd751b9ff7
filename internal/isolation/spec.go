package isolation

import (
	"fmt"
	"path/filepath"
	"strings"
)

// nobodyID is the unprivileged uid/gid used when Hardening leaves UID/GID 0.
const nobodyID = 65534

// checkSpec enforces, in depth, what the API validates: a workspace is an
// absolute directory other than "/", and the working directory is the
// workspace or below it (never a way to widen what a run may write).
func checkSpec(spec Spec) error {
	if spec.Workspace != "" {
		if !filepath.IsAbs(spec.Workspace) || filepath.Clean(spec.Workspace) == "/" {
			return fmt.Errorf("isolation: workspace %q must be an absolute directory other than /", spec.Workspace)
		}
	}
	if spec.Dir == "" || (spec.Workspace == "" && spec.Dir == "/") {
		// No workspace: the run starts in its (read-only) root.
		return nil
	}
	if spec.Workspace == "" || !dirInWorkspace(spec.Dir, spec.Workspace) {
		return fmt.Errorf("isolation: working directory %q is outside the workspace %q", spec.Dir, spec.Workspace)
	}
	return nil
}

func workDir(spec Spec) string {
	switch {
	case spec.Dir != "":
		return spec.Dir
	case spec.Workspace != "":
		return spec.Workspace
	}
	return "/"
}

// mergeLimits overrides defaults with the non-zero fields of spec.
func mergeLimits(def, spec Limits) Limits {
	if spec.MaxProcesses > 0 {
		def.MaxProcesses = spec.MaxProcesses
	}
	if spec.MemoryMaxBytes > 0 {
		def.MemoryMaxBytes = spec.MemoryMaxBytes
	}
	if spec.CPUQuotaMicros > 0 {
		def.CPUQuotaMicros = spec.CPUQuotaMicros
	}
	if spec.TmpfsMaxBytes > 0 {
		def.TmpfsMaxBytes = spec.TmpfsMaxBytes
	}
	return def
}

// resolveHardening picks the run's hardening: the spec's when set, else
// the backend default, else DefaultHardening; uid/gid 0 become nobody.
func resolveHardening(def, spec Hardening) Hardening {
	h := spec
	if h == (Hardening{}) {
		h = def
	}
	if h == (Hardening{}) {
		h = DefaultHardening()
	}
	if h.UID <= 0 {
		h.UID = nobodyID
	}
	if h.GID <= 0 {
		h.GID = nobodyID
	}
	return h
}

// dirInWorkspace reports whether dir is the workspace or below it
// (lexically, after cleaning): the only working directories a run gets.
func dirInWorkspace(dir, ws string) bool {
	if !filepath.IsAbs(dir) || !filepath.IsAbs(ws) {
		return false
	}
	dir, ws = filepath.Clean(dir), filepath.Clean(ws)
	return ws != "/" && (dir == ws || strings.HasPrefix(dir, ws+"/"))
}
