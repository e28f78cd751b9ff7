package python

import (
	"strconv"
	"strings"

	"github.com/toolwarden/toolwarden/sdk"
)

// The files topic: opens, reads, writes, deletes, copies and archives,
// through builtins, os, shutil, pathlib, tarfile/zipfile and the like.

// ---- files ----

func openOp(mode string) string {
	switch {
	case strings.ContainsAny(mode, "wx"):
		return "write"
	case strings.Contains(mode, "a"):
		return "append"
	case strings.Contains(mode, "+"):
		return "write"
	}
	return "read"
}

func (a *analyzer) openFile(c *callCtx, p *sym, mode *sym, by string) *sym {
	m := "r"
	if s, ok := mode.strVal(); ok && mode != nil {
		m = s
	}
	op := openOp(m)
	fa := a.fileAccess(c, p, op, by)
	r := &sym{kind: "expr", inst: "file", path: pathStrSym(p)}
	if fa != nil && op == "read" {
		r.fromFile = fa.Path
		// a file this content saved a download to holds downloaded bytes
		r.download = a.dlFiles[fa.Path]
	}
	if p != nil {
		r.taint(p)
		r.walkRoot = nil
	}
	if op == "read" && procEnviron(fa, p) {
		r.env = mergeNames(r.env, []string{"*"})
	}
	return r
}

