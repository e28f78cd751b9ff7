package process

import (
	"strings"
	"testing"

	"github.com/toolwarden/toolwarden/rules-wasm/packs/internal/packtest"
	"github.com/toolwarden/toolwarden/sdk"
)

type C = packtest.Case

var (
	deny   = sdk.Deny
	review = sdk.NeedsHumanReview
)

func cmds(c ...sdk.Command) sdk.Facts { return sdk.Facts{Commands: c} }

func calls(c ...sdk.Call) sdk.Facts {
	for i := range c {
		if c[i].Pos.Line == 0 {
			c[i].Pos = sdk.Pos{Line: i + 1, Col: 1}
		}
	}
	return sdk.Facts{Language: "python", Calls: c}
}

func TestPrivilegeEscalation(t *testing.T) {
	wrapped := packtest.Cmd(3, "sudo", "-n", "true")
	wrapped.Reach = []string{"wrapper"}
	off := func(p *sdk.Policy) { p.DenyPrivilegeEscalation = false }
	packtest.Run(t, Scan, []C{
		{Name: "sudo", Facts: cmds(packtest.Cmd(1, "sudo", "-u", "root", "bash")), Rule: "BASH_PRIVILEGE_ESCALATION", Want: deny},
		{Name: "sudo reached through wrappers", Facts: cmds(packtest.Cmd(1, "nice", "-n", "19"), wrapped), Rule: "BASH_PRIVILEGE_ESCALATION", Want: deny},
		{Name: "switch off makes review", Facts: cmds(packtest.Cmd(1, "su", "-", "root")), Policy: off, Rule: "BASH_PRIVILEGE_ESCALATION", Want: review},
		{Name: "chmod u+s", Facts: cmds(packtest.Cmd(1, "chmod", "u+s", "/usr/bin/find")), Rule: "BASH_PRIVILEGE_ESCALATION", Want: deny},
		{Name: "chmod 4755", Facts: cmds(packtest.Cmd(1, "chmod", "4755", "x")), Rule: "BASH_PRIVILEGE_ESCALATION", Want: deny},
		{Name: "chmod 777 -R /", Facts: cmds(packtest.Cmd(1, "chmod", "777", "-R", "/")), Rule: "BASH_PRIVILEGE_ESCALATION", Want: deny},
		{Name: "chmod +x script", Facts: cmds(packtest.Cmd(1, "chmod", "+x", "build.sh")), Rule: "BASH_PRIVILEGE_ESCALATION"},
		{Name: "chmod 755 dir", Facts: cmds(packtest.Cmd(1, "chmod", "755", "bin")), Rule: "BASH_PRIVILEGE_ESCALATION"},
		{Name: "chown root", Facts: cmds(packtest.Cmd(1, "chown", "root:root", "x")), Rule: "BASH_PRIVILEGE_ESCALATION", Want: deny},
		{Name: "chown user", Facts: cmds(packtest.Cmd(1, "chown", "alice", "x")), Rule: "BASH_PRIVILEGE_ESCALATION"},
		{Name: "privileged docker", Facts: cmds(packtest.Cmd(1, "docker", "run", "--rm", "--privileged", "-v", "/:/host", "alpine")), Rule: "BASH_PRIVILEGE_ESCALATION", Want: deny},
		{Name: "plain docker", Facts: cmds(packtest.Cmd(1, "docker", "run", "--rm", "alpine", "true")), Rule: "BASH_PRIVILEGE_ESCALATION"},
		{Name: "os.setuid", Facts: calls(sdk.Call{Name: "os.setuid", Args: []sdk.Value{{Kind: "int", Const: true, Str: "0"}}}), Rule: "BASH_PRIVILEGE_ESCALATION", Want: deny},
		{Name: "os.chmod setuid int", Facts: calls(sdk.Call{Name: "os.chmod", Args: []sdk.Value{packtest.Str("x"), {Kind: "int", Const: true, Str: "2541"}}}), Rule: "BASH_PRIVILEGE_ESCALATION", Want: deny},
		{Name: "os.chmod 0o755", Facts: calls(sdk.Call{Name: "os.chmod", Args: []sdk.Value{packtest.Str("x"), {Kind: "int", Const: true, Str: "493"}}}), Rule: "BASH_PRIVILEGE_ESCALATION"},
	})
}

