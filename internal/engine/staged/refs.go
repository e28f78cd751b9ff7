package staged

import (
	"path"
	"regexp"
	"strings"

	"github.com/toolwarden/toolwarden/internal/engine/analyze/python"
	"github.com/toolwarden/toolwarden/sdk"
)

// Kinds of reference.
const (
	// KindScript: a file an interpreter is told to run (`python3 x.py`,
	// `bash x.sh`).
	KindScript = "script"
	// KindExec: a command word that is a path (`./x`, `bin/run`); the
	// file's shebang decides its language.
	KindExec = "exec"
	// KindSource: `source f` / `. f`.
	KindSource = "source"
	// KindMakefile: the makefile `make` reads.
	KindMakefile = "makefile"
	// KindModule: `python -m mod`.
	KindModule = "module"
	// KindImport: a Python import of a workspace module.
	KindImport = "import"
)

// Languages a referenced file is scanned as.
const (
	LangPython = "python"
	LangBash   = "bash"
	LangMake   = "make"
	// LangShebang: decided by the file's first line.
	LangShebang = ""
)

// Ref is one workspace file a command would run or load.
type Ref struct {
	Kind     string
	Language string
	// Candidates are the paths (as the command names them: relative to the
	// cwd, or absolute) the program would try. For KindImport every one
	// found is loaded (a/__init__.py, then a/b.py); for the other kinds the
	// first that exists is the file.
	Candidates []string
	// Rooted says the candidates are relative to the workspace root
	// (imports resolved against a file's directory) rather than named as a
	// command names them.
	Rooted bool
	// Entries, for KindListing, says what each entry of the listed
	// directory is to the program.
	Entries EntryRule
	// Via is the command or statement that refers to the file (evidence).
	Via  string
	Line int
}

// All reports whether every found candidate is loaded, not just the first
// (imports and -m load the packages on the way; scanning a candidate
// Python would not reach is only conservative).
func (r Ref) All() bool {
	return r.Kind == KindImport || r.Kind == KindModule || r.Kind == KindConftest
}

var pythonName = regexp.MustCompile(`^(python|pypy)[0-9.]*$`)

func isShell(name string) bool {
	switch name {
	case "sh", "bash", "dash", "zsh", "ksh", "ash", "mksh", "rbash":
		return true
	}
	return false
}

// Refs returns the workspace files the commands of f would run or load.
// Dynamic command names and arguments are skipped: their files cannot be
// named statically (the rules already review dynamic execution).
func Refs(f *sdk.Facts) []Ref {
	if f == nil {
		return nil
	}
	var out []Ref
	for i := range f.Commands {
		c := &f.Commands[i]
		if c.Dynamic {
			continue
		}
		ev := c.Evidence
		line := c.Pos.Line
		switch {
		case pythonName.MatchString(c.Name):
			out = append(out, pythonRefs(c, ev, line)...)
		case isShell(c.Name):
			if p, ok := shellScript(c); ok {
				out = append(out, Ref{Kind: KindScript, Language: LangBash, Candidates: []string{p}, Via: ev, Line: line})
			}
		case c.Name == "source" || c.Name == ".":
			if p, ok := firstStatic(c, 0); ok {
				out = append(out, Ref{Kind: KindSource, Language: LangBash, Candidates: []string{p}, Via: ev, Line: line})
			}
		case c.Name == "make" || c.Name == "gmake":
			out = append(out, makeRef(c, ev, line))
		}
		if strings.Contains(c.Path, "/") && !strings.ContainsAny(c.Path, "*?[") {
			out = append(out, Ref{Kind: KindExec, Language: LangShebang, Candidates: []string{c.Path}, Via: ev, Line: line})
		}
		out = append(out, startupRefs(c, ev, line)...)
	}
	return out
}

// firstStatic returns c's argument at index i when it is static.
func firstStatic(c *sdk.Command, i int) (string, bool) {
	if i >= len(c.Args) || dynamicArg(c, i) || c.Args[i] == "" {
		return "", false
	}
	return c.Args[i], true
}

