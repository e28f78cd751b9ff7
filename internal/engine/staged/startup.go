package staged

import (
	"encoding/json"
	"path"
	"regexp"
	"sort"
	"strings"

	"github.com/toolwarden/toolwarden/sdk"
)

// Kinds of startup reference: files a program loads on its own, whatever
// the command line says. HOME is the workspace, so one run can plant them
// for a later run's tools.
const (
	// KindStartup: a startup or configuration file the program reads (a
	// python user-site customize module, a git config).
	KindStartup = "startup"
	// KindListing: a directory whose entries the program loads
	// (site-packages/*.pth, .git/hooks/*); its candidates are listing
	// paths (IsListing) and Entries says what each entry is.
	KindListing = "listing"
)

// Languages of startup files, converted before they are scanned.
const (
	// LangPth: a .pth file: its lines starting with `import` are Python
	// code run at every interpreter start; other lines are paths.
	LangPth = "pth"
	// LangGitConfig: a git config file: the values of its command keys
	// (core.pager, core.fsmonitor, alias.x=!cmd, …) are shell code.
	LangGitConfig = "gitconfig"
	// LangGitFile: a `.git` that is a file (`gitdir: path`, a worktree or
	// submodule): the config and hooks it points to are not followed, so
	// it is never judged safe.
	LangGitFile = "gitfile"
	// LangPackageJSON: a package.json: the values of its "scripts" are
	// shell code that npm, yarn, pnpm and bun run (`npm test`, `npm run
	// x`, install hooks).
	LangPackageJSON = "packagejson"
)

// nodeRunners run package.json scripts.
var nodeRunners = map[string]bool{"npm": true, "yarn": true, "pnpm": true, "bun": true, "npx": true}

// pythonTools are programs that are Python interpreters in disguise
// (console-script entry points): running one loads the user site too.
var pythonTools = map[string]bool{
	"pip": true, "pip3": true, "pytest": true, "py.test": true, "ipython": true, "ipython3": true, "jupyter": true,
	"mypy": true, "black": true, "flake8": true, "pylint": true, "isort": true, "tox": true, "nox": true,
	"poetry": true, "pipenv": true, "pipx": true, "django-admin": true, "flask": true, "uvicorn": true, "gunicorn": true,
	"celery": true, "coverage": true, "pre-commit": true, "twine": true, "sphinx-build": true, "ansible": true,
	"ansible-playbook": true, "pdm": true, "hatch": true, "virtualenv": true,
}

// extraGitCommandKeys are keys, beyond the ones `git -c` is checked for
// (bash.IsGitCommandKey), whose value git runs as a program: a stored
// config is read by every later git command, so the scan of a config file
// errs wide. Sectioned ones are matched on their first and last part.
var extraGitCommandKeys = map[string]bool{
	"credential.helper": true, "core.gitproxy": true, "interactive.difffilter": true,
	"core.alternaterefscommand": true, "remote.uploadpack": true, "remote.receivepack": true,
	"browser.cmd": true, "browser.path": true, "man.cmd": true, "man.path": true, "sendemail.smtpserver": true,
	"sendemail.sendmailcmd": true, "sendemail.tocmd": true, "sendemail.cccmd": true,
}

// GitCommandKey reports whether git runs the value of key (lower case) as a
// program, given the keys bash checks on the command line (isCommandKey).
func GitCommandKey(key string, isCommandKey func(string) bool) bool {
	if isCommandKey(key) || extraGitCommandKeys[key] {
		return true
	}
	parts := strings.Split(key, ".")
	return len(parts) > 2 && extraGitCommandKeys[parts[0]+"."+parts[len(parts)-1]]
}

// Entry is what one entry of a listed directory is to the program.
type Entry struct {
	// Load says the program loads the entry (or Sub under it); the zero
	// Entry is one the program ignores.
	Load bool
	// Language the loaded file is scanned as (LangShebang: its first line
	// decides).
	Language string
	// Sub, when set, is a path under the entry: a listing path (ending in
	// "/") to read in turn (python3.12 → python3.12/site-packages/), or a
	// file of the entry directory scanned as Language (a package's
	// __init__.py).
	Sub string
	// Rule is the EntryRule of the listing Sub names.
	Rule EntryRule
}