func (a *analyzer) fileCall(c *callCtx) (*sym, bool) {
	n := c.name
	arg0 := c.arg(0, "")
	switch n {
	case "open", "io.open", "codecs.open", "gzip.open", "bz2.open", "lzma.open", "io.FileIO", "aiofiles.open":
		return a.openFile(c, c.arg(0, "file"), c.arg(1, "mode"), n), true
	case "tarfile.open", "zipfile.ZipFile", "tarfile.TarFile", "shelve.open", "dbm.open":
		r := a.openFile(c, c.arg(0, "name"), c.arg(1, "mode"), n)
		if n != "shelve.open" && n != "dbm.open" {
			// an archive: what is added to it is read (archiveCall)
			r.inst = "archive"
		}
		return r, true
	case "shutil.make_archive":
		// make_archive(base_name, format, root_dir=None, base_dir=None)
		// reads root_dir/base_dir (the working directory by default),
		// recursively, into the archive.
		root, base := c.arg(2, "root_dir"), c.arg(3, "base_dir")
		var src *sym
		switch {
		case root != nil && base != nil:
			src = osPath("os.path.join", []*sym{root, base})
		case root != nil:
			src = root
		case base != nil:
			src = base
		}
		if fa := a.fileAccess(c, src, "read", n); fa != nil {
			fa.Recursive = true
		}
		a.fileAccess(c, c.arg(0, "base_name"), "write", n)
		return nil, true
	case "os.open":
		flags := c.arg(1, "flags")
		op := "read"
		if flags != nil && (strings.Contains(flags.src, "WRONLY") || strings.Contains(flags.src, "RDWR") || strings.Contains(flags.src, "CREAT") || strings.Contains(flags.src, "TRUNC")) {
			op = "write"
		}
		if flags != nil && strings.Contains(flags.src, "APPEND") {
			op = "append"
		}
		a.fileAccess(c, arg0, op, n)
		return &sym{kind: "int"}, true
	case "dotenv.load_dotenv", "dotenv.dotenv_values", "dotenv.main.dotenv_values":
		p := c.arg(0, "dotenv_path")
		if p == nil || p.kind == "none" {
			p = strSym(".env")
		}
		fa := a.fileAccess(c, p, "read", n)
		r := &sym{kind: "expr"}
		if fa != nil {
			r.fromFile = fa.Path
		}
		return r, true
	case "pathlib.Path", "pathlib.PurePath":
		inst := n
		var p *sym
		if len(c.args) == 0 {
			p = strSym(".")
		} else {
			p = pathStrSym(c.args[0])
			for _, x := range c.args[1:] {
				p = pathStrSym(pathJoin(pathSym(p), x))
			}
		}
		return &sym{kind: "expr", inst: inst, path: p, src: p.src}, true
	case "pathlib.Path.home", "os.path.expanduser.home":
		return pathSym(strSym("~")), true
	case "pathlib.Path.cwd", "os.getcwd":
		if n == "os.getcwd" {
			return strSym("."), true
		}
		return pathSym(strSym(".")), true
	case "tempfile.gettempdir":
		return strSym("/tmp"), true
	case "os.path.join", "os.path.normpath", "os.path.abspath", "os.path.realpath", "os.path.expanduser", "os.path.expandvars":
		return osPath(n, c.args), true
	case "os.path.dirname", "os.path.basename":
		if s, ok := arg0.strVal(); ok && arg0 != nil {
			i := strings.LastIndexByte(s, '/')
			if n == "os.path.basename" {
				return strSym(s[i+1:]), true
			}
			if i < 0 {
				return strSym(""), true
			}
			return strSym(s[:i]), true
		}
		return nil, true
	case "os.remove", "os.unlink", "os.rmdir", "os.removedirs":
		a.fileAccess(c, c.arg(0, "path"), "delete", n)
		return nil, true
	case "shutil.rmtree":
		if fa := a.fileAccess(c, c.arg(0, "path"), "delete", n); fa != nil {
			fa.Recursive = true
			if v := c.arg(1, "ignore_errors"); v != nil {
				fa.Force, _ = v.truthy()
			}
		}
		return nil, true
	case "shutil.copy", "shutil.copy2", "shutil.copyfile", "shutil.copytree", "shutil.copyfileobj":
		if n == "shutil.copyfileobj" {
			return nil, true
		}
		src := a.fileAccess(c, c.arg(0, "src"), "copy_from", n)
		dst := a.fileAccess(c, c.arg(1, "dst"), "copy_to", n)
		if n == "shutil.copytree" {
			if src != nil {
				src.Recursive = true
			}
			if dst != nil {
				dst.Recursive = true
			}
		}
		return nil, true
	case "shutil.move", "os.rename", "os.replace", "os.renames":
		a.fileAccess(c, c.arg(0, "src"), "move", n)
		a.fileAccess(c, c.arg(1, "dst"), "move", n)
		return nil, true
	case "os.symlink", "os.link":
		a.fileAccess(c, c.arg(0, "src"), "link", n)
		a.fileAccess(c, c.arg(1, "dst"), "link", n)
		return nil, true
	case "os.chmod", "os.lchmod":
		if fa := a.fileAccess(c, c.arg(0, "path"), "chmod", n); fa != nil {
			fa.Mode = modeString(c.arg(1, "mode"))
		}
		return nil, true
	case "os.chown", "os.lchown", "shutil.chown":
		if fa := a.fileAccess(c, c.arg(0, "path"), "chown", n); fa != nil {
			if u := c.arg(1, "user"); u != nil {
				if s, ok := u.strVal(); ok {
					fa.Owner = s
				} else {
					fa.Owner = u.src
				}
			}
		}
		return nil, true
	case "os.makedirs", "os.mkdir", "os.mkfifo", "os.truncate":
		a.fileAccess(c, c.arg(0, "path"), "write", n)
		return nil, true
	case "os.listdir", "os.scandir":
		p := c.arg(0, "path")
		if p == nil {
			p = strSym(".")
		}
		a.fileAccess(c, p, "list", n)
		root := pathStrSym(p)
		el := &sym{kind: "expr", walkRoot: globRoot(root, "*"), src: "entry"}
		return &sym{kind: "expr", el: el}, true
	case "os.walk", "os.fwalk":
		p := c.arg(0, "top")
		a.fileAccess(c, p, "list", n)
		el := &sym{kind: "expr", walkRoot: pathStrSym(p), src: "entry"}
		return &sym{kind: "expr", el: el}, true
	case "glob.glob", "glob.iglob":
		p := c.arg(0, "pathname")
		ps := pathStrSym(p)
		cp := *ps
		cp.glob = true
		fa := a.fileAccess(c, &cp, "list", n)
		if fa != nil {
			fa.Glob = !fa.Dynamic && hasGlobMeta(fa.Path)
		}
		el := &sym{kind: "expr", walkRoot: &cp, src: "entry"}
		return &sym{kind: "expr", el: el}, true
	case "json.dump", "yaml.dump", "yaml.safe_dump", "pickle.dump":
		if f := c.arg(1, "fp"); f != nil && f.inst == "file" {
			a.output(c, "file", arg0)
		}
		return nil, true
	case "urllib.request.urlretrieve":
		a.netURL(c, n, c.arg(0, "url"), false)
		// (filename, headers): the file holds the downloaded bytes, so
		// opening, loading or running it later is using a download.
		saved := &sym{kind: "expr", src: "urlretrieve", dlPath: true}
		if p := c.arg(1, "filename"); p != nil {
			a.fileAccess(c, p, "write", n)
			a.markDownloaded(p)
			cp := *p
			cp.dlPath = true
			saved = &cp
		}
		return &sym{kind: "tuple", items: []*sym{saved, {kind: "expr", src: "headers"}}}, true
	case "pandas.read_csv", "pandas.read_json", "pandas.read_parquet", "numpy.load", "numpy.loadtxt", "sqlite3.connect":
		if arg0 != nil && (arg0.kind == "str" || arg0.inst == "pathlib.Path") {
			fa := a.fileAccess(c, arg0, "read", n)
			r := &sym{kind: "expr"}
			if fa != nil {
				r.fromFile = fa.Path
			}
			return r, true
		}
		return nil, true
	}
	if strings.HasPrefix(n, "archive.") && c.fn.recv != nil {
		return a.archiveCall(c, strings.TrimPrefix(n, "archive.")), true
	}
	if strings.HasPrefix(n, "file.") && c.fn.recv != nil {
		f := c.fn.recv
		switch strings.TrimPrefix(n, "file.") {
		case "write", "writelines":
			a.output(c, "file", c.args...)
			if f.path != nil && anyDownload(c.args) {
				a.markDownloaded(f.path)
			}
		case "read", "readline", "readlines", "__iter__":
			r := &sym{kind: "expr", fromFile: f.fromFile}
			return r.taint(f), true
		}
		return nil, true
	}
	if strings.HasPrefix(n, "pathlib.Path.") && c.fn.recv != nil {
		return a.pathMethod(c, strings.TrimPrefix(n, "pathlib.Path."), c.fn.recv), true
	}
	return nil, false
}

