package bash

import (
	"net"
	"path"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/toolwarden/toolwarden/sdk"
)

// The generic scanner of the interpreter registry (interp.go): it reads
// inline program text token by token, folds string arguments (literals,
// concatenation, home-directory expressions, simple variables, format and
// path-joining calls) and records each registered API call's effect as
// the analyzer's ordinary facts.

// A value known before scanning (the home directory, an operand the
// program's argv expressions read) stands in the program text as
// "\x00value\x00", which the tokenizer turns into that string (inside a
// literal, part of it). Shell words hold no NUL byte.
func sentinel(v string) string { return "\x00" + v + "\x00" }

// homeSentinel stands for the home directory inside folded text; it
// becomes "~" in string values.
var homeSentinel = sentinel("~")

type itokKind uint8

const (
	itIdent itokKind = iota + 1
	itStr
	itPunct
	itShell // a backtick/qx command: s is the command text
	itNum   // a decimal number: s is its digits
)

type itok struct {
	kind itokKind
	s    string
	// off and end are the token's byte range in the (home-replaced) code.
	off, end int
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
	// strs are every string literal inside the call's parentheses, nested
	// ones included (an options object's `host: 'x'`).
	strs []string
	// hosts are the literals given as a host option's value.
	hosts []string
	// env are the environment variable names the arguments read, directly
	// or through a variable assigned from them ("*" for the whole
	// environment); files are the paths whose content they carry.
	env, files []string
	// at and end are the token span of the call (name to closing
	// parenthesis); fetched is set on an eval whose argument is
	// downloaded content (a fetch inside it or a variable holding one).
	at, end int
	fetched bool
	// port is the port a connect call gives as an argument of its own
	// (`connect(4444, host)`, `fsockopen(host, $p)`), 0 when none.
	port int
	// listen is set on a socket constructor given listening options
	// (IO::Socket::INET->new(Listen => 5, LocalPort => 80)): a server,
	// recorded by the listener path, not a connection.
	listen bool
}

// taint is what a variable of the program holds: environment values and
// file contents.
type taint struct {
	env, files []string
	// fetched is set when the value comes from a network fetch
	// (`$c = file_get_contents('https://…')`).
	fetched bool
}

// tokenizeInterp splits program text (home expressions already replaced
// by homeReplaced) into identifiers (dotted, `::` and
// `->` chains), string literals (escapes decoded, home expressions
// replaced), backtick commands and single punctuation characters.
func tokenizeInterp(l *interpLang, code string) []itok {
	var out []itok
	// Where "." concatenates (perl, php), it never joins a member name:
	// `"https://".$h` is a string, the operator and a variable.
	dotConcat := contains(l.concat, ".")
	mark, prev := 0, 0
	for i := 0; i < len(code); {
		for k := mark; k < len(out); k++ {
			out[k].off, out[k].end = prev, i
		}
		mark, prev = len(out), i
		c := code[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case c == 0:
			e := strings.IndexByte(code[i+1:], 0)
			if e < 0 {
				i = len(code)
				break
			}
			out = append(out, itok{kind: itStr, s: code[i+1 : i+1+e]})
			i += e + 2
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
				if code[j] == 0 {
					if e := strings.IndexByte(code[j+1:], 0); e >= 0 {
						sb.WriteString(code[j+1 : j+1+e])
						j += e + 2
						continue
					}
				}
				sb.WriteByte(code[j])
				j++
			}
			kind := itStr
			if c == '`' && l.backticks {
				kind = itShell
			}
			out = append(out, itok{kind: kind, s: sb.String()})
			i = j + 1
		case c >= '0' && c <= '9':
			j := i + 1
			for j < len(code) && code[j] >= '0' && code[j] <= '9' {
				j++
			}
			out = append(out, itok{kind: itNum, s: code[i:j]})
			i = j
		case isIdentStart(c) || c == '.' && !dotConcat && i+1 < len(code) && isIdentStart(code[i+1]):
			j := i + 1
			for j < len(code) {
				if isWordByte(code[j]) || code[j] == '$' && !l.sigils || code[j] == '.' && !dotConcat && j+1 < len(code) && isIdentStart(code[j+1]) {
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
						out = append(out, itok{kind: itShell, s: code[j+1 : j+1+e]})
						i = j + 2 + e
						continue
					}
				}
			}
			out = append(out, itok{kind: itIdent, s: word})
			i = j
		case c == '%' && i+2 < len(code) && code[i+1] == 'x' && l.backticks:
			if closer, ok := qxCloser(code[i+2]); ok {
				if e := strings.IndexByte(code[i+3:], closer); e >= 0 {
					out = append(out, itok{kind: itShell, s: code[i+3 : i+3+e]})
					i += 4 + e
					continue
				}
			}
			out = append(out, itok{kind: itPunct, s: "%"})
			i++
		default:
			// Multi-character operators the folding needs.
			for _, op := range []string{"..", "<<", ">>", "=>", "==", "!=", "|&", "<-"} {
				if strings.HasPrefix(code[i:], op) {
					out = append(out, itok{kind: itPunct, s: op})
					i += len(op)
					goto next
				}
			}
			out = append(out, itok{kind: itPunct, s: string(c)})
			i++
		next:
		}
	}
	for k := mark; k < len(out); k++ {
		out[k].off, out[k].end = prev, len(code)
	}
	return joinRequires(out)
}

