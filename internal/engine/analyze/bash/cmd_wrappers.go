package bash

import (
	"path"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/toolwarden/toolwarden/sdk"
)

// The wrappers topic: commands that run another command given in their
// arguments (sudo, env, timeout, nohup …) — the inner command is analyzed
// as a command of its own, with Reach "wrapper" — and the two that run a
// command over many inputs, xargs and find -exec.

// registerWrapperCommands registers the wrappers, xargs and find.
func registerWrapperCommands(r *registry) {
	const topic = "wrappers"
	r.pureWrapper(topic, optsWrapper("ugCDhpRrtTU", []string{"--user", "--group", "--prompt", "--chdir", "--chroot",
		"--role", "--type", "--close-from", "--host", "--other-user", "--command-timeout"}, 0), "sudo")
	r.pureWrapper(topic, optsWrapper("uC", nil, 0), "doas")
	r.pureWrapper(topic, optsWrapper("", []string{"--user"}, 0), "pkexec")
	r.pureWrapper(topic, optsWrapper("n", []string{"--adjustment"}, 0), "nice")
	r.pureWrapper(topic, optsWrapper("sk", []string{"--signal", "--kill-after"}, 1), "timeout")
	// screen -dmS NAME cmd args…
	r.pureWrapper(topic, optsWrapper("SLhpcsTtXe", nil, 0), "screen")
	r.pureWrapper(topic, busyboxWrapper, "busybox", "toybox")
	r.pureWrapper(topic, optsWrapper("", nil, 0), "nohup", "builtin", "setsid", "caffeinate", "fakeroot", "catchsegv")
	r.pureWrapper(topic, commandWrapper, "command")
	r.pureWrapper(topic, optsWrapper("a", nil, 0), "exec")
	r.pureWrapper(topic, optsWrapper("ioe", []string{"--input", "--output", "--error"}, 0), "stdbuf")
	r.pureWrapper(topic, ioniceWrapper, "ionice")
	r.pureWrapper(topic, optsWrapper("fo", []string{"--format", "--output"}, 0), "time")
	r.pureWrapper(topic, optsWrapper("", []string{"--userspec", "--groups"}, 1), "chroot")
	r.wrapper(topic, watchWrapper, "watch")
	r.wrapper(topic, flockWrapper, "flock")
	r.wrapperPeel(topic, envWrapper, envInner, "env")
	// npx/pnpx/bunx PKG ARGS: run a package's command (npx http-server).
	r.pureWrapper(topic, optsWrapper("p", []string{"--package"}, 0), "npx", "pnpx", "bunx")
	registerRunWrappers(r)
	r.run(topic, exclusive((*analyzer).xargs), "xargs")
	r.run(topic, exclusive((*analyzer).find), "find")
}

// optsWrapper is a wrapper whose inner command follows its options
// (skipOpts: shortVal and longVal take a value, extra operands precede
// the command).
func optsWrapper(shortVal string, longVal []string, extra int) innerFunc {
	t := &optTable{short: shortVal, long: vals(longVal...)}
	return func(args []field) int {
		return skipOpts(args, t, nil, extra)
	}
}

// The option tables of the wrappers below.
var (
	noOpts     = optTable{}
	ioniceOpts = optTable{short: "cnt", long: vals("--class", "--classdata")}
	// watch -d/--differences take an optional value, attached only.
	watchOpts = optTable{short: "nq", long: vals("--interval", "--equexit")}
	flockOpts = optTable{short: "wEo", long: vals("--timeout", "--conflict-exit-code")}
)

// busyboxWrapper: busybox APPLET args… runs the applet.
func busyboxWrapper(args []field) int {
	if len(args) > 0 && !strings.HasPrefix(args[0].s, "-") {
		return 0
	}
	return -1
}

// commandWrapper: command CMD runs CMD; command -v / -V only looks it up.
func commandWrapper(args []field) int {
	for _, f := range args {
		if f.s == "-v" || f.s == "-V" {
			return -1
		}
	}
	return skipOpts(args, &noOpts, nil, 0)
}

// ioniceWrapper: ionice -p/-P/-u changes running processes; otherwise it
// runs its command.
func ioniceWrapper(args []field) int {
	for _, f := range args {
		if f.s == "-p" || f.s == "-P" || f.s == "-u" {
			return -1
		}
	}
	return skipOpts(args, &ioniceOpts, nil, 0)
}

// watchWrapper: watch CMD ARGS… runs the command; one operand holding a
// command line (watch 'cmd args') is run through sh -c.
func watchWrapper(a *analyzer, s *syntax.Stmt, args []field, _ *ctx) (int, string) {
	i := skipOpts(args, &watchOpts, nil, 0)
	if i >= 0 && i == len(args)-1 && strings.ContainsAny(args[i].s, " \t;|&") {
		a.nestedShell(s, "watch", args[i])
		return -1, ""
	}
	return i, "wrapper"
}

