package bash

import (
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/toolwarden/toolwarden/sdk"
)

// The interpreters topic: python, perl, ruby, node, php and awk, whose
// inline code (-c, -e, an awk program) runs commands and opens sockets.
// The APIs each language reaches are the interpreter registry of
// interp.go; here are the command lines that carry the code.

// registerInterpreterCommands registers every interpreter of interp.go and
// the own semantics of the interpreters' command lines.
func registerInterpreterCommands(r *registry) {
	const topic = "interpreters"
	for _, l := range interpreters {
		r.interpreter(topic, l)
	}
	// python, python3, python3.12, pypy …: a family, since no table can
	// list every version.
	r.family(topic, isPython, func(e *command) { e.run = exclusive((*analyzer).python) })
	r.run(topic, exclusive((*analyzer).perl), "perl")
	r.run(topic, exclusive((*analyzer).scriptingSystem), "ruby", "node", "nodejs", "php")
	// awk's operands after the program are files it reads (awkSpec).
	r.run(topic, additive((*analyzer).awk), "awk", "gawk", "mawk", "nawk")
}

func isPython(name string) bool {
	return name == "python" || strings.HasPrefix(name, "python2") || strings.HasPrefix(name, "python3") ||
		name == "pypy" || name == "pypy3"
}

// staticArgv returns the words of args when every one is static (the
// arguments `python3 -c CODE …` gives sys.argv), nil otherwise.
func staticArgv(args []field) []string {
	if len(args) == 0 {
		return nil
	}
	out := make([]string, len(args))
	for i, f := range args {
		if f.dyn {
			return nil
		}
		out[i] = f.s
	}
	return out
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
				a.nestedArgv = staticArgv(args[i+2:])
				a.dynExec(s, "python_c", name, args[i+1], args[i+1], true)
				a.nestedArgv = nil
			}
			return
		case strings.HasPrefix(f.s, "-c") && !strings.HasPrefix(f.s, "--"):
			a.dynExec(s, "python_c", name, field{s: f.s[2:]}, f, true)
			return
		case f.s == "-m":
			if i+1 < len(args) {
				a.pythonModuleServer(s, name, args[i+1].s, args[i+2:])
			}
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

func (a *analyzer) perl(s *syntax.Stmt, _ string, args []field, c *ctx) {
	l := interpByName["perl"]
	inv := parseInterpArgs(l, args)
	switch {
	case len(inv.codes) > 0:
		code := joinCode(inv.codes)
		a.codeListeners(s, "perl", code.s)
		// The commands the code runs are found by the interpreter
		// registry (interp.go); code that runs none is still inline code
		// executed.
		if code.dyn || !runsShell(l, code.s) {
			a.b.Facts.DynamicExec = append(a.b.Facts.DynamicExec, sdk.DynamicExec{
				Kind: "perl_e", Interpreter: "perl", Static: !code.dyn, Content: capContent(code.s),
				Evidence: a.evidence(s.Pos()), Pos: a.pos(s.Pos()),
			})
		}
	case inv.script || inv.stdin:
		a.scriptOperand(s, "perl", args[inv.at], c)
	}
}