func TestDependencyInstall(t *testing.T) {
	pyPip := packtest.Cmd(1, "", "-m", "pip", "install", "requests")
	pyPip.Dynamic = true
	off := func(p *sdk.Policy) { p.DenyDependencyInstall = false }
	packtest.Run(t, Scan, []C{
		{Name: "npm install", Facts: cmds(packtest.Cmd(1, "npm", "install", "lodash")), Rule: "DEPENDENCY_INSTALL", Want: deny},
		{Name: "apt install -y", Facts: cmds(packtest.Cmd(1, "apt", "install", "-y", "nmap")), Rule: "DEPENDENCY_INSTALL", Want: deny},
		{Name: "apt-get -y install", Facts: cmds(packtest.Cmd(1, "apt-get", "-y", "install", "curl")), Rule: "DEPENDENCY_INSTALL", Want: deny},
		{Name: "pip3.12 install", Facts: cmds(packtest.Cmd(1, "pip3.12", "install", "x")), Rule: "DEPENDENCY_INSTALL", Want: deny},
		{Name: "python3 -m pip install", Facts: cmds(packtest.Cmd(1, "python3", "-m", "pip", "install", "x")), Rule: "DEPENDENCY_INSTALL", Want: deny},
		{Name: "sys.executable -m pip install", Facts: cmds(pyPip), Rule: "DEPENDENCY_INSTALL", Want: deny},
		{Name: "sudo pip install", Facts: cmds(packtest.Cmd(1, "sudo", "pip", "install", "x")), Rule: "DEPENDENCY_INSTALL", Want: deny},
		{Name: "go install", Facts: cmds(packtest.Cmd(1, "go", "install", "x@latest")), Rule: "DEPENDENCY_INSTALL", Want: deny},
		{Name: "go build", Facts: cmds(packtest.Cmd(1, "go", "build", "./...")), Rule: "DEPENDENCY_INSTALL"},
		{Name: "pip list", Facts: cmds(packtest.Cmd(1, "pip", "list")), Rule: "DEPENDENCY_INSTALL"},
		{Name: "npm test", Facts: cmds(packtest.Cmd(1, "npm", "test")), Rule: "DEPENDENCY_INSTALL"},
		{Name: "python -m pytest", Facts: cmds(packtest.Cmd(1, "python3", "-m", "pytest")), Rule: "DEPENDENCY_INSTALL"},
		{Name: "pacman -S", Facts: cmds(packtest.Cmd(1, "pacman", "-S", "vim")), Rule: "DEPENDENCY_INSTALL", Want: deny},
		{Name: "switch off makes review", Facts: cmds(packtest.Cmd(1, "cargo", "install", "rg")), Policy: off, Rule: "DEPENDENCY_INSTALL", Want: review},
		{Name: "pip.main install", Facts: calls(sdk.Call{Name: "pip.main", Args: []sdk.Value{packtest.List("install", "x")}}), Rule: "DEPENDENCY_INSTALL", Want: deny},
		{Name: "pip.main list", Facts: calls(sdk.Call{Name: "pip.main", Args: []sdk.Value{packtest.List("list")}}), Rule: "DEPENDENCY_INSTALL"},
		{Name: "pip.main dynamic", Facts: calls(sdk.Call{Name: "pip.main", Args: []sdk.Value{{Kind: "expr", Str: "sys.argv[1:]"}}}), Rule: "DEPENDENCY_INSTALL", Want: review},
		{Name: "pip.main no args", Facts: calls(sdk.Call{Name: "pip._internal.cli.main.main"}), Rule: "DEPENDENCY_INSTALL", Want: review},
		{Name: "runpy pip", Facts: calls(sdk.Call{Name: "runpy.run_module", Args: []sdk.Value{packtest.Str("pip")}}), Rule: "DEPENDENCY_INSTALL", Want: deny},
		{Name: "subprocess list", Facts: calls(sdk.Call{Name: "subprocess.run", Args: []sdk.Value{packtest.List("npm", "install", "--save", "axios")}}), Rule: "DEPENDENCY_INSTALL", Want: deny},
		{Name: "subprocess git", Facts: calls(sdk.Call{Name: "subprocess.run", Args: []sdk.Value{packtest.List("git", "status")}}), Rule: "DEPENDENCY_INSTALL"},
	})
}