// joinRequires folds a module loaded and used in one expression,
// `require('https').get` or lua's `require("socket.http").request`, into
// the dotted name `https.get` the registry lists.
func joinRequires(toks []itok) []itok {
	out := toks[:0:0]
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		if t.kind == itIdent && (t.s == "require" || strings.HasSuffix(t.s, ".require")) && i+4 < len(toks) &&
			toks[i+1].s == "(" && toks[i+2].kind == itStr && toks[i+3].s == ")" && toks[i+4].kind == itIdent &&
			strings.HasPrefix(toks[i+4].s, ".") {
			mod := strings.TrimPrefix(toks[i+2].s, "node:")
			out = append(out, itok{kind: itIdent, s: mod + toks[i+4].s, off: t.off, end: toks[i+4].end})
			i += 4
			continue
		}
		// (await import('m')).get
		if t.s == "(" && t.kind == itPunct && i+6 < len(toks) && toks[i+1].s == "await" && toks[i+2].s == "import" &&
			toks[i+3].s == "(" && toks[i+4].kind == itStr && toks[i+5].s == ")" && toks[i+6].s == ")" && i+7 < len(toks) &&
			toks[i+7].kind == itIdent && strings.HasPrefix(toks[i+7].s, ".") {
			mod := strings.TrimPrefix(toks[i+4].s, "node:")
			member := strings.TrimPrefix(toks[i+7].s, ".default")
			out = append(out, itok{kind: itIdent, s: mod + member, off: t.off, end: toks[i+7].end})
			i += 7
			continue
		}
		out = append(out, t)
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
	l     *interpLang
	code  string
	toks  []itok
	vars  map[string]ival
	taint map[string]taint
	// alias maps a name bound to a module or one of its members
	// (`h = require('https')`, `const {get: g} = require('https')`,
	// `import * as h from 'https'`, `x = new XMLHttpRequest()`) to the
	// dotted name it stands for.
	alias map[string]string
}