// EntryRule decides, from an entry's name, what it is (see Entry).
type EntryRule func(name string) Entry

var pythonLibDir = regexp.MustCompile(`^python3(\.[0-9]+)?$`)

// userSiteLib: ~/.local/lib/python3.X/site-packages: the entries of the
// lib directory are versions, each holding a site-packages to list.
func userSiteLib(name string) Entry {
	if pythonLibDir.MatchString(name) {
		return Entry{Load: true, Sub: "site-packages/", Rule: sitePackages}
	}
	return Entry{}
}

// sitePackages: site.py runs every *.pth file's import lines and imports
// usercustomize (and sitecustomize, found on sys.path, which holds the
// user site).
func sitePackages(name string) Entry {
	switch {
	case strings.HasSuffix(name, ".pth"): // hidden ones too: Python before 3.13 loads them
		return Entry{Load: true, Language: LangPth}
	case name == "usercustomize.py" || name == "sitecustomize.py":
		return Entry{Load: true, Language: LangPython}
	case name == "usercustomize" || name == "sitecustomize":
		return Entry{Load: true, Language: LangPython, Sub: "__init__.py"}
	}
	return Entry{}
}

// gitHooks: git runs a hook by its name; *.sample files are inert.
func gitHooks(name string) Entry {
	if strings.HasSuffix(name, ".sample") || strings.HasPrefix(name, ".") {
		return Entry{}
	}
	return Entry{Load: true, Language: LangShebang}
}

// maxRepoDepth bounds the parents of the cwd searched for a repository.
const maxRepoDepth = 32

// startupRefs is the table of what a program loads at start from the
// workspace (HOME included), by command name: python interpreters and
// python tools load the user site (.pth files, usercustomize and
// sitecustomize) and a venv's site-packages; pytest imports conftest.py
// files; npm, yarn, pnpm and bun run package.json scripts; git loads the
// global config under HOME, the repository's .git/config (the repository
// of the cwd or a parent) and runs its hooks.
func startupRefs(c *sdk.Command, ev string, line int) []Ref {
	var refs []Ref
	if pythonName.MatchString(c.Name) || pythonTools[c.Name] || strings.HasPrefix(c.Name, "pip3.") {
		refs = append(refs, UserSite(ev, line)...)
		if venv := path.Dir(path.Dir(c.Path)); strings.Contains(c.Path, "/") && path.Base(path.Dir(c.Path)) == "bin" {
			// .venv/bin/python3: the environment's own site-packages.
			refs = append(refs, Ref{Kind: KindListing, Candidates: []string{path.Join(venv, "lib") + "/"}, Entries: userSiteLib,
				Via: ev + " (environment site-packages)", Line: line})
		}
	}
	switch {
	case c.Name == "pytest" || c.Name == "py.test" || pythonName.MatchString(c.Name) && pythonModule(c) == "pytest":
		// conftest.py of the cwd and its parents (up to the rootdir), of
		// the usual test directories and of the paths named are imported
		// before any test runs.
		dir := optDir(c, "--rootdir")
		cands := upward(dir, "conftest.py")
		for _, d := range []string{"tests", "test", "testing"} {
			cands = append(cands, path.Join(dir, d, "conftest.py"))
		}
		for i, a := range c.Args {
			if !strings.HasPrefix(a, "-") && !dynamicArg(c, i) && a != "pytest" && (i == 0 || c.Args[i-1] != "-m") {
				// a test directory or file: conftest.py of it and of its
				// parents (a file's own "conftest" is simply absent).
				p := strings.SplitN(a, "::", 2)[0]
				cands = append(cands, path.Join(p, "conftest.py"))
				cands = append(cands, upward(path.Dir(p), "conftest.py")...)
			}
		}
		refs = append(refs, Ref{Kind: KindConftest, Language: LangPython, Candidates: cands, Via: ev + " (conftest)", Line: line})
	case nodeRunners[c.Name]:
		// The package root is the cwd or its nearest parent holding a
		// package.json; every script is scanned (lifecycle hooks run
		// around the named one, install runs several).
		dir := optDir(c, "--prefix", "--cwd", "-C", "--dir")
		refs = append(refs, Ref{Kind: KindStartup, Language: LangPackageJSON, Candidates: upward(dir, "package.json"),
			Via: ev + " (package scripts)", Line: line})
	case c.Name == "git":
		dir := gitDir(c)
		var cfg, hooks, files []string
		for up := range maxRepoDepth {
			base := path.Join(dir, strings.Repeat("../", up))
			cfg = append(cfg, path.Join(base, ".git/config"))
			hooks = append(hooks, path.Join(base, ".git/hooks")+"/")
			files = append(files, path.Join(base, ".git"))
		}
		refs = append(refs, []Ref{
			{Kind: KindStartup, Language: LangGitConfig, Candidates: []string{".gitconfig"}, Rooted: true, Via: ev + " (global config)", Line: line},
			{Kind: KindStartup, Language: LangGitConfig, Candidates: []string{".config/git/config"}, Rooted: true, Via: ev + " (global config)", Line: line},
			{Kind: KindStartup, Language: LangGitConfig, Candidates: cfg, Via: ev + " (repository config)", Line: line},
			{Kind: KindListing, Candidates: hooks, Entries: gitHooks, Via: ev + " (hooks)", Line: line},
			{Kind: KindStartup, Language: LangGitFile, Candidates: files, Via: ev + " (gitdir file)", Line: line},
		}...)
	}
	return refs
}

