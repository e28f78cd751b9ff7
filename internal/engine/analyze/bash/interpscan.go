package bash

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/toolwarden/toolwarden/sdk"
)

// The generic scanner of the interpreter registry (interp.go): it reads
// inline program text token by token, folds string arguments (literals,
// concatenation, home-directory expressions, simple variables, format and
// path-joining calls) and records each registered API call's effect as
// the analyzer's ordinary facts.

// homeSentinel stands for the home directory inside folded text; it
// becomes "~" in string values.
const homeSentinel = "\x00HOME\x00"

type itokKind uint8

const (
	itIdent itokKind = iota + 1
	itStr
	itPunct
	itShell // a backtick/qx command: s is the command text
)

type itok struct {
	kind itokKind
	s    string
}

// ival is a folded argument value.
type ival struct {
	s      string
	static bool
	list   []string // an array literal of static strings
	built  bool     // folded from more than one literal or a call
}

// interpCall is one registered API call found in program text.
type interpCall struct {
	api  interpAPI
	args []ival
}

// tokenizeInterp splits program text into identifiers (dotted, `::` and
// `->` chains), string literals (escapes decoded, home expressions
// replaced), backtick commands and single punctuation characters.
func tokenizeInterp(l *interpLang, code string) []itok {
	for _, h := range l.home {
		code = strings.ReplaceAll(code, "#{"+h+"}", homeSentinel)
		code = strings.ReplaceAll(code, "${"+h+"}", homeSentinel)
		code = strings.ReplaceAll(code, h, homeSentinel)
	}
	var out []itok
	for i := 0; i < len(code); {
		c := code[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case strings.HasPrefix(code[i:], homeSentinel):
			out = append(out, itok{itStr, "~"})
			i += len(homeSentinel)
		case c == '"' || c == '\'' || c == '`':
			var sb strings.Builder
			j := i + 1
			for j < len(code) && code[j] != c {
				if code[j] == '\\' && j+1 < len(code) {
					switch code[j+1] {
					case 'n':
						sb.WriteByte('\n')
					case 't':
						sb.WriteByte('\t')
					default:
						sb.WriteByte(code[j+1])
					}
					j += 2
					continue
				}
				if strings.HasPrefix(code[j:], homeSentinel) {
					sb.WriteByte('~')
					j += len(homeSentinel)
					continue
				}
				sb.WriteByte(code[j])
				j++
			}
			kind := itStr
			if c == '`' && l.backticks {
				kind = itShell
			}
			out = append(out, itok{kind, sb.String()})
			i = j + 1
		case isIdentStart(c) || c == '.' && i+1 < len(code) && isIdentStart(code[i+1]):
			j := i + 1
			for j < len(code) {
				if isWordByte(code[j]) || code[j] == '$' || code[j] == '.' && j+1 < len(code) && isIdentStart(code[j+1]) {
					j++
				} else if strings.HasPrefix(code[j:], "::") || strings.HasPrefix(code[j:], "->") && j+2 < len(code) && isIdentStart(code[j+2]) {
					j += 2
				} else {
					break
				}
			}
			word := code[i:j]
			if (word == "qx" || word == "%x") && j < len(code) && l.backticks {
				if closer, ok := qxCloser(code[j]); ok {
					if e := strings.IndexByte(code[j+1:], closer); e >= 0 {
						out = append(out, itok{itShell, code[j+1 : j+1+e]})
						i = j + 2 + e
						continue
					}
				}
			}
			out = append(out, itok{itIdent, word})
			i = j
		case c == '%' && i+2 < len(code) && code[i+1] == 'x' && l.backticks:
			if closer, ok := qxCloser(code[i+2]); ok {
				if e := strings.IndexByte(code[i+3:], closer); e >= 0 {
					out = append(out, itok{itShell, code[i+3 : i+3+e]})
					i += 4 + e
					continue
				}
			}
			out = append(out, itok{itPunct, "%"})
			i++
		default:
			// Multi-character operators the folding needs.
			for _, op := range []string{"..", "<<", ">>", "=>", "==", "!="} {
				if strings.HasPrefix(code[i:], op) {
					out = append(out, itok{itPunct, op})
					i += len(op)
					goto next
				}
			}
			out = append(out, itok{itPunct, string(c)})
			i++
		next:
		}
	}
	return out
}

