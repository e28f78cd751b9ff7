package python

import (
	"strings"

	"github.com/toolwarden/toolwarden/sdk"
)

// The process topic: APIs that start processes (os.system, subprocess,
// pty, os.exec*, ctypes system, pip.main); the command line, when known,
// is analyzed as bash.

func init() {
	registerAPI("process", apiPipMain, "pip.main", "pip._internal.main", "pip._internal.cli.main.main")
}

func apiPipMain(a *analyzer, c *callCtx) *sym {
	arg0 := c.arg(0, "")
	if arg0 != nil && (arg0.kind == "list" || arg0.kind == "tuple") {
		line, _ := argvLine(concatArgv(append([]*sym{strSym("pip")}, arg0.items...)))
		a.runCommand(c, line, arg0.encoded)
	}
	return nil
}

// ---- processes ----

func (a *analyzer) runCommand(c *callCtx, line string, encoded bool) {
	a.procExec = true
	if line == "" {
		return
	}
	a.nested("bash", line, c, c.name, encoded)
}

func (a *analyzer) socketStdio(c *callCtx) {
	for _, k := range []string{"stdin", "stdout", "stderr"} {
		if v := c.kws[k]; v != nil && v.sock {
			a.dup2 = append(a.dup2, v.netIdx...)
		}
	}
}

func (a *analyzer) processCall(c *callCtx) (*sym, bool) {
	n := c.name
	arg0 := c.arg(0, "")
	switch n {
	case "os.system", "os.popen", "subprocess.getoutput", "subprocess.getstatusoutput", "platform.popen", "os.popen2", "os.popen3", "popen2.popen2":
		cmd := c.arg(0, "cmd")
		if cmd == nil {
			cmd = c.arg(0, "command")
		}
		line, _ := shellLine(cmd)
		a.runCommand(c, line, cmd != nil && cmd.encoded)
		return &sym{kind: "call"}, true
	case "subprocess.run", "subprocess.call", "subprocess.check_call", "subprocess.check_output", "subprocess.Popen":
		cmd := c.arg(0, "args")
		shell := false
		if v := c.kws["shell"]; v != nil {
			shell, _ = v.truthy()
		}
		var line string
		switch {
		case cmd == nil:
		case shell && (cmd.kind == "list" || cmd.kind == "tuple") && len(cmd.items) > 0:
			line, _ = shellLine(cmd.items[0])
		case shell:
			line, _ = shellLine(cmd)
		default:
			line, _ = argvLine(cmd)
		}
		a.socketStdio(c)
		a.runCommand(c, line, cmd != nil && cmd.encoded)
		prog := programOf(cmd, shell)
		a.feedStdin(c, prog, c.kws["input"])
		return &sym{kind: "call", inst: "subprocess.Popen", s: prog}, true
	case "subprocess.Popen.communicate":
		if r := c.fn.recv; r != nil {
			a.feedStdin(c, r.s, c.arg(0, "input"))
		}
		return nil, true
	case "pty.spawn":
		line, _ := argvLine(arg0)
		a.runCommand(c, line, arg0 != nil && arg0.encoded)
		return &sym{kind: "call"}, true
	case "asyncio.create_subprocess_exec":
		line, _ := argvLine(concatArgv(c.args))
		a.socketStdio(c)
		a.runCommand(c, line, anyEncoded(c.args))
		return &sym{kind: "call"}, true
	case "asyncio.create_subprocess_shell":
		line, _ := shellLine(arg0)
		a.socketStdio(c)
		a.runCommand(c, line, arg0 != nil && arg0.encoded)
		return &sym{kind: "call"}, true
	case "runpy.run_module":
		mod := c.arg(0, "mod_name")
		name, ok := mod.strVal()
		static := ok && mod != nil
		d := sdk.DynamicExec{Kind: "runpy", Interpreter: "python", Static: static, Evidence: c.ev, Pos: a.pos(c.line, c.col)}
		if static {
			d.Content = name
		}
		a.f.DynamicExec = append(a.f.DynamicExec, d)
		if static {
			words := []*sym{strSym(name)}
			if argv := a.modAttrs["sys.argv"]; argv != nil && argv.isSeq() && len(argv.items) > 1 {
				words = append(words, argv.items[1:]...)
			}
			line, _ := argvLine(concatArgv(words))
			a.procExec = true
			a.nested("bash", line, c, "runpy", mod.encoded)
		}
		return nil, true
	case "runpy.run_path":
		a.dynExec(c, "runpy", "python", nil, false)
		a.fileAccess(c, c.arg(0, "path_name"), "exec", n)
		return nil, true
	}
	if strings.HasPrefix(n, "os.exec") || strings.HasPrefix(n, "os.spawn") || n == "os.posix_spawn" || n == "os.posix_spawnp" {
		suffix := strings.TrimPrefix(strings.TrimPrefix(n, "os.exec"), "os.spawn")
		args := c.args
		if strings.HasPrefix(n, "os.spawn") && len(args) > 0 {
			args = args[1:] // mode
		}
		if len(args) == 0 {
			return nil, true
		}
		file := args[0]
		var rest []*sym
		switch {
		case strings.HasPrefix(n, "os.posix_spawn") || strings.HasPrefix(suffix, "v"):
			if len(args) > 1 && args[1].kind == "list" || len(args) > 1 && args[1].kind == "tuple" {
				if len(args[1].items) > 1 {
					rest = args[1].items[1:]
				}
			} else if len(args) > 1 {
				rest = []*sym{args[1]}
			}
		default: // l variants: file, arg0, arg1, ... [env]
			if len(args) > 2 {
				rest = args[2:]
			}
			if strings.HasSuffix(suffix, "e") && len(rest) > 0 {
				rest = rest[:len(rest)-1]
			}
		}
		words := append([]*sym{file}, rest...)
		line, _ := argvLine(concatArgv(words))
		a.runCommand(c, line, anyEncoded(words))
		return nil, true
	}
	if strings.HasPrefix(n, "ctypes.") && (strings.HasSuffix(n, ".system") || strings.HasSuffix(n, ".popen") || strings.HasSuffix(n, ".execve") || strings.HasSuffix(n, ".execl") || strings.HasSuffix(n, ".execv")) {
		s, ok := arg0.strVal()
		static := ok && arg0 != nil
		a.dynExec(c, "ctypes", "sh", arg0, static)
		a.procExec = true
		if static && strings.HasSuffix(n, ".system") {
			a.nested("bash", s, c, "ctypes", arg0.encoded)
		}
		return nil, true
	}
	switch n {
	case "ctypes.CDLL", "ctypes.cdll.LoadLibrary", "ctypes.PyDLL", "ctypes.LibraryLoader", "ctypes.CDLL.LoadLibrary":
		return &sym{kind: "expr", inst: "ctypes.CDLL"}, true
	case "os.dup2":
		if arg0 != nil && arg0.sock {
			a.dup2 = append(a.dup2, arg0.netIdx...)
		}
		return nil, true
	}
	return nil, false
}

