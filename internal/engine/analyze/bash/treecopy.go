package bash

import (
	"path"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Tree copies into the root directory: `cp -r etc /` writes /etc, and
// `cp -a rootfs/. /`, `rsync -a x/ /`, `mv x/* /` write whatever the
// source holds straight into / — /etc, /usr … The destination "/" is not a
// system tree itself, so what lands in it is recorded: a source with a
// known name lands as /NAME (copy_to), a source whose entries land (a
// "DIR/." or glob source, rsync's "DIR/") is a recursive write of / itself,
// which reaches every system tree.

// landInRoot records what sources copied or moved into dest land as when
// dest is the root directory. slashContents: a source ending in "/" copies
// its contents (rsync), not itself. tree: directories are copied (cp -r/-a,
// rsync -r/-a, mv); without it only files land, each as /NAME, which no
// system tree is.
func (a *analyzer) landInRoot(s *syntax.Stmt, name string, sources []field, dest field, slashContents, tree bool, c *ctx) {
	if dest.dyn || dest.s == "" || a.underCwd(normPath(dest.s), false) != "/" {
		return
	}
	for _, src := range sources {
		if src.s == "" || src.s == "-" {
			continue
		}
		base := path.Base(src.s)
		contents := src.dyn || src.glob || hasGlobMeta(base) || base == "." || base == "/" ||
			slashContents && strings.HasSuffix(src.s, "/")
		if contents && !tree {
			continue
		}
		if contents {
			a.addFile(s, field{s: "/"}, "write", name, c, fileFlags{recursive: true})
			continue
		}
		if base == ".." {
			continue
		}
		a.addFile(s, field{s: "/" + base}, "copy_to", name, c, fileFlags{recursive: true})
	}
}

// copiesTrees reports whether cp or rsync arguments copy directories
// (-r, -R, -a, --recursive, --archive); mv always moves them.
func copiesTrees(name string, args []field) bool {
	if name == "mv" {
		return true
	}
	for _, f := range args {
		switch {
		case f.s == "--":
			return false
		case f.s == "--recursive" || f.s == "--archive":
			return true
		case strings.HasPrefix(f.s, "-") && !strings.HasPrefix(f.s, "--") && strings.ContainsAny(f.s[1:], "rRa"):
			return true
		}
	}
	return false
}

// targetDirValue returns the -t DIR / --target-directory=DIR of cp, mv
// and install (every operand is then a source).
func targetDirValue(args []field) (field, bool) {
	for i, f := range args {
		if f.s == "--" {
			break
		}
		if v, ok := strings.CutPrefix(f.s, "--target-directory="); ok {
			return field{s: v, dyn: f.dyn}, true
		}
		if f.s == "--target-directory" && i+1 < len(args) {
			return args[i+1], true
		}
		if strings.HasPrefix(f.s, "-") && !strings.HasPrefix(f.s, "--") {
			if k := strings.IndexByte(f.s, 't'); k > 0 {
				if k+1 < len(f.s) {
					return field{s: f.s[k+1:], dyn: f.dyn}, true
				}
				if i+1 < len(args) {
					return args[i+1], true
				}
			}
		}
	}
	return field{}, false
}
