// Package process is the built-in rule pack for what content runs:
// privilege escalation, dependency installs, obfuscated execution, fork
// bombs, Python process execution and shell injection, dynamic code, inline
// interpreters, the command allowlist and shell features.
package process

import (
	"fmt"
	"math/bits"
	"strconv"
	"strings"

	"github.com/toolwarden/toolwarden/rules-wasm/packs/internal/catalog"
	"github.com/toolwarden/toolwarden/rules-wasm/packs/internal/lookup"
	"github.com/toolwarden/toolwarden/rules-wasm/packs/internal/match"
	"github.com/toolwarden/toolwarden/sdk"
)

var ruleIDs = []string{"BASH_PRIVILEGE_ESCALATION", "DEPENDENCY_INSTALL", "BASH_OBFUSCATED_EXEC",
	"PY_OBFUSCATED_EXEC", "BASH_FORK_BOMB", "PY_PROCESS_EXECUTION_REVIEW", "PY_SHELL_INJECTION_RISK",
	"PY_DYNAMIC_CODE_EXECUTION", "BASH_INLINE_INTERPRETER_REVIEW", "BASH_COMMAND_REVIEW",
	"BASH_SHELL_FEATURE_REVIEW"}

// Info describes the pack for the host's describe call.
func Info() sdk.PluginInfo {
	return sdk.PluginInfo{Name: "toolwarden-process", Version: catalog.Version, Rules: catalog.Infos(ruleIDs...)}
}

// Scan judges the command, call and code-execution facts of one scan input.
func Scan(in *sdk.ScanInput) ([]sdk.Finding, error) {
	var env catalog.Env
	if err := env.Init(in); err != nil {
		return nil, fmt.Errorf("process pack: %w", err)
	}
	e := &env
	checkPrivilege(e)
	checkInstalls(e)
	checkObfuscation(e)
	checkForkBomb(e)
	checkPythonProcess(e)
	checkDynamicCode(e)
	checkInline(e)
	checkAllowlist(e)
	checkShellFeatures(e)
	return e.Findings(), nil
}

var escalators = []string{"sudo", "su", "doas", "pkexec", "runuser", "sudoedit", "gosu", "su-exec", "setpriv", "calife"}

// The commands each check walks (see catalog.Kind).
var (
	kindPrivilege = catalog.NamesKind(append(escalators, "chmod", "chown", "chgrp", "setcap", "usermod", "gpasswd",
		"adduser", "useradd", "passwd", "visudo", "chpasswd", "nsenter", "docker", "podman", "nerdctl")...)
	// kindInstall: what installArgv may recognize, including commands
	// whose name is not known (`$PY -m pip install`).
	kindInstall = catalog.NewKind(catalog.KindSpec{
		Names: append(append(keysOf(installVerbs), "pacman", "yay", "paru", "sudo", "doas"),
			catalog.InterpreterNames()...),
		Prefixes: append([]string{"pip"}, catalog.InterpreterPrefixes...), Dynamic: true, BaseNames: true})
	// kindRunner: commands that run code they read (interpreters, eval,
	// source) or a script path, and commands reached through decoded
	// content.
	kindRunner = catalog.NewKind(catalog.KindSpec{Names: append(catalog.InterpreterNames(), "eval", "source", "."),
		Prefixes: catalog.InterpreterPrefixes, ScriptPath: true, Encoded: true})
	kindShellFeature = catalog.NewKind(catalog.KindSpec{ShellFeature: true})
)

