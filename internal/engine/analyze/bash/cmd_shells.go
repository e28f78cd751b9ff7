package bash

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// The shells topic: the shells, which run their -c string, script operand
// or stdin as shell code, and the commands that hand shell code to one —
// su -c, script -c, at/batch, tmux new, trap and crontab — all analyzed as
// nested bash.

// shellNames are the shells; isShell must agree (a test checks).
var shellNames = []string{"sh", "bash", "zsh", "dash", "ksh", "ash", "mksh", "fish", "rbash"}

// registerShellCommands registers the shells and the commands that run
// shell code given to them.
func registerShellCommands(r *registry) {
	const topic = "shells"
	r.run(topic, exclusive((*analyzer).shell), shellNames...)
	r.run(topic, exclusive((*analyzer).su), "su")
	r.run(topic, scriptRun, "script")
	r.run(topic, exclusive((*analyzer).atJob), "at", "batch")
	r.run(topic, exclusive((*analyzer).tmux), "tmux")
	r.run(topic, exclusive((*analyzer).trap), "trap")
	r.run(topic, additive((*analyzer).crontab), "crontab")
}

// scriptRun: script -c CMD runs CMD through a shell; without -c, script
// only records a session to its file operand.
func scriptRun(a *analyzer, s *syntax.Stmt, _ string, args []field, _ *ctx) bool {
	for i, f := range args {
		if (f.s == "-c" || f.s == "--command" || strings.HasPrefix(f.s, "-") && !strings.HasPrefix(f.s, "--") && strings.HasSuffix(f.s, "c")) && i+1 < len(args) {
			a.dynExec(s, "shell_c", "script", args[i+1], args[i+1], true)
			return true
		}
	}
	return false
}

// atJob: at TIME reads the job's shell code from stdin (or -f FILE).
func (a *analyzer) atJob(s *syntax.Stmt, name string, args []field, c *ctx) {
	for i, f := range args {
		if f.s == "-f" && i+1 < len(args) {
			a.fileAccess(s, args[i+1], "exec", name, c)
			a.runFile(s, name, args[i+1])
			return
		}
	}
	a.stdinCode(s, name, c)
}

// tmux: tmux new[-session] -d 'shell command': the last operand is
// shell code.
func (a *analyzer) tmux(s *syntax.Stmt, _ string, args []field, _ *ctx) {
	if len(args) > 0 && (args[0].s == "new" || args[0].s == "new-session" || args[0].s == "new-window" ||
		args[0].s == "neww" || args[0].s == "split-window" || args[0].s == "splitw") {
		last := args[len(args)-1]
		if len(args) > 1 && !strings.HasPrefix(last.s, "-") && (len(args) < 3 || !strings.HasPrefix(args[len(args)-2].s, "-") || len(args[len(args)-2].s) == 2 && strings.IndexByte("dPh", args[len(args)-2].s[1]) >= 0) {
			a.nestedShell(s, "tmux", last)
		}
	}
}

// trap: trap 'code' SIGNAL: the code runs later, in this shell.
func (a *analyzer) trap(s *syntax.Stmt, _ string, args []field, _ *ctx) {
	if len(args) >= 2 && !strings.HasPrefix(args[0].s, "-") && !args[0].dyn && args[0].s != "" {
		l, col := a.lc(s.Pos())
		a.nested("bash", args[0].s, l, col, "trap", false)
	}
}

// crontab: crontab FILE installs the file's lines as cron jobs; a file
// this script wrote with known text is analyzed as the code installed.
// Its operands are also files it reads.
func (a *analyzer) crontab(s *syntax.Stmt, _ string, args []field, _ *ctx) {
	for _, f := range args {
		if !strings.HasPrefix(f.s, "-") && !f.dyn {
			if text, ok := a.writtenText(normPath(f.s)); ok {
				a.installedCode(s, text, "crontab", true)
			}
		}
	}
}

// isShell reports the shells, which run their argument or stdin as shell
// code. A switch rather than a table lookup: redirections and pipelines
// ask it often, and most names are not shells.
func isShell(name string) bool {
	switch name {
	case "sh", "bash", "zsh", "dash", "ksh", "ash", "mksh", "fish", "rbash":
		return true
	}
	return false
}

// shell handles sh/bash/zsh…: -c STRING, a script file, or stdin code.
func (a *analyzer) shell(s *syntax.Stmt, name string, args []field, c *ctx) {
	for i := 0; i < len(args); i++ {
		f := args[i]
		if f.dyn && !f.procSubst {
			if i == 0 || !strings.HasPrefix(args[i-1].s, "-") {
				return
			}
		}
		if f.s == "--" {
			i++
			if i < len(args) {
				a.scriptOperand(s, name, args[i], c)
			}
			return
		}
		if strings.HasPrefix(f.s, "-") && len(f.s) > 1 && !f.dyn {
			if f.s == "-o" || f.s == "-O" || f.s == "+O" || f.s == "--rcfile" || f.s == "--init-file" {
				i++
				continue
			}
			if !strings.HasPrefix(f.s, "--") && strings.IndexByte(f.s, 'c') >= 0 {
				if i+1 < len(args) {
					// bash -c 'code' $0 $1 …
					a.positional, a.posTargets = args[i+2:], c.targets
					a.dynExec(s, "shell_c", name, args[i+1], args[i+1], true)
					a.positional, a.posTargets = nil, nil
				} else {
					a.dynExec(s, "shell_c", name, field{dyn: true}, field{}, false)
				}
				return
			}
			continue
		}
		if strings.HasPrefix(f.s, "+") {
			continue
		}
		a.scriptOperand(s, name, f, c)
		return
	}
	a.stdinCode(s, name, c)
}

// scriptOperand handles `bash FILE` / `sh <(curl …)`.
func (a *analyzer) scriptOperand(s *syntax.Stmt, interp string, f field, c *ctx) {
	if isStdinPath(f.s) && !f.dyn {
		a.stdinCode(s, interp, c)
		return
	}
	if f.procSubst {
		pc := f.procContent()
		a.dynExec(s, "pipe_interpreter", interp, pc, f, !pc.dyn)
		return
	}
	a.fileAccess(s, f, "exec", interp, c)
	a.runFile(s, interp, f)
}

// stdinCode handles an interpreter that reads its program from stdin: a
// heredoc or here-string (heredoc_interpreter). Pipes are handled by
// pipeInterpreter once the whole pipeline is known.
func (a *analyzer) stdinCode(s *syntax.Stmt, interp string, c *ctx) {
	for _, r := range s.Redirs {
		switch r.Op {
		case syntax.Hdoc, syntax.DashHdoc:
			body := a.heredocBody(r, false)
			a.dynExec(s, "heredoc_interpreter", interp, body, body, true)
			return
		case syntax.WordHdoc:
			f := a.expandOne(r.Word, false)
			f.s += "\n"
			a.dynExec(s, "heredoc_interpreter", interp, f, f, true)
			return
		case syntax.RdrIn:
			f := a.expandOne(r.Word, false)
			if f.procSubst {
				pc := f.procContent()
				a.dynExec(s, "pipe_interpreter", interp, pc, f, !pc.dyn)
			} else if f.s != "" {
				a.fileAccess(s, f, "exec", interp, c)
			}
			return
		}
	}
}

func (a *analyzer) su(s *syntax.Stmt, _ string, args []field, c *ctx) {
	if code, ok := commandOptCode(args); ok {
		a.dynExec(s, "shell_c", "su", code, code, true)
	}
}