func dynamicArg(c *sdk.Command, i int) bool {
	for _, d := range c.DynamicArgs {
		if d == i {
			return true
		}
	}
	return false
}

// pythonValueFlags are the interpreter's options that take a value.
var pythonValueFlags = map[string]bool{"-W": true, "-X": true, "-Q": true, "--check-hash-based-pycs": true}

func pythonRefs(c *sdk.Command, ev string, line int) []Ref {
	for i := 0; i < len(c.Args); i++ {
		a := c.Args[i]
		if dynamicArg(c, i) {
			return nil
		}
		switch {
		case a == "-" || a == "-c" || strings.HasPrefix(a, "-c") && !strings.HasPrefix(a, "--"):
			return nil // stdin or inline code: the analyzers scan it
		case a == "-m":
			if m, ok := firstStatic(c, i+1); ok {
				return []Ref{{Kind: KindModule, Language: LangPython, Candidates: moduleMain(m), Via: ev, Line: line}}
			}
			return nil
		case strings.HasPrefix(a, "-m") && len(a) > 2 && !strings.HasPrefix(a, "--"):
			return []Ref{{Kind: KindModule, Language: LangPython, Candidates: moduleMain(a[2:]), Via: ev, Line: line}}
		case pythonValueFlags[a]:
			i++
		case strings.HasPrefix(a, "-") && len(a) > 1:
			// -u, -B, -I, -E, -O, combined -uB, --version …
		default:
			return []Ref{{Kind: KindScript, Language: LangPython, Candidates: []string{a, path.Join(a, "__main__.py")}, Via: ev, Line: line}}
		}
	}
	return nil
}

// moduleMain lists what `python -m mod` runs, relative to the cwd (the
// first entry of sys.path): mod.py, or mod/__main__.py for a package; the
// packages on the way (a/__init__.py for a.b) are loaded first.
func moduleMain(mod string) []string {
	parts := strings.Split(mod, ".")
	var out []string
	for i := 1; i < len(parts); i++ {
		out = append(out, path.Join(parts[:i]...)+"/__init__.py")
	}
	p := path.Join(parts...)
	return append(out, p+".py", p+"/__init__.py", p+"/__main__.py")
}

// shellScript returns the script a shell is told to run: its first
// operand, unless -c or -s (inline or stdin) comes first.
func shellScript(c *sdk.Command) (string, bool) {
	for i := 0; i < len(c.Args); i++ {
		a := c.Args[i]
		if dynamicArg(c, i) {
			return "", false
		}
		switch {
		case a == "--":
			return firstStatic(c, i+1)
		case a == "-o" || a == "+o" || a == "--rcfile" || a == "--init-file":
			i++
		case strings.HasPrefix(a, "-") || strings.HasPrefix(a, "+"):
			if !strings.HasPrefix(a, "--") && strings.ContainsAny(a[1:], "cs") {
				return "", false
			}
		default:
			return a, true
		}
	}
	return "", false
}

// makeRef names the makefile make reads: -f/--file/--makefile, else
// GNUmakefile, makefile, Makefile in the directory (-C).
func makeRef(c *sdk.Command, ev string, line int) Ref {
	dir := ""
	var files []string
	for i := 0; i < len(c.Args); i++ {
		a := c.Args[i]
		next := func() string {
			if v, ok := firstStatic(c, i+1); ok {
				i++
				return v
			}
			return ""
		}
		switch {
		case a == "-f" || a == "--file" || a == "--makefile":
			if v := next(); v != "" {
				files = append(files, v)
			}
		case strings.HasPrefix(a, "--file=") || strings.HasPrefix(a, "--makefile="):
			files = append(files, a[strings.IndexByte(a, '=')+1:])
		case strings.HasPrefix(a, "-f") && len(a) > 2:
			files = append(files, a[2:])
		case a == "-C" || a == "--directory":
			dir = next()
		case strings.HasPrefix(a, "-C") && len(a) > 2:
			dir = a[2:]
		case strings.HasPrefix(a, "--directory="):
			dir = a[len("--directory="):]
		}
	}
	if len(files) == 0 {
		files = []string{"GNUmakefile", "makefile", "Makefile"}
	}
	for i, f := range files {
		if dir != "" && !path.IsAbs(f) {
			files[i] = path.Join(dir, f)
		}
	}
	return Ref{Kind: KindMakefile, Language: LangMake, Candidates: files, Via: ev, Line: line}
}