func keysOf[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

func checkPrivilege(e *catalog.Env) {
	d := catalog.Switch(e.Policy.DenyPrivilegeEscalation)
	add := func(ev string, pos sdk.Pos, key, msg string, meta map[string]any) {
		e.Add(catalog.Finding{Rule: "BASH_PRIVILEGE_ESCALATION", Decision: d, Evidence: ev, Pos: pos, Key: key,
			Message: msg, Metadata: meta})
	}
	for _, i := range e.Commands(kindPrivilege) {
		c := &e.Facts.Commands[i]
		switch {
		case catalog.Is(c, escalators...):
			n := firstOf(c, escalators)
			add(c.Evidence, c.Pos, n, fmt.Sprintf("%s runs a command with elevated privileges.", n),
				map[string]any{"command": n})
		case catalog.Is(c, "chmod"):
			ops, _ := catalog.Operands(c)
			if len(ops) < 2 {
				continue
			}
			rec := catalog.HasShortFlag(c.Args, 'R', "--recursive")
			if why := chmodRisk(ops[0], ops[1:], rec); why != "" {
				add(c.Evidence, c.Pos, "chmod", why, map[string]any{"mode": ops[0], "path": ops[1]})
			}
		case catalog.Is(c, "chown", "chgrp"):
			ops, _ := catalog.Operands(c)
			if len(ops) >= 2 && isRootOwner(ops[0]) {
				add(c.Evidence, c.Pos, "chown", fmt.Sprintf("%s gives %s to root.", c.Name, ops[1]),
					map[string]any{"owner": ops[0], "path": ops[1]})
			}
		case catalog.Is(c, "setcap"):
			add(c.Evidence, c.Pos, "setcap", "setcap grants file capabilities.", map[string]any{"command": "setcap"})
		case catalog.Is(c, "usermod", "gpasswd", "adduser", "useradd", "passwd", "visudo", "chpasswd"):
			add(c.Evidence, c.Pos, c.Name, fmt.Sprintf("%s changes accounts or group membership.", c.Name),
				map[string]any{"command": c.Name})
		case catalog.Is(c, "nsenter"):
			add(c.Evidence, c.Pos, "nsenter", "nsenter enters another process's namespaces.", map[string]any{"command": "nsenter"})
		case catalog.Is(c, "docker", "podman", "nerdctl"):
			if why := containerRisk(c.Args); why != "" {
				add(c.Evidence, c.Pos, "container", fmt.Sprintf("%s %s.", c.Name, why), map[string]any{"command": c.Name})
			}
		}
	}
	for _, f := range e.Facts.Files {
		switch {
		case f.Op == "chmod" && f.Mode != "":
			if why := chmodRisk(f.Mode, []string{f.Path}, f.Recursive); why != "" {
				add(f.Evidence, f.Pos, "chmod", why, map[string]any{"mode": f.Mode, "path": f.Path})
			}
		case f.Op == "chown" && isRootOwner(f.Owner):
			add(f.Evidence, f.Pos, "chown", fmt.Sprintf("%s gives %s to root.", f.By, f.Path),
				map[string]any{"owner": f.Owner, "path": f.Path})
		}
	}
	for i := range e.Facts.Calls {
		c := &e.Facts.Calls[i]
		switch c.Name {
		case "os.setuid", "os.seteuid", "os.setreuid", "os.setresuid", "os.setgid", "os.setegid", "os.setresgid":
			add(c.Evidence, c.Pos, c.Name, fmt.Sprintf("%s changes the process identity.", c.Name), map[string]any{"api": c.Name})
		case "os.chmod":
			if len(c.Args) >= 2 && c.Args[1].Const {
				if m, ok := parseMode(c.Args[1].Str); ok && m&0o6000 != 0 {
					add(c.Evidence, c.Pos, "chmod", "os.chmod sets a setuid/setgid bit.", map[string]any{"api": c.Name})
				}
			}
		case "os.chown", "os.lchown", "shutil.chown":
			if len(c.Args) >= 2 && c.Args[1].Const && (c.Args[1].Str == "0" || c.Args[1].Str == "root") {
				add(c.Evidence, c.Pos, "chown", fmt.Sprintf("%s gives a file to root.", c.Name), map[string]any{"api": c.Name})
			}
		}
	}
}

func firstOf(c *sdk.Command, names []string) string {
	for _, n := range catalog.Names(c) {
		for _, w := range names {
			if n == w {
				return n
			}
		}
	}
	return c.Name
}

func isRootOwner(o string) bool {
	o = strings.TrimSpace(o)
	user := o
	if i := strings.IndexAny(o, ":."); i >= 0 {
		user = o[:i]
	}
	return user == "root" || user == "0"
}

// parseMode parses an octal mode as written ("4755", "0o4755") or an int
// folded by the Python analyzer ("2541").
func parseMode(s string) (int64, bool) {
	s = strings.TrimSpace(s)
	if strings.HasPrefix(s, "0o") || strings.HasPrefix(s, "0O") {
		v, err := strconv.ParseInt(s[2:], 8, 32)
		return v, err == nil
	}
	v, err := strconv.ParseInt(s, 10, 32)
	return v, err == nil
}

// chmodRisk explains why a chmod escalates: a setuid/setgid bit, or opening
// up a system tree to everyone.
func chmodRisk(mode string, paths []string, recursive bool) string {
	m := strings.TrimSpace(mode)
	setid := false
	if len(m) > 0 && m[0] >= '0' && m[0] <= '7' {
		if len(m) == 4 || (len(m) == 5 && m[0] == '0') {
			d := m[len(m)-4]
			setid = d == '2' || d == '4' || d == '6' || d == '3' || d == '5' || d == '7'
		}
	} else {
		for _, part := range strings.Split(m, ",") {
			if i := strings.IndexAny(part, "+="); i >= 0 && strings.ContainsRune(part[i:], 's') {
				setid = true
			}
		}
	}
	if setid {
		return fmt.Sprintf("chmod %s sets a setuid/setgid bit on %s.", mode, strings.Join(paths, " "))
	}
	worldWrite := strings.HasSuffix(m, "777") || strings.HasSuffix(m, "666") || strings.Contains(m, "o+w") || strings.Contains(m, "a+w")
	if worldWrite {
		for _, p := range paths {
			if match.IsSystemTree(p) || (recursive && match.CleanPath(p) == "/") {
				return fmt.Sprintf("chmod %s makes system path %s writable by everyone.", mode, p)
			}
		}
	}
	return ""
}

func containerRisk(args []string) string {
	for i, a := range args {
		switch {
		case a == "--privileged" || a == "--privileged=true":
			return "runs a privileged container"
		case strings.HasPrefix(a, "--pid=host") || strings.HasPrefix(a, "--userns=host") || (a == "--pid" && i+1 < len(args) && args[i+1] == "host"):
			return "shares the host's process namespace"
		case strings.HasPrefix(a, "--cap-add") && (strings.Contains(a, "SYS_ADMIN") || strings.Contains(a, "ALL") ||
			(a == "--cap-add" && i+1 < len(args) && (args[i+1] == "SYS_ADMIN" || args[i+1] == "ALL"))):
			return "adds administrative capabilities"
		case a == "-v" || a == "--volume" || strings.HasPrefix(a, "-v") || strings.HasPrefix(a, "--volume=") || strings.HasPrefix(a, "--mount"):
			spec := strings.TrimPrefix(strings.TrimPrefix(a, "--volume="), "-v")
			if (a == "-v" || a == "--volume" || a == "--mount") && i+1 < len(args) {
				spec = args[i+1]
			}
			if strings.HasPrefix(spec, "/:") || strings.Contains(spec, "source=/,") || strings.HasPrefix(spec, "/var/run/docker.sock") ||
				strings.HasPrefix(spec, "/etc:") || strings.HasPrefix(spec, "/root:") {
				return "mounts the host's root file system or Docker socket"
			}
		}
	}
	return ""
}

// ---- dependency installs ----

// installVerbs maps package managers to the subcommands that install.
var installVerbs = map[string][]string{
	"pip": {"install"}, "pipx": {"install", "inject", "run"}, "pipenv": {"install", "sync"},
	"poetry": {"add", "install"}, "pdm": {"add", "install"}, "uv": {"add", "pip", "tool", "sync"},
	"easy_install": {""}, "conda": {"install", "create"}, "mamba": {"install", "create"},
	"micromamba": {"install", "create"}, "npm": {"install", "i", "add", "ci", "isntall", "in"},
	"yarn": {"add", "install", "global"}, "pnpm": {"add", "install", "i"}, "bun": {"add", "install", "i"},
	"apt":     {"install", "reinstall", "upgrade", "full-upgrade", "dist-upgrade"},
	"apt-get": {"install", "reinstall", "upgrade", "dist-upgrade"}, "aptitude": {"install", "upgrade"},
	"dnf": {"install", "reinstall", "upgrade"}, "yum": {"install", "reinstall", "localinstall", "update", "upgrade"},
	"microdnf": {"install"}, "zypper": {"install", "in", "update", "up"}, "apk": {"add", "upgrade"},
	"brew": {"install", "reinstall", "tap", "upgrade"},
	"gem":  {"install"}, "bundle": {"install", "add"}, "cargo": {"install", "add"}, "go": {"install", "get"},
	"port": {"install"}, "snap": {"install"}, "flatpak": {"install"}, "choco": {"install"},
	"winget": {"install"}, "scoop": {"install"}, "composer": {"require", "install", "global"},
	"nix-env": {"-i", "--install"}, "dotnet": {"add", "tool"}, "rpm": {"-i", "-U", "--install"},
	"dpkg": {"-i", "--install"}, "cpan": {""}, "cpanm": {""}, "luarocks": {"install"}, "opam": {"install"},
	"deno": {"install"}, "install-packages": {""},
}

// installVerbIndex maps each manager of installVerbs to its position in
// installVerbList: a lookup.Table probe costs less inside Wasm than a Go
// map's hashing of the name, and every go, pip or npm command asks.
var installVerbIndex, installVerbList = func() (*lookup.Table, [][]string) {
	t := &lookup.Table{}
	var list [][]string
	for mgr, verbs := range installVerbs {
		list = append(list, verbs)
		t.Add(mgr, uint64(len(list)))
	}
	return t, list
}()

// verbsOf returns installVerbs[mgr].
func verbsOf(mgr string) ([]string, bool) {
	if i := installVerbIndex.Get(mgr); i != 0 {
		return installVerbList[i-1], true
	}
	return nil, false
}

// pythonModules are the modules that install when run with `python -m`.
var pythonModules = map[string]bool{"pip": true, "pip3": true, "pipx": true, "ensurepip": true, "easy_install": true, "uv": true}

// installArgv reports whether argv installs packages, and which manager.
func installArgv(name string, args []string, nameDynamic bool) (string, bool) {
	base := name
	if i := strings.LastIndexByte(base, '/'); i >= 0 {
		base = base[i+1:]
	}
	if base == "sudo" || base == "doas" {
		sub, i := catalog.FirstOperand(args, "-u", "-g", "-C", "-h", "-p", "-U")
		if i < 0 {
			return "", false
		}
		return installArgv(sub, args[i+1:], false)
	}
	if nameDynamic || catalog.IsInterpreter(base) || strings.HasPrefix(base, "python") {
		// python setup.py install / develop installs into site-packages.
		for i := 0; i+1 < len(args); i++ {
			if strings.HasSuffix(args[i], "setup.py") && (args[i+1] == "install" || args[i+1] == "develop") {
				return "setup.py", true
			}
		}
		for i := 0; i+1 < len(args); i++ {
			if args[i] == "-m" && pythonModules[args[i+1]] {
				mod := args[i+1]
				if mod == "ensurepip" {
					return mod, true
				}
				return installArgv(mod, args[i+2:], false)
			}
			if strings.HasPrefix(args[i], "-m") && len(args[i]) > 2 && pythonModules[args[i][2:]] {
				return installArgv(args[i][2:], args[i+1:], false)
			}
		}
		return "", false
	}
	mgr := base
	if strings.HasPrefix(mgr, "pip") && (mgr == "pip" || strings.Trim(mgr[3:], "0123456789.") == "") {
		mgr = "pip"
	}
	verbs, ok := verbsOf(mgr)
	if !ok {
		return "", false
	}
	if len(verbs) == 1 && verbs[0] == "" {
		return mgr, true
	}
	switch mgr {
	case "nix-env", "rpm", "dpkg":
		for _, a := range args {
			for _, v := range verbs {
				if a == v || (strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && strings.Contains(a, strings.TrimPrefix(v, "-")) && len(v) == 2) {
					return mgr, true
				}
			}
		}
		return "", false
	}
	sub, i := catalog.FirstOperand(args, "-C", "--prefix", "--cwd", "--dir", "-o", "--registry")
	if i < 0 {
		return "", false
	}
	for _, v := range verbs {
		if sub == v {
			if mgr == "uv" && sub == "pip" || mgr == "uv" && sub == "tool" || mgr == "dotnet" || mgr == "yarn" && sub == "global" || mgr == "composer" && sub == "global" {
				next, _ := catalog.FirstOperand(args[i+1:])
				if next != "install" && next != "add" && next != "require" && next != "sync" {
					return "", false
				}
			}
			return mgr, true
		}
	}
	return "", false
}

func pacmanInstalls(args []string) bool {
	for _, a := range args {
		if strings.HasPrefix(a, "-S") && !strings.ContainsAny(a[2:], "sQiclg") || a == "-U" || a == "--sync" {
			return true
		}
	}
	return false
}

func checkInstalls(e *catalog.Env) {
	d := catalog.Switch(e.Policy.DenyDependencyInstall)
	add := func(ev string, pos sdk.Pos, mgr string) {
		e.Add(catalog.Finding{Rule: "DEPENDENCY_INSTALL", Decision: d, Evidence: ev, Pos: pos, Key: mgr,
			Message:  fmt.Sprintf("Content installs packages with %s.", mgr),
			Metadata: map[string]any{"manager": mgr}})
	}
	for _, i := range e.Commands(kindInstall) {
		c := &e.Facts.Commands[i]
		names := catalog.Names(c)
		if c.Dynamic {
			names = []string{""}
		}
		for _, n := range names {
			if n == "pacman" || n == "yay" || n == "paru" {
				if pacmanInstalls(c.Args) {
					add(c.Evidence, c.Pos, n)
				}
				continue
			}
			if mgr, ok := installArgv(n, c.Args, c.Dynamic); ok {
				add(c.Evidence, c.Pos, mgr)
				break
			}
		}
	}
	for i := range e.Facts.Calls {
		c := &e.Facts.Calls[i]
		switch {
		case c.Name == "runpy.run_module" || c.Name == "runpy._run_module_as_main":
			if m, ok := catalog.ArgStr(c, 0); ok && (pythonModules[m] || strings.HasPrefix(m, "pip.")) {
				add(c.Evidence, c.Pos, m)
			}
		case c.Name == "pip.main" || strings.HasPrefix(c.Name, "pip._internal") && strings.HasSuffix(c.Name, "main"):
			checkPipMain(e, c, add)
		case catalog.IsPythonProcessAPI(c.Name) && len(c.Args) > 0:
			argv, _ := catalog.ValueStrings(c.Args[0])
			if c.Args[0].Kind == "str" && c.Args[0].Const {
				argv = strings.Fields(c.Args[0].Str)
			}
			if len(argv) == 0 {
				continue
			}
			if mgr, ok := installArgv(argv[0], argv[1:], argv[0] == ""); ok {
				add(c.Evidence, c.Pos, mgr)
			}
		}
	}
}

// checkPipMain judges pip's in-process entry point by its argument list:
// a constant list is the pip command line it runs (`pip.main(['install',
// 'x'])` installs, `pip.main(['list'])` does not, and the analyzer also
// reports that command line as a command); a list whose subcommand is
// known to install is an install whatever else it holds; any other
// argument list (`pip.main(sys.argv[1:])`, `pip.main(args)`, no argument:
// pip reads sys.argv) may install and is reviewed (fail closed).
func checkPipMain(e *catalog.Env, c *sdk.Call, add func(ev string, pos sdk.Pos, mgr string)) {
	var argv []string
	known := false
	if len(c.Args) > 0 {
		argv, known = catalog.ValueStrings(c.Args[0])
	}
	if _, ok := installArgv("pip", argv, false); ok {
		add(c.Evidence, c.Pos, "pip")
		return
	}
	if known {
		return
	}
	e.Add(catalog.Finding{Rule: "DEPENDENCY_INSTALL", Decision: sdk.NeedsHumanReview, Evidence: c.Evidence, Pos: c.Pos, Key: "pip",
		Message:  "Content runs pip with arguments that are not known statically; it may install packages.",
		Metadata: map[string]any{"manager": "pip", "dynamic": true}})
}

// ---- obfuscation ----

func obfRule(e *catalog.Env, kind string) string {
	if strings.HasPrefix(kind, "py_") || kind == "runpy" || kind == "ctypes" || e.Lang == "python" {
		return "PY_OBFUSCATED_EXEC"
	}
	return "BASH_OBFUSCATED_EXEC"
}

// decoders are commands that decode or transform their input.
func isDecoder(c *sdk.Command) (string, bool) {
	for _, n := range catalog.Names(c) {
		switch n {
		case "base64", "base32", "basenc":
			if catalog.HasShortFlag(c.Args, 'd', "--decode") || catalog.HasShortFlag(c.Args, 'D') {
				return n, true
			}
		case "xxd":
			if catalog.HasShortFlag(c.Args, 'r', "--revert") {
				return n, true
			}
		case "rev", "tr", "uudecode", "zcat", "gunzip", "bunzip2", "unxz", "zstdcat", "unzstd", "lzcat", "uncompress":
			return n, true
		case "gzip", "bzip2", "xz", "zstd":
			if catalog.HasShortFlag(c.Args, 'd', "--decompress") {
				return n, true
			}
		case "openssl":
			for _, a := range c.Args {
				if a == "-d" || a == "base64" || a == "enc" {
					return n, true
				}
			}
		case "printf", "echo":
			for _, a := range c.Args {
				if strings.Contains(a, `\x`) || strings.Contains(a, `\0`) || strings.Contains(a, `\u`) || octalEscape(a) {
					return n, true
				}
			}
		}
	}
	return "", false
}

func octalEscape(s string) bool {
	for i := 0; i+3 < len(s); i++ {
		if s[i] == '\\' && s[i+1] >= '0' && s[i+1] <= '3' && s[i+2] >= '0' && s[i+2] <= '7' && s[i+3] >= '0' && s[i+3] <= '7' {
			return true
		}
	}
	return false
}

func checkObfuscation(e *catalog.Env) {
	for _, d := range e.Facts.DynamicExec {
		if d.Encoded || d.Pos.Encoded {
			e.Add(catalog.Finding{Rule: obfRule(e, d.Kind), Evidence: d.Evidence, Pos: d.Pos, Key: "enc",
				Message:  fmt.Sprintf("Encoded content (%s) is executed via %s.", decodersText(d.Decoders), orStr(d.Interpreter, d.Kind)),
				Metadata: map[string]any{"kind": d.Kind, "decoders": d.Decoders}})
		}
		if d.Kind == "ctypes" {
			e.Add(catalog.Finding{Rule: "PY_OBFUSCATED_EXEC", Evidence: d.Evidence, Pos: d.Pos, Key: "ctypes",
				Message: "Code reaches libc through ctypes to run commands.", Metadata: map[string]any{"kind": d.Kind}})
		}
	}
	for _, i := range e.Commands(kindRunner) {
		c := &e.Facts.Commands[i]
		if c.Pos.Encoded {
			e.Add(catalog.Finding{Rule: obfRule(e, ""), Evidence: c.Evidence, Pos: c.Pos, Key: "enc",
				Message:  fmt.Sprintf("Decoded content runs command %s.", orStr(c.Name, "(dynamic)")),
				Metadata: map[string]any{"command": c.Name}})
			continue
		}
		runs := false
		for _, n := range catalog.Names(c) {
			if catalog.IsInterpreter(n) || n == "eval" || n == "source" || n == "." {
				runs = true
			}
		}
		if !runs {
			continue
		}
		for s := range catalog.Feeders(e.Facts, c) {
			if dec, ok := isDecoder(s); ok {
				e.Add(catalog.Finding{Rule: "BASH_OBFUSCATED_EXEC", Evidence: c.Evidence, Pos: c.Pos, Key: "enc",
					Message:  fmt.Sprintf("Output of %s is executed by %s.", dec, c.Name),
					Metadata: map[string]any{"decoder": dec, "interpreter": c.Name}})
				break
			}
		}
	}
	// Decoded into a file, then run: `base64 -d > x.sh; bash x.sh`. The
	// files' writers are looked up only once some command runs a file.
	for _, i := range e.Commands(kindRunner) {
		c := &e.Facts.Commands[i]
		p := catalog.ExecutedFile(c)
		if p == "" {
			continue
		}
		for _, s := range catalog.FileSources(e.Facts)[p] {
			if dec, ok := isDecoder(s); ok {
				e.Add(catalog.Finding{Rule: "BASH_OBFUSCATED_EXEC", Evidence: c.Evidence, Pos: c.Pos, Key: "enc",
					Message:  fmt.Sprintf("File %s written from %s output is executed.", p, dec),
					Metadata: map[string]any{"decoder": dec, "file": p}})
				break
			}
		}
	}
	for i := range e.Facts.Calls {
		c := &e.Facts.Calls[i]
		execish := catalog.IsPythonProcessAPI(c.Name) || c.Name == "exec" || c.Name == "eval" || c.Name == "compile" ||
			c.Name == "builtins.exec" || c.Name == "builtins.eval"
		if strings.HasPrefix(c.Name, "ctypes.") && (strings.HasSuffix(c.Name, ".system") || strings.Contains(c.Name, ".exec") || strings.HasSuffix(c.Name, ".popen")) {
			e.Add(catalog.Finding{Rule: "PY_OBFUSCATED_EXEC", Evidence: c.Evidence, Pos: c.Pos, Key: "ctypes",
				Message: fmt.Sprintf("Code runs commands through ctypes (%s).", c.Name), Metadata: map[string]any{"api": c.Name}})
			continue
		}
		if !execish {
			continue
		}
		enc := c.Pos.Encoded
		for _, a := range c.Args {
			if a.Encoded || anyEncoded(a.Items) {
				enc = true
			}
		}
		if enc {
			e.Add(catalog.Finding{Rule: "PY_OBFUSCATED_EXEC", Evidence: c.Evidence, Pos: c.Pos, Key: "enc",
				Message:  fmt.Sprintf("Decoded or transformed content is executed by %s.", c.Name),
				Metadata: map[string]any{"api": c.Name}})
		}
	}
}

func anyEncoded(vs []sdk.Value) bool {
	for _, v := range vs {
		if v.Encoded || anyEncoded(v.Items) {
			return true
		}
	}
	return false
}

func decodersText(d []string) string {
	if len(d) == 0 {
		return "decoded"
	}
	return strings.Join(d, ", ")
}

func orStr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// ---- fork bombs ----

func checkForkBomb(e *catalog.Env) {
	for _, f := range e.Facts.Functions {
		if f.Recursive && (f.SelfPipe || f.Background) {
			e.Add(catalog.Finding{Rule: "BASH_FORK_BOMB", Evidence: f.Name + "() { … }", Pos: f.Pos, Key: f.Name,
				Message:  fmt.Sprintf("Function %s spawns copies of itself (fork bomb).", f.Name),
				Metadata: map[string]any{"function": f.Name}})
		}
	}
	endless := false
	for _, l := range e.Facts.Loops {
		if !l.HasBreak {
			endless = true
		}
	}
	if !endless {
		return
	}
	for i := range e.Facts.Calls {
		c := &e.Facts.Calls[i]
		if c.Name == "os.fork" || c.Name == "os.forkpty" {
			e.Add(catalog.Finding{Rule: "BASH_FORK_BOMB", Evidence: c.Evidence, Pos: c.Pos, Key: c.Name,
				Message: "Process forks inside an endless loop (fork bomb).", Metadata: map[string]any{"api": c.Name}})
		}
	}
}

// ---- Python process execution and injection ----

func checkPythonProcess(e *catalog.Env) {
	for i := range e.Facts.Calls {
		c := &e.Facts.Calls[i]
		if !catalog.IsPythonProcessAPI(c.Name) {
			continue
		}
		if e.Policy.ReviewProcessExecution {
			e.Add(catalog.Finding{Rule: "PY_PROCESS_EXECUTION_REVIEW", Evidence: c.Evidence, Pos: c.Pos, Key: c.Name,
				Message:  fmt.Sprintf("Python process execution via %s requires review.", c.Name),
				Metadata: map[string]any{"api": c.Name}})
		}
		shell := catalog.ShellAPIs[c.Name]
		if v, ok := catalog.Kwarg(c, "shell"); ok && (catalog.ConstTrue(v) || !v.Const) {
			shell = true
		}
		if !shell || len(c.Args) == 0 {
			continue
		}
		if cmd := c.Args[0]; !constValue(cmd) {
			e.Add(catalog.Finding{Rule: "PY_SHELL_INJECTION_RISK", Evidence: c.Evidence, Pos: c.Pos, Key: c.Name,
				Message:  fmt.Sprintf("%s runs a shell command built from non-constant input (%s).", c.Name, catalog.Trim(cmd.Str)),
				Metadata: map[string]any{"api": c.Name}})
		}
	}
}

func constValue(v sdk.Value) bool {
	if !v.Const {
		return false
	}
	for _, it := range v.Items {
		if !constValue(it) {
			return false
		}
	}
	return true
}

// ---- dynamic code ----

var pyDynamicKinds = map[string]bool{"py_exec": true, "py_eval": true, "py_compile": true, "py_import": true, "runpy": true}

func checkDynamicCode(e *catalog.Env) {
	for _, d := range e.Facts.DynamicExec {
		if !pyDynamicKinds[d.Kind] {
			continue
		}
		if d.Static {
			continue // known content was analyzed at depth+1 and judged there
		}
		e.Add(catalog.Finding{Rule: "PY_DYNAMIC_CODE_EXECUTION", Evidence: d.Evidence, Pos: d.Pos, Key: "dyn",
			Message:  fmt.Sprintf("Dynamic code execution (%s) with content that is not a literal requires review.", d.Kind),
			Metadata: map[string]any{"kind": d.Kind}})
	}
	for i := range e.Facts.Calls {
		c := &e.Facts.Calls[i]
		switch c.Name {
		case "eval", "exec", "compile", "builtins.eval", "builtins.exec", "builtins.compile":
			if len(c.Args) > 0 && constValue(c.Args[0]) && (c.Args[0].Kind == "str" || c.Args[0].Kind == "bytes") {
				continue
			}
		case "__import__", "builtins.__import__", "importlib.import_module", "importlib.__import__",
			"runpy.run_path", "runpy.run_module", "imp.load_source", "importlib.util.spec_from_file_location",
			"importlib.machinery.SourceFileLoader":
			// A literal module name is an ordinary import written another
			// way; a name chosen at run time is not.
			if len(c.Args) > 0 && constValue(c.Args[0]) {
				continue
			}
		default:
			continue
		}
		e.Add(catalog.Finding{Rule: "PY_DYNAMIC_CODE_EXECUTION", Evidence: c.Evidence, Pos: c.Pos, Key: "dyn",
			Message:  fmt.Sprintf("%s executes or imports code chosen at run time; review it.", c.Name),
			Metadata: map[string]any{"api": c.Name}})
	}
}

// ---- inline interpreters ----

var inlineKinds = map[string]bool{"shell_c": true, "python_c": true, "perl_e": true, "awk_system": true,
	"pipe_interpreter": true, "heredoc_interpreter": true, "eval": true}

// inlineFlags are the options (and subcommands: deno eval, bun eval) that
// make an interpreter run a code string.
var inlineFlags = map[string][]string{"-c": nil, "-e": nil, "--eval": nil, "-r": {"php"}, "eval": {"deno", "bun"},
	"-p": {"node"}, "--print": {"node"}, "--command": {"pwsh", "powershell"}, "-Command": {"pwsh", "powershell"}}

func checkInline(e *catalog.Env) {
	for _, d := range e.Facts.DynamicExec {
		if !(inlineKinds[d.Kind] || d.Kind == "source" && !d.Static) {
			continue
		}
		if d.Kind == "eval" && e.FactLang(d.Pos) == "python" {
			continue
		}
		what := orStr(d.Interpreter, d.Kind)
		msg := fmt.Sprintf("Inline %s code (%s) requires review.", what, d.Kind)
		if !d.Static {
			msg = fmt.Sprintf("Inline %s code whose content cannot be resolved statically (%s) requires review.", what, d.Kind)
		}
		e.Add(catalog.Finding{Rule: "BASH_INLINE_INTERPRETER_REVIEW", Evidence: d.Evidence, Pos: d.Pos, Key: "inline",
			Message: msg, Metadata: map[string]any{"kind": d.Kind, "interpreter": d.Interpreter, "static": d.Static}})
	}
	for _, i := range e.Commands(kindRunner) {
		c := &e.Facts.Commands[i]
		for _, n := range catalog.Names(c) {
			if !catalog.IsInterpreter(n) && n != "eval" {
				continue
			}
			inline := n == "eval"
			for _, a := range c.Args {
				if only, ok := inlineFlags[a]; ok && (only == nil || contains(only, n)) {
					inline = true
				}
				if len(a) > 2 && a[0] == '-' && a[1] != '-' && strings.HasSuffix(a, "c") && catalog.Shells[n] {
					inline = true // bash -lc, sh -ec
				}
				if len(a) > 2 && a[0] == '-' && a[1] != '-' && strings.ContainsRune(a, 'e') && (n == "perl" || n == "ruby") {
					inline = true // perl -ne, ruby -pe
				}
			}
			if inline {
				e.Add(catalog.Finding{Rule: "BASH_INLINE_INTERPRETER_REVIEW", Evidence: c.Evidence, Pos: c.Pos, Key: "inline",
					Message:  fmt.Sprintf("Inline %s code requires review.", n),
					Metadata: map[string]any{"interpreter": n}})
			}
			break
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// ---- command allowlist ----

// harmless are shell builtins and keywords that run nothing and reach
// nothing by themselves; source, ., eval and exec are deliberately absent.
var harmless = map[string]bool{"cd": true, "set": true, "true": true, "false": true, "test": true, "[": true,
	"[[": true, "export": true, "local": true, "read": true, "shift": true, "return": true, "exit": true,
	"unset": true, "declare": true, "typeset": true, "readonly": true, "break": true, "continue": true,
	":": true, "echo": true, "printf": true, "pwd": true, "pushd": true, "popd": true, "dirs": true,
	"wait": true, "getopts": true, "let": true, "shopt": true, "type": true, "hash": true, "umask": true,
	"trap": true, "mapfile": true, "readarray": true}

func checkAllowlist(e *catalog.Env) {
	if len(e.M.Commands) == 0 {
		return
	}
	var seen map[string]bool // names already reported
	var funcs functionSet
	for i := range e.Facts.Commands {
		c := &e.Facts.Commands[i]
		if c.Dynamic || (c.Name == "" && len(c.Candidates) == 0) {
			if seen["\x00dyn"] {
				continue
			}
			if seen == nil {
				seen = map[string]bool{}
			}
			seen["\x00dyn"] = true
			e.Add(catalog.Finding{Rule: "BASH_COMMAND_REVIEW", Evidence: c.Evidence, Pos: c.Pos, Key: "\x00dyn",
				Message:  "Command name cannot be resolved statically, so it cannot be checked against allowed_commands.",
				Metadata: map[string]any{"command": c.Path, "dynamic": true}})
			continue
		}
		for _, n := range catalog.Names(c) {
			if harmless[n] || e.M.Commands[n] || (c.Path != "" && e.M.Commands[c.Path]) || seen[n] || funcs.has(e.Facts, n) {
				continue
			}
			if seen == nil {
				seen = map[string]bool{}
			}
			seen[n] = true
			e.Add(catalog.Finding{Rule: "BASH_COMMAND_REVIEW", Evidence: c.Evidence, Pos: c.Pos, Key: n,
				Message:        fmt.Sprintf("Command %s is not in allowed_commands.", n),
				Metadata:       map[string]any{"command": n},
				Recommendation: fmt.Sprintf("Add %s to allowed_commands if it is expected for this tool, or use an allowed alternative.", n)})
		}
	}
}

// functionSet answers whether the content defines a function of a name: a
// call of it runs the function's commands, which are judged themselves.
// Scripts define few functions, so they are scanned; a set is built only
// for many.
type functionSet struct {
	names map[string]bool
}

func (s *functionSet) has(f *sdk.Facts, n string) bool {
	if len(f.Functions) <= 8 {
		for i := range f.Functions {
			if f.Functions[i].Name == n {
				return true
			}
		}
		return false
	}
	if s.names == nil {
		s.names = make(map[string]bool, len(f.Functions))
		for i := range f.Functions {
			s.names[f.Functions[i].Name] = true
		}
	}
	return s.names[n]
}

// ---- shell features ----

// featureKinds are the shell features that chain or hide operations, in
// the (alphabetical) order the finding lists them; heredocs and plain
// subshell grouping are syntax, not chaining.
var featureKinds = []string{"and", "background", "backtick", "or", "pipe", "process_substitution", "redirect",
	"semicolon", "substitution"}

const (
	featBackground = 1 << 1
	featPipe       = 1 << 4
	featProcSubst  = 1 << 5
	featRedirect   = 1 << 6
	featSubst      = 1 << 8
)

// featureBit returns the bit of a featureKinds entry, or 0.
func featureBit(kind string) uint16 {
	switch kind {
	case "and":
		return 1 << 0
	case "background":
		return featBackground
	case "backtick":
		return 1 << 2
	case "or":
		return 1 << 3
	case "pipe":
		return featPipe
	case "process_substitution":
		return featProcSubst
	case "redirect":
		return featRedirect
	case "semicolon":
		return 1 << 7
	case "substitution":
		return featSubst
	}
	return 0
}

func checkShellFeatures(e *catalog.Env) {
	if !e.Policy.ReviewShellFeatures {
		return
	}
	var kinds uint16
	var first *sdk.ShellFeature
	for i := range e.Facts.ShellFeatures {
		f := &e.Facts.ShellFeatures[i]
		b := featureBit(f.Kind)
		if b == 0 {
			continue
		}
		kinds |= b
		if first == nil {
			first = f
		}
	}
	ev, pos := "", sdk.Pos{}
	if first != nil {
		ev, pos = first.Evidence, first.Pos
	}
	for _, i := range e.Commands(kindShellFeature) {
		c := &e.Facts.Commands[i]
		var k uint16
		if c.Pipeline > 0 && c.Stage > 0 {
			k |= featPipe
		}
		for _, r := range c.Redirects {
			if r.Op != "<<" {
				k |= featRedirect
			}
		}
		for _, r := range c.Reach {
			switch r {
			case "substitution":
				k |= featSubst
			case "process_substitution":
				k |= featProcSubst
			case "background":
				k |= featBackground
			}
		}
		kinds |= k
		if k != 0 && first == nil && ev == "" {
			ev, pos = c.Evidence, c.Pos
		}
	}
	if kinds == 0 {
		return
	}
	const pre, post = "Shell features (", ") require review because they may hide chained operations."
	list := make([]string, 0, bits.OnesCount16(kinds))
	size := len(pre) + len(post)
	for i, name := range featureKinds {
		if kinds&(1<<i) != 0 {
			list = append(list, name)
			size += len(name) + len(", ")
		}
	}
	var msg strings.Builder
	msg.Grow(size)
	msg.WriteString(pre)
	for i, name := range list {
		if i > 0 {
			msg.WriteString(", ")
		}
		msg.WriteString(name)
	}
	msg.WriteString(post)
	e.Add(catalog.Finding{Rule: "BASH_SHELL_FEATURE_REVIEW", Evidence: ev, Pos: pos, Key: "features",
		Message: msg.String(), Metadata: map[string]any{"features": list}})
}