func TestObfuscationAndForkBombs(t *testing.T) {
	b64 := []sdk.Command{
		{ID: 1, Name: "echo", Args: []string{"cm0gLXJmIH4="}, Pipeline: 1},
		{ID: 2, Name: "base64", Args: []string{"-d"}, Pipeline: 1, Stage: 1, StdinSources: []int{1}},
		{ID: 3, Name: "sh", Pipeline: 1, Stage: 2, StdinSources: []int{2}},
	}
	plain := []sdk.Command{
		{ID: 1, Name: "cat", Args: []string{"x"}, Pipeline: 1},
		{ID: 2, Name: "base64", Args: []string{"-d"}, Pipeline: 1, Stage: 1, StdinSources: []int{1}},
		{ID: 3, Name: "sort", Pipeline: 1, Stage: 2, StdinSources: []int{2}},
	}
	packtest.Run(t, Scan, []C{
		{Name: "encoded dynamic exec", Facts: sdk.Facts{DynamicExec: []sdk.DynamicExec{{Kind: "pipe_interpreter", Interpreter: "sh", Static: true, Encoded: true, Decoders: []string{"base64"}}}}, Rule: "BASH_OBFUSCATED_EXEC", Want: deny},
		{Name: "encoded nested command", Facts: cmds(sdk.Command{ID: 1, Name: "sudo", Pos: sdk.Pos{Line: 1, Depth: 1, Via: "printf>sh", Encoded: true}}), Rule: "BASH_OBFUSCATED_EXEC", Want: deny},
		{Name: "base64 -d | sh from commands", Facts: sdk.Facts{Commands: b64}, Rule: "BASH_OBFUSCATED_EXEC", Want: deny},
		{Name: "base64 -d | sort is not execution", Facts: sdk.Facts{Commands: plain}, Rule: "BASH_OBFUSCATED_EXEC"},
		{Name: "decoded into a file then run", Facts: sdk.Facts{Commands: []sdk.Command{
			{ID: 1, Name: "echo", Args: []string{"cm0gLXJmIC8="}, Pipeline: 1},
			{ID: 2, Name: "base64", Args: []string{"-d"}, Pipeline: 1, Stage: 1, StdinSources: []int{1}, Redirects: []sdk.Redirect{{Op: ">", Target: "x.sh"}}},
			{ID: 3, Name: "bash", Args: []string{"x.sh"}}}}, Rule: "BASH_OBFUSCATED_EXEC", Want: deny},
		{Name: "python exec(b64decode)", Facts: sdk.Facts{Language: "python", DynamicExec: []sdk.DynamicExec{{Kind: "py_exec", Static: true, Encoded: true}}}, Rule: "PY_OBFUSCATED_EXEC", Want: deny},
		{Name: "python encoded arg", Facts: calls(sdk.Call{Name: "os.system", Args: []sdk.Value{{Kind: "str", Const: true, Str: "id", Encoded: true}}}), Rule: "PY_OBFUSCATED_EXEC", Want: deny},
		{Name: "ctypes system", Facts: calls(sdk.Call{Name: "ctypes.CDLL.system"}), Rule: "PY_OBFUSCATED_EXEC", Want: deny},
		{Name: "static getattr is not obfuscation", Facts: calls(sdk.Call{Name: "os.system", Indirect: true, Args: []sdk.Value{packtest.Str("date")}}), Rule: "PY_OBFUSCATED_EXEC"},
		{Name: "fork bomb", Facts: sdk.Facts{Functions: []sdk.Function{{Name: ":", Recursive: true, SelfPipe: true, Background: true, CalledAtTop: true}}}, Rule: "BASH_FORK_BOMB", Want: deny},
		{Name: "recursive function is fine", Facts: sdk.Facts{Functions: []sdk.Function{{Name: "walk", Recursive: true}}}, Rule: "BASH_FORK_BOMB"},
		{Name: "python fork loop", Facts: sdk.Facts{Language: "python", Loops: []sdk.Loop{{Kind: "while_true"}}, Calls: []sdk.Call{{Name: "os.fork"}}}, Rule: "BASH_FORK_BOMB", Want: deny},
	})
}