// flockWrapper: flock LOCK CMD… runs the command; -c runs shell code.
func flockWrapper(a *analyzer, s *syntax.Stmt, args []field, _ *ctx) (int, string) {
	if commandOpt(args) >= 0 {
		if code, ok := commandOptCode(args); ok {
			a.nestedShell(s, "flock", code)
		}
		return -1, ""
	}
	return skipOpts(args, &flockOpts, nil, 1), "wrapper"
}

// envWrapper: env [-u NAME] [NAME=VALUE…] CMD… runs the command; -S
// splits a string into one, which is shell code to the analyzer.
func envWrapper(a *analyzer, s *syntax.Stmt, args []field, _ *ctx) (int, string) {
	i, split := envSkip(args)
	if split >= 0 {
		if split+1 < len(args) {
			a.nestedShell(s, "env", args[split+1])
		}
		return -1, ""
	}
	return i, "wrapper"
}

// envInner is env's inner command, -1 with -S (code of its own).
func envInner(args []field) int {
	if i, split := envSkip(args); split < 0 {
		return i
	}
	return -1
}

// envSkip returns the index of env's inner command, or the index of its
// -S option (split >= 0) when it has one.
func envSkip(args []field) (i, split int) {
	for i < len(args) {
		f := args[i]
		switch {
		case f.s == "--":
			i++
			continue
		case f.s == "-S" || f.s == "--split-string":
			return -1, i
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
	return i, -1
}

// placeholder marks the argument that xargs / find -exec fill in.
const placeholder = "{}"

func (a *analyzer) xargs(s *syntax.Stmt, _ string, args []field, c *ctx) {
	repl := ""
	// delim is the input delimiter of -0 / -d (items are then taken
	// whole, not split at blanks); perRun the items per run of -n / -L.
	delim, hasDelim, perRun := "", false, 0
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
		case f.s == "--null" || !strings.HasPrefix(f.s, "--") && strings.Trim(f.s[1:], "0rtpx") == "" && strings.IndexByte(f.s, '0') > 0:
			delim, hasDelim = "\x00", true
		case f.s == "-d" || f.s == "--delimiter":
			if i+1 < len(args) {
				delim, hasDelim = args[i+1].s, !args[i+1].dyn
			}
			i += 2
			continue
		case strings.HasPrefix(f.s, "--delimiter="):
			delim, hasDelim = strings.TrimPrefix(f.s, "--delimiter="), !f.dyn
		case strings.HasPrefix(f.s, "-d") && !strings.HasPrefix(f.s, "--"):
			delim, hasDelim = f.s[2:], !f.dyn
		case f.s == "-n" || f.s == "-L" || f.s == "--max-args" || f.s == "--max-lines":
			if i+1 < len(args) {
				perRun = atoiOr(args[i+1].s, 1)
			}
			i += 2
			continue
		case strings.HasPrefix(f.s, "--max-args=") || strings.HasPrefix(f.s, "--max-lines="):
			perRun = atoiOr(f.s[strings.IndexByte(f.s, '=')+1:], 1)
		case len(f.s) > 2 && (f.s[1] == 'n' || f.s[1] == 'L'):
			perRun = atoiOr(f.s[2:], 1)
		case len(f.s) == 2 && strings.IndexByte("EeLlnPs", f.s[1]) >= 0:
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
	var lines []string
	if hasDelim {
		if items, ok := a.xargsItems(s, c, delim); ok && len(items) > 0 {
			if repl != "" {
				lines = items
			} else if runs := chunk(items, perRun); len(runs) <= maxXargsInputs {
				// The items are known and taken whole (-0 / -d): the
				// command that runs is its arguments and theirs
				// (`echo CODE | xargs -0 sh -c` runs CODE).
				for _, group := range runs {
					run := append([]field(nil), inner[:len(inner)-1]...)
					for _, t := range group {
						run = append(run, field{s: t})
					}
					a.emitCommand(s, run, &ic)
				}
				return
			}
		}
	} else if repl != "" {
		lines = a.xargsLines(s, c)
	}
	if len(lines) > 0 && len(lines) <= maxXargsInputs {
		// The input lines are known: xargs -I runs the command once per
		// line, the line written where the replacement string was — the
		// command that runs, judged as such (`xargs -I% sh -c 'cat %'
		// <<< ~/.aws/credentials` reads the credentials in sh).
		for _, t := range lines {
			run := append([]field(nil), args[i:]...)
			for k := 1; k < len(run); k++ {
				if strings.Contains(run[k].s, repl) {
					run[k].s = strings.ReplaceAll(run[k].s, repl, t)
				}
			}
			a.emitCommand(s, run, &ic)
		}
		return
	}
	a.emitCommand(s, inner, &ic)
}

// maxXargsInputs bounds the known input lines of xargs -I judged one
// command each; more are judged through the placeholder.
const maxXargsInputs = 8

// xargsLines returns the lines xargs -I reads when they are known (see
// xargsInput). xargs -I takes one whole line per run, leading blanks
// removed, empty lines skipped.
func (a *analyzer) xargsLines(s *syntax.Stmt, c *ctx) []string {
	text, ok := a.xargsInput(s, c)
	if !ok {
		return nil
	}
	var lines []string
	for _, l := range strings.Split(text, "\n") {
		if l = strings.TrimLeft(l, " \t"); l != "" {
			lines = append(lines, l)
		}
	}
	return lines
}

// xargsItems returns the items xargs -0 / -d DELIM reads when its input
// is known: the input cut at each delimiter (escapes of -d as xargs reads
// them), a delimiter that ends the input ending the last item.
func (a *analyzer) xargsItems(s *syntax.Stmt, c *ctx, delim string) ([]string, bool) {
	d, ok := xargsDelim(delim)
	if !ok {
		return nil, false
	}
	text, ok := a.xargsInput(s, c)
	if !ok {
		return nil, false
	}
	text = strings.TrimSuffix(text, string(d))
	if text == "" {
		return nil, true
	}
	return strings.Split(text, string(d)), true
}

// xargsDelim reads the value of xargs -d: one character or an escape
// (\n, \t, \0, \\, \xHH, \NNN octal).
func xargsDelim(v string) (byte, bool) {
	if len(v) == 1 {
		return v[0], true
	}
	if len(v) < 2 || v[0] != '\\' {
		return 0, false
	}
	switch v[1:] {
	case "n":
		return '\n', true
	case "t":
		return '\t', true
	case "r":
		return '\r', true
	case "0":
		return 0, true
	case "\\":
		return '\\', true
	}
	digits, base := v[1:], 8
	if v[1] == 'x' {
		digits, base = v[2:], 16
	}
	if n, err := strconv.ParseUint(digits, base, 8); err == nil {
		return byte(n), true
	}
	return 0, false
}

// chunk groups items n to a run (all in one run when n <= 0).
func chunk(items []string, n int) [][]string {
	if n <= 0 || n >= len(items) {
		return [][]string{items}
	}
	var out [][]string
	for len(items) > n {
		out = append(out, items[:n])
		items = items[n:]
	}
	return append(out, items)
}

// atoiOr parses a positive count, def when it is not one.
func atoiOr(s string, def int) int {
	if n, err := strconv.Atoi(s); err == nil && n > 0 {
		return n
	}
	return def
}

// xargsInput returns the text xargs reads when it is known: its static
// here-string or heredoc, or the folded output of the producer piped into
// it (not find or ls, whose output is unknown).
func (a *analyzer) xargsInput(s *syntax.Stmt, c *ctx) (string, bool) {
	text, ok := "", false
	if st := c.prevStage; st != nil {
		call, isCall := st.Cmd.(*syntax.CallExpr)
		if !isCall || len(call.Args) == 0 {
			return "", false
		}
		if w, static := a.staticWord(call.Args[0]); !static || path.Base(w) == "find" || path.Base(w) == "ls" {
			return "", false
		}
		r := a.foldStages([]*syntax.Stmt{st})
		text, ok = r.content, r.static
	} else {
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
			text, ok = f.s, !f.dyn
		}
	}
	return text, ok
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
		return findTargetsOf(fs[1:])
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
		return xargsWords(r.content)
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
		return xargsWords(f.s)
	}
	return nil
}

