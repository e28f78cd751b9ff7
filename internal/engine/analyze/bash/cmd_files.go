package bash

import (
	"path"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/toolwarden/toolwarden/sdk"
)

// The files topic: what common commands do to the files their operands
// name — argSpec rows in specs for most, handlers for dd and tar — and the
// helpers that record file accesses.

// registerFileCommands registers the argSpecs of specs, the block-device
// tools, and the dd and tar handlers.
func registerFileCommands(r *registry) {
	const topic = "files"
	r.spec(topic, specs)
	r.spec(topic, map[string]*argSpec{"wipefs": blockSpec, "fdisk": blockSpec, "sfdisk": blockSpec,
		"parted": blockSpec, "mkswap": blockSpec, "blkdiscard": blockSpec})
	r.family(topic, func(n string) bool { return hasPrefixAny(n, "mkfs", "mke2fs") }, func(e *command) { e.spec = blockSpec })
	r.files(topic, (*analyzer).dd, "dd")
	r.files(topic, (*analyzer).chattr, "chattr")
	r.files(topic, (*analyzer).tar, "tar", "bsdtar", "gtar")
}

// argSpec describes what a common command does with its operands, so that
// patterns, scripts, messages and option values are never taken for paths.
type argSpec struct {
	// op is the FileAccess op of the operands.
	op string
	// shortVal / longVal are options that take a value.
	shortVal string
	longVal  []string
	// skip is the number of leading operands that are not paths (a grep
	// pattern, a sed script, a chmod mode); skipUnless names the options
	// that move that operand into an option (grep -e, sed -e, awk -f).
	skip       int
	skipUnless []string
	// last is the op of the last operand when there are two or more
	// (cp/mv/ln destinations); first the op of the first operand (the
	// archive zip writes).
	last, first string
	// optFiles maps options whose value is a path to the op on it
	// ("extract": the directory an extraction fills, a recursive write).
	optFiles map[string]string
	// recursive/force flags recorded on the accesses.
	recursive bool
	force     bool
}

// vimSpec: the files vim edits (and may write); the values of -c, --cmd,
// -S, -u … are Ex commands and settings files, not the edited files.
var vimSpec = &argSpec{op: "write", shortVal: "cSTuiWwtq", longVal: []string{"--cmd", "--listen", "--server"}}

