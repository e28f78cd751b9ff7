package bash

import (
	"path"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// The runners topic: programs whose arguments, script or configuration
// name other commands to run or files to write. Each handler records what
// the program would run (as nested shell code) and touch, besides the
// program's own command. (git's config hooks are in cmd_vcs.go.)

// registerRunnerCommands registers the runner aspect of sed, vim and its
// kin, parallel and make.
func registerRunnerCommands(r *registry) {
	const topic = "runners"
	r.runner(topic, sedRunner, "sed", "gsed")
	r.runner(topic, vimRunner, "vim", "vi", "nvim", "ex", "view", "gvim", "vimdiff")
	r.runner(topic, parallelRunner, "parallel")
	r.runner(topic, makeRunner, "make", "gmake")
}

// maxRunnerExpansions bounds the commands a runner expands to.
const maxRunnerExpansions = 16

// sedRunner reads sed scripts: the `e` command and the `e` flag of `s`
// run shell commands; `w FILE` (command or flag) writes a file, `r FILE`
// reads one.
func sedRunner(a *analyzer, s *syntax.Stmt, name string, args []field, c *ctx) {
	for _, sc := range sedScripts(args) {
		if sc.dyn {
			continue
		}
		for _, cmd := range splitSedCommands(sc.s) {
			a.sedCommand(s, name, cmd, c)
		}
	}
}

// sedScripts returns the scripts of a sed command line: each -e or
// --expression value, else the first operand; none under -f (a script
// file).
func sedScripts(args []field) []field {
	var scripts []field
	explicit := false
	for i := 0; i < len(args); i++ {
		f := args[i]
		switch {
		case f.s == "-e" || f.s == "--expression":
			if i+1 < len(args) {
				scripts = append(scripts, args[i+1])
				i++
			}
			explicit = true
		case strings.HasPrefix(f.s, "--expression="):
			scripts = append(scripts, field{s: strings.TrimPrefix(f.s, "--expression="), dyn: f.dyn})
			explicit = true
		case f.s == "-f" || f.s == "--file":
			return nil
		case strings.HasPrefix(f.s, "-") && len(f.s) > 1:
		default:
			if !explicit {
				scripts = append(scripts, f)
				explicit = true
			}
		}
	}
	return scripts
}

// isSed reports the sed commands.
func isSed(n string) bool { return n == "sed" || n == "gsed" }

// sedRunsInput reports whether a sed script runs its input lines as
// shell commands: a bare `e` command (it runs the pattern space) or an
// `s` command with the e flag whose replacement is the whole match (`&`,
// `\0`) of a pattern matching the whole line (`s/.*/&/e`). sed is then a
// shell reading the pipe.
func sedRunsInput(args []field) bool {
	for _, sc := range sedScripts(args) {
		if sc.dyn {
			continue
		}
		for _, cmd := range splitSedCommands(sc.s) {
			cmd = strings.TrimLeft(skipSedAddress(cmd), " !")
			if strings.TrimSpace(cmd) == "e" {
				return true
			}
			if pat, repl, flags, ok := parseSedSubst(cmd); ok && strings.IndexByte(flags, 'e') >= 0 &&
				(repl == "&" || repl == `\0`) && (pat == ".*" || pat == "^.*$" || pat == "^.*" || pat == ".*$") {
				return true
			}
		}
	}
	return false
}

// parseSedSubst splits an `s` command into its pattern, replacement and
// flags (the delimiter is the character after s).
func parseSedSubst(cmd string) (pat, repl, flags string, ok bool) {
	if len(cmd) < 2 || cmd[0] != 's' {
		return "", "", "", false
	}
	d := cmd[1]
	var parts []string
	var cur strings.Builder
	j := 2
	for ; j < len(cmd) && len(parts) < 2; j++ {
		if cmd[j] == '\\' && j+1 < len(cmd) {
			if cmd[j+1] != d {
				cur.WriteByte('\\')
			}
			cur.WriteByte(cmd[j+1])
			j++
			continue
		}
		if cmd[j] == d {
			parts = append(parts, cur.String())
			cur.Reset()
			continue
		}
		cur.WriteByte(cmd[j])
	}
	if len(parts) < 2 {
		return "", "", "", false
	}
	return parts[0], parts[1], cmd[j:], true
}

// splitSedCommands splits a sed script at newlines and at `;` outside
// s/// and y/// arguments.
func splitSedCommands(script string) []string {
	var out []string
	start := 0
	for i := 0; i < len(script); i++ {
		ch := script[i]
		if ch == 's' || ch == 'y' {
			if i+1 < len(script) && !isWordByte(script[i+1]) && script[i+1] != ' ' && script[i+1] != ';' && script[i+1] != '\n' {
				d := script[i+1]
				n := 0
				j := i + 2
				for ; j < len(script) && n < 2; j++ {
					if script[j] == '\\' {
						j++
						continue
					}
					if script[j] == d {
						n++
					}
				}
				i = j - 1
				continue
			}
		}
		if ch == 'e' || ch == 'w' || ch == 'r' || ch == 'W' || ch == 'R' {
			// These take the rest of the line.
			if e := strings.IndexByte(script[i:], '\n'); e >= 0 {
				i += e
			} else {
				i = len(script)
			}
		}
		if i >= len(script) || script[i] == '\n' || script[i] == ';' {
			out = append(out, strings.TrimSpace(script[start:min(i, len(script))]))
			start = i + 1
		}
	}
	if start < len(script) {
		out = append(out, strings.TrimSpace(script[start:]))
	}
	return out
}

// sedCommand analyzes one sed command after its address.
func (a *analyzer) sedCommand(s *syntax.Stmt, name, cmd string, c *ctx) {
	cmd = strings.TrimLeft(skipSedAddress(cmd), " !")
	if cmd == "" {
		return
	}
	switch cmd[0] {
	case 'e':
		if rest := strings.TrimSpace(cmd[1:]); rest != "" {
			a.dynExec(s, "shell_c", name, field{s: rest}, field{}, true)
		} else {
			a.dynExec(s, "shell_c", name, field{dyn: true}, field{}, false)
		}
	case 'w', 'W':
		if p := strings.TrimSpace(cmd[1:]); p != "" && p != "/dev/stdout" && p != "/dev/stderr" {
			a.addFile(s, field{s: p}, "write", name, c, fileFlags{})
		}
	case 'r', 'R':
		if p := strings.TrimSpace(cmd[1:]); p != "" {
			a.addFile(s, field{s: p}, "read", name, c, fileFlags{})
		}
	case 's':
		_, repl, flags, ok := parseSedSubst(cmd)
		if !ok {
			return
		}
		if k := strings.IndexByte(flags, 'w'); k >= 0 {
			if p := strings.TrimSpace(flags[k+1:]); p != "" {
				a.addFile(s, field{s: p}, "write", name, c, fileFlags{})
			}
			flags = flags[:k]
		}
		if strings.IndexByte(flags, 'e') >= 0 {
			if strings.ContainsAny(repl, "&\\") {
				a.dynExec(s, "shell_c", name, field{dyn: true}, field{}, false)
			} else {
				a.dynExec(s, "shell_c", name, field{s: repl}, field{}, true)
			}
		}
	}
}

// skipSedAddress drops a sed address (`1`, `$`, `/re/`, `\%re%`, ranges,
// `first~step`) from the start of a command.
func skipSedAddress(cmd string) string {
	for round := 0; round < 2; round++ {
		cmd = strings.TrimLeft(cmd, " ")
		switch {
		case cmd == "":
			return cmd
		case cmd[0] >= '0' && cmd[0] <= '9' || cmd[0] == '$':
			i := 1
			for i < len(cmd) && (cmd[i] >= '0' && cmd[i] <= '9' || cmd[i] == '~') {
				i++
			}
			cmd = cmd[i:]
		case cmd[0] == '/' || cmd[0] == '\\' && len(cmd) > 1:
			d := cmd[0]
			i := 1
			if d == '\\' {
				d = cmd[1]
				i = 2
			}
			for i < len(cmd) && cmd[i] != d {
				if cmd[i] == '\\' {
					i++
				}
				i++
			}
			if i < len(cmd) {
				i++
			}
			cmd = strings.TrimLeft(cmd[i:], "IM")
		default:
			return cmd
		}
		if !strings.HasPrefix(cmd, ",") {
			return cmd
		}
		cmd = cmd[1:]
	}
	return cmd
}

// vimRunner reads the Ex commands vim/ex run at startup (`-c CMD`, `+CMD`,
// `--cmd CMD`): `:!cmd` and `:r !cmd` run a shell command, `:w FILE`
// writes one.
func vimRunner(a *analyzer, s *syntax.Stmt, name string, args []field, c *ctx) {
	for i := 0; i < len(args); i++ {
		f := args[i]
		var ex field
		switch {
		case (f.s == "-c" || f.s == "--cmd") && i+1 < len(args):
			ex = args[i+1]
			i++
		case strings.HasPrefix(f.s, "+") && len(f.s) > 1:
			ex = field{s: f.s[1:], dyn: f.dyn}
		case strings.HasPrefix(f.s, "-c") && len(f.s) > 2:
			ex = field{s: f.s[2:], dyn: f.dyn}
		case len(f.s) > 2 && f.s[0] == '-' && f.s[1] != '-' && strings.HasSuffix(f.s, "c") && isLetters(f.s[1:]) && i+1 < len(args):
			// a cluster ending in c (`ex -sc CMD`, `vim -esc CMD`)
			ex = args[i+1]
			i++
		default:
			continue
		}
		if ex.dyn {
			continue
		}
		for _, part := range strings.Split(ex.s, "|") {
			a.exCommand(s, name, part, c)
		}
	}
}

// exCommand analyzes one Ex command.
func (a *analyzer) exCommand(s *syntax.Stmt, name, cmd string, c *ctx) {
	cmd = strings.TrimLeft(cmd, ": \t")
	for _, mod := range []string{"silent!", "silent", "sil!", "sil", "execute", "exe", "keepalt", "noautocmd"} {
		if strings.HasPrefix(cmd, mod+" ") || strings.HasPrefix(cmd, mod+"!") && !strings.HasSuffix(mod, "!") {
			cmd = strings.TrimLeft(cmd[len(mod):], " \t")
		}
	}
	cmd = strings.TrimLeft(cmd, "%.,$0123456789 ")
	switch {
	case strings.HasPrefix(cmd, "!"):
		if code := strings.TrimSpace(cmd[1:]); code != "" {
			a.dynExec(s, "shell_c", name, field{s: code}, field{}, true)
		}
	case strings.HasPrefix(cmd, "r !"), strings.HasPrefix(cmd, "r!"), strings.HasPrefix(cmd, "read !"), strings.HasPrefix(cmd, "w !"),
		strings.HasPrefix(cmd, "w!!"):
		if k := strings.LastIndexByte(cmd, '!'); k >= 0 {
			if code := strings.TrimSpace(cmd[k+1:]); code != "" {
				a.dynExec(s, "shell_c", name, field{s: code}, field{}, true)
			}
		}
	case exWrites(cmd) != "":
		p, op := exWrites(cmd), "write"
		if strings.HasPrefix(p, ">>") {
			p, op = strings.TrimSpace(p[2:]), "append"
		}
		if p != "" {
			a.addFile(s, field{s: p}, op, name, c, fileFlags{})
		}
	case strings.HasPrefix(cmd, "call system(") || strings.HasPrefix(cmd, "call systemlist("):
		if lit, _, ok := nextQuoted(cmd, 0); ok {
			a.dynExec(s, "shell_c", name, field{s: lit}, field{}, true)
		}
	}
}

// exWriteCmds are the Ex commands that write the buffer to a file named
// after them (`:w FILE`, `:w! FILE`, `:saveas FILE`, `:wq FILE`).
var exWriteCmds = map[string]bool{"w": true, "write": true, "sav": true, "saveas": true, "wq": true, "x": true,
	"xit": true, "up": true, "update": true, "exi": true, "exit": true}

// exWrites returns the file an Ex write command names ("" when cmd is
// none, names no file or pipes to a command, `:w !cmd`), with a leading
// ">>" kept for an append.
func exWrites(cmd string) string {
	k := 0
	for k < len(cmd) && cmd[k] >= 'a' && cmd[k] <= 'z' {
		k++
	}
	if !exWriteCmds[cmd[:k]] {
		return ""
	}
	rest := cmd[k:]
	if strings.HasPrefix(rest, "!") {
		rest = rest[1:]
	}
	if rest == "" || rest[0] != ' ' && rest[0] != '\t' && !strings.HasPrefix(rest, ">>") {
		return ""
	}
	p := strings.TrimSpace(rest)
	if strings.HasPrefix(p, "!") {
		return ""
	}
	return p
}

// parallelRunner expands GNU parallel's command template over its `:::`
// arguments (or runs each argument as a command when there is no
// template).
func parallelRunner(a *analyzer, s *syntax.Stmt, name string, args []field, c *ctx) {
	var tmpl []string
	var inputs []field
	sep := -1
	for i := 0; i < len(args); i++ {
		f := args[i]
		if f.s == ":::" || f.s == "::::" || f.s == ":::+" {
			sep = i
			break
		}
		if len(tmpl) == 0 && strings.HasPrefix(f.s, "-") {
			switch f.s {
			case "-j", "--jobs", "-S", "--sshlogin", "--joblog", "--results", "-d", "--delimiter", "-a", "--arg-file",
				"--timeout", "--retries", "-P", "--max-procs", "-n", "--max-args", "--tmpdir", "--workdir", "--wd":
				i++
			}
			continue
		}
		tmpl = append(tmpl, shellQuoteField(f))
	}
	if sep < 0 {
		return
	}
	for _, f := range args[sep+1:] {
		if strings.HasPrefix(f.s, ":::") {
			continue
		}
		inputs = append(inputs, f)
		if len(inputs) == maxRunnerExpansions {
			break
		}
	}
	for _, in := range inputs {
		if in.dyn {
			continue
		}
		var code string
		switch {
		case len(tmpl) == 0:
			code = in.s
		case strings.Contains(strings.Join(tmpl, " "), "{}"):
			code = strings.ReplaceAll(strings.Join(tmpl, " "), "{}", shellQuote(in.s))
		default:
			code = strings.Join(tmpl, " ") + " " + shellQuote(in.s)
		}
		a.dynExec(s, "shell_c", name, field{s: code}, field{}, true)
	}
}

// shellQuoteField keeps a template word as the shell text parallel will
// run: a word holding spaces was one shell command line (`'curl {} | sh'`).
func shellQuoteField(f field) string {
	if strings.ContainsAny(f.s, " \t|;&") {
		return f.s
	}
	return shellQuote(f.s)
}

// makeRunner analyzes the recipes of a Makefile this script wrote (with
// known text): make runs each recipe line through the shell.
func makeRunner(a *analyzer, s *syntax.Stmt, name string, args []field, c *ctx) {
	if a.written == nil {
		return
	}
	dir, file := "", ""
	for i := 0; i < len(args); i++ {
		f := args[i]
		switch {
		case (f.s == "-f" || f.s == "--file" || f.s == "--makefile") && i+1 < len(args):
			file = args[i+1].s
			i++
		case strings.HasPrefix(f.s, "--file="):
			file = strings.TrimPrefix(f.s, "--file=")
		case strings.HasPrefix(f.s, "-f") && len(f.s) > 2:
			file = f.s[2:]
		case (f.s == "-C" || f.s == "--directory") && i+1 < len(args):
			dir = args[i+1].s
			i++
		}
	}
	candidates := []string{file}
	if file == "" {
		candidates = []string{"GNUmakefile", "makefile", "Makefile"}
	}
	for _, cand := range candidates {
		p := cand
		if dir != "" && !strings.HasPrefix(cand, "/") {
			p = path.Join(dir, cand)
		}
		text, ok := a.writtenText(normPath(p))
		if !ok {
			continue
		}
		var recipe []string
		for _, line := range strings.Split(text, "\n") {
			if strings.HasPrefix(line, "\t") {
				l := strings.TrimLeft(strings.TrimPrefix(line, "\t"), "@-+")
				recipe = append(recipe, l)
			}
		}
		if len(recipe) > 0 {
			a.dynExec(s, "shell_c", name, field{s: strings.Join(recipe, "\n")}, field{}, true)
		}
		return
	}
}
