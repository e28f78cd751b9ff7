package bash

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Archive extractors beyond tar, unzip, cpio and 7z: each writes the
// archive's members under a destination option, a destination operand,
// or the working directory. An extraction is recorded as a recursive
// write of the directory it fills, so an extraction into the root
// itself (`cd / && tar -xzf x.tgz`) is judged as reaching the system
// trees the archive may hold.

// registerArchiveCommands registers the extractors' handlers.
func registerArchiveCommands(r *registry) {
	const topic = "archives"
	r.files(topic, (*analyzer).arFiles, "ar")
	r.files(topic, (*analyzer).paxFiles, "pax")
	r.files(topic, (*analyzer).unsquashfsFiles, "unsquashfs", "sqfs2tar")
	r.files(topic, (*analyzer).dpkgExtract, "dpkg", "dpkg-deb")
	r.files(topic, (*analyzer).dirOptExtract, "cabextract", "unar")
	r.files(topic, (*analyzer).unrarFiles, "unrar", "rar")
	r.files(topic, (*analyzer).jarFiles, "jar")
}

// extractTo records the extraction of an archive's members under dir.
func (a *analyzer) extractTo(s *syntax.Stmt, dir field, by string, c *ctx) {
	if dir.s == "" {
		dir = field{s: "."}
	}
	a.addFile(s, dir, "write", by, c, fileFlags{recursive: true})
}

// arOpts are ar's options that take a value.
var arOpts = optTable{words: true, long: vals("--output")}

// arFiles: ar KEY[mods] ARCHIVE [MEMBER…]; x extracts into the working
// directory or --output DIR; r/q/d/m/s change the archive.
func (a *analyzer) arFiles(s *syntax.Stmt, name string, args []field, c *ctx) {
	key, out := "", field{}
	var operands []field
	r := arOpts.read(args)
	for it, ok := r.next(); ok; it, ok = r.next() {
		f := it.word
		switch {
		case it.name == "--output" && it.hasVal:
			out = it.val
		case strings.HasPrefix(f.s, "--"):
		case key == "" && !f.dyn:
			key = strings.TrimPrefix(f.s, "-")
		default:
			operands = append(operands, f)
		}
	}
	if len(operands) == 0 {
		return
	}
	op := "read"
	if strings.ContainsAny(key, "rqdms") {
		op = "write"
	}
	a.addFile(s, operands[0], op, name, c, fileFlags{})
	for _, f := range operands[1:] {
		a.addFile(s, f, "ref", name, c, fileFlags{})
	}
	if strings.Contains(key, "x") {
		a.extractTo(s, out, name, c)
	}
}

// paxOpts are pax's options that take a value.
var paxOpts = optTable{short: "fsobxpU", dyn: dynOperand}

// paxFiles: pax -r reads an archive and extracts it into the working
// directory; pax -r -w copies its operands into the last one; -f names the
// archive (written with -w alone).
func (a *analyzer) paxFiles(s *syntax.Stmt, name string, args []field, c *ctx) {
	read, write := false, false
	var archive *field
	var operands []field
	r := paxOpts.read(args)
	for it, ok := r.next(); ok; it, ok = r.next() {
		switch it.name {
		case "":
			if !it.end {
				operands = append(operands, it.word)
			}
		case "-r":
			read = true
		case "-w":
			write = true
		case "-f":
			v := it.val
			archive = &v
		}
	}
	switch {
	case read && write:
		if len(operands) > 0 {
			for _, f := range operands[:len(operands)-1] {
				a.addFile(s, f, "read", name, c, fileFlags{recursive: true})
			}
			a.extractTo(s, operands[len(operands)-1], name, c)
		}
	case read:
		if archive != nil {
			a.addFile(s, *archive, "read", name, c, fileFlags{})
		}
		a.extractTo(s, field{}, name, c)
	case write:
		if archive != nil {
			a.addFile(s, *archive, "write", name, c, fileFlags{})
		}
		for _, f := range operands {
			a.addFile(s, f, "read", name, c, fileFlags{recursive: true})
		}
	default:
		if archive != nil {
			a.addFile(s, *archive, "read", name, c, fileFlags{})
		}
	}
}

// unsquashfsOpts are unsquashfs's options that take a value; unsquashfsList
// its options that list or print instead of extracting.
var (
	unsquashfsOpts = optTable{words: true, dyn: dynOperand, long: vals("-d", "-dest", "-e", "-ef", "-p", "-processors",
		"-da", "-fr", "-o", "-offset", "-exclude-file", "-extract-file", "-data-queue", "-frag-queue", "-mem")}
	unsquashfsList = []string{"-l", "-ls", "-lls", "-lln", "-llnumeric", "-lc", "-llc", "-s", "-stat", "-cat"}
)