var (
	readSpec  = &argSpec{op: "read"}
	listSpec  = &argSpec{op: "list", shortVal: "IwBdLPT", longVal: []string{"--hide", "--ignore", "--max-depth", "--block-size", "--exclude", "--sort", "--format", "--time-style"}}
	grepSpec  = &argSpec{op: "read", shortVal: "efmABCdD", longVal: []string{"--regexp", "--file", "--max-count", "--context", "--after-context", "--before-context", "--include", "--exclude", "--exclude-dir", "--color", "--colour", "--label", "--devices", "--directories", "--binary-files", "--type", "-t", "--glob", "-g"}, skip: 1, skipUnless: []string{"-e", "-f", "--regexp", "--file"}, optFiles: map[string]string{"-f": "read", "--file": "read"}}
	headSpec  = &argSpec{op: "read", shortVal: "ncsF", longVal: []string{"--lines", "--bytes", "--pid", "--sleep-interval", "--max-unchanged-stats"}}
	sortSpec  = &argSpec{op: "read", shortVal: "ktoST", longVal: []string{"--key", "--field-separator", "--output", "--buffer-size", "--temporary-directory", "--parallel", "--files0-from"}, optFiles: map[string]string{"-o": "write", "--output": "write"}}
	cutSpec   = &argSpec{op: "read", shortVal: "dfbc", longVal: []string{"--delimiter", "--fields", "--bytes", "--characters", "--output-delimiter"}}
	uniqSpec  = &argSpec{op: "read", shortVal: "fsw", longVal: []string{"--skip-fields", "--skip-chars", "--check-chars"}}
	diffSpec  = &argSpec{op: "read", shortVal: "UCxXIFLW", longVal: []string{"--unified", "--context", "--exclude", "--exclude-from", "--ignore-matching-lines", "--label", "--width", "--color"}}
	hexSpec   = &argSpec{op: "read", shortVal: "cglsoCnAjNtw", longVal: []string{"--wrap", "--cols", "--len", "--seek"}}
	sedSpec   = &argSpec{op: "read", shortVal: "eflS", longVal: []string{"--expression", "--file", "--line-length"}, skip: 1, skipUnless: []string{"-e", "-f", "--expression", "--file"}, optFiles: map[string]string{"-f": "read", "--file": "read"}}
	awkSpec   = &argSpec{op: "read", shortVal: "Fvf", longVal: []string{"--field-separator", "--assign", "--file"}, skip: 1, skipUnless: []string{"-f", "--file"}, optFiles: map[string]string{"-f": "read", "--file": "read"}}
	rmSpec    = &argSpec{op: "delete", shortVal: "", longVal: nil}
	shredSpec = &argSpec{op: "delete", shortVal: "ns", longVal: []string{"--iterations", "--size", "--random-source"}}
	writeSpec = &argSpec{op: "write", shortVal: "mdtrs", longVal: []string{"--mode", "--date", "--reference", "--size", "--context"}}
	chmodSpec = &argSpec{op: "chmod", skip: 1, longVal: []string{"--reference"}}
	chownSpec = &argSpec{op: "chown", skip: 1, longVal: []string{"--reference", "--from"}}
	cpSpec    = &argSpec{op: "copy_from", last: "copy_to", optFiles: targetDirOpt, shortVal: "tSmog", longVal: []string{"--target-directory", "--suffix", "--mode", "--owner", "--group", "--backup", "--reflink", "--sparse", "--preserve", "--no-preserve"}}
	mvSpec    = &argSpec{op: "move", last: "copy_to", optFiles: targetDirOpt, shortVal: "tS", longVal: []string{"--target-directory", "--suffix", "--backup"}}
	lnSpec    = &argSpec{op: "link", last: "link", optFiles: targetDirOpt, shortVal: "tS", longVal: []string{"--target-directory", "--suffix", "--backup"}}
	teeSpec   = &argSpec{op: "write"}
	cdSpec    = &argSpec{op: "cwd"}
	zipSpec   = &argSpec{op: "read", first: "write", shortVal: "xiPbnt", longVal: []string{"--exclude", "--include", "--password"}}
	unzipSpec = &argSpec{op: "read", shortVal: "dxP", optFiles: map[string]string{"-d": "extract"}}
	sslSpec   = &argSpec{op: "ref", skip: 1, shortVal: "", longVal: []string{"-in", "-out", "-inkey", "-key", "-passin", "-passout", "-certfile", "-signkey", "-CAfile", "-config", "-pass", "-md", "-K", "-iv", "-connect", "-servername", "-subj", "-days", "-newkey", "-keyout", "-cert", "-CApath", "-digest", "-name"},
		optFiles: map[string]string{"-in": "read", "-out": "write", "-inkey": "read", "-key": "read", "-keyout": "write", "-certfile": "read", "-signkey": "read", "-cert": "read"}}
	installSpec = &argSpec{op: "copy_from", last: "copy_to", optFiles: targetDirOpt, shortVal: "mogtSC", longVal: []string{"--mode", "--owner", "--group", "--target-directory", "--suffix"}}
	truncSpec   = &argSpec{op: "write", shortVal: "sr", longVal: []string{"--size", "--reference"}}
	ddSpec      = &argSpec{}
	// cpioSpec: copy-in (-i) and pass-through (-p) write under -D DIR and
	// into the last operand of -p; -O is the archive copy-out writes.
	cpioSpec = &argSpec{op: "ref", shortVal: "DEFHIOMRs", longVal: []string{"--directory", "--file", "--format", "--io-size", "--pattern-file", "--owner", "--message", "--rsh-command", "--block-size"},
		optFiles: map[string]string{"-D": "extract", "--directory": "extract", "-O": "write", "-F": "read", "--file": "read", "-I": "read", "-E": "read", "--pattern-file": "read"}}
	// sevenZipSpec: the command letter, then the archive; -oDIR is where
	// x/e extract.
	sevenZipSpec = &argSpec{op: "read", skip: 1, shortVal: "opwtmirx", optFiles: map[string]string{"-o": "extract", "-w": "write"}}
	// patchSpec: the first operand is the file patched, the second the
	// patch; -o FILE, -r FILE and -d DIR are where it writes.
	patchSpec = &argSpec{op: "read", first: "write", shortVal: "oirdpBFVYzgD", longVal: []string{"--output", "--input", "--reject-file", "--directory", "--strip", "--prefix", "--fuzz", "--suffix", "--basename-prefix", "--get", "--ifdef", "--version-control"},
		optFiles: map[string]string{"-o": "write", "--output": "write", "-i": "read", "--input": "read", "-r": "write", "--reject-file": "write", "-d": "write", "--directory": "write"}}
	// targetDirOpt is the -t DIR of cp/mv/ln/install.
	targetDirOpt = map[string]string{"-t": "copy_to", "--target-directory": "copy_to"}
	blockSpec    = &argSpec{op: "write", shortVal: "tLbcCgGIjJlmNoOrTUEF", longVal: []string{"--type", "--label"}}
	noFiles      = &argSpec{}
)