// ImportRefs returns the workspace modules that the Python source src
// imports, as Rooted refs. base is the workspace-relative directory the
// imports resolve against: the script's directory for a file, the cwd for
// inline code (sys.path[0]). Relative imports resolve against base too, and
// only when isFile (inline code has no package).
func ImportRefs(src, base string, isFile bool) []Ref {
	var out []Ref
	for _, im := range python.Imports(src) {
		root := base
		if im.Level > 0 {
			if !isFile {
				continue
			}
			for i := 1; i < im.Level; i++ {
				root = path.Dir(root)
			}
		}
		var parts []string
		if im.Module != "" {
			parts = strings.Split(im.Module, ".")
		}
		var cands []string
		for i := 1; i <= len(parts); i++ {
			p := path.Join(append([]string{root}, parts[:i]...)...)
			cands = append(cands, p+".py", p+"/__init__.py")
		}
		// `from pkg import name` may import the submodule pkg/name.
		for _, n := range im.Names {
			if n == "*" {
				continue
			}
			p := path.Join(append(append([]string{root}, parts...), n)...)
			cands = append(cands, p+".py", p+"/__init__.py")
		}
		if len(cands) > 0 {
			out = append(out, Ref{Kind: KindImport, Language: LangPython, Candidates: cands, Rooted: true,
				Via: "import " + strings.Repeat(".", im.Level) + im.Module, Line: im.Line})
		}
	}
	return out
}

// CdBases returns the directories the content may change to before it runs
// a file (`cd sub && python3 x.py`), relative to the cwd or absolute, in
// order, each alone and joined to the ones before it. unknown is set when a
// cd goes somewhere the scan cannot name (`cd "$D"`, `cd ~`): relative
// files run after it cannot be located.
func CdBases(f *sdk.Facts) (bases []string, unknown bool) {
	if f == nil {
		return nil, false
	}
	cur := ""
	seen := map[string]bool{}
	add := func(p string) {
		if p != "" && p != "." && !seen[p] {
			seen[p] = true
			bases = append(bases, p)
		}
	}
	for _, fa := range f.Files {
		if fa.Op != "cwd" {
			continue
		}
		p := fa.Path
		if fa.Dynamic || fa.Glob || p == "" || strings.HasPrefix(p, "~") || p == "-" {
			unknown = true
			continue
		}
		add(p)
		if path.IsAbs(p) {
			cur = p
		} else {
			cur = path.Join(cur, p)
		}
		add(cur)
	}
	return bases, unknown
}

// WithBases adds, for every ref named relative to the cwd, a copy of it
// resolved against each base (see CdBases).
func WithBases(refs []Ref, bases []string) []Ref {
	if len(bases) == 0 {
		return refs
	}
	out := refs
	for _, r := range refs {
		if r.Rooted {
			continue
		}
		for _, b := range bases {
			c := r
			c.Candidates = nil
			for _, cand := range r.Candidates {
				if !path.IsAbs(cand) {
					c.Candidates = append(c.Candidates, path.Join(b, cand))
				}
			}
			if len(c.Candidates) > 0 {
				out = append(out, c)
			}
		}
	}
	return out
}

// Relative reports whether some ref names a file relative to the cwd.
func Relative(refs []Ref) bool {
	for _, r := range refs {
		if r.Rooted {
			continue
		}
		for _, c := range r.Candidates {
			if !path.IsAbs(c) {
				return true
			}
		}
	}
	return false
}
