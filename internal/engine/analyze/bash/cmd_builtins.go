package bash

import (
	"path"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/toolwarden/toolwarden/sdk"
)

// The builtins topic: the shell's own commands that change its state or
// run code in it (eval, source, alias, unset, read, set), and the output
// commands (echo, printf, printenv, cat) whose printed variables are
// recorded as Outputs, and sleep.

// registerBuiltinCommands registers the builtins and output commands.
func registerBuiltinCommands(r *registry) {
	const topic = "builtins"
	r.run(topic, exclusive((*analyzer).eval), "eval")
	r.run(topic, exclusive((*analyzer).source), "source", ".")
	r.run(topic, exclusive((*analyzer).alias), "alias")
	r.run(topic, exclusive((*analyzer).unset), "unset")
	r.run(topic, exclusive((*analyzer).read), "read", "mapfile", "readarray")
	r.run(topic, exclusive((*analyzer).sleep), "sleep")
	r.run(topic, exclusive((*analyzer).printenv), "printenv")
	r.run(topic, exclusive((*analyzer).set), "set")
	r.run(topic, exclusive((*analyzer).echo), "echo", "printf")
	// cat prints its input; its operands are still files it reads.
	r.run(topic, additive(func(a *analyzer, s *syntax.Stmt, _ string, _ []field, c *ctx) {
		a.output(s, nil, c)
	}), "cat")
}

// unset records each unset variable and forgets its value.
func (a *analyzer) unset(s *syntax.Stmt, _ string, args []field, _ *ctx) {
	for _, f := range args {
		if strings.HasPrefix(f.s, "-") {
			continue
		}
		a.b.Facts.Assignments = append(a.b.Facts.Assignments, sdk.Assignment{Name: f.s, Op: "unset", Pos: a.pos(s.Pos())})
		delete(a.vars, f.s)
	}
}

// printenv: printenv NAME prints that variable's value.
func (a *analyzer) printenv(s *syntax.Stmt, _ string, args []field, c *ctx) {
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
}

// set: set -- ARGS… sets the positional parameters.
func (a *analyzer) set(_ *syntax.Stmt, _ string, args []field, _ *ctx) {
	for i, f := range args {
		if f.s == "--" {
			a.setPositional(args[i+1:], false)
			break
		}
	}
}