// UserSite is what every python start loads from HOME (the workspace):
// the user site-packages of each python3.X under ~/.local/lib. The scan
// adds it for a python command and for a workspace file whose shebang
// names python (`./tool`).
func UserSite(via string, line int) []Ref {
	return []Ref{{Kind: KindListing, Candidates: []string{".local/lib/"}, Rooted: true, Entries: userSiteLib,
		Via: via + " (user site-packages)", Line: line}}
}

// KindConftest: conftest.py files pytest imports; every one found is
// loaded.
const KindConftest = "conftest"

// upward lists name in dir and each of its parents, nearest first, up to
// maxRepoDepth levels (names that leave the workspace are dropped by the
// caller's Rel).
func upward(dir, name string) []string {
	out := make([]string, 0, maxRepoDepth)
	for up := range maxRepoDepth {
		out = append(out, path.Join(dir, strings.Repeat("../", up), name))
	}
	return out
}

// optDir is the directory given by the first of opts (`--prefix dir` or
// `--prefix=dir`), relative to the cwd, else ".".
func optDir(c *sdk.Command, opts ...string) string {
	for i, a := range c.Args {
		for _, o := range opts {
			if a == o {
				if v, ok := firstStatic(c, i+1); ok {
					return path.Clean(v)
				}
			}
			if v, ok := strings.CutPrefix(a, o+"="); ok && v != "" && !dynamicArg(c, i) {
				return path.Clean(v)
			}
		}
	}
	return "."
}

// pythonModule is the module of `python -m mod`, or "".
func pythonModule(c *sdk.Command) string {
	for i, a := range c.Args {
		if a == "-m" {
			if v, ok := firstStatic(c, i+1); ok {
				return v
			}
		}
	}
	return ""
}

// PackageScripts turns a package.json into the shell its "scripts" run:
// each script at the line of its key (or appended), other lines empty. ok
// is false when the file is not a JSON object (the runner would refuse it,
// the scan does not vouch for it).
func PackageScripts(src string) (shell string, ok bool) {
	var doc struct {
		Scripts map[string]any `json:"scripts"`
	}
	if err := json.Unmarshal([]byte(src), &doc); err != nil {
		return "", false
	}
	lines := strings.Split(src, "\n")
	out := make([]string, len(lines))
	names := make([]string, 0, len(doc.Scripts))
	for n := range doc.Scripts {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		v, isStr := doc.Scripts[n].(string)
		if !isStr || strings.TrimSpace(v) == "" {
			continue
		}
		key, _ := json.Marshal(n)
		body := strings.ReplaceAll(v, "\n", "; ")
		placed := false
		for i, l := range lines {
			if out[i] == "" && strings.Contains(l, string(key)) && strings.Contains(l, ":") {
				out[i], placed = body, true
				break
			}
		}
		if !placed {
			out = append(out, body)
		}
	}
	return strings.Join(out, "\n"), true
}