// scanInterp returns the registered calls in code; operands are the
// program's arguments, the values of its argv expressions.
func scanInterp(l *interpLang, code string, operands ...field) []interpCall {
	code = argvReplaced(l, homeReplaced(l, code), operands)
	if l.rewrite != nil {
		code = l.rewrite(code)
	}
	sc := &interpScanner{l: l, code: code, toks: tokenizeInterp(l, code), vars: map[string]ival{}, taint: map[string]taint{},
		alias: map[string]string{}}
	var calls []interpCall
	assignTo, assignEnd := "", -1
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
		sc.bindAt(i)
		if t.kind != itIdent {
			continue
		}
		// name = expr: remember a folded value for later calls.
		if i+2 < len(sc.toks) && sc.toks[i+1].kind == itPunct && (sc.toks[i+1].s == "=" || contains(l.assign, sc.toks[i+1].s)) {
			v, end := sc.fold(i+2, ";")
			name := t.s
			if v.static || v.list != nil {
				sc.vars[name] = v
			} else {
				delete(sc.vars, name)
			}
			tn := sc.spanTaint(i+2, end)
			if len(tn.env) > 0 || len(tn.files) > 0 || tn.fetched {
				sc.taint[name] = tn
			} else {
				delete(sc.taint, name)
			}
			assignTo, assignEnd = name, end
			// h = require('https'): h.get is https.get; g = https.get,
			// x = new XMLHttpRequest(): g and x.open are those.
			delete(sc.alias, name)
			if mod, _, ok := sc.moduleAt(i + 2); ok {
				sc.alias[name] = mod
			} else if r := sc.toks[i+2]; r.kind == itIdent && r.s == "new" && i+3 < len(sc.toks) {
				k := i + 3
				if sc.toks[k].s == "(" && k+1 < len(sc.toks) {
					k++ // new (require('net').Socket)()
				}
				if sc.toks[k].kind == itIdent {
					sc.alias[name] = sc.resolve(sc.toks[k].s)
				}
			} else if r.kind == itIdent && end == i+3 && sc.bindable(r.s) {
				sc.alias[name] = sc.resolve(r.s)
			}
		}
		callee := sc.resolve(t.s)
		api, ok := l.lookupAPI(callee)
		if !ok || api.eff.pure() {
			continue
		}
		if api.eff == effEval && i > 0 && sc.toks[i-1].kind == itPunct && (sc.toks[i-1].s == "(" || sc.toks[i-1].s == ",") &&
			(i+1 >= len(sc.toks) || sc.toks[i+1].s == ")" || sc.toks[i+1].s == ",") {
			// eval passed as a callback (`fetch(u).then(r => r.text()).then(eval)`):
			// it runs what the chain produced, downloaded when a fetch came before.
			call := interpCall{api: api, at: i, end: i}
			for _, in := range calls {
				call.fetched = call.fetched || fetches(in)
			}
			calls = append(calls, call)
			continue
		}
		args, ok := sc.callArgs(i + 1)
		if !ok {
			continue
		}
		call := interpCall{api: api, args: args, at: i, end: sc.callEnd(i + 1)}
		if api.eff == effDelete && len(l.treeFlags) > 0 && call.end < len(sc.toks) {
			span := strings.Join(strings.Fields(sc.code[sc.toks[i].off:sc.toks[call.end].end]), "")
			for _, f := range l.treeFlags {
				if strings.Contains(span, f) {
					call.api.eff = effDeleteTree
				}
			}
		}
		if api.eff == effShell {
			// An options object's argv (Deno.Command('sh', {args:
			// [...]}), Deno.run({cmd: [...]})) follows the static words.
			call.args = append(call.args, sc.optionArgv(i+1, sc.callEnd(i+1))...)
		}
		if api.eff == effNet || api.eff == effConnect || api.eff == effSend || api.eff == effRead {
			end := sc.callEnd(i + 1)
			call.strs, call.hosts = sc.spanStrings(i+1, end)
			if api.eff == effConnect {
				call.port = sc.spanPort(i+1, end)
				call.listen = sc.spanListens(i+1, end)
			}
			tn := sc.spanTaint(i+1, end)
			call.env, call.files = tn.env, tn.files
			if fetches(call) && i < assignEnd {
				// `c = fetch(URL)`: the variable holds downloaded content.
				tn := sc.taint[assignTo]
				tn.fetched = true
				sc.taint[assignTo] = tn
			}
		}
		if api.eff == effRead && i < assignEnd && len(args) > 0 && args[0].static && args[0].s != "" {
			// `data = readFileSync(p)`: the variable carries p's content.
			tn := sc.taint[assignTo]
			tn.files = append(tn.files, args[0].s)
			sc.taint[assignTo] = tn
		}
		calls = append(calls, call)
	}
	for k := range calls {
		c := &calls[k]
		if c.api.eff != effEval {
			continue
		}
		if c.at == c.end {
			continue // a callback: decided where found
		}
		c.fetched = sc.spanTaint(c.at+1, c.end).fetched
		for _, in := range calls {
			if in.at > c.at && in.at <= c.end && fetches(in) {
				c.fetched = true
			}
		}
	}
	return calls
}

// fetches reports whether call downloads content: a network API, or a
// file read given a URL (php file_get_contents('https://…')).
func fetches(call interpCall) bool {
	if call.api.eff == effNet {
		return true
	}
	if call.api.eff != effRead {
		return false
	}
	for _, v := range call.strs {
		if strings.Contains(v, "://") {
			return true
		}
	}
	return false
}

// resolve is the dotted name a name stands for through the aliases: the
// whole name or its first component.
func (sc *interpScanner) resolve(name string) string {
	if m, ok := sc.alias[name]; ok {
		return m
	}
	if k := strings.IndexByte(name, '.'); k > 0 {
		if m, ok := sc.alias[name[:k]]; ok {
			return m + name[k:]
		}
	}
	return name
}

// bindable reports whether a name assigned to a variable makes it an
// alias: a registered API or a module bound before (`f = fetch`).
func (sc *interpScanner) bindable(name string) bool {
	r := sc.resolve(name)
	if _, ok := sc.l.lookupAPI(r); ok {
		return true
	}
	return r != name
}