// specs maps command names to their argument semantics. Commands absent
// here get the generic treatment: path-looking operands become "ref".
var specs = map[string]*argSpec{
	"cat": readSpec, "tac": readSpec, "nl": readSpec, "less": readSpec, "more": readSpec, "most": readSpec,
	"head": headSpec, "tail": headSpec, "wc": readSpec, "sort": sortSpec, "uniq": uniqSpec, "cut": cutSpec,
	"paste": cutSpec, "comm": readSpec, "diff": diffSpec, "cmp": diffSpec, "sdiff": diffSpec, "strings": hexSpec,
	"od": hexSpec, "hexdump": hexSpec, "xxd": hexSpec, "base64": hexSpec, "base32": hexSpec,
	"md5sum": readSpec, "sha1sum": readSpec, "sha256sum": readSpec, "sha512sum": readSpec, "cksum": readSpec,
	"file": readSpec, "stat": &argSpec{op: "read", shortVal: "cf", longVal: []string{"--format", "--printf"}},
	"column": readSpec, "fold": readSpec, "fmt": readSpec, "iconv": &argSpec{op: "read", shortVal: "fto", optFiles: map[string]string{"-o": "write", "--output": "write"}},
	"jq": &argSpec{op: "read", skip: 1, longVal: []string{"--arg", "--argjson", "--slurpfile", "--rawfile", "--indent"}},
	"ls": listSpec, "dir": listSpec, "tree": listSpec, "du": listSpec, "df": listSpec,
	"grep": grepSpec, "egrep": grepSpec, "fgrep": grepSpec, "rg": grepSpec, "ag": grepSpec, "ack": grepSpec, "zgrep": grepSpec,
	"sed": sedSpec, "awk": awkSpec, "gawk": awkSpec, "mawk": awkSpec, "nawk": awkSpec,
	"rm": rmSpec, "rmdir": rmSpec, "unlink": rmSpec, "shred": shredSpec,
	"touch": writeSpec, "mkdir": writeSpec, "truncate": truncSpec, "tee": teeSpec, "mkfifo": writeSpec,
	"chmod": chmodSpec, "chown": chownSpec, "chgrp": chownSpec, "setfacl": chmodSpec,
	"cp": cpSpec, "mv": mvSpec, "ln": lnSpec, "install": installSpec, "rsync": noFiles,
	"cd": cdSpec, "pushd": cdSpec,
	"sponge": &argSpec{op: "write"}, "cpio": cpioSpec, "7z": sevenZipSpec, "7za": sevenZipSpec, "7zr": sevenZipSpec, "patch": patchSpec,
	"zip": zipSpec, "unzip": unzipSpec, "gzip": readSpec, "gunzip": readSpec, "zcat": readSpec, "bzip2": readSpec, "xz": readSpec,
	"openssl": sslSpec, "dd": ddSpec, "crontab": &argSpec{op: "read", shortVal: "u"},
	"vi": vimSpec, "vim": vimSpec, "nvim": vimSpec, "nano": &argSpec{op: "write"}, "emacs": &argSpec{op: "write"},
	// Commands whose arguments are text, not paths.
	"echo": noFiles, "printf": noFiles, "true": noFiles, "false": noFiles, ":": noFiles, "set": noFiles,
	"export": noFiles, "local": noFiles, "declare": noFiles, "typeset": noFiles, "readonly": noFiles,
	"exit": noFiles, "return": noFiles, "break": noFiles, "continue": noFiles, "shift": noFiles, "trap": noFiles,
	"wait": noFiles, "kill": noFiles, "pkill": noFiles, "killall": noFiles, "date": noFiles, "seq": noFiles,
	"yes": noFiles, "expr": noFiles, "bc": noFiles, "history": noFiles, "type": noFiles, "hash": noFiles,
	"umask": noFiles, "ulimit": noFiles, "getopts": noFiles, "logger": noFiles, "which": noFiles, "whereis": noFiles,
	"test": noFiles, "[": noFiles, "basename": noFiles, "dirname": noFiles, "uname": noFiles, "id": noFiles,
	"whoami": noFiles, "hostname": noFiles, "nproc": noFiles, "pwd": noFiles, "printenv": noFiles, "tr": noFiles,
	"curl": noFiles, "wget": noFiles, "ssh": noFiles, "scp": noFiles, "sftp": noFiles, "nc": noFiles,
	"ncat": noFiles, "netcat": noFiles, "socat": noFiles, "ping": noFiles, "dig": noFiles, "nslookup": noFiles,
	"host": noFiles, "telnet": noFiles, "http": noFiles, "https": noFiles, "xh": noFiles,
}