func globRoot(root *sym, pat string) *sym {
	if s, ok := root.strVal(); ok {
		r := strSym(joinPath(s, pat))
		r.glob = true
		return r
	}
	r := &sym{kind: "expr", src: root.src, prefix: root.prefix, glob: true}
	return r
}

func modeString(m *sym) string {
	if m == nil {
		return ""
	}
	if m.cnst && m.kind == "int" {
		return strconv.FormatInt(int64(m.num), 8)
	}
	if s, ok := m.strVal(); ok {
		return s
	}
	return m.src
}

// osPath folds os.path functions over constant parts.
func osPath(n string, args []*sym) *sym {
	if len(args) == 0 {
		return &sym{kind: "expr"}
	}
	switch n {
	case "os.path.join":
		out := ""
		r := &sym{kind: "str", cnst: true}
		for i, p := range args {
			ps := pathStrSym(p)
			r.taint(ps)
			if s, ok := ps.strVal(); ok && ps.kind == "str" {
				switch {
				case r.cnst:
					out = joinPath(out, s)
				case strings.HasPrefix(s, "/"):
					// an absolute part discards what came before it
					r.cnst, r.prefix, r.suffix, out = true, "", "", s
				default:
					// the text after the last dynamic part
					r.suffix = strings.TrimSuffix(r.suffix, "/") + "/" + s
				}
				continue
			}
			if r.cnst {
				r.cnst = false
				if i > 0 {
					r.prefix = strings.TrimSuffix(out, "/") + "/"
				}
			}
			r.suffix = ps.suffix
		}
		if r.cnst {
			r.s = out
			return r
		}
		r.kind = "expr"
		return r
	case "os.path.expanduser":
		p := pathStrSym(args[0])
		if s, ok := p.strVal(); ok {
			return strSym(s).taint(p)
		}
		return p
	case "os.path.expandvars":
		p := pathStrSym(args[0])
		if s, ok := p.strVal(); ok {
			return strSym(normPath(s)).taint(p)
		}
		return p
	default:
		p := pathStrSym(args[0])
		if s, ok := p.strVal(); ok {
			return strSym(normPath(s)).taint(p)
		}
		return p
	}
}