// isHomeCall reports whether token i starts a call that returns the home
// directory through an alias (`const {homedir} = require('os');
// homedir()`).
func (sc *interpScanner) isHomeCall(i int) bool {
	t := sc.toks[i]
	if i+2 >= len(sc.toks) || sc.toks[i+1].s != "(" || sc.toks[i+2].s != ")" {
		return false
	}
	r := sc.resolve(t.s)
	return r != t.s && contains(sc.l.home, r+"()")
}

// moduleAt returns the module loaded by the expression at token k:
// require('m'), import('m'), await import('m'), require("ht" + "tps").
// end is the index of its closing parenthesis.
func (sc *interpScanner) moduleAt(k int) (mod string, end int, ok bool) {
	if k < len(sc.toks) && sc.toks[k].kind == itIdent && sc.toks[k].s == "await" {
		k++
	}
	if k+2 >= len(sc.toks) || sc.toks[k].kind != itIdent || sc.toks[k].s != "require" && sc.toks[k].s != "import" ||
		sc.toks[k+1].s != "(" {
		return "", 0, false
	}
	v, e := sc.fold(k+2, ")")
	if !v.static || v.s == "" || e >= len(sc.toks) || sc.toks[e].s != ")" {
		return "", 0, false
	}
	return strings.TrimPrefix(v.s, "node:"), e, true
}

// bindAt records the module bindings that start at token i: destructured
// requires (`const {get, request: r} = require('https')`), ES imports
// (`import h from 'https'`, `import * as h from …`, `import {get as g}
// from …`) and dynamic imports' callbacks (`import('https').then(m =>
// m.get(…))`, `.then(({get}) => …)`).
func (sc *interpScanner) bindAt(i int) {
	toks := sc.toks
	t := toks[i]
	switch {
	case t.kind == itPunct && t.s == "{":
		names, j := sc.destructure(i, ":")
		if j+1 < len(toks) && toks[j+1].s == "=" {
			if mod, _, ok := sc.moduleAt(j + 2); ok {
				for local, member := range names {
					sc.alias[local] = mod + "." + member
				}
			}
		}
	case t.kind == itIdent && t.s == "import" && i+1 < len(toks) && toks[i+1].s != "(":
		// ES import: the clause up to `from 'm'`.
		k := i + 1
		for k < len(toks) && !(toks[k].kind == itIdent && toks[k].s == "from") && toks[k].s != ";" {
			k++
		}
		if k+1 >= len(toks) || toks[k].s != "from" || toks[k+1].kind != itStr {
			return
		}
		mod := strings.TrimPrefix(toks[k+1].s, "node:")
		for j := i + 1; j < k; j++ {
			switch u := toks[j]; {
			case u.s == "{":
				names, e := sc.destructure(j, "as")
				for local, member := range names {
					sc.alias[local] = mod + "." + member
				}
				j = e
			case u.s == "*" && j+2 < k && toks[j+1].s == "as":
				sc.alias[toks[j+2].s] = mod
				j += 2
			case u.kind == itIdent:
				sc.alias[u.s] = mod // the default export
			}
		}
	default:
		mod, e, ok := sc.moduleAt(i)
		if !ok || e+2 >= len(toks) || toks[e+1].s != ".then" || toks[e+2].s != "(" {
			return
		}
		k := e + 3
		if k < len(toks) && (toks[k].s == "function" || toks[k].s == "async") {
			k++
		}
		if k < len(toks) && toks[k].s == "(" {
			k++
		}
		switch {
		case k < len(toks) && toks[k].s == "{":
			names, _ := sc.destructure(k, ":")
			for local, member := range names {
				sc.alias[local] = mod + "." + member
			}
		case k < len(toks) && toks[k].kind == itIdent:
			sc.alias[toks[k].s] = mod
		}
	}
}

// destructure reads the names of a `{a, b: c}` pattern at token i (sep
// is ":" for object patterns, "as" for import lists): local name → member.
// It returns the index of the closing brace.
func (sc *interpScanner) destructure(i int, sep string) (map[string]string, int) {
	names := map[string]string{}
	toks := sc.toks
	j := i + 1
	for ; j < len(toks) && toks[j].s != "}"; j++ {
		u := toks[j]
		if u.kind != itIdent && u.kind != itStr {
			if u.s == "{" || u.s == "(" {
				return nil, j
			}
			continue
		}
		if j+2 < len(toks) && toks[j+1].s == sep && toks[j+2].kind == itIdent {
			names[toks[j+2].s] = u.s
			j += 2
			continue
		}
		names[u.s] = u.s
	}
	return names, j
}