// specFiles emits the file accesses of a command's operands as its
// argSpec describes them.
func (a *analyzer) specFiles(s *syntax.Stmt, name string, spec *argSpec, args []field, c *ctx) {
	var operands []field
	recursive, force := false, false
	appendMode, inPlace := false, false
	skipMoved := false
	mode := ""
	listing := name == "unzip" && unzipLists(args)
	optFile := func(f field, op string) {
		if op == "extract" && listing {
			return // unzip -l/-t/-v/-Z/-p -d DIR writes nothing there
		}
		a.optFile(s, f, op, name, c)
	}
	for i := 0; i < len(args); i++ {
		f := args[i]
		if !strings.HasPrefix(f.s, "-") || f.s == "-" || (spec.op == "chmod" && isModeArg(f.s) && len(operands) == 0 && !strings.HasPrefix(f.s, "--")) {
			if spec.op == "chmod" && len(operands) == 0 && isModeArg(f.s) {
				mode = f.s
			}
			operands = append(operands, f)
			continue
		}
		if f.s == "--" {
			operands = append(operands, args[i+1:]...)
			break
		}
		if strings.HasPrefix(f.s, "--") || (strings.HasPrefix(f.s, "-") && len(f.s) > 2 && contains(spec.longVal, f.s)) {
			opt, val, hasVal := strings.Cut(f.s, "=")
			switch opt {
			case "--recursive":
				recursive = true
			case "--force":
				force = true
			case "--append":
				appendMode = true
			case "--in-place":
				inPlace = true
			}
			if contains(spec.skipUnless, opt) {
				skipMoved = true
			}
			if !hasVal && contains(spec.longVal, opt) && i+1 < len(args) {
				i++
				val = args[i].s
				if op, ok := spec.optFiles[opt]; ok {
					optFile(args[i], op)
				}
			} else if op, ok := spec.optFiles[opt]; ok && hasVal {
				optFile(field{s: val}, op)
			}
			continue
		}
		for j := 1; j < len(f.s); j++ {
			ch := f.s[j]
			switch ch {
			case 'r', 'R':
				if recursiveFlag(name, ch) {
					recursive = true
				}
			case 'f':
				if spec.op == "delete" || name == "cp" || name == "mv" || name == "ln" {
					force = true
				}
			case 'a':
				appendMode = true
			case 'i':
				inPlace = true
			}
			if strings.IndexByte(spec.shortVal, ch) >= 0 {
				opt := "-" + string(ch)
				if contains(spec.skipUnless, opt) {
					skipMoved = true
				}
				var vf field
				if j+1 < len(f.s) {
					vf = field{s: f.s[j+1:], dyn: f.dyn}
				} else if i+1 < len(args) {
					i++
					vf = args[i]
				}
				if op, ok := spec.optFiles[opt]; ok {
					optFile(vf, op)
				}
				break
			}
		}
	}
	skip := spec.skip
	if skipMoved {
		skip = 0
	}
	if extractsHere(name, args, operands) {
		// Without a destination option the members are written under the
		// working directory.
		a.extractTo(s, field{}, name, c)
	}
	last := spec.last
	if name == "install" && installDirs(args) {
		// install -d DIR...: every operand is a directory it creates.
		spec = &argSpec{op: "write"}
		last = ""
	}
	for _, f := range args {
		if f.s == "-t" || strings.HasPrefix(f.s, "--target-directory") || strings.HasPrefix(f.s, "-t") && len(f.s) > 2 && spec.optFiles["-t"] != "" {
			last = "" // every operand is a source
		}
	}
	var owner string
	if skip > len(operands) {
		skip = len(operands)
	}
	if spec.op == "chmod" && skip > 0 {
		mode = operands[0].s
	}
	if spec.op == "chown" && skip > 0 {
		owner = operands[0].s
	}
	operands = operands[skip:]
	if name == "cp" || name == "mv" || name == "install" {
		if dir, ok := targetDirValue(args); ok {
			a.landInRoot(s, name, operands, dir, false, copiesTrees(name, args), c)
		} else if len(operands) >= 2 {
			a.landInRoot(s, name, operands[:len(operands)-1], operands[len(operands)-1], false, copiesTrees(name, args), c)
		}
	}
	if name == "ln" && len(operands) == 2 && last != "" && !operands[0].dyn && !operands[1].dyn {
		a.addLink(operands[1].s, operands[0].s)
	}
	for i, f := range operands {
		op := spec.op
		if last != "" && i == len(operands)-1 && len(operands) >= 2 {
			op = last
		}
		if spec.first != "" && i == 0 {
			op = spec.first
		}
		switch {
		case name == "tee" && appendMode:
			op = "append"
		case name == "sed" && inPlace:
			op = "write"
		}
		a.addFile(s, f, op, name, c, fileFlags{recursive: recursive || alwaysRecursive[name], force: force,
			mode: mode, owner: owner})
	}
}

