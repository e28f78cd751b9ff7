package bash

import (
	"path"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/toolwarden/toolwarden/internal/engine/facts"
	"github.com/toolwarden/toolwarden/sdk"
)

// walkCall handles a simple command statement.
func (a *analyzer) walkCall(s *syntax.Stmt, call *syntax.CallExpr, c *ctx) {
	if len(call.Args) == 0 {
		for _, as := range call.Assigns {
			a.assign(as, "set")
		}
		a.stmtRedirects(s, "", c)
		return
	}
	a.cmdEnv = nil
	for _, as := range call.Assigns {
		// Prefix assignments only reach the command's environment.
		if as.Name == nil {
			continue
		}
		fact := sdk.Assignment{Name: as.Name.Value, Op: "set", Pos: a.pos(as.Pos())}
		if as.Value != nil {
			f := a.expandOneNoSplit(as.Value)
			if f.dyn {
				fact.Dynamic = true
			} else {
				fact.Value = f.s
				if a.cmdEnv == nil {
					a.cmdEnv = map[string]string{}
				}
				a.cmdEnv[as.Name.Value] = f.s
			}
		}
		a.b.Facts.Assignments = append(a.b.Facts.Assignments, fact)
	}
	fields := a.fieldSlab.take(len(call.Args))
	for _, w := range call.Args {
		fields = a.appendWord(fields, w, true)
	}
	if len(fields) > 0 && !fields[0].dyn && !fields[0].quoted {
		if def, ok := a.aliases[fields[0].s]; ok && strings.ContainsAny(def, ";|&<>()`\n") {
			// An alias holding a command list: analyze its expansion
			// as the shell would run it.
			var sb strings.Builder
			sb.WriteString(def)
			for _, f := range fields[1:] {
				sb.WriteByte(' ')
				sb.WriteString(shellQuote(f.s))
			}
			l, col := a.lc(s.Pos())
			a.nested("bash", sb.String(), l, col, "alias", false)
			a.stmtRedirects(s, "", c)
			return
		}
	}
	fields = a.resolveAlias(fields)
	if len(fields) == 0 {
		a.stmtRedirects(s, "", c)
		return
	}
	idx := len(a.b.Facts.Commands)
	netStart := len(a.b.Facts.Network)
	a.effName = ""
	a.emitCommand(s, fields, c)
	a.markUploads(s, netStart, c)
	redirs, stdin := a.stmtRedirects(s, a.effName, c)
	if idx < len(a.b.Facts.Commands) {
		cmd := &a.b.Facts.Commands[idx]
		cmd.Redirects = redirs
		if len(stdin) > 0 {
			cmd.StdinSources = append(cmd.StdinSources, stdin...)
		}
	}
	if len(s.Redirs) > 0 {
		a.startupWrite(s, a.effName)
		a.remember(s, a.effName)
	}
}

// resolveAlias replaces a leading alias name by its definition.
func (a *analyzer) resolveAlias(fields []field) []field {
	for depth := 0; depth < 4 && len(fields) > 0 && a.aliases != nil; depth++ {
		f := fields[0]
		def, ok := a.aliases[f.s]
		if !ok || f.dyn || f.quoted {
			break
		}
		var pre []field
		p := parserPool.Get().(*syntax.Parser)
		_ = p.Words(strings.NewReader(def), func(w *syntax.Word) bool {
			pre = a.appendWord(pre, w, false)
			return true
		})
		parserPool.Put(p)
		if len(pre) == 0 {
			break
		}
		fields = append(pre, fields[1:]...)
		if pre[0].s == f.s {
			break
		}
	}
	return fields
}

// emitCommand records one Command built from fields and applies the
// semantics of its name (files, network, wrappers, nested code). It returns
// the command's ID.
func (a *analyzer) emitCommand(s *syntax.Stmt, fields []field, c *ctx) int {
	if isLoginShellWord(fields[0]) {
		// `$SHELL -c …`: the user's shell runs the code; any shell
		// judges it alike.
		fields[0] = field{s: "sh"}
	}
	f0 := fields[0]
	// The command is built in place: sdk.Command is large, and building
	// it aside then appending copied it. cmd is only used before anything
	// else appends to Commands (semantics below may).
	a.b.Facts.Commands = append(a.b.Facts.Commands, sdk.Command{})
	cmd := &a.b.Facts.Commands[len(a.b.Facts.Commands)-1]
	cmd.ID = a.b.NextID()
	cmd.Reach = c.reach // interned, never mutated (see with)
	cmd.Pipeline = c.pipe
	cmd.Stage = c.stage
	cmd.StdinSources = a.intSlab.copyOf(c.stdin)
	cmd.Evidence = a.evidence(s.Pos())
	cmd.Pos = a.pos(s.Pos())
	if c.pipe == 0 {
		cmd.Stage = 0
	}
	name := ""
	if f0.dyn {
		cmd.Dynamic = true
		cmd.Path = f0.s
	} else {
		name = path.Base(f0.s)
		if f0.s == "" {
			name = ""
		}
		if strings.Contains(f0.s, "/") || f0.glob {
			cmd.Path = f0.s
		}
		if f0.glob {
			cmd.Candidates = globCandidates(name)
			if len(cmd.Candidates) == 1 {
				name = cmd.Candidates[0]
			}
		}
		cmd.Name = name
	}
	if len(fields) > 1 {
		cmd.Args = a.strSlab.take(len(fields) - 1)
	}
	nSources, nDyn := 0, 0
	for i, f := range fields {
		nSources += len(f.substIDs())
		if f.dyn && i > 0 {
			nDyn++
		}
	}
	cmd.ArgSources = a.intSlab.take(nSources)
	cmd.DynamicArgs = a.intSlab.take(nDyn)
	for i, f := range fields {
		if f.enc && i == 0 {
			// The command word was decoded from encoded content: the
			// decoded text is executed. (Decoded arguments are only
			// data unless an interpreter runs them, which DynamicExec
			// records.)
			cmd.Pos.Encoded = true
		}
		if nSources > 0 {
			cmd.ArgSources = append(cmd.ArgSources, f.substIDs()...)
		}
		if i == 0 {
			continue
		}
		cmd.Args = append(cmd.Args, f.s)
		if f.dyn {
			cmd.DynamicArgs = append(cmd.DynamicArgs, i-1)
		}
	}
	id, candidates := cmd.ID, cmd.Candidates
	if c.collect {
		a.idStack = append(a.idStack, id)
	}
	a.effName = name
	if fi, ok := a.funcs[name]; ok && name != "" {
		fn := &a.b.Facts.Functions[fi]
		if c.inFunc == name {
			fn.Recursive = true
			if c.pipe != 0 {
				fn.SelfPipe = true
			}
			if c.bg {
				fn.Background = true
			}
		} else {
			fn.CalledAtTop = true
			if len(fields) > 1 {
				a.callFunc(name, fields[1:], c)
			}
		}
		if specs[name] == nil && !isKnownCommand(name) {
			// A call of the script's own function: its body was walked;
			// its arguments are data for it, not paths or hosts.
			return id
		}
	}
	if f0.dyn {
		if f0.downloaded || f0.enc {
			a.dynExec(s, "eval", "", field{}, f0, false)
		}
		return id
	}
	if strings.HasPrefix(f0.s, "./") || strings.HasPrefix(f0.s, "../") || strings.HasPrefix(f0.s, "~") {
		// A program run from the workspace or a home directory.
		a.addFile(s, f0, "exec", "exec", c, fileFlags{})
	}
	if strings.Contains(f0.s, "/") {
		a.runFile(s, "sh", f0)
	}
	a.semantics(s, name, fields[1:], c)
	if len(candidates) > 1 {
		// A pattern matching several programs: record what each could
		// do to files and hosts, without unwrapping or nesting (which
		// could multiply without bound).
		for i, cand := range candidates {
			if i == maxCandidateSemantics {
				break
			}
			a.network(s, cand, fields[1:], c)
			a.files(s, cand, fields[1:], c)
		}
	}
	return id
}