// optionArgv returns the string lists given as an args or cmd option
// inside tokens i..end.
func (sc *interpScanner) optionArgv(i, end int) []ival {
	var out []ival
	for k := i; k+2 <= end && k+2 < len(sc.toks); k++ {
		t := sc.toks[k]
		if t.kind == itIdent && (t.s == "args" || t.s == "cmd") && sc.toks[k+1].s == ":" && sc.toks[k+2].s == "[" {
			if items, _ := sc.list(k + 3); items != nil {
				out = append(out, ival{s: strings.Join(items, " "), static: true, list: items})
			}
		}
	}
	return out
}

// homeReplaced is code with the language's home-directory expressions
// replaced by homeSentinel.
func homeReplaced(l *interpLang, code string) string {
	for _, h := range l.home {
		code = strings.ReplaceAll(code, "#{"+h+"}", homeSentinel)
		code = strings.ReplaceAll(code, "${"+h+"}", homeSentinel)
		code = strings.ReplaceAll(code, h, homeSentinel)
	}
	return code
}

// argvReplaced is code with the language's expressions for its n-th
// operand replaced by that operand's value (static operands only).
func argvReplaced(l *interpLang, code string, operands []field) string {
	for n, f := range operands {
		if f.dyn || strings.IndexByte(f.s, 0) >= 0 {
			continue
		}
		for _, e := range l.argv {
			if !strings.Contains(e, "%d") {
				if n > 0 {
					continue
				}
			} else {
				e = strings.Replace(e, "%d", strconv.Itoa(n+l.argvBase), 1)
			}
			code = strings.ReplaceAll(code, "#{"+e+"}", sentinel(f.s))
			code = strings.ReplaceAll(code, "${"+e+"}", sentinel(f.s))
			code = strings.ReplaceAll(code, e, sentinel(f.s))
		}
	}
	return code
}

// callEnd returns the index of the token that ends the call whose
// arguments start at token i: the matching ")" of a parenthesized call,
// else the statement end.
func (sc *interpScanner) callEnd(i int) int {
	if i < len(sc.toks) && sc.toks[i].kind == itPunct && sc.toks[i].s == "(" {
		depth := 0
		for k := i; k < len(sc.toks); k++ {
			switch sc.toks[k].s {
			case "(", "[", "{":
				if sc.toks[k].kind == itPunct {
					depth++
				}
			case ")", "]", "}":
				if sc.toks[k].kind == itPunct {
					depth--
					if depth == 0 {
						return k
					}
				}
			}
		}
		return len(sc.toks) - 1
	}
	for k := i; k < len(sc.toks); k++ {
		if t := sc.toks[k]; t.kind == itPunct && t.s == ";" {
			return k
		}
	}
	return len(sc.toks) - 1
}

// spanStrings returns the string literals of tokens i..end, and those
// given as a host option's value (`host: 'x'`, `PeerAddr => 'x'`).
func (sc *interpScanner) spanStrings(i, end int) (all, hosts []string) {
	for k := i; k <= end && k < len(sc.toks); k++ {
		v := sc.toks[k].s
		switch sc.toks[k].kind {
		case itStr:
		case itIdent:
			// A variable holding a string (`$h = "evil.example";
			// PeerAddr => $h`) stands for its value.
			w, ok := sc.vars[v]
			if !ok || !w.static || w.list != nil {
				continue
			}
			v = w.s
		default:
			continue
		}
		all = append(all, v)
		if k >= 2 && (sc.toks[k-1].s == ":" || sc.toks[k-1].s == "=>" || sc.toks[k-1].s == "=") &&
			sc.toks[k-1].kind == itPunct && hostKeys[strings.ToLower(sc.toks[k-2].s)] {
			hosts = append(hosts, v)
		}
	}
	return all, hosts
}

// spanPort returns the first number in tokens i..end that can be a
// port, given literally or through a variable holding one.
func (sc *interpScanner) spanPort(i, end int) int {
	for k := i; k <= end && k < len(sc.toks); k++ {
		v := ""
		switch t := sc.toks[k]; t.kind {
		case itNum:
			v = t.s
		case itIdent:
			if w, ok := sc.vars[t.s]; ok && w.static {
				v = w.s
			}
		}
		if p, err := strconv.Atoi(v); err == nil && p > 0 && p < 65536 {
			return p
		}
	}
	return 0
}

// listenKeys are the socket options that make a constructor a server.
var listenKeys = map[string]bool{"listen": true, "localport": true, "reuseaddr": true, "reuse": true}