// optFile records the access of an option's path value; "extract" is
// the destination directory of an extraction.
func (a *analyzer) optFile(s *syntax.Stmt, f field, op, name string, c *ctx) {
	if op == "extract" {
		if f.s != "" {
			a.extractTo(s, f, name, c)
		}
		return
	}
	a.addFile(s, f, op, name, c, fileFlags{})
}

// extractsHere reports an extraction by unzip, 7z (x/e) or cpio (-i)
// with no destination option, which writes under the working directory.
func extractsHere(name string, args, operands []field) bool {
	switch name {
	case "unzip":
		return len(operands) > 0 && unzipsHere(args)
	case "7z", "7za", "7zr":
		if len(operands) == 0 || (operands[0].s != "x" && operands[0].s != "e") {
			return false
		}
		for _, f := range args {
			if strings.HasPrefix(f.s, "-o") {
				return false
			}
		}
		return true
	case "cpio":
		in := false
		for _, f := range args {
			switch {
			case f.s == "--extract":
				in = true
			case f.s == "--directory" || strings.HasPrefix(f.s, "--directory=") || strings.HasPrefix(f.s, "-D"):
				return false
			case strings.HasPrefix(f.s, "-") && !strings.HasPrefix(f.s, "--") && strings.IndexByte(f.s, 'i') > 0:
				in = true
			}
		}
		return in
	}
	return false
}

// unzipsHere reports an unzip that extracts into the working directory:
// no -d DIR, and no listing, testing or printing mode (-l, -t, -v, -z,
// -Z, -p).
func unzipsHere(args []field) bool {
	for _, f := range args {
		if strings.HasPrefix(f.s, "-") && !strings.HasPrefix(f.s, "--") && strings.ContainsAny(f.s, "dltvzZp") {
			return false
		}
	}
	return true
}

// unzipLists reports an unzip that lists, tests or prints (-l, -t, -v,
// -z, -Z, -p) rather than extracting.
func unzipLists(args []field) bool {
	for _, f := range args {
		if strings.HasPrefix(f.s, "-") && !strings.HasPrefix(f.s, "--") && !f.dyn && strings.ContainsAny(f.s, "ltvzZp") {
			return true
		}
	}
	return false
}