// maxCandidateSemantics bounds how many candidates of a glob command word
// get their file and network semantics applied.
const maxCandidateSemantics = 16

// isShell reports the shells, which run their argument or stdin as shell
// code. A switch rather than a map: it is asked for every command, and
// most names are not shells.
func isShell(name string) bool {
	switch name {
	case "sh", "bash", "zsh", "dash", "ksh", "ash", "mksh", "fish", "rbash":
		return true
	}
	return false
}

func isPython(name string) bool {
	return name == "python" || strings.HasPrefix(name, "python2") || strings.HasPrefix(name, "python3") ||
		name == "pypy" || name == "pypy3"
}

// semantics applies what the command named name does with its args.
func (a *analyzer) semantics(s *syntax.Stmt, name string, args []field, c *ctx) {
	if inner, reach, ok := a.unwrap(s, name, args, c); ok {
		if inner >= 0 && inner < len(args) {
			wc := a.with(c, reach)
			a.emitCommand(s, args[inner:], &wc)
		}
		return
	}
	if l := interpByName[name]; l != nil {
		a.interpArgs(s, name, l, args, c)
	}
	if h := runnerByName[name]; h != nil {
		h(a, s, name, args, c)
	}
	switch {
	case name == "xargs":
		a.xargs(s, args, c)
		return
	case name == "find":
		a.find(s, args, c)
		return
	case isShell(name):
		a.shell(s, name, args, c)
		return
	case isPython(name):
		a.python(s, name, args, c)
		return
	case name == "perl":
		a.perl(s, args, c)
		return
	case name == "ruby" || name == "node" || name == "nodejs" || name == "php":
		a.scriptingSystem(s, name, args, c)
		return
	case name == "awk" || name == "gawk" || name == "mawk" || name == "nawk":
		a.awk(s, args, c)
	case name == "git":
		a.gitShellAliases(s, args)
	case name == "eval":
		a.eval(s, args, c)
		return
	case name == "trap":
		// trap 'code' SIGNAL: the code runs later, in this shell.
		if len(args) >= 2 && !strings.HasPrefix(args[0].s, "-") && !args[0].dyn && args[0].s != "" {
			l, col := a.lc(s.Pos())
			a.nested("bash", args[0].s, l, col, "trap", false)
		}
		return
	case name == "script":
		for i, f := range args {
			if (f.s == "-c" || f.s == "--command" || strings.HasPrefix(f.s, "-") && !strings.HasPrefix(f.s, "--") && strings.HasSuffix(f.s, "c")) && i+1 < len(args) {
				a.dynExec(s, "shell_c", "script", args[i+1], args[i+1], true)
				return
			}
		}
	case name == "su":
		a.su(s, args, c)
		return
	case name == "at" || name == "batch":
		// at TIME reads the job's shell code from stdin (or -f FILE).
		for i, f := range args {
			if f.s == "-f" && i+1 < len(args) {
				a.fileAccess(s, args[i+1], "exec", name, c)
				a.runFile(s, name, args[i+1])
				return
			}
		}
		a.stdinCode(s, name, c)
		return
	case name == "tmux":
		// tmux new[-session] -d 'shell command': the last operand is
		// shell code.
		if len(args) > 0 && (args[0].s == "new" || args[0].s == "new-session" || args[0].s == "new-window" ||
			args[0].s == "neww" || args[0].s == "split-window" || args[0].s == "splitw") {
			last := args[len(args)-1]
			if len(args) > 1 && !strings.HasPrefix(last.s, "-") && (len(args) < 3 || !strings.HasPrefix(args[len(args)-2].s, "-") || len(args[len(args)-2].s) == 2 && strings.IndexByte("dPh", args[len(args)-2].s[1]) >= 0) {
				a.nestedShell(s, "tmux", last)
			}
		}
		return
	case name == "source" || name == ".":
		a.source(s, args, c)
		return
	case name == "alias":
		a.alias(s, args)
		return
	case name == "unset":
		for _, f := range args {
			if strings.HasPrefix(f.s, "-") {
				continue
			}
			a.b.Facts.Assignments = append(a.b.Facts.Assignments, sdk.Assignment{Name: f.s, Op: "unset", Pos: a.pos(s.Pos())})
			delete(a.vars, f.s)
		}
		return
	case name == "read" || name == "mapfile" || name == "readarray":
		a.read(s, name, args)
		return
	case name == "sleep":
		a.sleep(s, args)
		return
	case name == "printenv":
		// printenv NAME prints that variable's value.
		var fs []field
		for _, f := range args {
			if isIdent(f.s) && !f.dyn {
				a.b.Facts.EnvReads = append(a.b.Facts.EnvReads, sdk.EnvRead{Name: f.s, Pos: a.pos(s.Pos())})
				v := field{s: f.s}
				v.addVar(f.s)
				fs = append(fs, v)
			}
		}
		a.output(s, fs, c)
		return
	case name == "set":
		for i, f := range args {
			if f.s == "--" {
				a.setPositional(args[i+1:], false)
				break
			}
		}
		return
	case name == "echo" || name == "printf":
		if name == "printf" && len(args) >= 3 && args[0].s == "-v" && isIdent(args[1].s) {
			// printf -v VAR fmt args…: assigns instead of printing.
			out, _ := printfOut(args[2:])
			dyn := false
			for _, f := range args[2:] {
				dyn = dyn || f.dyn
			}
			a.setVar(args[1].s, out, !dyn)
			a.b.Facts.Assignments = append(a.b.Facts.Assignments, sdk.Assignment{Name: args[1].s, Value: out,
				Dynamic: dyn, Op: "set", Pos: a.pos(s.Pos())})
			return
		}
		a.output(s, args, c)
		return
	}
	if name == "crontab" {
		for _, f := range args {
			if !strings.HasPrefix(f.s, "-") && !f.dyn {
				if text, ok := a.writtenText(normPath(f.s)); ok {
					a.installedCode(s, text, "crontab", true)
				}
			}
		}
	}
	a.network(s, name, args, c)
	a.files(s, name, args, c)
	if name == "cat" {
		a.output(s, nil, c)
	}
}