// spanListens reports whether tokens i..end give a listening option
// (`Listen => 5`, `LocalPort: 80`) and no peer.
func (sc *interpScanner) spanListens(i, end int) bool {
	listen := false
	for k := i; k+1 <= end && k+1 < len(sc.toks); k++ {
		t, next := sc.toks[k], sc.toks[k+1]
		if t.kind != itIdent && t.kind != itStr || next.kind != itPunct || next.s != "=>" && next.s != ":" && next.s != "," {
			continue
		}
		switch n := strings.ToLower(t.s); {
		case hostKeys[n] && n != "url" && n != "uri" || n == "peerport":
			return false
		case listenKeys[n]:
			listen = true
		}
	}
	return listen
}

// hostKeys are the option names whose value is a destination host.
var hostKeys = map[string]bool{"host": true, "hostname": true, "peeraddr": true, "peerhost": true, "servername": true,
	"address": true, "url": true, "uri": true}

// spanTaint returns the environment variables and file contents tokens
// i..end carry: the language's environment expressions in the raw text
// (string interpolation included) and the variables tainted before.
func (sc *interpScanner) spanTaint(i, end int) taint {
	var tn taint
	if i >= len(sc.toks) {
		return tn
	}
	if end >= len(sc.toks) {
		end = len(sc.toks) - 1
	}
	if end < i {
		return tn
	}
	tn.env = sc.l.envRefs(sc.code[sc.toks[i].off:sc.toks[end].end])
	for k := i; k <= end; k++ {
		if t := sc.toks[k]; t.kind == itIdent {
			name := t.s
			if w, ok := sc.taint[name]; ok {
				tn.env = append(tn.env, w.env...)
				tn.files = append(tn.files, w.files...)
				tn.fetched = tn.fetched || w.fetched
			}
		}
	}
	return tn
}

// awkIO recognizes awk's own I/O at token i: `"cmd" | getline`, `getline
// < "file"` (a file read), `print …
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
	case "|&":
		// gawk's two-way I/O: `print … |& s`, `s |& getline`. A network
		// special file (/inet/tcp/…) is a connection; anything else is a
		// coprocess, a command run.
		v := value(i + 1)
		if next.kind == itIdent && next.s == "getline" && i > 0 {
			v = value(i - 1)
		} else if !sc.printBefore(i) {
			return interpCall{}, false
		}
		if sc.l.netFile(v.s) {
			return interpCall{api: interpAPI{"|&", effConnect}, args: []ival{v}, strs: []string{v.s}, at: i, end: i}, true
		}
		return interpCall{api: interpAPI{"|&", effShell}, args: []ival{v}, at: i, end: i}, true
	case "|":
		if next.kind == itIdent && next.s == "getline" && i > 0 {
			return interpCall{api: interpAPI{"getline", effShell}, args: []ival{value(i - 1)}}, true
		}
		if k := sc.printStart(i); k >= 0 {
			cmd := value(i + 1)
			if w := strings.Fields(cmd.s); cmd.static && len(w) == 1 && isShell(path.Base(w[0])) {
				// `print "rm -rf ~" | "sh"`: what is printed is the
				// shell's script.
				text, _ := sc.fold(k+1, ";")
				return interpCall{api: interpAPI{"print|sh", effShell}, args: []ival{text}}, true
			}
			return interpCall{api: interpAPI{"print|", effShell}, args: []ival{cmd}}, true
		}
	case "<":
		// getline < "file", getline var < "file": a file read.
		if i > 0 && sc.toks[i-1].kind == itIdent && (sc.toks[i-1].s == "getline" ||
			i > 1 && sc.toks[i-2].kind == itIdent && sc.toks[i-2].s == "getline") {
			v := value(i + 1)
			if sc.l.netFile(v.s) {
				return interpCall{api: interpAPI{"getline<", effConnect}, args: []ival{v}, strs: []string{v.s}}, true
			}
			return interpCall{api: interpAPI{"getline<", effRead}, args: []ival{v}}, true
		}
	case ">", ">>":
		if sc.printBefore(i) {
			eff := effWrite
			if t.s == ">>" {
				eff = effAppend
			}
			v := value(i + 1)
			if sc.l.netFile(v.s) {
				eff = effConnect
			}
			return interpCall{api: interpAPI{"print" + t.s, eff}, args: []ival{v}, strs: []string{v.s}}, true
		}
	}
	return interpCall{}, false
}