// installDirs reports install's -d/--directory mode, in which every
// operand is a directory to create.
func installDirs(args []field) bool {
	for _, f := range args {
		if f.s == "--directory" || strings.HasPrefix(f.s, "-") && !strings.HasPrefix(f.s, "--") &&
			strings.IndexByte(f.s, 'd') > 0 && strings.IndexAny(f.s, "mogtSC") < 0 {
			return true
		}
		if f.s == "--" {
			break
		}
	}
	return false
}

func isModeArg(s string) bool {
	if len(s) < 2 || s[0] != '-' {
		return false
	}
	for _, c := range s[1:] {
		if !strings.ContainsRune("rwxXst", c) {
			return false
		}
	}
	return true
}

// looksLikePath is the generic test for operands of unknown commands.
func looksLikePath(s string) bool {
	if s == "" || strings.HasPrefix(s, "-") || strings.Contains(s, "://") {
		return false
	}
	return strings.Contains(s, "/") || strings.HasPrefix(s, ".") || strings.HasPrefix(s, "~")
}

func (a *analyzer) genericRefs(s *syntax.Stmt, name string, args []field, c *ctx) {
	for _, f := range args {
		if f.s == placeholder && f.dyn && len(c.targets) > 0 {
			a.addFile(s, f, "ref", name, c, fileFlags{})
			continue
		}
		if f.dyn && !strings.HasPrefix(f.s, "~") && !strings.HasPrefix(f.s, "/") && !strings.HasPrefix(f.s, ".") {
			continue
		}
		if strings.HasPrefix(f.s, "-") && !f.dyn {
			// --config=~/.aws/credentials: the value of an option.
			if _, v, ok := strings.Cut(f.s, "="); ok && looksLikePath(v) && !strings.ContainsAny(v, "=: \t\n") {
				a.addFile(s, field{s: v}, "ref", name, c, fileFlags{})
			}
			continue
		}
		if looksLikePath(f.s) && !strings.ContainsAny(f.s, "=: \t\n") {
			a.addFile(s, f, "ref", name, c, fileFlags{})
		}
	}
}

// chattr [-RVf] [-v VERSION] [-p PROJECT] MODE… FILE…: a mode is
// [-+=] and attribute letters, so `-i` (drop immutable) is a mode, not an
// option; every file operand is changed (op chmod, Mode the modes).
func (a *analyzer) chattr(s *syntax.Stmt, name string, args []field, c *ctx) {
	var modes []string
	var files []field
	recursive := false
	for i := 0; i < len(args); i++ {
		f := args[i]
		switch {
		case f.dyn || len(files) > 0:
			files = append(files, f)
		case f.s == "-v" || f.s == "-p":
			i++
		case f.s == "-R":
			recursive = true
		case f.s == "-V" || f.s == "-f":
		case len(f.s) > 1 && strings.ContainsRune("-+=", rune(f.s[0])) && strings.Trim(f.s[1:], "aAcCdDeFijmPsStTux") == "":
			modes = append(modes, f.s)
		default:
			files = append(files, f)
		}
	}
	for _, f := range files {
		a.addFile(s, f, "chmod", name, c, fileFlags{recursive: recursive, mode: strings.Join(modes, " ")})
	}
}

func (a *analyzer) dd(s *syntax.Stmt, _ string, args []field, c *ctx) {
	for _, f := range args {
		if v, ok := strings.CutPrefix(f.s, "if="); ok {
			a.addFile(s, field{s: v, dyn: f.dyn, glob: f.glob}, "read", "dd", c, fileFlags{})
		} else if v, ok := strings.CutPrefix(f.s, "of="); ok {
			a.addFile(s, field{s: v, dyn: f.dyn, glob: f.glob}, "write", "dd", c, fileFlags{})
		}
	}
}