func qxCloser(open byte) (byte, bool) {
	switch open {
	case '(':
		return ')', true
	case '{':
		return '}', true
	case '[':
		return ']', true
	case '/', '|', '!':
		return open, true
	}
	return 0, false
}

func isIdentStart(c byte) bool {
	return c == '_' || c == '$' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// interpScanner folds values over a token stream.
type interpScanner struct {
	l    *interpLang
	toks []itok
	vars map[string]ival
}

// scanInterp returns the registered calls in code.
func scanInterp(l *interpLang, code string) []interpCall {
	sc := &interpScanner{l: l, toks: tokenizeInterp(l, code), vars: map[string]ival{}}
	var calls []interpCall
	for i := 0; i < len(sc.toks); i++ {
		t := sc.toks[i]
		if t.kind == itShell {
			calls = append(calls, interpCall{api: interpAPI{"`", effShell}, args: []ival{{s: t.s, static: true}}})
			continue
		}
		if l.awkIO {
			if call, ok := sc.awkIO(i); ok {
				calls = append(calls, call)
			}
		}
		if t.kind != itIdent {
			continue
		}
		// name = expr: remember a folded value for later calls.
		if i+2 < len(sc.toks) && sc.toks[i+1].kind == itPunct && sc.toks[i+1].s == "=" {
			v, _ := sc.fold(i+2, ";")
			name := t.s
			if v.static || v.list != nil {
				sc.vars[name] = v
			} else {
				delete(sc.vars, name)
			}
		}
		api, ok := l.lookupAPI(t.s)
		if !ok || api.eff == effPass || api.eff == effFormat {
			continue
		}
		args, ok := sc.callArgs(i + 1)
		if !ok {
			continue
		}
		calls = append(calls, interpCall{api: api, args: args})
	}
	return calls
}

// awkIO recognizes awk's own I/O at token i: `"cmd" | getline`, `print …
// | "cmd"` (a command run) and `print … > "file"` / `>> "file"` (a file
// written).
func (sc *interpScanner) awkIO(i int) (interpCall, bool) {
	t := sc.toks[i]
	if t.kind != itPunct || i+1 >= len(sc.toks) {
		return interpCall{}, false
	}
	value := func(k int) ival {
		switch u := sc.toks[k]; u.kind {
		case itStr:
			return ival{s: u.s, static: true}
		case itIdent:
			if w, ok := sc.vars[u.s]; ok {
				return w
			}
		}
		return ival{}
	}
	next := sc.toks[i+1]
	switch t.s {
	case "|":
		if next.kind == itIdent && next.s == "getline" && i > 0 {
			return interpCall{api: interpAPI{"getline", effShell}, args: []ival{value(i - 1)}}, true
		}
		if sc.printBefore(i) {
			return interpCall{api: interpAPI{"print|", effShell}, args: []ival{value(i + 1)}}, true
		}
	case ">", ">>":
		if sc.printBefore(i) {
			eff := effWrite
			if t.s == ">>" {
				eff = effAppend
			}
			return interpCall{api: interpAPI{"print" + t.s, eff}, args: []ival{value(i + 1)}}, true
		}
	}
	return interpCall{}, false
}

// printBefore reports whether the statement holding token i starts with
// print or printf (so `>` is a redirection, not a comparison).
func (sc *interpScanner) printBefore(i int) bool {
	for k := i - 1; k >= 0; k-- {
		t := sc.toks[k]
		if t.kind == itPunct && (t.s == ";" || t.s == "{" || t.s == "}" || t.s == "(") {
			return false
		}
		if t.kind == itIdent && (t.s == "print" || t.s == "printf") {
			return true
		}
	}
	return false
}

// callArgs folds the arguments of the call whose name token is at i-1:
// `(a, b)` or, where bare calls are allowed, `a, b` up to the statement end.
func (sc *interpScanner) callArgs(i int) ([]ival, bool) {
	if i >= len(sc.toks) {
		return nil, false
	}
	end := ";"
	if sc.toks[i].kind == itPunct && sc.toks[i].s == "(" {
		i++
		end = ")"
	} else if !sc.l.bareCalls || sc.toks[i].kind == itPunct && sc.toks[i].s != "[" {
		return nil, false
	}
	var args []ival
	for i < len(sc.toks) {
		v, next := sc.fold(i, end)
		args = append(args, v)
		i = next
		if i >= len(sc.toks) || sc.toks[i].kind != itPunct || sc.toks[i].s != "," {
			break
		}
		i++
	}
	return args, true
}

// fold folds one expression starting at token i, stopping at a top-level
// ",", the end token, a closing bracket or a statement end. It returns the
// value and the index of the stopping token.
func (sc *interpScanner) fold(i int, end string) (ival, int) {
	v, next, parts := sc.foldParts(i, end)
	v.built = v.built || parts > 1
	return v, next
}

// foldParts is fold, also counting the literals and calls folded.
func (sc *interpScanner) foldParts(i int, end string) (ival, int, int) {
	v := ival{static: true}
	parts, depth, pending := 0, 0, true
	for ; i < len(sc.toks); i++ {
		t := sc.toks[i]
		if t.kind == itPunct {
			switch t.s {
			case "(", "{":
				depth++
				v.static = false
				continue
			case "[":
				if pending && depth == 0 {
					items, next := sc.list(i + 1)
					if items != nil {
						v.list = items
						v.s = strings.Join(items, " ")
						i = next
						pending = false
						continue
					}
				}
				depth++
				v.static = false
				continue
			case ")", "}", "]":
				if depth == 0 {
					return v, i, parts
				}
				depth--
				continue
			case ",", ";":
				if depth == 0 {
					return v, i, parts
				}
				continue
			}
			if depth == 0 && end == ";" && (t.s == "|" || t.s == "&" || t.s == "=>") {
				return v, i, parts
			}
			if depth == 0 && sc.isConcat(t.s) {
				pending = true
				continue
			}
			if depth == 0 {
				v.static = false
			}
			continue
		}
		if depth > 0 {
			continue
		}
		if !pending && !sc.l.juxtapose {
			// Two operands without an operator: not a plain string.
			v.static = false
		}
		pending = false
		switch t.kind {
		case itStr:
			v.s += t.s
			parts++
		case itIdent:
			if api, ok := sc.l.lookupAPI(t.s); ok && (api.eff == effPass || api.eff == effFormat) {
				args, next := sc.innerArgs(i + 1)
				if args == nil {
					v.static = false
					continue
				}
				v.s += applyPass(api.eff, args)
				for _, a := range args {
					v.static = v.static && a.static
				}
				i = next
				parts += 2
				continue
			}
			if w, ok := sc.vars[t.s]; ok {
				v.s += w.s
				v.list = w.list
				v.built = v.built || w.built
				parts++
				continue
			}
			v.static = false
		default:
			v.static = false
		}
	}
	return v, i, parts
}

// innerArgs folds the parenthesized arguments of a nested pure call.
func (sc *interpScanner) innerArgs(i int) ([]ival, int) {
	if i >= len(sc.toks) || sc.toks[i].kind != itPunct || sc.toks[i].s != "(" {
		return nil, i
	}
	i++
	var args []ival
	for i < len(sc.toks) {
		v, next := sc.fold(i, ")")
		args = append(args, v)
		i = next
		if i < len(sc.toks) && sc.toks[i].s == "," && sc.toks[i].kind == itPunct {
			i++
			continue
		}
		break
	}
	return args, i
}

// list folds an array literal of strings; nil when an item is not static.
func (sc *interpScanner) list(i int) ([]string, int) {
	items := []string{}
	for i < len(sc.toks) {
		t := sc.toks[i]
		switch {
		case t.kind == itPunct && t.s == "]":
			return items, i
		case t.kind == itPunct && t.s == ",":
		case t.kind == itStr:
			items = append(items, t.s)
		default:
			return nil, i
		}
		i++
	}
	return nil, i
}

func (sc *interpScanner) isConcat(op string) bool {
	for _, c := range sc.l.concat {
		if op == c {
			return true
		}
	}
	return false
}

// applyPass computes a pure call's value.
func applyPass(eff apiEffect, args []ival) string {
	if eff == effFormat {
		if len(args) == 0 {
			return ""
		}
		out, rest := args[0].s, args[1:]
		var sb strings.Builder
		for k := 0; k < len(out); k++ {
			if out[k] == '%' && k+1 < len(out) {
				if out[k+1] == '%' {
					sb.WriteByte('%')
					k++
					continue
				}
				if out[k+1] == 's' || out[k+1] == 'd' {
					if len(rest) > 0 {
						sb.WriteString(rest[0].s)
						rest = rest[1:]
					}
					k++
					continue
				}
			}
			sb.WriteByte(out[k])
		}
		return sb.String()
	}
	parts := make([]string, 0, len(args))
	for _, a := range args {
		if a.s != "" && !strings.HasPrefix(a.s, "{") {
			parts = append(parts, a.s)
		}
	}
	return strings.Join(parts, "/")
}

// interpCode analyzes inline program text of a registered interpreter:
// each API call becomes the facts its effect implies.
func (a *analyzer) interpCode(s *syntax.Stmt, name string, l *interpLang, code field, c *ctx) {
	if code.dyn {
		return
	}
	a.codeEnvDump(s, name, l, code.s)
	for _, call := range scanInterp(l, code.s) {
		a.interpEffect(s, name, call, code, c)
	}
}

// interpEffect records the facts of one registered API call.
func (a *analyzer) interpEffect(s *syntax.Stmt, name string, call interpCall, code field, c *ctx) {
	l := interpByName[name]
	var static []string
	dynamic := false
	for _, v := range call.args {
		switch {
		case v.list != nil:
			static = append(static, v.list...)
		case v.static:
			static = append(static, v.s)
		default:
			dynamic = true
		}
	}
	by := name + " " + call.api.name
	first := ""
	if len(static) > 0 {
		first = static[0]
	}
	switch call.api.eff {
	case effShell:
		if len(static) == 0 {
			a.dynExec(s, l.execKind(), name, field{dyn: true}, code, false)
			return
		}
		cmd := static[0]
		if len(static) > 1 {
			// An argv list: quote each element so the shell sees the
			// same words the program gets.
			q := make([]string, len(static))
			for i, w := range static {
				q[i] = shellQuote(w)
			}
			cmd = strings.Join(q, " ")
		}
		if call.api.name == "system" && l.awkIO && !call.args[0].built && len(call.args) == 1 {
			return // a plain literal: the awk handler analyzed it
		}
		a.dynExec(s, l.execKind(), name, field{s: cmd}, code, true)
	case effRead, effWrite, effAppend, effDelete:
		if first == "" {
			return
		}
		if strings.Contains(first, "://") {
			a.addNet(s, field{s: first}, "", by, nil)
			return
		}
		op := map[apiEffect]string{effRead: "read", effWrite: "write", effAppend: "append", effDelete: "delete"}[call.api.eff]
		a.addFile(s, field{s: first, glob: hasGlobMeta(first)}, op, by, c, fileFlags{})
		if call.api.eff == effRead && len(static) > 1 && call.api.name == "copy" {
			a.addFile(s, field{s: static[1]}, "write", by, c, fileFlags{})
		}
	case effList:
		if first != "" {
			a.addFile(s, field{s: first, glob: hasGlobMeta(first)}, "list", by, c, fileFlags{})
		}
	case effDeleteTree:
		if first != "" {
			a.addFile(s, field{s: first, glob: hasGlobMeta(first)}, "delete", by, c, fileFlags{recursive: true, force: true})
		}
	case effOpen:
		a.interpOpen(s, name, by, static, c, code)
	case effNet:
		for _, v := range static {
			if strings.Contains(v, "://") {
				a.addNet(s, field{s: v}, "", by, nil)
				return
			}
		}
		if dynamic {
			a.addNet(s, field{s: "$url", dyn: true}, "https", by, nil)
		}
	case effEval:
		a.dynExec(s, "eval", name, field{dyn: true}, code, false)
	}
	_ = dynamic
}

// interpOpen records an open() call: a mode argument or a perl-style
// mode prefix decides between read, write and append; a pipe mode runs
// the rest as a shell command.
func (a *analyzer) interpOpen(s *syntax.Stmt, name, by string, static []string, c *ctx, code field) {
	mode, p := "", ""
	for _, v := range static {
		switch v {
		case "<", ">", ">>", "+<", "+>", "-|", "|-", "r", "w", "a", "rb", "wb", "ab", "r+", "w+", "a+", "rt", "wt", "at":
			if mode == "" {
				mode = v
			}
			continue
		}
		if p == "" {
			p = v
		}
	}
	if p == "" {
		return
	}
	if mode == "" {
		t := strings.TrimSpace(p)
		switch {
		case strings.HasPrefix(t, "|"):
			a.dynExec(s, "shell_c", name, field{s: strings.TrimSpace(t[1:])}, code, true)
			return
		case strings.HasSuffix(t, "|"):
			a.dynExec(s, "shell_c", name, field{s: strings.TrimSpace(t[:len(t)-1])}, code, true)
			return
		case strings.HasPrefix(t, ">>"):
			mode, p = ">>", strings.TrimSpace(t[2:])
		case strings.HasPrefix(t, "+<"), strings.HasPrefix(t, "+>"):
			mode, p = ">", strings.TrimSpace(t[2:])
		case strings.HasPrefix(t, ">"):
			mode, p = ">", strings.TrimSpace(t[1:])
		case strings.HasPrefix(t, "<"):
			mode, p = "<", strings.TrimSpace(t[1:])
		}
	}
	if mode == "-|" || mode == "|-" {
		a.dynExec(s, "shell_c", name, field{s: p}, code, true)
		return
	}
	op := "read"
	switch {
	case mode == ">>" || strings.HasPrefix(mode, "a"):
		op = "append"
	case mode == ">" || mode == "+>" || strings.HasPrefix(mode, "w") || mode == "r+":
		op = "write"
	}
	a.addFile(s, field{s: p, glob: hasGlobMeta(p)}, op, by, c, fileFlags{})
}

// execKind is the DynamicExec kind of a command the language runs.
func (l *interpLang) execKind() string {
	switch {
	case l.awkIO:
		return "awk_system"
	case l.names[0] == "perl":
		return "perl_e"
	}
	return "shell_c"
}

// runsShell reports whether code calls one of lang's command-running APIs.
func runsShell(l *interpLang, code string) bool {
	for _, call := range scanInterp(l, code) {
		if call.api.eff == effShell {
			return true
		}
	}
	return false
}

// codeEnvDump records inline code that prints the whole environment (`perl
// -e 'print "$_=$ENV{$_}\n" for keys %ENV'`, `node -e
// 'console.log(process.env)'`, `php -r 'print_r(getenv());'`, awk's `for
// (k in ENVIRON) print …`): the language's whole-environment expression
// together with one of its printers is an Output of every variable ("*"),
// judged like `env` (RULES.md SENSITIVE_OUTPUT). Passing the environment
// to a child process is not printing it.
func (a *analyzer) codeEnvDump(s *syntax.Stmt, name string, l *interpLang, code string) {
	whole, prints := false, false
	for _, m := range l.wholeEnv {
		if wholeAt(code, m) {
			whole = true
			break
		}
	}
	if !whole {
		return
	}
	for _, m := range l.printers {
		if strings.Contains(code, m) {
			prints = true
			break
		}
	}
	if !prints {
		return
	}
	a.b.Facts.Outputs = append(a.b.Facts.Outputs, sdk.Output{Sink: "stdout", Vars: []string{"*"},
		Evidence: a.evidence(s.Pos()), Pos: a.pos(s.Pos())})
}

// wholeAt reports whether marker m occurs in code as the whole value: a
// marker ending in a name must not go on into a member or an element
// (`process.env.HOME`, `ENV["HOME"]`, `$_ENV['X']`).
func wholeAt(code, m string) bool {
	last := m[len(m)-1]
	named := isWordByte(last)
	for off := 0; off < len(code); {
		k := strings.Index(code[off:], m)
		if k < 0 {
			return false
		}
		end := off + k + len(m)
		if !named || end >= len(code) {
			return true
		}
		if n := code[end]; n != '.' && n != '[' && n != '{' && !isWordByte(n) {
			return true
		}
		off = end
	}
	return false
}