// printBefore reports whether the statement holding token i starts with
// print or printf (so `>` is a redirection, not a comparison).
func (sc *interpScanner) printBefore(i int) bool { return sc.printStart(i) >= 0 }

// printStart returns the index of the print or printf token that starts
// the statement holding token i, -1 when it starts with neither.
func (sc *interpScanner) printStart(i int) int {
	for k := i - 1; k >= 0; k-- {
		t := sc.toks[k]
		if t.kind == itPunct && (t.s == ";" || t.s == "{" || t.s == "}" || t.s == "(") {
			return -1
		}
		if t.kind == itIdent && (t.s == "print" || t.s == "printf") {
			return k
		}
	}
	return -1
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
		case itStr, itNum:
			v.s += t.s
			parts++
		case itIdent:
			if t.s == "new" || t.s == "await" {
				pending = true // `new URL(…)`, `await readFile(…)`: the value that follows
				continue
			}
			if sc.isHomeCall(i) {
				v.s += "~"
				i += 2
				parts++
				continue
			}
			if api, ok := sc.l.lookupAPI(sc.resolve(t.s)); ok && api.eff.pure() && (i+1 >= len(sc.toks) || sc.toks[i+1].s == "(" || sc.vars[t.s].s == "") {
				args, next := sc.innerArgs(i + 1)
				if args == nil {
					v.static = false
					continue
				}
				v.s += applyPass(api.eff, args)
				for _, a := range args {
					v.static = v.static && a.static
				}
				if api.eff == effVector && v.static {
					v.list = nil
					for _, a := range args {
						v.list = append(v.list, a.s)
					}
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

// pure reports whether eff is folded into a value, not recorded.
func (eff apiEffect) pure() bool {
	return eff == effPass || eff == effFormat || eff == effURL || eff == effConcat || eff == effVector
}

// applyPass computes a pure call's value.
func applyPass(eff apiEffect, args []ival) string {
	if eff == effConcat || eff == effVector {
		parts := make([]string, 0, len(args))
		for _, a := range args {
			parts = append(parts, a.s)
		}
		if eff == effVector {
			return strings.Join(parts, " ")
		}
		return strings.Join(parts, "")
	}
	if eff == effURL {
		switch {
		case len(args) == 0:
			return ""
		case len(args) == 1 || strings.Contains(args[0].s, "://"):
			return args[0].s
		}
		return strings.TrimRight(args[1].s, "/") + "/" + strings.TrimLeft(args[0].s, "/")
	}
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
func (a *analyzer) interpCode(s *syntax.Stmt, name string, l *interpLang, code field, c *ctx, operands ...field) {
	if code.dyn {
		return
	}
	a.codeEnvDump(s, name, l, code.s)
	calls := scanInterp(l, code.s, operands...)
	var conns []int
	for _, call := range calls {
		start := len(a.b.Facts.Network)
		a.interpEffect(s, name, call, code, c)
		if call.api.eff == effConnect {
			for k := start; k < len(a.b.Facts.Network); k++ {
				conns = append(conns, k)
			}
		}
	}
	if len(conns) > 0 && shellAttached(calls) {
		for _, k := range conns {
			a.b.Facts.Network[k].ExecShell = true
		}
	}
}

// shellAttached reports whether code that opens a raw connection also
// runs a shell or a command it cannot know (what it reads from the
// connection): `exec("/bin/sh -i")`, `spawn('/bin/sh')`, `system $_`,
// `io.popen(r)`, awk's `c |& getline`, an eval of a computed string.
// Such code is a reverse shell (RULES.md REVERSE_SHELL).
func shellAttached(calls []interpCall) bool {
	for _, call := range calls {
		if call.api.eff != effShell && call.api.eff != effEval {
			continue
		}
		if call.api.eff == effEval && call.at == call.end {
			continue // eval passed as a callback
		}
		if len(call.args) == 0 {
			return true
		}
		for _, v := range call.args {
			if !v.static && v.list == nil {
				return true
			}
		}
		first := call.args[0].s
		if call.args[0].list != nil && len(call.args[0].list) > 0 {
			first = call.args[0].list[0]
		}
		words := strings.Fields(first)
		if len(words) == 0 {
			continue
		}
		base := path.Base(words[0])
		if isShell(base) || base == "cmd.exe" || base == "powershell" || base == "pwsh" || contains(words[1:], "-i") {
			return true
		}
	}
	return false
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
		if first == "" && call.api.eff == effRead && len(call.strs) > 0 && strings.Contains(call.strs[0], "://") {
			// a URL built from a literal prefix and a computed part
			a.interpNet(s, by, call, nil, true)
			return
		}
		if first == "" {
			return
		}
		if strings.Contains(first, "://") {
			a.interpNet(s, by, call, static, false)
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
	case effNet, effConnect, effSend:
		if call.listen {
			return // a server: codeListeners records it
		}
		a.interpNet(s, by, call, static, dynamic)
	case effEval:
		a.dynExec(s, "eval", name, field{dyn: true, downloaded: call.fetched}, code, false)
	}
	_ = dynamic
}

// interpNet records the network use of one registered API call: the URL
// among its static arguments or the string literals inside the call (an
// options object's fields), else the first host-like literal ("host",
// "host:port"), else a dynamic destination. The environment values and
// file contents the arguments carry are sent: an Output to the network
// and an upload, judged by DATA_EXFILTRATION like curl's.
func (a *analyzer) interpNet(s *syntax.Stmt, by string, call interpCall, static []string, dynamic bool) {
	if len(call.env) > 0 {
		a.b.Facts.Outputs = append(a.b.Facts.Outputs, sdk.Output{Sink: "network", Vars: dedup(call.env),
			Evidence: a.evidence(s.Pos()), Pos: a.pos(s.Pos())})
	}
	if call.api.eff == effSend {
		return
	}
	upload := len(call.env) > 0 || len(call.files) > 0 || sendsBody(call)
	adjust := func(n *sdk.NetworkUse) {
		n.Upload = n.Upload || upload
		if len(call.files) > 0 {
			n.UploadFrom = call.files[0]
		}
	}
	cands := append(append([]string(nil), static...), call.strs...)
	for _, v := range cands {
		if strings.Contains(v, "://") {
			a.addNet(s, field{s: v}, "", by, adjust)
			return
		}
	}
	scheme := "https"
	if call.api.eff == effConnect {
		scheme = "tcp"
	}
	// A bare host is a destination where the API takes one (raw
	// connects, Net::HTTP.get(host, path)) or as a host option's value,
	// not any dotted literal (`$conf->get('db.host')` is no request).
	hosts := call.hosts
	if call.api.eff == effConnect {
		hosts = cands
	} else if strings.HasPrefix(call.api.name, "Net::HTTP.") && len(static) > 0 {
		hosts = append([]string{static[0]}, hosts...)
	}
	for _, v := range hosts {
		if h, p, ok := inetFile(v); ok {
			// gawk's /inet/tcp/LPORT/HOST/RPORT special file.
			a.addNet(s, field{s: joinHostPort(h, p)}, "tcp", by, adjust)
			return
		}
		if h, p := hostLike(v); h != "" {
			if p == 0 && call.port > 0 {
				// The port given as an argument of its own.
				v = joinHostPort(h, call.port)
			}
			a.addNet(s, field{s: v}, scheme, by, adjust)
			return
		}
	}
	if dynamic || call.api.eff == effConnect {
		a.addNet(s, field{s: "$url", dyn: true}, scheme, by, adjust)
	}
}

// joinHostPort is host:port, host alone when port is 0.
func joinHostPort(host string, port int) string {
	if port == 0 {
		return host
	}
	return net.JoinHostPort(host, strconv.Itoa(port))
}

// inetFile reads a gawk network special file,
// /inet[46]/{tcp,udp}/LPORT/HOST/RPORT: the remote host and port.
func inetFile(v string) (host string, port int, ok bool) {
	parts := strings.Split(v, "/")
	if len(parts) < 6 || parts[0] != "" || !strings.HasPrefix(parts[1], "inet") || parts[2] != "tcp" && parts[2] != "udp" {
		return "", 0, false
	}
	if parts[4] == "" || parts[4] == "0" {
		return "", 0, false // a server: no remote host
	}
	p, _ := strconv.Atoi(parts[5])
	return parts[4], p, true
}

// sendsBody reports whether a network call sends a request body: a post,
// put or send API, or a "POST"/"PUT" method literal among its strings.
func sendsBody(call interpCall) bool {
	n := strings.ToLower(call.api.name)
	if strings.Contains(n, "post") || strings.Contains(n, "put") || strings.Contains(n, "send") {
		return true
	}
	for _, v := range call.strs {
		switch strings.ToUpper(v) {
		case "POST", "PUT", "PATCH":
			return true
		}
	}
	return false
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
	if strings.Contains(p, "://") {
		// open-uri's Kernel#open, PHP's fopen of a URL
		a.addNet(s, field{s: p}, "", by, nil)
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