func (a *analyzer) pathMethod(c *callCtx, m string, recv *sym) *sym {
	n := c.name
	p := recv.path
	if p == nil {
		p = &sym{kind: "expr"}
	}
	switch m {
	case "read_text", "read_bytes":
		fa := a.fileAccess(c, recv, "read", n)
		r := &sym{kind: "expr"}
		if fa != nil {
			r.fromFile = fa.Path
		}
		if procEnviron(fa, recv) {
			r.env = mergeNames(r.env, []string{"*"})
		}
		return r.taint(p)
	case "write_text", "write_bytes":
		a.fileAccess(c, recv, "write", n)
		a.output(c, "file", c.args...)
		return nil
	case "open":
		return a.openFile(c, recv, c.arg(0, "mode"), n)
	case "unlink", "rmdir":
		a.fileAccess(c, recv, "delete", n)
		return nil
	case "mkdir", "touch":
		a.fileAccess(c, recv, "write", n)
		return nil
	case "rename", "replace":
		a.fileAccess(c, recv, "move", n)
		a.fileAccess(c, c.arg(0, "target"), "move", n)
		return nil
	case "symlink_to", "hardlink_to":
		a.fileAccess(c, recv, "link", n)
		return nil
	case "chmod":
		if fa := a.fileAccess(c, recv, "chmod", n); fa != nil {
			fa.Mode = modeString(c.arg(0, "mode"))
		}
		return nil
	case "glob", "rglob":
		pat, _ := c.arg(0, "pattern").strVal()
		pj := pathJoin(recv, strSym(pat))
		gp := *pathStrSym(pj)
		gp.glob = true
		fa := a.fileAccess(c, &gp, "list", n)
		if fa != nil {
			fa.Glob = !fa.Dynamic && hasGlobMeta(fa.Path)
		}
		root := &gp
		if m == "rglob" {
			root = p
		}
		return &sym{kind: "expr", el: pathSym((&sym{kind: "expr", walkRoot: root, src: "entry"}))}
	case "iterdir":
		a.fileAccess(c, recv, "list", n)
		return &sym{kind: "expr", el: pathSym(&sym{kind: "expr", walkRoot: globRoot(p, "*"), src: "entry"})}
	case "expanduser", "resolve", "absolute", "with_suffix", "with_name", "relative_to":
		if m == "expanduser" || m == "resolve" || m == "absolute" {
			return recv
		}
		return pathSym((&sym{kind: "expr"}).taint(p))
	case "joinpath":
		r := recv
		for _, x := range c.args {
			r = pathJoin(r, x)
		}
		return r
	case "exists", "is_file", "is_dir", "stat":
		return &sym{kind: "expr"}
	}
	return nil
}

func init() {
	registerAPI("files", apiOsChdir, "os.chdir")
	registerAPI("files", apiNetrc, "netrc.netrc")
	registerAPI("files", apiConfigParser, "configparser.ConfigParser", "configparser.RawConfigParser", "configparser.SafeConfigParser")
	registerAPI("files", apiConfigParserRead, "configparser.ConfigParser.read", "configparser.RawConfigParser.read", "configparser.SafeConfigParser.read")
}

// apiOsChdir follows a constant working-directory change, so relative
// paths opened afterwards are judged where they are. A change to a
// directory not known statically forgets the old one.
func apiOsChdir(a *analyzer, c *callCtx) *sym {
	d := pathStrSym(c.arg(0, "path"))
	if s, ok := d.strVal(); ok && d.isStr() {
		a.cwd = normPath(a.underCwd(s))
	} else {
		a.cwd = ""
	}
	return nil
}

// apiConfigParser makes a config parser whose read() reads files.
func apiConfigParser(a *analyzer, c *callCtx) *sym {
	return &sym{kind: "expr", inst: c.name}
}