func TestPythonExecution(t *testing.T) {
	off := func(p *sdk.Policy) { p.ReviewProcessExecution = false }
	run := sdk.Call{Name: "subprocess.run", Args: []sdk.Value{packtest.List("git", "status")}}
	inj := sdk.Call{Name: "subprocess.run", Args: []sdk.Value{{Kind: "expr", Str: "'ls ' + d"}}, Kwargs: map[string]sdk.Value{"shell": {Kind: "bool", Const: true, Str: "True"}}}
	packtest.Run(t, Scan, []C{
		{Name: "subprocess.run", Facts: calls(run), Rule: "PY_PROCESS_EXECUTION_REVIEW", Want: review},
		{Name: "os.execvp", Facts: calls(sdk.Call{Name: "os.execvp", Args: []sdk.Value{packtest.Str("pytest")}}), Rule: "PY_PROCESS_EXECUTION_REVIEW", Want: review},
		{Name: "switch off", Facts: calls(run), Policy: off, Rule: "PY_PROCESS_EXECUTION_REVIEW"},
		{Name: "shell=True with expression", Facts: calls(inj), Rule: "PY_SHELL_INJECTION_RISK", Want: review},
		{Name: "os.system with f-string", Facts: calls(sdk.Call{Name: "os.system", Args: []sdk.Value{{Kind: "expr", Str: "f'ls {d}'"}}}), Rule: "PY_SHELL_INJECTION_RISK", Want: review},
		{Name: "shell=True constant", Facts: calls(sdk.Call{Name: "subprocess.run", Args: []sdk.Value{packtest.Str("ls -la")}, Kwargs: map[string]sdk.Value{"shell": {Kind: "bool", Const: true, Str: "True"}}}), Rule: "PY_SHELL_INJECTION_RISK"},
		{Name: "list argv without shell", Facts: calls(sdk.Call{Name: "subprocess.run", Args: []sdk.Value{{Kind: "list", Items: []sdk.Value{packtest.Str("ls"), packtest.Name("d")}}}}), Rule: "PY_SHELL_INJECTION_RISK"},
		{Name: "exec(user_code)", Facts: calls(sdk.Call{Name: "exec", Args: []sdk.Value{packtest.Name("code")}}), Rule: "PY_DYNAMIC_CODE_EXECUTION", Want: review},
		{Name: "exec of literal", Facts: calls(sdk.Call{Name: "exec", Args: []sdk.Value{packtest.Str("print(1)")}}), Rule: "PY_DYNAMIC_CODE_EXECUTION"},
		{Name: "__import__(name)", Facts: calls(sdk.Call{Name: "__import__", Args: []sdk.Value{packtest.Name("name")}}), Rule: "PY_DYNAMIC_CODE_EXECUTION", Want: review},
		{Name: "__import__ literal", Facts: calls(sdk.Call{Name: "__import__", Args: []sdk.Value{packtest.Str("json")}}), Rule: "PY_DYNAMIC_CODE_EXECUTION"},
		{Name: "import of a variable folded to a constant", Facts: sdk.Facts{Language: "python", Calls: []sdk.Call{{Name: "__import__", Args: []sdk.Value{packtest.Str("json")}}},
			DynamicExec: []sdk.DynamicExec{{Kind: "py_import", Static: false, Content: "json"}}}, Rule: "PY_DYNAMIC_CODE_EXECUTION", Want: review},
		{Name: "dynamic exec fact", Facts: sdk.Facts{Language: "python", DynamicExec: []sdk.DynamicExec{{Kind: "py_eval", Static: false}}}, Rule: "PY_DYNAMIC_CODE_EXECUTION", Want: review},
		{Name: "method named eval", Facts: calls(sdk.Call{Name: "Model.eval"}), Rule: "PY_DYNAMIC_CODE_EXECUTION"},
	})
}