func (a *analyzer) tar(s *syntax.Stmt, _ string, args []field, c *ctx) {
	create := false
	var archive *field
	var operands []field
	var dir field    // the -C DIR in effect: later operands are under it
	var dirs []field // every -C DIR: where an extraction writes
	list := false    // -t/-d: members are listed or compared, not written
	under := func(f field) field {
		if dir.s == "" || f.s == "" || f.s[0] == '/' || f.s[0] == '~' || f.s[0] == '$' {
			return f
		}
		return field{s: dir.s + "/" + f.s, dyn: f.dyn || dir.dyn, glob: f.glob}
	}
	for i := 0; i < len(args); i++ {
		f := args[i]
		switch {
		case f.s == "-C" || f.s == "--directory":
			if i+1 < len(args) {
				dir = under(args[i+1])
				dirs = append(dirs, dir)
			}
			i++
			continue
		case strings.HasPrefix(f.s, "-C") && len(f.s) > 2:
			dir = under(field{s: f.s[2:], dyn: f.dyn})
			dirs = append(dirs, dir)
			continue
		case strings.HasPrefix(f.s, "--directory="):
			dir = under(field{s: strings.TrimPrefix(f.s, "--directory="), dyn: f.dyn})
			dirs = append(dirs, dir)
			continue
		case strings.HasPrefix(f.s, "--file="):
			v := field{s: strings.TrimPrefix(f.s, "--file="), dyn: f.dyn}
			archive = &v
		case f.s == "--file":
			if i+1 < len(args) {
				archive = &args[i+1]
				i++
			}
		case strings.HasPrefix(f.s, "--"):
			if f.s == "--create" || f.s == "--append" {
				create = true
			}
			if f.s == "--list" || f.s == "--diff" || f.s == "--compare" {
				list = true
			}
		case (strings.HasPrefix(f.s, "-") || (i == 0 && !f.dyn && !strings.Contains(f.s, "/") && !strings.Contains(f.s, "."))) && f.s != "-":
			cluster := strings.TrimPrefix(f.s, "-")
			if strings.ContainsAny(cluster, "cr") {
				create = true
			}
			if k := strings.IndexAny(cluster, "fC"); strings.ContainsAny(cluster, "td") && (k < 0 || strings.IndexAny(cluster, "td") < k) {
				list = true
			}
			if k := strings.IndexByte(cluster, 'f'); k >= 0 {
				if k+1 < len(cluster) {
					v := field{s: cluster[k+1:]}
					archive = &v
				} else if i+1 < len(args) {
					archive = &args[i+1]
					i++
				}
			}
		default:
			operands = append(operands, under(f))
		}
	}
	if archive != nil {
		op := "read"
		if create {
			op = "write"
		}
		a.addFile(s, *archive, op, "tar", c, fileFlags{})
	}
	for _, f := range operands {
		op := "ref"
		if create {
			op = "read"
		}
		a.addFile(s, f, op, "tar", c, fileFlags{recursive: create})
	}
	if !create && !list {
		// An extraction writes the archive's members under each -C DIR,
		// or under the working directory (`cd /etc && tar -xf a.tar`).
		if len(dirs) == 0 && archive != nil {
			dirs = append(dirs, field{s: "."})
		}
		for _, d := range dirs {
			a.extractTo(s, d, "tar", c)
		}
	}
}

// fileAccess records a plain access.
func (a *analyzer) fileAccess(s *syntax.Stmt, f field, op, by string, c *ctx) {
	a.addFile(s, f, op, by, c, fileFlags{})
}

// fileFlags are what a command's options add to the accesses of its
// operands. A plain value (not a callback) so that recording an access
// allocates nothing but the fact itself.
type fileFlags struct {
	recursive, force bool
	mode, owner      string
}