// unwrap recognizes commands that run another command given in their
// arguments. It returns the index of the inner command's name in args (-1
// when there is none) and the Reach of the inner command.
func (a *analyzer) unwrap(s *syntax.Stmt, name string, args []field, c *ctx) (int, string, bool) {
	switch name {
	case "sudo":
		return skipOpts(args, "ugCDhpRrtTU", []string{"--user", "--group", "--prompt", "--chdir", "--chroot",
			"--role", "--type", "--close-from", "--host", "--other-user", "--command-timeout"}, 0), "wrapper", true
	case "doas":
		return skipOpts(args, "uC", nil, 0), "wrapper", true
	case "pkexec":
		return skipOpts(args, "", []string{"--user"}, 0), "wrapper", true
	case "runuser":
		return skipOpts(args, "ugGlcw", []string{"--user", "--group", "--supp-group", "--command",
			"--shell", "--whitelist-environment"}, 0), "wrapper", true
	case "nice":
		return skipOpts(args, "n", []string{"--adjustment"}, 0), "wrapper", true
	case "timeout":
		return skipOpts(args, "sk", []string{"--signal", "--kill-after"}, 1), "wrapper", true
	case "screen":
		// screen -dmS NAME cmd args…
		return skipOpts(args, "SLhpcsTtXe", nil, 0), "wrapper", true
	case "busybox", "toybox":
		// busybox APPLET args…
		if len(args) > 0 && !strings.HasPrefix(args[0].s, "-") {
			return 0, "wrapper", true
		}
		return -1, "", true
	case "nohup", "builtin", "setsid", "unbuffer", "caffeinate", "proxychains", "proxychains4", "torsocks",
		"unshare", "fakeroot", "catchsegv":
		return skipOpts(args, "", nil, 0), "wrapper", true
	case "command":
		for _, f := range args {
			if f.s == "-v" || f.s == "-V" {
				return -1, "", true
			}
		}
		return skipOpts(args, "", nil, 0), "wrapper", true
	case "exec":
		return skipOpts(args, "a", nil, 0), "wrapper", true
	case "stdbuf":
		return skipOpts(args, "ioe", []string{"--input", "--output", "--error"}, 0), "wrapper", true
	case "ionice":
		for _, f := range args {
			if f.s == "-p" || f.s == "-P" || f.s == "-u" {
				return -1, "", true
			}
		}
		return skipOpts(args, "cnt", []string{"--class", "--classdata"}, 0), "wrapper", true
	case "time":
		return skipOpts(args, "fo", []string{"--format", "--output"}, 0), "wrapper", true
	case "chroot":
		return skipOpts(args, "", []string{"--userspec", "--groups"}, 1), "wrapper", true
	case "watch":
		i := skipOpts(args, "nqd", []string{"--interval", "--differences"}, 0)
		if i >= 0 && i == len(args)-1 && strings.ContainsAny(args[i].s, " \t;|&") {
			// watch 'cmd args': one operand is a command line that
			// watch runs through sh -c.
			a.nestedShell(s, "watch", args[i])
			return -1, "", true
		}
		return i, "wrapper", true
	case "flock":
		for i, f := range args {
			if f.s == "-c" || f.s == "--command" {
				if i+1 < len(args) {
					a.nestedShell(s, "flock", args[i+1])
				}
				return -1, "", true
			}
		}
		return skipOpts(args, "wEo", []string{"--timeout", "--conflict-exit-code"}, 1), "wrapper", true
	case "taskset":
		return skipOpts(args, "", []string{"--cpu-list"}, 1), "wrapper", true
	case "chrt":
		return skipOpts(args, "T", nil, 1), "wrapper", true
	case "env":
		i := 0
		for i < len(args) {
			f := args[i]
			switch {
			case f.s == "--":
				i++
				continue
			case f.s == "-S" || f.s == "--split-string":
				if i+1 < len(args) {
					a.nestedShell(s, "env", args[i+1])
				}
				return -1, "", true
			case f.s == "-u" || f.s == "-C" || f.s == "--unset" || f.s == "--chdir":
				i += 2
				continue
			case strings.HasPrefix(f.s, "-") && !f.dyn:
				i++
				continue
			case !f.dyn && strings.Contains(f.s, "=") && isIdent(f.s[:strings.IndexByte(f.s, '=')]):
				i++
				continue
			}
			break
		}
		return i, "wrapper", true
	}
	return 0, "", false
}