func TestInlineAllowlistFeatures(t *testing.T) {
	dyn := packtest.Cmd(1, "", "--version")
	dyn.Dynamic = true
	glob := sdk.Command{ID: 1, Path: "/bin/r?", Candidates: []string{"rm"}, Args: []string{"x"}}
	piped := []sdk.Command{{ID: 1, Name: "ls", Pipeline: 1}, {ID: 2, Name: "wc", Pipeline: 1, Stage: 1, StdinSources: []int{1}, Reach: []string{"pipe"}}}
	packtest.Run(t, Scan, []C{
		{Name: "bash -c", Facts: sdk.Facts{DynamicExec: []sdk.DynamicExec{{Kind: "shell_c", Interpreter: "bash", Static: true}}}, Rule: "BASH_INLINE_INTERPRETER_REVIEW", Want: review},
		{Name: "python3 -c command only", Facts: cmds(packtest.Cmd(1, "python3", "-c", "print(1)")), Rule: "BASH_INLINE_INTERPRETER_REVIEW", Want: review},
		{Name: "perl -ne", Facts: cmds(packtest.Cmd(1, "perl", "-ne", "print")), Rule: "BASH_INLINE_INTERPRETER_REVIEW", Want: review},
		{Name: "deno eval", Facts: cmds(packtest.Cmd(1, "deno", "eval", "console.log(1)")), Rule: "BASH_INLINE_INTERPRETER_REVIEW", Want: review},
		{Name: "bun eval", Facts: cmds(packtest.Cmd(1, "bun", "eval", "console.log(1)")), Rule: "BASH_INLINE_INTERPRETER_REVIEW", Want: review},
		{Name: "python3 script", Facts: cmds(packtest.Cmd(1, "python3", "tool.py")), Rule: "BASH_INLINE_INTERPRETER_REVIEW"},
		{Name: "eval dynamic", Facts: sdk.Facts{DynamicExec: []sdk.DynamicExec{{Kind: "eval", Static: false}}}, Rule: "BASH_INLINE_INTERPRETER_REVIEW", Want: review},
		{Name: "unlisted command", Facts: cmds(packtest.Cmd(1, "watch", "-n", "5", "go", "test")), Rule: "BASH_COMMAND_REVIEW", Want: review},
		{Name: "source is never exempt", Facts: cmds(packtest.Cmd(1, "source", "./env.sh")), Rule: "BASH_COMMAND_REVIEW", Want: review},
		{Name: "listed command", Facts: cmds(packtest.Cmd(1, "git", "status")), Rule: "BASH_COMMAND_REVIEW"},
		{Name: "harmless builtin", Facts: cmds(packtest.Cmd(1, "set", "-euo", "pipefail")), Rule: "BASH_COMMAND_REVIEW"},
		{Name: "defined function", Facts: sdk.Facts{Functions: []sdk.Function{{Name: "log"}}, Commands: []sdk.Command{packtest.Cmd(1, "log", "hi")}}, Rule: "BASH_COMMAND_REVIEW"},
		{Name: "dynamic name", Facts: cmds(dyn), Rule: "BASH_COMMAND_REVIEW", Want: review},
		{Name: "glob name candidates", Facts: cmds(glob), Rule: "BASH_COMMAND_REVIEW", Want: review},
		{Name: "nested command counts", Facts: cmds(sdk.Command{ID: 1, Name: "curl", Pos: sdk.Pos{Line: 1, Depth: 1, Via: "bash -c"}}), Rule: "BASH_COMMAND_REVIEW", Want: review},
		{Name: "no allowlist", Facts: cmds(packtest.Cmd(1, "watch", "x")), Policy: func(p *sdk.Policy) { p.AllowedCommands = nil }, Rule: "BASH_COMMAND_REVIEW"},
		{Name: "pipe feature", Facts: sdk.Facts{ShellFeatures: []sdk.ShellFeature{{Kind: "pipe", Pos: sdk.Pos{Line: 1, Col: 4}}}}, Rule: "BASH_SHELL_FEATURE_REVIEW", Want: review},
		{Name: "pipe from commands", Facts: sdk.Facts{Commands: piped}, Rule: "BASH_SHELL_FEATURE_REVIEW", Want: review},
		{Name: "heredoc alone", Facts: sdk.Facts{ShellFeatures: []sdk.ShellFeature{{Kind: "heredoc"}}}, Rule: "BASH_SHELL_FEATURE_REVIEW"},
		{Name: "features switch off", Facts: sdk.Facts{ShellFeatures: []sdk.ShellFeature{{Kind: "pipe"}}}, Policy: func(p *sdk.Policy) { p.ReviewShellFeatures = false }, Rule: "BASH_SHELL_FEATURE_REVIEW"},
	})
}