// addFile records a FileAccess for path field f; placeholder arguments of
// xargs/find -exec become the paths they stand for (recursively walked).
func (a *analyzer) addFile(s *syntax.Stmt, f field, op, by string, c *ctx, fl fileFlags) {
	if f.s == "" || f.s == "-" {
		return
	}
	if f.dyn && strings.Contains(f.s, placeholder) && len(c.targets) > 0 {
		for _, t := range c.targets {
			a.b.Facts.Files = append(a.b.Facts.Files, sdk.FileAccess{Path: a.resolveLink(normPath(t)), Op: op, By: by,
				Recursive: true, Force: fl.force, Mode: fl.mode, Owner: fl.owner, Glob: hasGlobMeta(t),
				Evidence: a.evidence(s.Pos()), Pos: a.pos(s.Pos())})
		}
		return
	}
	if ignoredDevice(f.s) || f.procSubst {
		return
	}
	p := normPath(f.s)
	if op == "cwd" {
		a.chdir(p, f.dyn)
	} else {
		p = a.underCwd(p, f.dyn)
	}
	if op != "link" && a.links != nil {
		p = a.resolveLink(p)
	}
	a.b.Facts.Files = append(a.b.Facts.Files, sdk.FileAccess{Path: p, Op: op, By: by,
		Recursive: fl.recursive, Force: fl.force, Mode: fl.mode, Owner: fl.owner, Glob: f.glob, Dynamic: f.dyn,
		Evidence: a.evidence(s.Pos()), Pos: a.pos(s.Pos())})
}

// chdir follows cd/pushd to a static directory outside the workspace (an
// absolute or home path, or one under such a directory), so the relative
// paths used after it are judged where they are (`cd ~/.ssh; cat config`,
// `cd /proc/self/root; cat etc/shadow`). A dynamic target forgets it; a
// relative one inside the workspace changes nothing the rules judge.
func (a *analyzer) chdir(p string, dyn bool) {
	switch {
	case dyn || p == "":
		a.cwd = ""
	case p[0] == '/' || p[0] == '~':
		a.cwd = p
	case a.cwd != "":
		a.cwd = normPath(a.cwd + "/" + p)
	}
}

// underCwd returns the path a relative path names under the directory cd
// last moved to (chdir); other paths are returned as they are.
func (a *analyzer) underCwd(p string, dyn bool) string {
	if a.cwd == "" || p == "" || p[0] == '/' || p[0] == '~' || dyn && strings.HasPrefix(p, "$") {
		return p
	}
	return normPath(a.cwd + "/" + p)
}

// addLink remembers that the script made link point at target (ln -s
// TARGET LINK; a LINK that is "." or ends in "/" is a directory the link
// is made in, named after the target).
func (a *analyzer) addLink(link, target string) {
	if link == "." || strings.HasSuffix(link, "/") {
		link = path.Join(link, path.Base(target))
	}
	l := normPath(link)
	t := normPath(target)
	if t == "" || l == "" || l == t {
		return
	}
	if t[0] != '/' && t[0] != '~' && strings.Contains(l, "/") {
		// a relative target is relative to the link's directory
		t = normPath(path.Dir(l) + "/" + t)
	}
	if a.links == nil {
		a.links = map[string]string{}
	}
	a.links[l] = t
}

// resolveLink rewrites a normalized path through a link the script made
// to the path it reaches ("keys/id_rsa" after ln -s ~/.ssh keys is
// "~/.ssh/id_rsa").
func (a *analyzer) resolveLink(p string) string {
	for range 4 { // links to links
		changed := false
		for l, t := range a.links {
			if p == l {
				p, changed = t, true
			} else if strings.HasPrefix(p, l+"/") {
				p, changed = normPath(t+p[len(l):]), true
			}
		}
		if !changed {
			break
		}
	}
	return p
}

// normPath is sdk.NormalizePath, the one path spelling the host's
// analyzers emit and the guest's rules compare: "./" prefixes, duplicate
// slashes, "." and ".." elements and trailing slashes removed, /proc/<pid>
// root and cwd aliases and $HOME resolved, home-relative paths cleaned
// against a concrete home. Dynamic text ($X) is kept as written.
func normPath(p string) string { return sdk.NormalizePath(p) }

// assumedHome stands for the home directory when a path climbs out of it.
const assumedHome = sdk.AssumedHome

// recursiveFlag reports whether short option ch means "recursive" for the
// command (sort -r reverses, ls -r reverses but ls -R recurses).
func recursiveFlag(name string, ch byte) bool {
	switch name {
	case "sort", "uniq", "tail", "head", "cat", "diff", "cmp", "tac", "touch", "truncate", "xxd", "od", "wc":
		return false
	case "ls", "dir":
		return ch == 'R'
	}
	return true
}

// alwaysRecursive commands walk the trees they are given.
var alwaysRecursive = map[string]bool{"du": true, "tree": true}