// gitDir is the directory git starts in: -C dir (relative to the cwd),
// else the cwd.
func gitDir(c *sdk.Command) string {
	dir := "."
	for i := 0; i+1 < len(c.Args); i++ {
		a := c.Args[i]
		switch {
		case a == "-C":
			if v, ok := firstStatic(c, i+1); ok {
				if path.IsAbs(v) {
					dir = path.Clean(v)
				} else {
					dir = path.Join(dir, v)
				}
			}
			i++
		case a == "-c" || a == "--git-dir" || a == "--work-tree" || a == "--namespace":
			i++
		case !strings.HasPrefix(a, "-"):
			return dir
		}
	}
	return dir
}

// PthToPython keeps the lines of a .pth file that Python executes (those
// starting with `import` followed by a space or tab) and blanks the rest,
// line for line.
func PthToPython(src string) string {
	lines := strings.Split(src, "\n")
	for i, l := range lines {
		if !(strings.HasPrefix(l, "import ") || strings.HasPrefix(l, "import\t")) {
			lines[i] = ""
		}
	}
	return strings.Join(lines, "\n")
}

// GitConfig is a git config file turned into the shell it amounts to.
type GitConfig struct {
	// Shell holds, line for line, the commands its command keys run
	// (`alias.x = !cmd` → cmd, `alias.x = log -p` → git log -p).
	Shell string
	// Unscanned names keys that make git load or run files the scan does
	// not follow (include.path, includeIf.*.path, core.hooksPath).
	Unscanned []string
}

// GitConfigToShell parses a git config file (sections, subsections,
// quoted values, comments, continuations) and keeps the values of keys
// for which isCommandKey is true as shell lines, at their line.
func GitConfigToShell(src string, isCommandKey func(key string) bool) GitConfig {
	lines := strings.Split(src, "\n")
	out := make([]string, len(lines))
	var g GitConfig
	section := ""
	for i := 0; i < len(lines); i++ {
		start := i
		l := strings.TrimSpace(lines[i])
		if strings.HasPrefix(l, "[") {
			end := strings.IndexByte(l, ']')
			if end < 0 {
				continue
			}
			head := strings.TrimSpace(l[1:end])
			if name, sub, ok := strings.Cut(head, " "); ok {
				section = strings.ToLower(name) + "." + strings.Trim(strings.TrimSpace(sub), `"`)
			} else {
				section = strings.ToLower(head)
			}
			l = strings.TrimSpace(l[end+1:]) // `[core] pager = x` on one line
		}
		if l == "" || l[0] == '#' || l[0] == ';' {
			continue
		}
		for strings.HasSuffix(l, "\\") && i+1 < len(lines) {
			i++
			l = l[:len(l)-1] + lines[i]
		}
		k, v, _ := strings.Cut(l, "=")
		key := section + "." + strings.ToLower(strings.TrimSpace(k))
		val := gitValue(v)
		sec, _, _ := strings.Cut(section, ".")
		switch {
		case key == "include.path" || sec == "includeif" && strings.HasSuffix(key, ".path") || key == "core.hookspath":
			g.Unscanned = append(g.Unscanned, key)
		case strings.HasPrefix(key, "alias.") && val != "":
			if strings.HasPrefix(val, "!") {
				out[start] = val[1:]
			} else {
				out[start] = "git " + val
			}
		case val != "" && isCommandKey(key):
			out[start] = strings.TrimPrefix(val, "!")
		}
	}
	g.Shell = strings.Join(out, "\n")
	return g
}

// gitValue unquotes a git config value: double quotes group, backslash
// escapes, # and ; outside quotes start a comment.
func gitValue(v string) string {
	var b strings.Builder
	v = strings.TrimSpace(v)
	inQ := false
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case c == '"':
			inQ = !inQ
		case c == '\\' && i+1 < len(v):
			i++
			switch v[i] {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			default:
				b.WriteByte(v[i])
			}
		case (c == '#' || c == ';') && !inQ:
			return strings.TrimSpace(b.String())
		default:
			b.WriteByte(c)
		}
	}
	return strings.TrimSpace(b.String())
}