// apiConfigParserRead records each file ConfigParser.read opens: one path
// or a list of them (a secret among setup.cfg and the like is still read).
func apiConfigParserRead(a *analyzer, c *callCtx) *sym {
	fs := c.arg(0, "filenames")
	if fs == nil {
		return nil
	}
	if fs.isSeq() {
		for _, it := range fs.items {
			a.fileAccess(c, it, "read", c.name)
		}
		return nil
	}
	a.fileAccess(c, fs, "read", c.name)
	return nil
}

// markDownloaded records that the file at p holds downloaded bytes: opening
// it reads a download (openFile), and running it, loading it or handing it
// to an interpreter runs downloaded code (runsDownload).
func (a *analyzer) markDownloaded(p *sym) {
	s, ok := p.strVal()
	if !ok {
		return
	}
	if a.dlFiles == nil {
		a.dlFiles = map[string]bool{}
	}
	a.dlFiles[normPath(s)] = true
}

// isDownloadedPath reports a path value naming a file this content filled
// with downloaded bytes.
func (a *analyzer) isDownloadedPath(v *sym) bool {
	if v == nil {
		return false
	}
	if v.dlPath {
		return true
	}
	s, ok := v.strVal()
	return ok && a.dlFiles[normPath(s)]
}

// archiveCall handles the methods of a tar or zip archive: the files added
// to it (TarFile.add, ZipFile.write) are read into it, recursively for a
// directory; extracting writes under the target directory.
func (a *analyzer) archiveCall(c *callCtx, method string) *sym {
	switch method {
	case "add":
		if fa := a.fileAccess(c, c.arg(0, "name"), "read", "tarfile.TarFile.add"); fa != nil {
			fa.Recursive = true
		}
	case "write":
		a.fileAccess(c, c.arg(0, "filename"), "read", "zipfile.ZipFile.write")
	case "extractall", "extract":
		if p := c.arg(0, "path"); p != nil && method == "extractall" {
			a.fileAccess(c, p, "write", "archive.extractall")
		}
	case "__enter__":
		return c.fn.recv
	}
	return nil
}

// procEnviron reports a read of a process's environment block
// (/proc/self/environ, /proc/1/environ, f'/proc/{pid}/environ', a glob
// over /proc/*/environ): its content is the whole environment, so it is
// judged like os.environ.
func procEnviron(fa *sdk.FileAccess, p *sym) bool {
	isEnv := func(s string) bool {
		return strings.HasPrefix(s, "/proc/") && strings.HasSuffix(strings.TrimRight(s, "/"), "/environ")
	}
	if fa != nil && isEnv(fa.Path) {
		return true
	}
	if p == nil {
		return false
	}
	ps := pathStrSym(p)
	if s, ok := ps.strVal(); ok && isEnv(normPath(s)) {
		return true
	}
	if strings.HasPrefix(ps.prefix, "/proc") && strings.HasSuffix(ps.suffix, "/environ") {
		return true
	}
	if root := ps.walkRoot; root != nil {
		if rs, ok := pathStrSym(root).strVal(); ok && strings.HasPrefix(normPath(rs), "/proc") && strings.HasSuffix(ps.suffix, "environ") {
			return true
		}
		if rs, ok := pathStrSym(root).strVal(); ok && root.glob && ps.suffix == "" && isEnv(normPath(rs)) {
			// an entry of Path('/proc').glob('*/environ') or
			// glob.glob('/proc/*/environ'): the pattern names it
			return true
		}
	}
	return false
}

// apiNetrc: netrc.netrc(file=None) reads the named file, or ~/.netrc (the
// stored credentials of every host) without one.
func apiNetrc(a *analyzer, c *callCtx) *sym {
	p := c.arg(0, "file")
	if p == nil || p.kind == "none" {
		p = strSym("~/.netrc")
	}
	fa := a.fileAccess(c, p, "read", c.name)
	r := &sym{kind: "expr", inst: c.name}
	if fa != nil {
		r.fromFile = fa.Path
	}
	return r.taint(p)
}