// programOf returns the base name of the program a subprocess call
// starts, when known.
func programOf(cmd *sym, shell bool) string {
	if cmd == nil || shell {
		return ""
	}
	first := cmd
	if cmd.kind == "list" || cmd.kind == "tuple" {
		if len(cmd.items) == 0 {
			return ""
		}
		first = cmd.items[0]
	}
	s, ok := first.strVal()
	if !ok {
		return ""
	}
	if i := strings.LastIndexByte(s, '/'); i >= 0 {
		s = s[i+1:]
	}
	return s
}

// feedStdin analyzes constant input written to an interpreter's stdin
// (subprocess.run(["bash"], input="rm -rf /")).
func (a *analyzer) feedStdin(c *callCtx, prog string, in *sym) {
	if in == nil || prog == "" {
		return
	}
	src, ok := in.strVal()
	if !ok || !(in.kind == "str" || in.kind == "bytes") {
		return
	}
	switch prog {
	case "sh", "bash", "zsh", "dash", "ksh", "ash":
		a.f.DynamicExec = append(a.f.DynamicExec, sdk.DynamicExec{Kind: "pipe_interpreter", Interpreter: prog, Static: true, Encoded: in.encoded, Decoders: in.decoders, Content: capContent(src), Evidence: c.ev, Pos: a.pos(c.line, c.col)})
		a.nested("bash", src, c, c.name+">stdin", in.encoded)
	case "python", "python3", "python2":
		a.f.DynamicExec = append(a.f.DynamicExec, sdk.DynamicExec{Kind: "pipe_interpreter", Interpreter: prog, Static: true, Encoded: in.encoded, Decoders: in.decoders, Content: capContent(src), Evidence: c.ev, Pos: a.pos(c.line, c.col)})
		a.nested("python", src, c, c.name+">stdin", in.encoded)
	}
}

func capContent(s string) string {
	if len(s) > maxContent {
		return s[:maxContent]
	}
	return s
}

func anyEncoded(vs []*sym) bool {
	for _, v := range vs {
		if v != nil && v.encoded {
			return true
		}
	}
	return false
}
