package filesystem

import (
	"fmt"
	"path"
	"strings"

	"github.com/toolwarden/toolwarden/rules-wasm/packs/internal/catalog"
	"github.com/toolwarden/toolwarden/rules-wasm/packs/internal/match"
	"github.com/toolwarden/toolwarden/sdk"
)

// systemWriteRoots are the trees SYSTEM_FILE_WRITE protects: the system's
// configuration, programs, libraries, boot files, package state and kernel
// settings.
var systemWriteRoots = []string{"/etc", "/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/boot",
	"/var/lib", "/sys", "/proc/sys"}

// isSystemWritePath reports whether the cleaned absolute path c lies in
// (or is) a protected system tree.
func isSystemWritePath(c string) bool {
	for _, r := range systemWriteRoots {
		if c == r || strings.HasPrefix(c, r+"/") {
			return true
		}
	}
	return false
}

// systemWriteOps are the operations that change a file.
func systemWriteOp(op string) bool {
	switch op {
	case "write", "append", "copy_to", "move", "link", "delete", "chmod", "chown":
		return true
	}
	return false
}

// checkSystemWrite reports a change to a file under a system tree.
func checkSystemWrite(e *catalog.Env, a *access) {
	if !systemWriteOp(a.op) {
		return
	}
	if a.dynamic {
		checkDynamicSystemWrite(e, a)
		return
	}
	c := match.CleanPath(normalizeHome(a.path))
	if c == "/" && a.recursive && a.op == "write" {
		// A tree written into the root itself (an archive extracted into
		// /, a directory's contents copied into /) reaches /etc, /usr …
		// whatever the tree holds.
		e.Add(catalog.Finding{Rule: "SYSTEM_FILE_WRITE", Evidence: a.evidence, Pos: a.pos, Key: c,
			Message:  fmt.Sprintf("A tree written into the root directory (by %s) reaches the system trees: whatever it holds lands in /etc, /usr …", a.by),
			Metadata: map[string]any{"path": c, "op": a.op}})
		return
	}
	if !strings.HasPrefix(c, "/") || !isSystemWritePath(c) {
		return
	}
	e.Add(catalog.Finding{Rule: "SYSTEM_FILE_WRITE", Evidence: a.evidence, Pos: a.pos, Key: c,
		Message:  fmt.Sprintf("%s of system file %s (by %s).", opNoun(a.op), c, a.by),
		Metadata: map[string]any{"path": c, "op": a.op}})
}

// checkDynamicSystemWrite judges a change to an absolute path completed by
// an expansion the scan cannot resolve, by the directory its known part
// names: inside a system tree (`cp x "/etc/$X"`, `> "/usr/lib/$N/x"`) the
// change is a system write whatever the name; where a system tree may lie
// below (`cp x "/$X"`, `> "/var/$F"`) the target cannot be resolved and is
// reviewed; elsewhere (`/tmp/$X`, `$OUT/x`) it is left alone.
func checkDynamicSystemWrite(e *catalog.Env, a *access) {
	p := normalizeHome(a.path)
	if !strings.HasPrefix(p, "/") {
		return
	}
	dir := staticPrefix(p)
	if !strings.HasSuffix(dir, "/") {
		dir = path.Dir(dir) // "/etc/cron$X": a name in /etc being completed
	}
	c := match.CleanPath(dir)
	meta := map[string]any{"path": p, "op": a.op}
	if isSystemWritePath(c) {
		e.Add(catalog.Finding{Rule: "SYSTEM_FILE_WRITE", Evidence: a.evidence, Pos: a.pos, Key: p, Metadata: meta,
			Message: fmt.Sprintf("%s under system tree %s of a name that cannot be resolved statically (%s, by %s).",
				opNoun(a.op), c, p, a.by)})
		return
	}
	for _, r := range systemWriteRoots {
		if c == "/" || strings.HasPrefix(r, c+"/") {
			e.Add(catalog.Finding{Rule: "SYSTEM_FILE_WRITE", Decision: sdk.NeedsHumanReview, Risk: sdk.RiskMedium,
				Evidence: a.evidence, Pos: a.pos, Key: p, Metadata: meta,
				Message: fmt.Sprintf("%s of %s (by %s): a path under %s that cannot be resolved statically may reach a system tree.",
					opNoun(a.op), p, a.by, c)})
			return
		}
	}
}

func opNoun(op string) string {
	switch op {
	case "append":
		return "Append"
	case "delete":
		return "Delete"
	case "move", "copy_to", "link":
		return "Install"
	}
	return "Write"
}

// kindSysctl: sysctl, which writes kernel settings with -w or NAME=VALUE.
var kindSysctl = catalog.NamesKind("sysctl")

// checkSysctlWrites reports sysctl writes (`sysctl -w k=v`, `sysctl k=v`,
// `sysctl -p FILE` loads settings): writes under /proc/sys.
func checkSysctlWrites(e *catalog.Env) {
	f := e.Facts
	for _, i := range e.Commands(kindSysctl) {
		c := &f.Commands[i]
		for _, a := range c.Args {
			if a == "-w" || a == "--write" || a == "-p" || a == "--load" || a == "--system" ||
				!strings.HasPrefix(a, "-") && strings.Contains(a, "=") {
				e.Add(catalog.Finding{Rule: "SYSTEM_FILE_WRITE", Evidence: c.Evidence, Pos: c.Pos, Key: "sysctl",
					Message:  "sysctl changes kernel settings (/proc/sys).",
					Metadata: map[string]any{"path": "/proc/sys", "op": "write"}})
				break
			}
		}
	}
}

// outsideWorkspace reports whether a cleaned delete target lies outside
// the workspace: an absolute or home-relative path (the workspace is the
// working directory; relative paths stay in it).
func outsideWorkspace(p string) bool {
	c := match.CleanPath(p)
	return strings.HasPrefix(c, "/") || strings.HasPrefix(c, "~") || strings.HasPrefix(c, "../") || c == ".."
}