func (a *analyzer) awk(s *syntax.Stmt, _ string, args []field, c *ctx) {
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
		a.codeListeners(s, "awk", f.s)
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

// inlineFlag is the option that passes a code string to an interpreter.
var inlineFlag = map[string]string{"ruby": "-e", "node": "-e", "nodejs": "-e", "php": "-r"}

// scriptingSystem handles `ruby -e`, `node -e`, `php -r`: shell command
// strings passed to system()/exec() (and backticks) are analyzed as bash.
func (a *analyzer) scriptingSystem(s *syntax.Stmt, name string, args []field, c *ctx) {
	flag := inlineFlag[name]
	if name == "php" {
		a.serveWith(s, "php -S", serverCommands["php"], args)
	}
	if l := interpByName[name]; l.clusters && !hasPrefixArg(args, "-run") {
		// ruby -ne CODE FILE: the option syntax of the registry row.
		switch inv := parseInterpArgs(l, args); {
		case len(inv.codes) > 0:
			a.codeListeners(s, name, joinCode(inv.codes).s)
		case inv.script || inv.stdin:
			a.scriptOperand(s, name, args[inv.at], c)
		}
		return
	}
	for i, f := range args {
		if name == "ruby" && len(flag) == 2 && strings.HasPrefix(f.s, flag) && len(f.s) > 2 && hasArg(args[:i], "-run") {
			// ruby -run -ehttpd: the code joined to its flag
			a.rubyServer(s, f.s[2:], args[i+1:])
			return
		}
		if f.s == flag || (name == "node" || name == "nodejs") && (f.s == "--eval" || f.s == "-p" || f.s == "--print") {
			if i+1 >= len(args) {
				return
			}
			// The commands the code runs are found by the interpreter
			// registry (interp.go).
			a.codeListeners(s, name, args[i+1].s)
			if name == "ruby" && hasArg(args[:i], "-run") {
				a.rubyServer(s, args[i+1].s, args[i+2:])
			}
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

// listenMarkers reveal a listening server in perl/ruby/php/node/lua code:
// the language's server classes and listen calls, perl's Listen and
// LocalPort socket options.
var listenMarkers = []string{"TCPServer.new", "TCPServer.open", "WEBrick::HTTPServer", "Socket.tcp_server_loop",
	"UDPSocket.new.bind", ".listen(", "stream_socket_server(", "socket_listen(", "Listen =>", "Listen=>",
	"LocalPort", "HTTP::Daemon", "socket.bind(", "Deno.listen(", "Bun.serve("}

// codeListener records the listening socket of inline code: bound to the
// first address literal in it ("0.0.0.0", "127.0.0.1", "tcp://h:p",
// "localhost"), or every interface when none is written — a server given
// only a port listens on all of them.
func (a *analyzer) codeListener(s *syntax.Stmt, via, code string) {
	host, port := "", 0
	for off := 0; off < len(code); {
		lit, end, ok := nextQuoted(code, off)
		if !ok {
			break
		}
		off = end
		if _, rest, ok := strings.Cut(lit, "://"); ok {
			lit = rest
		}
		h, p := splitHostPort(lit)
		if h == "localhost" || h == "::1" || h == "::" || hostIsIP(h) {
			host, port = h, p
			break
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
		Scheme: "tcp", Via: via, Listen: true, ExecShell: execShell,
		Evidence: a.evidence(s.Pos()), Pos: a.pos(s.Pos())})
}

// hostIsIP reports whether h is an IPv4 literal (four dotted numbers).
func hostIsIP(h string) bool {
	parts := strings.Split(h, ".")
	if len(parts) != 4 {
		return false
	}
	for _, p := range parts {
		if _, err := strconv.Atoi(p); err != nil || p == "" {
			return false
		}
	}
	return true
}

// shellMarkers reveal a shell attached to a listening socket (a bind
// shell).
var shellMarkers = []string{"/bin/sh", "/bin/bash", "sh -i", "bash -i", "cmd.exe", "|& getline", "| getline",
	"spawn(\"sh", "spawn('sh", "exec(\"sh", "exec('sh", "system$_", "system $_", "exec $_"}

// codeListeners records the listening server of interpreter code given
// on the command line (its connections are the registry's effConnect
// APIs, interpscan.go).
func (a *analyzer) codeListeners(s *syntax.Stmt, via, code string) {
	for _, m := range listenMarkers {
		if strings.Contains(code, m) {
			a.codeListener(s, via, code)
			return
		}
	}
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

// hasPrefixArg reports whether an argument starts with p (ruby -run,
// -run -ehttpd).
func hasPrefixArg(args []field, p string) bool {
	for _, f := range args {
		if strings.HasPrefix(f.s, p) {
			return true
		}
	}
	return false
}

func hasArg(args []field, v string) bool {
	for _, f := range args {
		if f.s == v {
			return true
		}
	}
	return false
}