// findTargetsOf returns what a find with these arguments reaches with
// -delete, -exec or an xargs it feeds: its starts, narrowed by one -name
// filter (sdk.FindTargets).
func findTargetsOf(args []field) []string {
	starts := findStarts(args)
	n := 0
	for n < len(args) && !(strings.HasPrefix(args[n].s, "-") && args[n].s != "-" || args[n].s == "(" || args[n].s == "!" || args[n].s == "\\(") {
		n++
	}
	rest := args[n:]
	expr := make([]string, len(rest))
	for k, f := range rest {
		expr[k] = f.s
	}
	return sdk.FindTargets(starts, expr, func(k int) bool { return rest[k].dyn })
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

func (a *analyzer) find(s *syntax.Stmt, _ string, args []field, c *ctx) {
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
	// With one -name filter and nothing that widens the match, what -delete
	// and -exec reach are the start's entries of that name, not the start
	// (`find /tmp -name 'build-*' -delete` deletes /tmp/build-*).
	if len(starts) == len(startFields) {
		rest := args[i:]
		expr := make([]string, len(rest))
		for k, f := range rest {
			expr[k] = f.s
		}
		if t := sdk.FindTargets(starts, expr, func(k int) bool { return rest[k].dyn }); len(t) > 0 && t[0] != starts[0] {
			starts = t
			startFields = make([]field, len(t))
			for k, p := range t {
				startFields[k] = field{s: p, glob: hasGlobMeta(p)}
			}
		}
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