func TestShellFeaturesAreOneFinding(t *testing.T) {
	f := &sdk.Facts{Language: "bash", ShellFeatures: []sdk.ShellFeature{
		{Kind: "pipe", Evidence: "a | b", Pos: sdk.Pos{Line: 1, Col: 3}},
		{Kind: "redirect", Evidence: "> x", Pos: sdk.Pos{Line: 2, Col: 3}},
		{Kind: "pipe", Evidence: "c | d", Pos: sdk.Pos{Line: 3, Col: 3}},
	}}
	fs, err := Scan(&sdk.ScanInput{Facts: f, Policy: packtest.Policy()})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, x := range fs {
		if x.RuleID == "BASH_SHELL_FEATURE_REVIEW" {
			n++
			kinds, _ := x.Metadata["features"].([]string)
			if len(kinds) != 2 || kinds[0] != "pipe" || kinds[1] != "redirect" {
				t.Errorf("features = %v, want [pipe redirect]", x.Metadata["features"])
			}
			if x.Line != 1 || x.Column == nil || *x.Column != 3 {
				t.Errorf("finding should point at the first feature: line %d", x.Line)
			}
		}
	}
	if n != 1 {
		t.Fatalf("got %d shell feature findings, want 1", n)
	}
}

func TestInstallArgv(t *testing.T) {
	yes := [][]string{{"pip", "install", "x"}, {"pip3", "--quiet", "install", "x"}, {"npm", "i", "x"}, {"yarn", "add", "x"},
		{"pnpm", "add", "x"}, {"brew", "install", "jq"}, {"gem", "install", "rails"}, {"apk", "add", "curl"},
		{"conda", "install", "numpy"}, {"uv", "pip", "install", "x"}, {"python3.11", "-m", "pip", "install", "x"},
		{"dpkg", "-i", "x.deb"}, {"go", "get", "x"}, {"python3", "setup.py", "install"}, {"apt-get", "-y", "upgrade"}}
	no := [][]string{{"pip", "freeze"}, {"npm", "run", "build"}, {"uv", "run", "x"}, {"yarn", "test"},
		{"python3", "-m", "venv", ".venv"}, {"go", "test", "./..."}, {"apt", "list", "--installed"}, {"dpkg", "-l"},
		{"python3", "setup.py", "sdist"}, {"apt-get", "update"}}
	for _, a := range yes {
		if _, ok := installArgv(a[0], a[1:], false); !ok {
			t.Errorf("installArgv(%v) = false", a)
		}
	}
	for _, a := range no {
		if m, ok := installArgv(a[0], a[1:], false); ok {
			t.Errorf("installArgv(%v) = true (%s)", a, m)
		}
	}
}

func TestVerbsOfAgreesWithInstallVerbs(t *testing.T) {
	for mgr, want := range installVerbs {
		if got, ok := verbsOf(mgr); !ok || strings.Join(got, ",") != strings.Join(want, ",") {
			t.Errorf("verbsOf(%q) = %v, %v; want %v", mgr, got, ok, want)
		}
	}
	for _, n := range []string{"", "go1", "pips", "NPM", "apt-ge"} {
		if _, ok := verbsOf(n); ok {
			t.Errorf("verbsOf(%q) found verbs", n)
		}
	}
}
