package bash

import "strings"

// Downloaded archives: an archive that was downloaded (piped from a
// downloader, `curl -sL URL | tar xz`, or a file the script downloaded,
// `curl -o x.tgz URL; tar xzf x.tgz`) and extracted makes the extraction
// directory a tree of downloaded files. Running a file from it
// (`./x/install.sh`, `bash x/setup.sh`) runs downloaded code: RULES.md
// BASH_REMOTE_CODE_EXEC, "saved and then run in the same content".

// extractors are the archive programs and how each says "extract".
var extractors = map[string]func(args []field) bool{
	"tar":    tarExtracts,
	"bsdtar": tarExtracts,
	"gtar":   tarExtracts,
	"unzip":  func([]field) bool { return true },
	"7z":     func(args []field) bool { return len(args) > 0 && (args[0].s == "x" || args[0].s == "e") },
	"7za":    func(args []field) bool { return len(args) > 0 && (args[0].s == "x" || args[0].s == "e") },
	"cpio": func(args []field) bool {
		for _, f := range args {
			if f.s == "--extract" || (strings.HasPrefix(f.s, "-") && !strings.HasPrefix(f.s, "--") && strings.Contains(f.s, "i")) {
				return true
			}
		}
		return false
	},
}

// tarExtracts reports whether tar's arguments ask for extraction: -x,
// --extract, --get, or an old-style first word holding x ("xzf").
func tarExtracts(args []field) bool {
	for i, f := range args {
		switch {
		case f.s == "--extract" || f.s == "--get":
			return true
		case strings.HasPrefix(f.s, "--"):
		case strings.HasPrefix(f.s, "-"):
			if strings.Contains(f.s[1:], "x") {
				return true
			}
		case i == 0 && strings.Contains(f.s, "x") && isLetters(f.s):
			return true
		}
	}
	return false
}

// noteDownloadedTree records the extraction directory of a downloaded
// archive. filesFrom is where this command's file facts start: the writes
// it recorded are its destinations.
func (a *analyzer) noteDownloadedTree(name string, args []field, c *ctx, filesFrom int) {
	ex := extractors[name]
	if ex == nil || !ex(args) {
		return
	}
	downloaded := false
	for _, st := range c.earlier {
		if a.mentionsDownloader(st) {
			downloaded = true
			break
		}
	}
	if !downloaded && a.fetched != nil {
		for _, f := range args {
			if !f.dyn && a.fetched[normPath(f.s)] {
				downloaded = true
				break
			}
		}
	}
	if !downloaded {
		return
	}
	dirs := 0
	for _, fa := range a.b.Facts.Files[filesFrom:] {
		if fa.Op == "write" && fa.By == name && !fa.Dynamic && fa.Path != "" {
			a.fetchedDirs = append(a.fetchedDirs, normPath(fa.Path))
			dirs++
		}
	}
	if dirs == 0 {
		a.fetchedDirs = append(a.fetchedDirs, ".")
	}
}

// inDownloadedTree reports whether path p (normalized) lies in the
// extraction directory of a downloaded archive.
func (a *analyzer) inDownloadedTree(p string) bool {
	for _, d := range a.fetchedDirs {
		switch {
		case d == ".":
			if !strings.HasPrefix(p, "/") && !strings.HasPrefix(p, "~") && !strings.HasPrefix(p, "../") && p != ".." {
				return true
			}
		case p == d || strings.HasPrefix(p, strings.TrimSuffix(d, "/")+"/"):
			return true
		}
	}
	return false
}