// echo records what echo and printf print; printf -v VAR fmt args…
// assigns instead of printing.
func (a *analyzer) echo(s *syntax.Stmt, name string, args []field, c *ctx) {
	if name == "printf" && len(args) >= 3 && args[0].s == "-v" && isIdent(args[1].s) {
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
}

// eval runs its arguments, joined with spaces, as shell code.
func (a *analyzer) eval(s *syntax.Stmt, _ string, args []field, _ *ctx) {
	content := spaceJoin(args)
	a.dynExec(s, "eval", "bash", content, content, true)
}

func (a *analyzer) source(s *syntax.Stmt, _ string, args []field, c *ctx) {
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

func (a *analyzer) alias(s *syntax.Stmt, _ string, args []field, _ *ctx) {
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
func (a *analyzer) sleep(s *syntax.Stmt, _ string, args []field, _ *ctx) {
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

// read assigns the variables of `read` — statically when its input is a
// static here-string or heredoc (`read -r cmd <<< "rm -rf /"`).
func (a *analyzer) read(s *syntax.Stmt, name string, args []field, c *ctx) {
	if name != "read" {
		a.mapfile(s, name, args, c)
		return
	}
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
	var inputField field
	for _, r := range s.Redirs {
		switch r.Op {
		case syntax.WordHdoc:
			inputField = a.expandOne(r.Word, false)
		case syntax.Hdoc, syntax.DashHdoc:
			inputField = a.heredocBody(r, false)
		default:
			continue
		}
		input, known = inputField.s, !inputField.dyn
	}
	if !known {
		for _, n := range names {
			a.setVar(n, "", false)
		}
		if array != "" {
			a.setVar(array, "", false)
			if _, custom := a.readIFS(); !custom && inputField.x != nil {
				// read -a a <<< "$SHELL -c id": the words are still
				// known when each unknown part is a whole variable.
				if words, refs, ok := refWords(inputField); ok {
					v := a.vars[array]
					v.arr, v.flow = words, &varFlow{arrRefs: refs}
					a.vars[array] = v
				}
			}
		}
		return
	}
	line, _, _ := strings.Cut(input, "\n")
	words := strings.Fields(line)
	if ifs, ok := a.readIFS(); ok {
		// IFS=: read -a c <<< 'rm:-rf:/': the line splits on IFS.
		words = strings.FieldsFunc(line, func(r rune) bool { return strings.ContainsRune(ifs, r) })
	}
	if array != "" {
		// read -a NAME: the words of the line are the array's elements.
		a.setVar(array, strings.Join(words, " "), true)
		v := a.vars[array]
		v.arr = words
		a.vars[array] = v
	}
	a.readAssign(names, words)
}

// readAssign gives read's variables the words of its line: one word each,
// the last variable the rest of the line.
func (a *analyzer) readAssign(names, words []string) {
	for i, n := range names {
		v := ""
		switch {
		case i == len(names)-1 && i < len(words):
			v = strings.Join(words[i:], " ")
		case i < len(words):
			v = words[i]
		}
		a.setVar(n, v, true)
	}
}

// mapfile handles mapfile/readarray: the lines of a heredoc or here-string
// become the array's elements (`mapfile -t L <<< $'cat\n/etc/shadow'`,
// then "${L[@]}"); -d sets the delimiter, -s skips lines, -n bounds them,
// and the -C callback is code the shell runs for the lines. Other input
// leaves the array unknown.
func (a *analyzer) mapfile(s *syntax.Stmt, name string, args []field, c *ctx) {
	array, delim, skip, count := "MAPFILE", "\n", 0, -1
	for i := 0; i < len(args); i++ {
		f := args[i]
		if !strings.HasPrefix(f.s, "-") || len(f.s) < 2 {
			if isIdent(f.s) {
				array = f.s
			}
			continue
		}
		opt := f.s[1:2]
		val, attached := f.s[2:], len(f.s) > 2
		if strings.Contains("dnOsuCc", opt) && !attached {
			if i+1 >= len(args) {
				break
			}
			i++
			val = args[i].s
			if opt == "C" && args[i].dyn {
				a.dynExec(s, "shell_c", name, args[i], args[i], false)
			}
		}
		switch opt {
		case "d":
			delim = val
			if delim == "" {
				delim = "\x00"
			}
		case "s":
			skip, _ = strconv.Atoi(val)
		case "n":
			count, _ = strconv.Atoi(val)
		case "C":
			if val != "" {
				a.dynExec(s, "shell_c", name, field{s: val}, field{}, true)
			}
		}
	}
	var in field
	known := false
	for _, r := range s.Redirs {
		switch r.Op {
		case syntax.WordHdoc:
			in, known = a.expandOne(r.Word, false), true
			in.s += "\n"
		case syntax.Hdoc, syntax.DashHdoc:
			in, known = a.heredocBody(r, false), true
		}
	}
	if !known || in.dyn {
		a.setVar(array, "", false)
		return
	}
	lines := strings.Split(in.s, delim)
	if n := len(lines); n > 0 && lines[n-1] == "" {
		lines = lines[:n-1]
	}
	if skip > 0 {
		lines = lines[min(skip, len(lines)):]
	}
	if count > 0 && count < len(lines) {
		lines = lines[:count]
	}
	if len(lines) > maxArrayIndex {
		a.setVar(array, "", false)
		return
	}
	a.setVar(array, strings.Join(lines, " "), true)
	v := a.vars[array]
	v.arr = lines
	a.vars[array] = v
}

// readIFS returns the IFS read splits with when it is not the default: a
// prefix assignment on the read (`IFS=: read …`) or a static IFS set
// earlier.
func (a *analyzer) readIFS() (string, bool) {
	if v, ok := a.cmdEnv["IFS"]; ok && v != "" {
		return v, true
	}
	if v, ok := a.vars["IFS"]; ok && v.static && v.val != "" && v.val != " \t\n" {
		return v.val, true
	}
	return "", false
}

// refWords splits the first line of read's input into words (default IFS)
// when every unknown part of it is a whole word that only expands one
// variable ("$SHELL -c id", "${X} y"): refs[i] names that variable for
// such a word, "" for a static one. ok is false when an unknown part is
// anything else (a substitution, part of a word, a default value).
func refWords(f field) (words, refs []string, ok bool) {
	line, _, _ := strings.Cut(f.s, "\n")
	spans := f.dynSpans()
	anyRef := false
	for i := 0; i < len(line); {
		if line[i] == ' ' || line[i] == '\t' {
			i++
			continue
		}
		j := i
		for j < len(line) && line[j] != ' ' && line[j] != '\t' {
			j++
		}
		ref := ""
		for _, sp := range spans {
			if sp[1] <= i || sp[0] >= j {
				continue
			}
			if sp[0] != i || sp[1] != j {
				return nil, nil, false
			}
			ref = refName(line[i:j])
			if ref == "" {
				return nil, nil, false
			}
		}
		words = append(words, line[i:j])
		refs = append(refs, ref)
		anyRef = anyRef || ref != ""
		i = j
	}
	for _, sp := range spans {
		if sp[1] > len(line) && sp[0] < len(line) {
			return nil, nil, false
		}
	}
	return words, refs, anyRef
}

// refName returns NAME for "$NAME" or "${NAME}", "" otherwise.
func refName(t string) string {
	switch {
	case strings.HasPrefix(t, "${") && strings.HasSuffix(t, "}"):
		t = t[2 : len(t)-1]
	case strings.HasPrefix(t, "$"):
		t = t[1:]
	default:
		return ""
	}
	if !isIdent(t) {
		return ""
	}
	return t
}