// skipOpts returns the index of the first operand after options; shortVal
// and longVal name options that take a value; extra operands (a duration,
// a new root) are skipped after the options.
func skipOpts(args []field, shortVal string, longVal []string, extra int) int {
	i := 0
	for i < len(args) {
		f := args[i]
		if !strings.HasPrefix(f.s, "-") || f.s == "-" {
			break
		}
		if f.s == "--" {
			i++
			break
		}
		if strings.HasPrefix(f.s, "--") {
			if !strings.Contains(f.s, "=") && contains(longVal, f.s) {
				i++
			}
			i++
			continue
		}
		// Short cluster: a value option takes the rest or the next arg.
		for j := 1; j < len(f.s); j++ {
			if strings.IndexByte(shortVal, f.s[j]) >= 0 {
				if j == len(f.s)-1 {
					i++
				}
				break
			}
		}
		i++
	}
	return i + extra
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// placeholder marks the argument that xargs / find -exec fill in.
const placeholder = "{}"

func (a *analyzer) xargs(s *syntax.Stmt, args []field, c *ctx) {
	repl := ""
	i := 0
	for i < len(args) {
		f := args[i]
		if !strings.HasPrefix(f.s, "-") || f.s == "-" {
			break
		}
		switch {
		case f.s == "--":
			i++
			goto done
		case f.s == "-I" || f.s == "--replace":
			if i+1 < len(args) {
				repl = args[i+1].s
			}
			i += 2
			continue
		case strings.HasPrefix(f.s, "-I"):
			repl = f.s[2:]
		case strings.HasPrefix(f.s, "--replace="):
			repl = strings.TrimPrefix(f.s, "--replace=")
		case f.s == "-i":
			repl = placeholder
		case f.s == "-a" || f.s == "--arg-file":
			if i+1 < len(args) {
				a.fileAccess(s, args[i+1], "read", "xargs", c)
			}
			i += 2
			continue
		case len(f.s) == 2 && strings.IndexByte("dEeLlnPs", f.s[1]) >= 0:
			i += 2
			continue
		}
		i++
	}
done:
	inner := []field{{s: "echo"}}
	if i < len(args) {
		inner = append([]field(nil), args[i:]...)
	}
	if repl != "" {
		for k := 1; k < len(inner); k++ {
			if strings.Contains(inner[k].s, repl) {
				inner[k] = field{s: strings.ReplaceAll(inner[k].s, repl, placeholder), dyn: true}
			}
		}
	} else {
		inner = append(inner, field{s: placeholder, dyn: true})
	}
	ic := a.with(c, "xargs")
	ic.targets = a.upstreamPaths(c.prevStage)
	if c.prevStage == nil {
		ic.targets = a.stdinWords(s)
	}
	a.emitCommand(s, inner, &ic)
}

// upstreamPaths returns the start paths of a `find` (or the operands of
// `ls`) feeding a pipe, which become the targets of xargs.
func (a *analyzer) upstreamPaths(st *syntax.Stmt) []string {
	if st == nil {
		return nil
	}
	call, ok := st.Cmd.(*syntax.CallExpr)
	if !ok || len(call.Args) == 0 {
		return nil
	}
	fs := a.callWords(call)
	if len(fs) == 0 || fs[0].dyn {
		return nil
	}
	switch path.Base(fs[0].s) {
	case "find":
		return findStarts(fs[1:])
	case "ls":
		var out []string
		for _, f := range fs[1:] {
			if !strings.HasPrefix(f.s, "-") && !f.dyn {
				out = append(out, f.s)
			}
		}
		if len(out) == 0 {
			out = []string{"."}
		}
		return out
	}
	// A producer whose output folds (`echo / | xargs rm -rf`): its words.
	if r := a.foldStages([]*syntax.Stmt{st}); r.static {
		return strings.Fields(r.content)
	}
	return nil
}

// stdinWords returns the words a command reads from its own here-string or
// heredoc when that text is static (`xargs rm -rf <<< /`), else nil.
func (a *analyzer) stdinWords(s *syntax.Stmt) []string {
	for _, rd := range s.Redirs {
		var f field
		switch rd.Op {
		case syntax.WordHdoc:
			f = a.expandOne(rd.Word, false)
		case syntax.Hdoc, syntax.DashHdoc:
			f = a.heredocBody(rd, false)
		default:
			continue
		}
		if f.dyn {
			return nil
		}
		return strings.Fields(f.s)
	}
	return nil
}

func findStarts(args []field) []string {
	var out []string
	for _, f := range args {
		if strings.HasPrefix(f.s, "-") && f.s != "-" || f.s == "(" || f.s == "!" || f.s == "\\(" {
			break
		}
		if f.dyn {
			continue
		}
		out = append(out, f.s)
	}
	if len(out) == 0 {
		out = []string{"."}
	}
	return out
}

func (a *analyzer) find(s *syntax.Stmt, args []field, c *ctx) {
	i := 0
	// Leading -H/-L/-P/-O options.
	for i < len(args) && (args[i].s == "-H" || args[i].s == "-L" || args[i].s == "-P" || strings.HasPrefix(args[i].s, "-O")) {
		i++
	}
	starts := findStarts(args[i:])
	var startFields []field
	for ; i < len(args); i++ {
		f := args[i]
		if strings.HasPrefix(f.s, "-") && f.s != "-" || f.s == "(" || f.s == "!" {
			break
		}
		startFields = append(startFields, f)
	}
	if len(startFields) == 0 {
		startFields = []field{{s: "."}}
	}
	for _, f := range startFields {
		a.fileAccess(s, f, "list", "find", c)
	}
	var ic ctx // outside the loop, so that it stays on the stack
	for ; i < len(args); i++ {
		switch args[i].s {
		case "-delete":
			for _, f := range startFields {
				a.addFile(s, f, "delete", "find", c, fileFlags{recursive: true})
			}
		case "-exec", "-execdir", "-ok", "-okdir":
			j := i + 1
			for j < len(args) && args[j].s != ";" && args[j].s != "+" {
				j++
			}
			if j > i+1 {
				inner := append([]field(nil), args[i+1:j]...)
				for k := range inner {
					if strings.Contains(inner[k].s, placeholder) {
						inner[k].dyn = true
					}
				}
				ic = a.with(c, "find_exec")
				ic.targets = starts
				a.emitCommand(s, inner, &ic)
			}
			i = j
		case "-fprint", "-fprint0", "-fprintf", "-fls":
			if i+1 < len(args) {
				a.fileAccess(s, args[i+1], "write", "find", c)
				i++
			}
		}
	}
}

// nestedShell analyzes f, a shell command string run by interp (flock -c,
// env -S), as nested bash.
func (a *analyzer) nestedShell(s *syntax.Stmt, interp string, f field) {
	a.dynExec(s, "shell_c", interp, f, f, true)
}

// dynExec records a DynamicExec for content f and analyzes it nested when
// static. src carries substitution provenance (encoded, downloaded).
func (a *analyzer) dynExec(s *syntax.Stmt, kind, interp string, content, src field, analyze bool) {
	d := sdk.DynamicExec{
		Kind:        kind,
		Interpreter: interp,
		Encoded:     src.enc || content.enc,
		Decoders:    dedup(append(append([]string(nil), src.decoderList()...), content.decoderList()...)),
		Downloaded:  src.downloaded || content.downloaded,
		Evidence:    a.evidence(s.Pos()),
		Pos:         a.pos(s.Pos()),
	}
	if d.Downloaded {
		d.Encoded = d.Encoded || len(d.Decoders) > 0
	}
	lang := "bash"
	via := kind
	switch kind {
	case "shell_c":
		via = interp + " -c"
		if f := inlineFlag[interp]; f != "" {
			via = interp + " " + f
		}
	case "python_c":
		lang, via = "python", interp+" -c"
	case "perl_e":
		via = "perl -e"
	case "awk_system":
		via = "awk system"
	case "heredoc_interpreter":
		via = "heredoc:" + interp
		if isPython(interp) {
			lang = "python"
		}
	case "pipe_interpreter":
		via = strings.Join(append(append([]string(nil), d.Decoders...), interp), ">")
		if interp == "at" || interp == "batch" {
			lang = "bash"
		}
		if isPython(interp) {
			lang = "python"
		}
	case "source":
		via = "source"
		if isPython(interp) {
			lang = "python"
		}
	}
	idx := len(a.b.Facts.DynamicExec)
	if analyze && !content.dyn && !d.Downloaded {
		d.Static = true
		d.Content = capContent(content.s)
	}
	a.b.Facts.DynamicExec = append(a.b.Facts.DynamicExec, d)
	if d.Static {
		l, col := a.lc(s.Pos())
		if !a.nested(lang, content.s, l, col, via, d.Encoded) {
			a.b.Facts.DynamicExec[idx].Static = false
		}
	}
}

// maxContent caps DynamicExec.Content.
const maxContent = 4096

func capContent(s string) string {
	if len(s) > maxContent {
		return s[:maxContent]
	}
	return s
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

// heredocBody expands a heredoc body (literal when the delimiter is quoted).
func (a *analyzer) heredocBody(r *syntax.Redirect, emit bool) field {
	if r.Hdoc == nil {
		return field{}
	}
	alts := a.expandParts(r.Hdoc.Parts, emit, dquoted)
	f := field{}
	if len(alts) > 0 {
		for _, g := range alts[0] {
			f.merge(g)
		}
	}
	return f
}

func (a *analyzer) python(s *syntax.Stmt, name string, args []field, c *ctx) {
	for i := 0; i < len(args); i++ {
		f := args[i]
		if f.dyn && !f.procSubst {
			return
		}
		switch {
		case f.s == "-c":
			if i+1 < len(args) {
				a.dynExec(s, "python_c", name, args[i+1], args[i+1], true)
			}
			return
		case strings.HasPrefix(f.s, "-c") && !strings.HasPrefix(f.s, "--"):
			a.dynExec(s, "python_c", name, field{s: f.s[2:]}, f, true)
			return
		case f.s == "-m":
			return
		case f.s == "-":
			a.stdinCode(s, name, c)
			return
		case f.s == "-W" || f.s == "-X" || f.s == "--check-hash-based-pycs":
			i++
		case strings.HasPrefix(f.s, "-"):
		default:
			a.scriptOperand(s, name, f, c)
			return
		}
	}
	a.stdinCode(s, name, c)
}

func (a *analyzer) perl(s *syntax.Stmt, args []field, c *ctx) {
	for i := 0; i < len(args); i++ {
		f := args[i]
		if (f.s == "-e" || f.s == "-E") && i+1 < len(args) {
			code := args[i+1]
			a.codeSockets(s, "perl", code.s)
			// The commands the code runs are found by the interpreter
			// registry (interp.go); code that runs none is still
			// inline code executed.
			if code.dyn || !runsShell(interpByName["perl"], code.s) {
				a.b.Facts.DynamicExec = append(a.b.Facts.DynamicExec, sdk.DynamicExec{
					Kind: "perl_e", Interpreter: "perl", Static: !code.dyn, Content: capContent(code.s),
					Evidence: a.evidence(s.Pos()), Pos: a.pos(s.Pos()),
				})
			}
			return
		}
		if !strings.HasPrefix(f.s, "-") {
			a.scriptOperand(s, "perl", f, c)
			return
		}
	}
}

// gitShellAliases finds git aliases that run a shell command — `git -c
// alias.x='!cmd' x`, `git config alias.x '!cmd'` — and analyzes the
// command as the shell code git will run.
func (a *analyzer) gitShellAliases(s *syntax.Stmt, args []field) {
	for i := 0; i < len(args); i++ {
		f := args[i]
		var key string
		var val field
		switch {
		case f.s == "-c" && i+1 < len(args):
			kv := args[i+1]
			k := strings.IndexByte(kv.s, '=')
			if k < 0 {
				continue
			}
			key, val = kv.s[:k], field{s: kv.s[k+1:], dyn: kv.dyn}
			i++
		case f.s == "config" && i+2 < len(args):
			j := i + 1
			for j < len(args) && strings.HasPrefix(args[j].s, "-") {
				j++
			}
			if j+1 >= len(args) {
				return
			}
			key, val = args[j].s, args[j+1]
			i = j + 1
		default:
			if !strings.HasPrefix(f.s, "-") {
				return // the subcommand: options end here
			}
			continue
		}
		if !strings.HasPrefix(strings.ToLower(key), "alias.") || !strings.HasPrefix(val.s, "!") {
			continue
		}
		code := field{s: strings.TrimPrefix(val.s, "!"), dyn: val.dyn}
		a.dynExec(s, "shell_c", "git", code, code, true)
	}
}

func (a *analyzer) awk(s *syntax.Stmt, args []field, c *ctx) {
	for i := 0; i < len(args); i++ {
		f := args[i]
		if f.s == "-f" {
			return
		}
		if f.s == "-F" || f.s == "-v" {
			i++
			continue
		}
		if strings.HasPrefix(f.s, "-") && len(f.s) > 1 {
			continue
		}
		a.codeSockets(s, "awk", f.s)
		for _, cmd := range extractCalls(f.s, []string{"system("}, false) {
			a.dynExec(s, "awk_system", "awk", field{s: cmd}, f, true)
		}
		if f.dyn && strings.Contains(f.s, "system") {
			a.dynExec(s, "awk_system", "awk", field{dyn: true}, f, false)
			return
		}
		resolved, fromInput, dynamic := awkSystemArgs(f.s)
		for _, cmd := range resolved {
			a.dynExec(s, "awk_system", "awk", field{s: cmd}, f, true)
		}
		if fromInput {
			// The program runs its input lines: a heredoc or here-string
			// is the script (pipes are judged by pipeInterpreter).
			a.stdinCode(s, "awk", c)
		}
		if dynamic {
			a.dynExec(s, "awk_system", "awk", field{dyn: true}, f, false)
		}
		return
	}
}

// awkSystemArgs looks at the system(…) calls of an awk program whose
// argument is not a string literal: a variable assigned one literal in the
// program (`cmd="rm -rf /"; system(cmd)`) resolves to it; a field
// reference (`system($0)`) means the program executes its input lines;
// anything else is dynamic execution.
func awkSystemArgs(prog string) (resolved []string, fromInput, dynamic bool) {
	for off := 0; ; {
		k := strings.Index(prog[off:], "system")
		if k < 0 {
			return resolved, fromInput, dynamic
		}
		b := off + k
		j := b + len("system")
		off = j
		if b > 0 && isWordByte(prog[b-1]) {
			continue
		}
		for j < len(prog) && (prog[j] == ' ' || prog[j] == '\t') {
			j++
		}
		if j >= len(prog) || prog[j] != '(' {
			continue
		}
		j++
		for j < len(prog) && (prog[j] == ' ' || prog[j] == '\t') {
			j++
		}
		if j < len(prog) && (prog[j] == '"' || prog[j] == '\'') {
			// A literal is reported by extractCalls; one concatenated with
			// more (`system("echo " $1)`) is computed.
			q := strings.IndexByte(prog[j+1:], prog[j])
			if q < 0 {
				dynamic = true
				continue
			}
			rest := strings.TrimLeft(prog[j+2+q:], " \t")
			if rest == "" || rest[0] != ')' {
				dynamic = true
			}
			continue
		}
		e := strings.IndexByte(prog[j:], ')')
		if e < 0 {
			dynamic = true
			continue
		}
		arg := strings.TrimSpace(prog[j : j+e])
		switch {
		case arg == "":
		case arg[0] == '$':
			fromInput = true
		case isIdent(arg):
			if v, ok := awkLiteralAssign(prog, arg); ok {
				resolved = append(resolved, v)
			} else {
				dynamic = true
			}
		default:
			dynamic = true
		}
	}
}

// awkLiteralAssign finds the only `name = "literal"` assignment in an awk
// program; a variable assigned more than once, or from anything but a
// literal, is not resolved.
func awkLiteralAssign(prog, name string) (string, bool) {
	val, found := "", false
	for off := 0; ; {
		k := strings.Index(prog[off:], name)
		if k < 0 {
			return val, found
		}
		b := off + k
		j := b + len(name)
		off = j
		if b > 0 && isWordByte(prog[b-1]) || j < len(prog) && isWordByte(prog[j]) {
			continue
		}
		for j < len(prog) && (prog[j] == ' ' || prog[j] == '\t') {
			j++
		}
		if j >= len(prog) || prog[j] != '=' || j+1 < len(prog) && prog[j+1] == '=' {
			continue
		}
		j++
		for j < len(prog) && (prog[j] == ' ' || prog[j] == '\t') {
			j++
		}
		if found || j >= len(prog) || prog[j] != '"' {
			return "", false
		}
		e := strings.IndexByte(prog[j+1:], '"')
		if e < 0 {
			return "", false
		}
		val, found = prog[j+1:j+1+e], true
	}
}

// extractCalls finds string-literal arguments of fn("…") / fn '…' calls and,
// with backticks, `…` / qx{…} in program text (perl, awk).
func extractCalls(prog string, fns []string, backticks bool) []string {
	var out []string
	for _, fn := range fns {
		for off := 0; ; {
			k := strings.Index(prog[off:], fn)
			if k < 0 {
				break
			}
			j := off + k + len(fn)
			if b := off + k; b > 0 && isWordByte(prog[b-1]) {
				off = j
				continue
			}
			off = j
			for j < len(prog) && (prog[j] == ' ' || prog[j] == '(' || prog[j] == '\t') {
				j++
			}
			// awk: system( "cmd" ) — spaces after the parenthesis too.
			if j >= len(prog) || (prog[j] != '"' && prog[j] != '\'') {
				continue
			}
			q := prog[j]
			e := strings.IndexByte(prog[j+1:], q)
			if e < 0 {
				continue
			}
			out = append(out, prog[j+1:j+1+e])
			off = j + 1 + e
		}
	}
	if backticks {
		for off := 0; ; {
			k := strings.IndexByte(prog[off:], '`')
			if k < 0 {
				break
			}
			e := strings.IndexByte(prog[off+k+1:], '`')
			if e < 0 {
				break
			}
			out = append(out, prog[off+k+1:off+k+1+e])
			off += k + e + 2
		}
		for _, open := range []string{"qx{", "qx(", "qx/"} {
			if k := strings.Index(prog, open); k >= 0 {
				closer := map[byte]byte{'{': '}', '(': ')', '/': '/'}[open[2]]
				if e := strings.IndexByte(prog[k+3:], closer); e >= 0 {
					out = append(out, prog[k+3:k+3+e])
				}
			}
		}
	}
	return out
}

func (a *analyzer) eval(s *syntax.Stmt, args []field, c *ctx) {
	content := field{}
	for i, f := range args {
		if i > 0 {
			content.merge(field{s: " "})
		}
		content.merge(f)
	}
	a.dynExec(s, "eval", "bash", content, content, true)
}

func (a *analyzer) su(s *syntax.Stmt, args []field, c *ctx) {
	for i, f := range args {
		if (f.s == "-c" || f.s == "--command") && i+1 < len(args) {
			a.dynExec(s, "shell_c", "su", args[i+1], args[i+1], true)
			return
		}
	}
}

func (a *analyzer) source(s *syntax.Stmt, args []field, c *ctx) {
	if len(args) == 0 {
		return
	}
	f := args[0]
	if isStdinPath(f.s) && !f.dyn {
		a.stdinCode(s, "bash", c)
		return
	}
	if f.procSubst {
		pc := f.procContent()
		a.dynExec(s, "source", "bash", pc, f, !pc.dyn)
		return
	}
	if f.dyn {
		a.dynExec(s, "source", "bash", field{dyn: true}, f, false)
	}
	a.fileAccess(s, f, "source", "source", c)
	a.runFile(s, "bash", f)
}

func (a *analyzer) alias(s *syntax.Stmt, args []field) {
	for _, f := range args {
		k := strings.IndexByte(f.s, '=')
		if k <= 0 {
			continue
		}
		name, val := f.s[:k], f.s[k+1:]
		if a.aliases == nil {
			a.aliases = map[string]string{}
		}
		fact := sdk.Assignment{Name: name, Op: "alias", Pos: a.pos(s.Pos())}
		if f.dyn {
			fact.Dynamic = true
			delete(a.aliases, name)
		} else {
			fact.Value = val
			a.aliases[name] = val
		}
		a.b.Facts.Assignments = append(a.b.Facts.Assignments, fact)
	}
}

// sleep records a Sleep with the summed duration of its operands.
func (a *analyzer) sleep(s *syntax.Stmt, args []field) {
	sl := sdk.Sleep{Evidence: a.evidence(s.Pos()), Pos: a.pos(s.Pos())}
	for _, f := range args {
		if f.dyn {
			sl.Dynamic = true
			continue
		}
		if strings.HasPrefix(f.s, "-") {
			continue
		}
		v, ok := parseDuration(f.s)
		if !ok {
			sl.Dynamic = true
			continue
		}
		if v < 0 {
			sl.Seconds = -1
			break
		}
		sl.Seconds += v
	}
	a.b.Facts.Sleeps = append(a.b.Facts.Sleeps, sl)
}

// parseDuration parses sleep/timeout durations: 10, 1.5, 10m, 2h, 1d,
// infinity (-1).
func parseDuration(s string) (float64, bool) {
	if s == "inf" || s == "infinity" {
		return -1, true
	}
	mult := 1.0
	switch s[len(s)-1] {
	case 's':
		s = s[:len(s)-1]
	case 'm':
		mult, s = 60, s[:len(s)-1]
	case 'h':
		mult, s = 3600, s[:len(s)-1]
	case 'd':
		mult, s = 86400, s[:len(s)-1]
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, false
	}
	return v * mult, true
}

// output records echo/printf/cat of variables whose values are unknown.
func (a *analyzer) output(s *syntax.Stmt, args []field, c *ctx) {
	var vars []string
	for _, f := range args {
		vars = append(vars, f.varNames()...)
	}
	for _, r := range s.Redirs {
		if r.Op == syntax.WordHdoc || r.Op == syntax.Hdoc || r.Op == syntax.DashHdoc {
			var f field
			if r.Op == syntax.WordHdoc {
				f = a.expandOne(r.Word, false)
			} else {
				f = a.heredocBody(r, false)
			}
			vars = append(vars, f.varNames()...)
		}
	}
	if len(vars) == 0 {
		return
	}
	sink := "stdout"
	for _, r := range s.Redirs {
		switch r.Op {
		case syntax.RdrOut, syntax.AppOut, syntax.RdrAll, syntax.AppAll, syntax.ClbOut:
			t, _ := a.staticWord(r.Word)
			if strings.HasPrefix(t, "/dev/tcp/") || strings.HasPrefix(t, "/dev/udp/") {
				sink = "network"
			} else if t != "/dev/stdout" && t != "/dev/stderr" && t != "/dev/null" {
				sink = "file"
			}
		}
	}
	if c.nextStage != nil {
		if call, ok := c.nextStage.Cmd.(*syntax.CallExpr); ok && len(call.Args) > 0 {
			n, _ := a.staticWord(call.Args[0])
			if netTools[path.Base(n)] {
				sink = "network"
			}
		}
	}
	a.b.Facts.Outputs = append(a.b.Facts.Outputs, sdk.Output{
		Sink: sink, Vars: dedup(vars), Evidence: a.evidence(s.Pos()), Pos: a.pos(s.Pos()),
	})
}

func dedup(in []string) []string {
	var out []string
	for _, s := range in {
		if !contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// stmtRedirects records the statement's redirections: file accesses,
// /dev/tcp network use, features. It returns the Redirect list for the
// command and the IDs feeding its stdin through `< <(…)`.
func (a *analyzer) stmtRedirects(s *syntax.Stmt, cmdName string, c *ctx) ([]sdk.Redirect, []int) {
	out := a.redirSlab.take(len(s.Redirs))
	var stdin []int
	for _, r := range s.Redirs {
		rd := sdk.Redirect{Op: r.Op.String(), Fd: -1}
		if r.N != nil {
			if n, err := strconv.Atoi(r.N.Value); err == nil {
				rd.Fd = n
			}
		}
		switch r.Op {
		case syntax.Hdoc, syntax.DashHdoc:
			a.feature("heredoc", r.Pos())
			a.heredocBody(r, true)
			out = append(out, rd)
			continue
		case syntax.WordHdoc:
			a.feature("redirect", r.Pos())
			f := a.expandOne(r.Word, true)
			stdin = append(stdin, f.substIDs()...)
			out = append(out, rd)
			continue
		}
		a.feature("redirect", r.Pos())
		f := a.expandOne(r.Word, true)
		rd.Target, rd.Dynamic = a.resolveLink(normPath(f.s)), f.dyn
		if f.procSubst {
			if r.Op == syntax.RdrIn {
				stdin = append(stdin, f.substIDs()...)
			}
			out = append(out, rd)
			continue
		}
		op := ""
		switch r.Op {
		case syntax.RdrOut, syntax.ClbOut, syntax.RdrAll, syntax.RdrInOut:
			op = "write"
		case syntax.AppOut, syntax.AppAll:
			op = "append"
		case syntax.RdrIn:
			op = "read"
		case syntax.DplOut, syntax.DplIn:
			if isFdTarget(f.s) {
				rd.Target = fdTarget(f.s)
				op = ""
				// A descriptor opened earlier on /dev/tcp: a shell wired
				// to it is a reverse shell; other output sent to it is an
				// upload.
				if n, err := strconv.Atoi(f.s); err == nil {
					if idx, ok := a.tcpFDs[n]; ok && idx < len(a.b.Facts.Network) {
						if isShell(cmdName) {
							a.b.Facts.Network[idx].ExecShell = true
						} else if r.Op == syntax.DplOut && cmdName != "exec" {
							a.markDevUpload(&a.b.Facts.Network[idx], s)
						}
					}
				}
			} else if r.Op == syntax.DplOut {
				op = "write"
			} else {
				op = "read"
			}
		}
		out = append(out, rd)
		if op == "" || f.s == "" {
			continue
		}
		if strings.HasPrefix(f.s, "/dev/tcp/") || strings.HasPrefix(f.s, "/dev/udp/") {
			idx := a.devTCP(s, f, cmdName)
			if op != "read" && rd.Fd <= 1 && cmdName != "exec" && !isShell(cmdName) {
				// cat file > /dev/tcp/h/p sends the output.
				a.markDevUpload(&a.b.Facts.Network[idx], s)
			}
			if rd.Fd > 2 {
				// exec 5<>/dev/tcp/h/p: remember the socket descriptor.
				if a.tcpFDs == nil {
					a.tcpFDs = map[int]int{}
				}
				a.tcpFDs[rd.Fd] = idx
			}
			continue
		}
		if ignoredDevice(f.s) {
			continue
		}
		a.addFile(s, f, op, "redirect", c, fileFlags{})
	}
	return out, stdin
}

// fdTarget is the Redirect.Target of a duplication to descriptor t
// ("&1"), without building the common ones.
func fdTarget(t string) string {
	switch t {
	case "0":
		return "&0"
	case "1":
		return "&1"
	case "2":
		return "&2"
	case "-":
		return "&-"
	}
	return "&" + t
}

func isFdTarget(t string) bool {
	if t == "-" {
		return true
	}
	_, err := strconv.Atoi(t)
	return err == nil
}

func ignoredDevice(p string) bool {
	switch p {
	case "/dev/null", "/dev/stdout", "/dev/stderr", "/dev/stdin", "/dev/tty", "/dev/zero":
		return true
	}
	return strings.HasPrefix(p, "/dev/fd/")
}

// streamUploaders send their stdin to the connection they open.
var streamUploaders = map[string]bool{"nc": true, "ncat": true, "netcat": true, "socat": true, "telnet": true,
	"openssl": true, "ssh": true}

// markUploads completes the network facts a command just produced with
// what it reads on stdin: a raw socket client fed by a pipe or `< file`
// uploads that stream, and curl's `@-` / `-T -` resolve to the file
// that the previous pipeline stage reads.
func (a *analyzer) markUploads(s *syntax.Stmt, netStart int, c *ctx) {
	if netStart >= len(a.b.Facts.Network) {
		return
	}
	from, fed := "", false
	if c.pipe != 0 && c.stage > 0 {
		fed = true
		for i := len(c.earlier) - 1; i >= 0 && from == ""; i-- {
			var filter bool
			from, filter = a.upstreamFile(c.earlier[i])
			if !filter {
				break
			}
		}
	}
	for _, r := range s.Redirs {
		if r.Op == syntax.RdrIn {
			if t, ok := a.staticWord(r.Word); ok && t != "" {
				fed, from = true, normPath(t)
			}
		}
	}
	if !fed {
		return
	}
	for i := netStart; i < len(a.b.Facts.Network); i++ {
		n := &a.b.Facts.Network[i]
		if n.Listen {
			continue
		}
		switch {
		case streamUploaders[n.Via] || n.Via == "dev_tcp":
			n.Upload = true
			if n.UploadFrom == "" || n.UploadFrom == "-" {
				n.UploadFrom = orDash(from)
			}
		case n.Upload && n.UploadFrom == "-" && from != "":
			n.UploadFrom = from
		}
	}
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// upstreamFile returns the file a simple producer stage reads (`cat F`,
// `base64 F`, `tar c F`), whose content flows down the pipe. filter is set
// when the stage only transforms its own stdin (base64, gzip …), so the
// file is further up.
func (a *analyzer) upstreamFile(st *syntax.Stmt) (file string, filter bool) {
	if st == nil {
		return "", false
	}
	call, ok := st.Cmd.(*syntax.CallExpr)
	if !ok || len(call.Args) == 0 {
		return "", false
	}
	fs := a.callWords(call)
	if len(fs) == 0 || fs[0].dyn {
		return "", false
	}
	name := path.Base(fs[0].s)
	switch name {
	case "cat", "base64", "base32", "gzip", "bzip2", "xz", "zstd", "xxd", "tac", "head", "tail", "tar", "zip",
		"openssl", "od", "hexdump", "strings", "rev", "tr", "cut", "sort", "gpg":
	default:
		return "", false
	}
	args := fs[1:]
	if name == "tar" && len(args) > 0 && !strings.HasPrefix(args[0].s, "-") && !strings.ContainsAny(args[0].s, "/.~") {
		args = args[1:]
	}
	if name == "tr" {
		return "", true
	}
	for _, f := range args {
		if !strings.HasPrefix(f.s, "-") && !f.dyn && !strings.Contains(f.s, "=") {
			return normPath(f.s), false
		}
	}
	return "", true
}

// inlineFlag is the option that passes a code string to an interpreter.
var inlineFlag = map[string]string{"ruby": "-e", "node": "-e", "nodejs": "-e", "php": "-r"}

// scriptingSystem handles `ruby -e`, `node -e`, `php -r`: shell command
// strings passed to system()/exec() (and backticks) are analyzed as bash.
func (a *analyzer) scriptingSystem(s *syntax.Stmt, name string, args []field, c *ctx) {
	flag := inlineFlag[name]
	for i, f := range args {
		if f.s == flag || (name == "node" || name == "nodejs") && (f.s == "--eval" || f.s == "-p" || f.s == "--print") {
			if i+1 >= len(args) {
				return
			}
			// The commands the code runs are found by the interpreter
			// registry (interp.go).
			a.codeSockets(s, name, args[i+1].s)
			return
		}
		if !strings.HasPrefix(f.s, "-") {
			a.scriptOperand(s, name, f, c)
			return
		}
	}
}

func isWordByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// maxWritten bounds the script content remembered per file.
const maxWritten = 1 << 16

// remember records static text the script writes into a file (echo,
// printf or cat of a heredoc redirected there), so running that file later
// is analyzed as the code it holds.
func (a *analyzer) remember(s *syntax.Stmt, name string) {
	if name != "echo" && name != "printf" && name != "cat" {
		return
	}
	for _, r := range s.Redirs {
		if r.Op != syntax.AppOut && r.Op != syntax.RdrOut && r.Op != syntax.ClbOut {
			continue
		}
		t, ok := a.staticWord(r.Word)
		if !ok || t == "" || ignoredDevice(t) || r.N != nil && r.N.Value != "1" {
			continue
		}
		text := ""
		if name == "cat" {
			for _, h := range s.Redirs {
				switch h.Op {
				case syntax.Hdoc, syntax.DashHdoc:
					text = a.heredocBody(h, false).s
				case syntax.WordHdoc:
					text = a.expandOne(h.Word, false).s + "\n"
				}
			}
		} else {
			text = a.producedText(&syntax.Stmt{Cmd: s.Cmd, Position: s.Position})
		}
		if a.written == nil {
			a.written = map[string]*strings.Builder{}
			a.overflow = map[string]bool{}
		}
		p := normPath(t)
		sb := a.written[p]
		if r.Op != syntax.AppOut || sb == nil {
			// A rewrite, or an append to content not known: what this
			// script adds is what it controls.
			sb = &strings.Builder{}
			a.written[p] = sb
			delete(a.overflow, p)
		}
		if a.overflow[p] || sb.Len()+len(text) > maxWritten {
			a.overflow[p] = true
			sb.Reset()
		} else {
			sb.WriteString(text)
		}
		delete(a.fetched, p)
	}
}

// fetchedTo records that a download was saved to path.
func (a *analyzer) fetchedTo(p string) {
	if p == "" || p == "-" {
		return
	}
	if a.fetched == nil {
		a.fetched = map[string]bool{}
	}
	p = normPath(p)
	a.fetched[p] = true
	delete(a.written, p)
}

// runFile handles the execution of a file (bash F, . F, ./F, crontab F)
// whose content this script produced: downloaded earlier (remote code
// execution) or written with known text (analyzed nested).
func (a *analyzer) runFile(s *syntax.Stmt, interp string, f field) {
	if f.dyn || (a.fetched == nil && a.written == nil) {
		return
	}
	p := normPath(f.s)
	if a.fetched[p] {
		a.dynExec(s, "source", interp, field{dyn: true}, field{downloaded: true}, false)
		return
	}
	if text, ok := a.writtenText(p); ok {
		a.dynExec(s, "source", interp, field{s: text}, field{}, true)
	}
}

// socketMarkers reveal a raw connection in perl/ruby/php/node/awk code.
var socketMarkers = []string{"fsockopen(", "TCPSocket.new(", "TCPSocket.open(", "IO::Socket::INET", "socket(",
	"Socket.tcp(", "/inet/tcp/", "/inet/udp/", "net.connect(", "net.Socket(", "createConnection(", "stream_socket_client("}

// shellMarkers reveal a shell attached to that connection.
var shellMarkers = []string{"/bin/sh", "/bin/bash", "sh -i", "bash -i", "cmd.exe", "|& getline", "| getline",
	"spawn(\"sh", "spawn('sh", "exec(\"sh", "exec('sh", "system$_", "system $_", "exec $_"}

// codeSockets records the connection opened by interpreter code given on
// the command line (the one-line reverse shells of perl, ruby, php, node
// and gawk), with ExecShell when the code also runs a shell.
func (a *analyzer) codeSockets(s *syntax.Stmt, via, code string) {
	found := false
	for _, m := range socketMarkers {
		if strings.Contains(code, m) {
			found = true
			break
		}
	}
	if !found {
		return
	}
	host, port := "", 0
	if k := strings.Index(code, "/inet/tcp/"); k >= 0 || strings.Contains(code, "/inet/udp/") {
		if k < 0 {
			k = strings.Index(code, "/inet/udp/")
		}
		parts := strings.SplitN(code[k+len("/inet/tcp/"):], "/", 3)
		if len(parts) == 3 {
			host = parts[1]
			port = leadingInt(parts[2])
		}
	} else {
		for off := 0; off < len(code); {
			lit, end, ok := nextQuoted(code, off)
			if !ok {
				break
			}
			off = end
			if h, p := hostLike(lit); h != "" {
				host, port = h, p
				if port == 0 {
					rest := strings.TrimLeft(code[end:], ` ,:"')`)
					port = leadingInt(rest)
				}
				break
			}
		}
	}
	execShell := false
	for _, m := range shellMarkers {
		if strings.Contains(code, m) {
			execShell = true
			break
		}
	}
	a.b.Facts.Network = append(a.b.Facts.Network, sdk.NetworkUse{Host: strings.ToLower(host), Port: port,
		Scheme: "tcp", Via: via, Dynamic: host == "", ExecShell: execShell,
		Evidence: a.evidence(s.Pos()), Pos: a.pos(s.Pos())})
}

// nextQuoted returns the next '…' or "…" literal in code at or after off.
func nextQuoted(code string, off int) (string, int, bool) {
	k := strings.IndexAny(code[off:], `"'`)
	if k < 0 {
		return "", 0, false
	}
	start := off + k
	q := code[start]
	e := strings.IndexByte(code[start+1:], q)
	if e < 0 {
		return "", 0, false
	}
	return code[start+1 : start+1+e], start + 2 + e, true
}

// hostLike reports whether lit is an IPv4 address or a host name,
// optionally with :port.
func hostLike(lit string) (string, int) {
	host, port := lit, 0
	if k := strings.LastIndexByte(lit, ':'); k > 0 {
		if p := leadingInt(lit[k+1:]); p > 0 && len(strconv.Itoa(p)) == len(lit)-k-1 {
			host, port = lit[:k], p
		}
	}
	if host == "" || strings.ContainsAny(host, " /\\$@=;(){}<>|&*") || !strings.Contains(host, ".") {
		return "", 0
	}
	labels := strings.Split(host, ".")
	allNum := true
	for _, l := range labels {
		if l == "" {
			return "", 0
		}
		if _, err := strconv.Atoi(l); err != nil {
			allNum = false
		}
	}
	if allNum {
		if len(labels) != 4 {
			return "", 0
		}
		return host, port
	}
	tld := labels[len(labels)-1]
	if len(tld) < 2 || !isUpperWord(strings.ToUpper(tld)) {
		return "", 0
	}
	switch tld {
	case "pm", "so", "py", "pl", "rb", "js", "sh", "txt", "log":
		return "", 0
	}
	return host, port
}

func leadingInt(s string) int {
	n := 0
	for i := 0; i < len(s) && i < 6; i++ {
		if s[i] < '0' || s[i] > '9' {
			break
		}
		n = n*10 + int(s[i]-'0')
	}
	if n > 65535 {
		return 0
	}
	return n
}

// markDevUpload marks a /dev/tcp connection that receives a command's
// output as an upload of the file that command reads (or "-").
func (a *analyzer) markDevUpload(n *sdk.NetworkUse, s *syntax.Stmt) {
	n.Upload = true
	if n.UploadFrom == "" {
		from, _ := a.upstreamFile(s)
		n.UploadFrom = orDash(from)
	}
}

// nestMargin is what an analysis may re-analyze beyond its own length.
const nestMargin = 64 << 10

// nested analyzes content carried by the construct at line/col. Bash
// content with known positional parameters (a.positional) is analyzed
// here directly so that $0, $1 … resolve; everything else goes through the
// Builder, which routes by language.
func (a *analyzer) nested(lang, src string, line, col int, via string, encoded bool) bool {
	if len(src) > a.nestBudget {
		// Re-analyzing more than the content itself (plus a margin)
		// would let a short script amplify into a long scan.
		a.b.Facts.Truncated = true
		a.positional, a.posTargets = nil, nil
		return false
	}
	a.nestBudget -= len(src)
	if lang != "bash" || a.positional == nil {
		return a.b.Nested(lang, src, a.at, line, col, via, encoded)
	}
	max := a.b.MaxDepth
	if max == 0 {
		max = facts.DefaultMaxDepth
	}
	if a.at.Depth+1 > max {
		a.b.Facts.Truncated = true
		return false
	}
	pos, targets := a.positional, a.posTargets
	a.positional, a.posTargets = nil, nil
	analyze(a.b, src, a.at.Child(line, col, via, encoded), pos, targets)
	return true
}

// read assigns the variables of `read` — statically when its input is a
// static here-string or heredoc (`read -r cmd <<< "rm -rf /"`).
func (a *analyzer) read(s *syntax.Stmt, name string, args []field) {
	var names []string
	array := ""
	for i := 0; i < len(args); i++ {
		f := args[i]
		if strings.HasPrefix(f.s, "-") {
			// Options cluster (-ra NAME): -a takes the array's name,
			// the others listed take a value.
			for k := 1; k < len(f.s); k++ {
				if f.s[k] == 'a' && i+1 < len(args) && isIdent(args[i+1].s) {
					array = args[i+1].s
					i++
					break
				}
				if strings.IndexByte("dinNpstu", f.s[k]) >= 0 {
					i++
					break
				}
			}
			continue
		}
		if isIdent(f.s) {
			names = append(names, f.s)
		}
	}
	if name != "read" {
		for _, n := range names {
			a.setVar(n, "", false)
		}
		return
	}
	if len(names) == 0 && array == "" {
		names = []string{"REPLY"}
	}
	input, known := "", false
	for _, r := range s.Redirs {
		switch r.Op {
		case syntax.WordHdoc:
			f := a.expandOne(r.Word, false)
			input, known = f.s, !f.dyn
		case syntax.Hdoc, syntax.DashHdoc:
			f := a.heredocBody(r, false)
			input, known = f.s, !f.dyn
		}
	}
	if !known {
		for _, n := range names {
			a.setVar(n, "", false)
		}
		if array != "" {
			a.setVar(array, "", false)
		}
		return
	}
	line, _, _ := strings.Cut(input, "\n")
	words := strings.Fields(line)
	if array != "" {
		// read -a NAME: the words of the line are the array's elements.
		a.setVar(array, strings.Join(words, " "), true)
		v := a.vars[array]
		v.arr = words
		a.vars[array] = v
	}
	for i, n := range names {
		v := ""
		switch {
		case i == len(names)-1 && i < len(words):
			// The last variable takes the rest of the line.
			v = strings.Join(words[i:], " ")
		case i < len(words):
			v = words[i]
		}
		a.setVar(n, v, true)
	}
}

// isStdinPath reports paths that name the process's stdin.
func isStdinPath(p string) bool {
	return p == "/dev/stdin" || p == "/proc/self/fd/0" || p == "/dev/fd/0"
}

// shellQuote quotes s as one shell word.
func shellQuote(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\n'\"\\$`;&|<>()*?[]{}~#") {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// writtenText returns the known content the script wrote to p.
func (a *analyzer) writtenText(p string) (string, bool) {
	sb, ok := a.written[p]
	if !ok || a.overflow[p] {
		return "", false
	}
	return sb.String(), true
}

// isLoginShellWord reports a command word that is only the SHELL
// variable ("$SHELL", "${SHELL}", "${SHELL:-/bin/sh}").
func isLoginShellWord(f field) bool {
	if !f.dyn {
		return false
	}
	vars := f.varNames()
	if len(vars) != 1 || vars[0] != "SHELL" {
		return false
	}
	t := strings.Trim(f.s, `"`)
	return t == "$SHELL" || t == "${SHELL}" || strings.HasPrefix(t, "${SHELL:-") || strings.HasPrefix(t, "${SHELL-")
}