// unsquashfsFiles: unsquashfs [-d DIR] IMAGE [FILE…] extracts into DIR,
// by default squashfs-root under the working directory; -l/-ls/-lls list.
func (a *analyzer) unsquashfsFiles(s *syntax.Stmt, name string, args []field, c *ctx) {
	dest := field{s: "squashfs-root"}
	list := false
	var operands []field
	r := unsquashfsOpts.read(args)
	for it, ok := r.next(); ok; it, ok = r.next() {
		switch {
		case it.end, it.word.s == "-" && !it.word.dyn, it.attached:
		case it.name == "":
			operands = append(operands, it.word)
		case (it.name == "-d" || it.name == "-dest") && it.hasVal:
			dest = it.val
		case contains(unsquashfsList, it.name):
			list = true
		}
	}
	if len(operands) > 0 {
		a.addFile(s, operands[0], "read", name, c, fileFlags{})
	}
	if !list && name == "unsquashfs" {
		a.extractTo(s, dest, name, c)
	}
}

// dpkgExtract: dpkg -x/--extract DEB DIR and dpkg-deb -x/-X/-R
// (--extract, --vextract, --raw-extract) DEB DIR unpack a package into DIR.
func (a *analyzer) dpkgExtract(s *syntax.Stmt, name string, args []field, c *ctx) {
	extract := false
	var operands []field
	for _, f := range args {
		switch {
		case f.s == "-x" || f.s == "-X" || f.s == "-R" || f.s == "--extract" || f.s == "--vextract" || f.s == "--raw-extract":
			extract = true
		case strings.HasPrefix(f.s, "-") && !f.dyn:
		default:
			operands = append(operands, f)
		}
	}
	if !extract {
		a.genericRefs(s, name, args, c)
		return
	}
	if len(operands) > 0 {
		a.addFile(s, operands[0], "read", name, c, fileFlags{})
	}
	dir := field{}
	if len(operands) > 1 {
		dir = operands[1]
	}
	a.extractTo(s, dir, name, c)
}

// dirOptNames are the destination options of cabextract and unar, dirOpts
// the table that reads them.
var (
	dirOptNames = []string{"-d", "--directory", "-o", "-output-directory", "--output-directory"}
	dirOpts     = optTable{words: true, long: vals(dirOptNames...)}
)

// dirOptExtract: extractors whose destination is -d DIR (cabextract,
// --directory) or -o DIR (unar, -output-directory), else the working
// directory; listing and testing options (-l, -t) write nothing.
func (a *analyzer) dirOptExtract(s *syntax.Stmt, name string, args []field, c *ctx) {
	dest := field{}
	list := false
	r := dirOpts.read(args)
	for it, ok := r.next(); ok; it, ok = r.next() {
		f := it.word
		switch {
		case contains(dirOptNames, it.name) && !f.dyn:
			if it.hasVal {
				dest = it.val
			}
		case strings.HasPrefix(f.s, "-d") && len(f.s) > 2 && name == "cabextract":
			dest = field{s: f.s[2:], dyn: f.dyn}
		case f.s == "-l" || f.s == "--list" || f.s == "-t" || f.s == "--test" || f.s == "l" || f.s == "t" || f.s == "v":
			list = true
		case strings.HasPrefix(f.s, "-"):
		default:
			a.addFile(s, f, "read", name, c, fileFlags{})
		}
	}
	if !list {
		a.extractTo(s, dest, name, c)
	}
}

// unrarFiles: unrar/rar x|e ARCHIVE [FILE…] [DIR/] extract into the last
// operand when it ends in "/", else into the working directory.
func (a *analyzer) unrarFiles(s *syntax.Stmt, name string, args []field, c *ctx) {
	var operands []field
	for _, f := range args {
		if strings.HasPrefix(f.s, "-") && !f.dyn {
			if strings.HasPrefix(f.s, "-op") {
				operands = append(operands, field{s: f.s[3:] + "/", dyn: f.dyn})
			}
			continue
		}
		operands = append(operands, f)
	}
	if len(operands) < 2 {
		return
	}
	cmd := operands[0].s
	a.addFile(s, operands[1], "read", name, c, fileFlags{})
	if cmd != "x" && cmd != "e" {
		return
	}
	dest := field{}
	if last := operands[len(operands)-1]; len(operands) > 2 && strings.HasSuffix(last.s, "/") {
		dest = last
	}
	a.extractTo(s, dest, name, c)
}

// jarOpts are jar's options that take a value.
var jarOpts = optTable{words: true, long: vals("-C", "--dir")}

// jarFiles: jar x (-x, --extract) extracts into the working directory or
// -C DIR / --dir DIR.
func (a *analyzer) jarFiles(s *syntax.Stmt, name string, args []field, c *ctx) {
	extract := false
	dest := field{}
	r := jarOpts.read(args)
	for it, ok := r.next(); ok; it, ok = r.next() {
		f := it.word
		switch {
		case f.s == "--extract":
			extract = true
		case (it.name == "-C" && !it.attached || it.name == "--dir") && it.hasVal:
			dest = it.val
		case it.idx == 0 && !strings.HasPrefix(f.s, "--") && strings.Contains(f.s, "x") && !f.dyn:
			extract = true
		}
	}
	if extract {
		a.extractTo(s, dest, name, c)
	}
}
