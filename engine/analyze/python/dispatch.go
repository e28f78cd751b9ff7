package python

import (
	"math"
	"strconv"
	"strings"

	"github.com/toolwarden/toolwarden/sdk"
)

var httpMethods = map[string]bool{"get": true, "post": true, "put": true, "patch": true, "delete": true, "head": true, "options": true, "request": true, "stream": true}

// dispatch applies what the analyzer knows about the called API. It
// returns the call's result, or nil for an unknown result.
func (a *analyzer) dispatch(c *callCtx) *sym {
	n := c.name
	arg0 := c.arg(0, "")
	// ---- builtins and folding ----
	switch n {
	case "getattr":
		if len(c.args) >= 2 {
			if s, ok := c.args[1].strVal(); ok {
				obj := c.args[0]
				r := a.attr(obj, s)
				if r.qual != "" {
					cp := *r
					cp.indirect = true
					return &cp
				}
				return r
			}
		}
		return nil
	case "__import__", "importlib.import_module", "importlib.__import__":
		return a.doImport(c)
	case "operator.attrgetter", "operator.methodcaller":
		if arg0 != nil && arg0.isStr() && n == "operator.attrgetter" {
			return &sym{kind: "expr", inst: "operator.attrgetter", path: arg0}
		}
		return nil
	case "sys.modules.get", "sys.modules.__getitem__":
		if s, ok := arg0.strVal(); ok && arg0 != nil && arg0.kind == "str" {
			return &sym{qual: canon(s), indirect: true, src: s}
		}
		return nil
	case "globals", "locals":
		return &sym{qual: "<globals>"}
	case "vars":
		if arg0 == nil {
			return &sym{qual: "<globals>"}
		}
		if arg0.qual != "" {
			return &sym{qual: arg0.qual + ".__dict__", indirect: true}
		}
		return nil
	case "chr":
		if arg0 != nil && arg0.cnst && arg0.kind == "int" && arg0.num >= 0 && arg0.num < 0x110000 {
			r := strSym(string(rune(int(arg0.num))))
			r.chr = true
			r.taint(arg0)
			return r.decoded("chr")
		}
		return nil
	case "ord":
		if arg0 != nil && arg0.cnst && arg0.kind == "str" {
			if rs := []rune(arg0.s); len(rs) == 1 {
				return intSym(int64(rs[0])).taint(arg0)
			}
		}
		if arg0 != nil && arg0.cnst && arg0.kind == "bytes" && len(arg0.s) == 1 {
			return intSym(int64(arg0.s[0])).taint(arg0)
		}
		return nil
	case "str":
		if arg0 == nil {
			return strSym("")
		}
		if arg0.isStr() || arg0.isNum() {
			return (&sym{kind: "str", cnst: true, s: arg0.s}).taint(arg0)
		}
		if arg0.inst == "pathlib.Path" && arg0.path != nil {
			return arg0.path
		}
		return nil
	case "bytes", "bytearray":
		if arg0 != nil && arg0.isStr() {
			return (&sym{kind: "bytes", cnst: true, s: arg0.s}).taint(arg0)
		}
		if arg0 != nil && arg0.isSeq() {
			if s, ok := intsToBytes(arg0.items); ok {
				return (&sym{kind: "bytes", cnst: true, s: s}).taint(arg0).decoded("bytes")
			}
		}
		return nil
	case "bytes.fromhex", "bytearray.fromhex", "binascii.unhexlify", "binascii.a2b_hex", "base64.b16decode":
		if s, ok := arg0.strVal(); ok && arg0 != nil {
			if out, ok := hexdecode(s); ok {
				return (&sym{kind: "bytes", cnst: true, s: out}).taint(arg0).decoded("hex")
			}
		}
		return decodedUnknown(arg0, "hex")
	case "base64.b64decode", "base64.standard_b64decode", "base64.decodebytes", "base64.decodestring", "binascii.a2b_base64", "base64.urlsafe_b64decode":
		if s, ok := arg0.strVal(); ok && arg0 != nil {
			if out, ok := b64decode(s, n == "base64.urlsafe_b64decode"); ok {
				return (&sym{kind: "bytes", cnst: true, s: out}).taint(arg0).decoded("base64")
			}
		}
		return decodedUnknown(arg0, "base64")
	case "base64.b32decode":
		if s, ok := arg0.strVal(); ok && arg0 != nil {
			if out, ok := b32decode(s); ok {
				return (&sym{kind: "bytes", cnst: true, s: out}).taint(arg0).decoded("base32")
			}
		}
		return decodedUnknown(arg0, "base32")
	case "base64.a85decode", "base64.b85decode":
		if s, ok := arg0.strVal(); ok && arg0 != nil && n == "base64.a85decode" {
			if out, ok := a85decode(s); ok {
				return (&sym{kind: "bytes", cnst: true, s: out}).taint(arg0).decoded("base85")
			}
		}
		return (&sym{kind: "call"}).taint(arg0).decoded("base85")
	case "zlib.decompress", "gzip.decompress", "bz2.decompress":
		kind := strings.TrimSuffix(n, ".decompress")
		if s, ok := arg0.strVal(); ok && arg0 != nil {
			if out, ok := inflate(s, kind); ok {
				return (&sym{kind: "bytes", cnst: true, s: out}).taint(arg0).decoded(kind)
			}
		}
		return (&sym{kind: "call"}).taint(arg0).decoded(kind)
	case "codecs.decode", "codecs.encode":
		enc, _ := c.arg(1, "encoding").strVal()
		enc = strings.ToLower(strings.ReplaceAll(enc, "-", "_"))
		s, ok := arg0.strVal()
		if !ok || arg0 == nil {
			return nil
		}
		switch {
		case strings.HasPrefix(enc, "rot"):
			return (&sym{kind: "str", cnst: true, s: rot13(s)}).taint(arg0).decoded("rot13")
		case enc == "hex" || enc == "hex_codec":
			if n == "codecs.encode" {
				return (&sym{kind: "bytes", cnst: true, s: hexEncode(s)}).taint(arg0)
			}
			if out, ok := hexdecode(s); ok {
				return (&sym{kind: "bytes", cnst: true, s: out}).taint(arg0).decoded("hex")
			}
		case enc == "base64" || enc == "base64_codec":
			if n == "codecs.decode" {
				if out, ok := b64decode(s, false); ok {
					return (&sym{kind: "bytes", cnst: true, s: out}).taint(arg0).decoded("base64")
				}
			}
		case enc == "zlib" || enc == "zlib_codec":
			if out, ok := inflate(s, "zlib"); ok && n == "codecs.decode" {
				return (&sym{kind: "bytes", cnst: true, s: out}).taint(arg0).decoded("zlib")
			}
		case enc == "" || strings.HasPrefix(enc, "utf") || enc == "ascii" || enc == "latin_1" || enc == "latin1":
			k := "str"
			if n == "codecs.encode" {
				k = "bytes"
			}
			return (&sym{kind: k, cnst: true, s: s}).taint(arg0)
		}
		return nil
	case "reversed":
		if arg0 != nil && arg0.isStr() {
			return &sym{kind: "expr", inst: "reversed", path: arg0}
		}
		if arg0 != nil && arg0.isSeq() {
			r := &sym{kind: arg0.kind, cnst: true}
			for i := len(arg0.items) - 1; i >= 0; i-- {
				r.items = append(r.items, arg0.items[i])
			}
			return r.taint(arg0).decoded("rev")
		}
		return nil
	case "map":
		if len(c.args) == 2 && c.args[0].qual != "" && c.args[0].qual != "chr" && c.args[1].isSeq() && len(c.args[1].items) <= maxUnroll {
			// map(os.system, [...]) calls the function on each element
			for _, it := range c.args[1].items {
				a.callWith(c.args[0], []*sym{it}, c)
			}
			return nil
		}
		if len(c.args) == 2 && c.args[0].qual == "chr" && c.args[1].isSeq() {
			r := &sym{kind: "list", cnst: true}
			for _, it := range c.args[1].items {
				if !(it.cnst && it.kind == "int" && it.num >= 0 && it.num < 0x110000) {
					return nil
				}
				s := strSym(string(rune(int(it.num))))
				s.chr = true
				r.items = append(r.items, s.decoded("chr"))
			}
			r.chr = true
			return r.decoded("chr")
		}
		if len(c.args) == 2 {
			return (&sym{kind: "call"}).taint(c.args[1])
		}
		return nil
	case "list", "tuple":
		if arg0 != nil && arg0.isSeq() {
			r := *arg0
			r.kind = n
			return &r
		}
		if arg0 != nil && arg0.kind == "str" && arg0.cnst {
			r := &sym{kind: n, cnst: true}
			for _, ch := range arg0.s {
				r.items = append(r.items, strSym(string(ch)))
			}
			return r.taint(arg0)
		}
		if arg0 != nil && arg0.el != nil {
			return &sym{kind: "expr", el: arg0.el}
		}
		return nil
	case "range":
		var bounds []int64
		for _, v := range c.args {
			if !(v.cnst && v.kind == "int") {
				return nil
			}
			bounds = append(bounds, int64(v.num))
		}
		lo, hi, step := int64(0), int64(0), int64(1)
		switch len(bounds) {
		case 1:
			hi = bounds[0]
		case 2:
			lo, hi = bounds[0], bounds[1]
		case 3:
			lo, hi, step = bounds[0], bounds[1], bounds[2]
		default:
			return nil
		}
		if step == 0 || (hi-lo)/step > maxCompItems {
			return nil
		}
		r := &sym{kind: "list", cnst: true}
		for i := lo; (step > 0 && i < hi) || (step < 0 && i > hi); i += step {
			r.items = append(r.items, intSym(i))
		}
		return r
	case "enumerate":
		if arg0 != nil && arg0.isSeq() {
			r := &sym{kind: "list", cnst: true}
			for i, it := range arg0.items {
				r.items = append(r.items, &sym{kind: "tuple", cnst: it.cnst, items: []*sym{intSym(int64(i)), it}})
			}
			return r.taint(arg0)
		}
		return nil
	case "sorted", "iter":
		if n == "iter" && len(c.args) == 2 {
			return &sym{kind: "expr", inst: "iter_sentinel"}
		}
		if arg0 != nil && arg0.el != nil {
			return &sym{kind: "expr", el: arg0.el}
		}
		return nil
	case "int":
		if s, ok := arg0.strVal(); ok && arg0 != nil {
			base := 10
			if b := c.arg(1, "base"); b != nil && b.cnst && b.kind == "int" {
				base = int(b.num)
			}
			if v, err := strconv.ParseInt(strings.TrimSpace(s), base, 64); err == nil {
				return intSym(v)
			}
		}
		return nil
	case "itertools.count", "itertools.cycle":
		return &sym{kind: "expr", inst: n}
	case "exec", "eval", "compile":
		return a.doExec(c)
	case "code.InteractiveInterpreter.runsource", "code.InteractiveInterpreter.runcode", "code.InteractiveConsole.push",
		"code.InteractiveConsole.runsource", "code.compile_command", "timeit.timeit", "timeit.repeat", "timeit.Timer":
		// the setup runs first, in the same namespace as the statement
		code := c.arg(0, "stmt")
		if setup := c.kws["setup"]; setup != nil && code != nil {
			code = binop("+", binop("+", setup, strSym("\n")), code)
		}
		if code == nil || code.kind == "code" {
			return nil
		}
		s, ok := code.strVal()
		static := ok && code.kind == "str"
		a.dynExec(c, "py_exec", "python", code, static)
		if static {
			a.nested("python", s, c, c.name, code.encoded)
		}
		return nil
	case "code.InteractiveInterpreter", "code.InteractiveConsole":
		return &sym{kind: "expr", inst: n}
	case "pickle.loads", "marshal.loads", "dill.loads", "cloudpickle.loads", "_pickle.loads":
		// deserializing an embedded payload can run arbitrary code
		if arg0 != nil && arg0.cnst {
			d := sdk.DynamicExec{Kind: "py_exec", Interpreter: "python", Encoded: true, Decoders: append(append([]string(nil), arg0.decoders...), strings.SplitN(n, ".", 2)[0]), Evidence: c.ev, Pos: a.pos(c.line, c.col)}
			a.f.DynamicExec = append(a.f.DynamicExec, d)
		}
		if n == "marshal.loads" {
			// marshal yields code objects: whatever it reads is a
			// serialized program, so running it runs transformed content.
			return (&sym{kind: "call"}).taint(arg0).decoded("marshal")
		}
		return nil
	case "float":
		if s, ok := arg0.strVal(); ok && arg0 != nil {
			if f, err := strconv.ParseFloat(strings.TrimSpace(s), 64); err == nil {
				return &sym{kind: "float", cnst: true, s: s, num: f}
			}
		}
		return nil
	case "functools.partial", "functools.partialmethod":
		// partial(f, …) calls f: the result is f under another name, so a
		// wrapper does not hide what runs. Bound keywords (shell=True)
		// are passed at each call; bound positional arguments are not
		// tracked.
		if arg0 != nil && (arg0.qual != "" || arg0.localFn != "") {
			cp := *arg0
			cp.indirect = true
			if len(c.kws) > 0 {
				cp.boundKws = make(map[string]*sym, len(arg0.boundKws)+len(c.kws))
				for k, v := range arg0.boundKws {
					cp.boundKws[k] = v
				}
				for k, v := range c.kws {
					cp.boundKws[k] = v
				}
			}
			return &cp
		}
		return nil
	case "threading.Event":
		return &sym{kind: "expr", inst: n}
	case "pip.main", "pip._internal.main", "pip._internal.cli.main.main":
		if arg0 != nil && (arg0.kind == "list" || arg0.kind == "tuple") {
			line, _ := argvLine(concatArgv(append([]*sym{strSym("pip")}, arg0.items...)))
			a.runCommand(c, line, arg0.encoded)
		}
		return nil
	case "print":
		sink := "stdout"
		if f := c.kws["file"]; f != nil && f.inst == "file" {
			sink = "file"
		}
		a.output(c, sink, c.args...)
		return nil
	case "str.maketrans", "bytes.maketrans":
		return makeTrans(c.args)
	case "shlex.split":
		if arg0 != nil && arg0.isStr() {
			if words, ok := shlexSplit(arg0.s); ok && len(words) <= maxItems {
				r := &sym{kind: "list", cnst: true}
				for _, w := range words {
					r.items = append(r.items, strSym(w))
				}
				return r.taint(arg0)
			}
		}
		return nil
	case "shlex.join":
		if arg0 != nil && arg0.isSeq() {
			var words []string
			for _, it := range arg0.items {
				w, ok := it.strVal()
				if !ok {
					return nil
				}
				words = append(words, w)
			}
			return strSym(shellQuote(words)).taint(arg0)
		}
		return nil
	case "shlex.quote", "pipes.quote":
		if arg0 != nil && arg0.isStr() {
			return strSym(quoteWord(arg0.s)).taint(arg0)
		}
		return nil
	case "urllib.parse.urljoin":
		if len(c.args) == 2 && c.args[0].isStr() && c.args[1].isStr() {
			return strSym(urlJoin(c.args[0].s, c.args[1].s)).taint(c.args...)
		}
		return nil
	case "sys.stdout.write", "sys.stderr.write", "sys.stdout.writelines", "sys.stderr.writelines", "pprint.pprint", "pprint.pp",
		"logging.info", "logging.debug", "logging.warning", "logging.warn", "logging.error", "logging.critical", "logging.exception", "logging.log":
		a.output(c, "stdout", c.args...)
		return nil
	case "logging.getLogger":
		return &sym{kind: "expr", inst: "logging.Logger"}
	case "input":
		return &sym{kind: "expr", src: "input()"}
	}
	if strings.HasPrefix(n, "logging.Logger.") {
		switch strings.TrimPrefix(n, "logging.Logger.") {
		case "info", "debug", "warning", "warn", "error", "critical", "exception", "log":
			a.output(c, "stdout", c.args...)
		}
		return nil
	}
	if strings.HasSuffix(n, ".__getattribute__") || strings.HasSuffix(n, ".__getattr__") || n == "object.__getattribute__" {
		obj, name := c.fn.recv, arg0
		if base := strings.TrimSuffix(strings.TrimSuffix(n, ".__getattribute__"), ".__getattr__"); base != "" && base != "object" {
			obj = a.qualSym(base, c.fn.indirect)
		} else if len(c.args) == 2 {
			obj, name = c.args[0], c.args[1]
		}
		if s, ok := name.strVal(); ok && obj != nil && name != nil {
			r := a.attr(obj, s)
			if r.qual != "" {
				cp := *r
				cp.indirect = true
				return &cp
			}
			return r
		}
		return nil
	}
	// ---- environment ----
	switch n {
	case "os.getenv", "os.environ.get", "os.getenvb":
		if arg0 == nil {
			return nil
		}
		return a.envRead(arg0, c.line, c.col)
	case "os.environ.setdefault":
		if arg0 != nil {
			a.envAssign(arg0, c.arg(1, ""), "set", c.line, c.col)
			return a.envRead(arg0, c.line, c.col)
		}
		return nil
	case "os.environ.pop", "os.unsetenv":
		if arg0 != nil {
			a.envAssign(arg0, nil, "unset", c.line, c.col)
		}
		return nil
	case "os.putenv":
		if arg0 != nil {
			a.envAssign(arg0, c.arg(1, ""), "set", c.line, c.col)
		}
		return nil
	case "os.environ.update":
		if arg0 != nil && arg0.kind == "dict" {
			for i, k := range arg0.keys {
				if k != nil {
					a.envAssign(k, arg0.items[i], "set", c.line, c.col)
				}
			}
		}
		for _, k := range c.kwList {
			a.envAssign(strSym(k), c.kws[k], "set", c.line, c.col)
		}
		return nil
	case "os.environ.copy", "os.environ.items", "os.environ.values":
		return &sym{kind: "expr", env: []string{"*"}}
	}
	// ---- time ----
	switch n {
	case "time.sleep", "asyncio.sleep", "trio.sleep", "gevent.sleep", "eventlet.sleep":
		sl := sdk.Sleep{Evidence: c.ev, Pos: a.pos(c.line, c.col)}
		if arg0 != nil && arg0.isNum() {
			sl.Seconds = arg0.num
			if math.IsInf(sl.Seconds, 0) || math.IsNaN(sl.Seconds) {
				sl.Seconds = -1
			}
		} else {
			sl.Dynamic = true
		}
		a.f.Sleeps = append(a.f.Sleeps, sl)
		return nil
	case "signal.pause", "threading.Event.wait":
		if t := c.arg(0, "timeout"); t != nil && t.kind != "none" {
			sl := sdk.Sleep{Evidence: c.ev, Pos: a.pos(c.line, c.col), Seconds: t.num, Dynamic: !t.isNum()}
			a.f.Sleeps = append(a.f.Sleeps, sl)
			return nil
		}
		a.f.Sleeps = append(a.f.Sleeps, sdk.Sleep{Seconds: -1, Evidence: c.ev, Pos: a.pos(c.line, c.col)})
		return nil
	}
	if r, ok := a.processCall(c); ok {
		return r
	}
	if r, ok := a.fileCall(c); ok {
		return r
	}
	if r, ok := a.netCall(c); ok {
		return r
	}
	return nil
}

func intsToBytes(items []*sym) (string, bool) {
	b := make([]byte, len(items))
	for i, it := range items {
		if !(it.cnst && it.kind == "int" && it.num >= 0 && it.num < 256) {
			return "", false
		}
		b[i] = byte(it.num)
	}
	return string(b), true
}

func (a *analyzer) doImport(c *callCtx) *sym {
	arg0 := c.arg(0, "name")
	name, ok := arg0.strVal()
	if !ok || arg0 == nil || arg0.kind != "str" {
		a.dynExec(c, "py_import", "python", nil, false)
		return &sym{kind: "expr", src: "module"}
	}
	if !c.literalArg(0) {
		d := sdk.DynamicExec{Kind: "py_import", Interpreter: "python", Content: name, Encoded: arg0.encoded, Decoders: arg0.decoders, Evidence: c.ev, Pos: a.pos(c.line, c.col)}
		a.f.DynamicExec = append(a.f.DynamicExec, d)
	}
	q := name
	if c.name == "__import__" {
		if fl := c.arg(3, "fromlist"); fl == nil || (fl.isSeq() && len(fl.items) == 0) || fl.kind == "none" {
			if i := strings.IndexByte(q, '.'); i >= 0 {
				q = q[:i]
			}
		}
	}
	r := a.qualSym(q, true)
	cp := *r
	cp.indirect = true
	return &cp
}

func (a *analyzer) doExec(c *callCtx) *sym {
	kind := "py_" + c.name
	code := c.arg(0, "source")
	if code == nil {
		return nil
	}
	if code.kind == "code" {
		a.dynExec(c, kind, "python", code, code.cnst)
		return nil
	}
	s, ok := code.strVal()
	static := ok && (code.kind == "str" || code.kind == "bytes")
	a.dynExec(c, kind, "python", code, static)
	if static {
		a.nested("python", s, c, c.name, code.encoded)
	}
	if c.name == "compile" {
		r := &sym{kind: "code", cnst: static, s: s}
		return r.taint(code)
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

// ---- files ----

func openOp(mode string) string {
	switch {
	case strings.ContainsAny(mode, "wx"):
		return "write"
	case strings.Contains(mode, "a"):
		return "append"
	case strings.Contains(mode, "+"):
		return "write"
	}
	return "read"
}

func (a *analyzer) openFile(c *callCtx, p *sym, mode *sym, by string) *sym {
	m := "r"
	if s, ok := mode.strVal(); ok && mode != nil {
		m = s
	}
	op := openOp(m)
	fa := a.fileAccess(c, p, op, by)
	r := &sym{kind: "expr", inst: "file", path: pathStrSym(p)}
	if fa != nil && op == "read" {
		r.fromFile = fa.Path
	}
	if p != nil {
		r.taint(p)
		r.walkRoot = nil
	}
	return r
}

func (a *analyzer) fileCall(c *callCtx) (*sym, bool) {
	n := c.name
	arg0 := c.arg(0, "")
	switch n {
	case "open", "io.open", "codecs.open", "gzip.open", "bz2.open", "lzma.open", "io.FileIO", "aiofiles.open":
		return a.openFile(c, c.arg(0, "file"), c.arg(1, "mode"), n), true
	case "tarfile.open", "zipfile.ZipFile", "tarfile.TarFile", "shelve.open", "dbm.open":
		r := a.openFile(c, c.arg(0, "name"), c.arg(1, "mode"), n)
		return r, true
	case "os.open":
		flags := c.arg(1, "flags")
		op := "read"
		if flags != nil && (strings.Contains(flags.src, "WRONLY") || strings.Contains(flags.src, "RDWR") || strings.Contains(flags.src, "CREAT") || strings.Contains(flags.src, "TRUNC")) {
			op = "write"
		}
		if flags != nil && strings.Contains(flags.src, "APPEND") {
			op = "append"
		}
		a.fileAccess(c, arg0, op, n)
		return &sym{kind: "int"}, true
	case "dotenv.load_dotenv", "dotenv.dotenv_values", "dotenv.main.dotenv_values":
		p := c.arg(0, "dotenv_path")
		if p == nil || p.kind == "none" {
			p = strSym(".env")
		}
		fa := a.fileAccess(c, p, "read", n)
		r := &sym{kind: "expr"}
		if fa != nil {
			r.fromFile = fa.Path
		}
		return r, true
	case "pathlib.Path", "pathlib.PurePath":
		inst := n
		var p *sym
		if len(c.args) == 0 {
			p = strSym(".")
		} else {
			p = pathStrSym(c.args[0])
			for _, x := range c.args[1:] {
				p = pathStrSym(pathJoin(pathSym(p), x))
			}
		}
		return &sym{kind: "expr", inst: inst, path: p, src: p.src}, true
	case "pathlib.Path.home", "os.path.expanduser.home":
		return pathSym(strSym("~")), true
	case "pathlib.Path.cwd", "os.getcwd":
		if n == "os.getcwd" {
			return strSym("."), true
		}
		return pathSym(strSym(".")), true
	case "tempfile.gettempdir":
		return strSym("/tmp"), true
	case "os.path.join", "os.path.normpath", "os.path.abspath", "os.path.realpath", "os.path.expanduser", "os.path.expandvars":
		return osPath(n, c.args), true
	case "os.path.dirname", "os.path.basename":
		if s, ok := arg0.strVal(); ok && arg0 != nil {
			i := strings.LastIndexByte(s, '/')
			if n == "os.path.basename" {
				return strSym(s[i+1:]), true
			}
			if i < 0 {
				return strSym(""), true
			}
			return strSym(s[:i]), true
		}
		return nil, true
	case "os.remove", "os.unlink", "os.rmdir", "os.removedirs":
		a.fileAccess(c, c.arg(0, "path"), "delete", n)
		return nil, true
	case "shutil.rmtree":
		if fa := a.fileAccess(c, c.arg(0, "path"), "delete", n); fa != nil {
			fa.Recursive = true
			if v := c.arg(1, "ignore_errors"); v != nil {
				fa.Force, _ = v.truthy()
			}
		}
		return nil, true
	case "shutil.copy", "shutil.copy2", "shutil.copyfile", "shutil.copytree", "shutil.copyfileobj":
		if n == "shutil.copyfileobj" {
			return nil, true
		}
		src := a.fileAccess(c, c.arg(0, "src"), "copy_from", n)
		dst := a.fileAccess(c, c.arg(1, "dst"), "copy_to", n)
		if n == "shutil.copytree" {
			if src != nil {
				src.Recursive = true
			}
			if dst != nil {
				dst.Recursive = true
			}
		}
		return nil, true
	case "shutil.move", "os.rename", "os.replace", "os.renames":
		a.fileAccess(c, c.arg(0, "src"), "move", n)
		a.fileAccess(c, c.arg(1, "dst"), "move", n)
		return nil, true
	case "os.symlink", "os.link":
		a.fileAccess(c, c.arg(0, "src"), "link", n)
		a.fileAccess(c, c.arg(1, "dst"), "link", n)
		return nil, true
	case "os.chmod", "os.lchmod":
		if fa := a.fileAccess(c, c.arg(0, "path"), "chmod", n); fa != nil {
			fa.Mode = modeString(c.arg(1, "mode"))
		}
		return nil, true
	case "os.chown", "os.lchown", "shutil.chown":
		if fa := a.fileAccess(c, c.arg(0, "path"), "chown", n); fa != nil {
			if u := c.arg(1, "user"); u != nil {
				if s, ok := u.strVal(); ok {
					fa.Owner = s
				} else {
					fa.Owner = u.src
				}
			}
		}
		return nil, true
	case "os.makedirs", "os.mkdir", "os.mkfifo", "os.truncate":
		a.fileAccess(c, c.arg(0, "path"), "write", n)
		return nil, true
	case "os.listdir", "os.scandir":
		p := c.arg(0, "path")
		if p == nil {
			p = strSym(".")
		}
		a.fileAccess(c, p, "list", n)
		root := pathStrSym(p)
		el := &sym{kind: "expr", walkRoot: globRoot(root, "*"), src: "entry"}
		return &sym{kind: "expr", el: el}, true
	case "os.walk", "os.fwalk":
		p := c.arg(0, "top")
		a.fileAccess(c, p, "list", n)
		el := &sym{kind: "expr", walkRoot: pathStrSym(p), src: "entry"}
		return &sym{kind: "expr", el: el}, true
	case "glob.glob", "glob.iglob":
		p := c.arg(0, "pathname")
		ps := pathStrSym(p)
		cp := *ps
		cp.glob = true
		fa := a.fileAccess(c, &cp, "list", n)
		if fa != nil {
			fa.Glob = !fa.Dynamic && hasGlobMeta(fa.Path)
		}
		el := &sym{kind: "expr", walkRoot: &cp, src: "entry"}
		return &sym{kind: "expr", el: el}, true
	case "json.dump", "yaml.dump", "yaml.safe_dump", "pickle.dump":
		if f := c.arg(1, "fp"); f != nil && f.inst == "file" {
			a.output(c, "file", arg0)
		}
		return nil, true
	case "urllib.request.urlretrieve":
		a.netURL(c, n, c.arg(0, "url"), false)
		if p := c.arg(1, "filename"); p != nil {
			a.fileAccess(c, p, "write", n)
		}
		return nil, true
	case "pandas.read_csv", "pandas.read_json", "pandas.read_parquet", "numpy.load", "numpy.loadtxt", "sqlite3.connect", "configparser.ConfigParser.read":
		if arg0 != nil && (arg0.kind == "str" || arg0.inst == "pathlib.Path") {
			fa := a.fileAccess(c, arg0, "read", n)
			r := &sym{kind: "expr"}
			if fa != nil {
				r.fromFile = fa.Path
			}
			return r, true
		}
		return nil, true
	}
	if strings.HasPrefix(n, "file.") && c.fn.recv != nil {
		f := c.fn.recv
		switch strings.TrimPrefix(n, "file.") {
		case "write", "writelines":
			a.output(c, "file", c.args...)
		case "read", "readline", "readlines", "__iter__":
			r := &sym{kind: "expr", fromFile: f.fromFile}
			return r.taint(f), true
		}
		return nil, true
	}
	if strings.HasPrefix(n, "pathlib.Path.") && c.fn.recv != nil {
		return a.pathMethod(c, strings.TrimPrefix(n, "pathlib.Path."), c.fn.recv), true
	}
	return nil, false
}

func globRoot(root *sym, pat string) *sym {
	if s, ok := root.strVal(); ok {
		r := strSym(joinPath(s, pat))
		r.glob = true
		return r
	}
	r := &sym{kind: "expr", src: root.src, prefix: root.prefix, glob: true}
	return r
}

func modeString(m *sym) string {
	if m == nil {
		return ""
	}
	if m.cnst && m.kind == "int" {
		return strconv.FormatInt(int64(m.num), 8)
	}
	if s, ok := m.strVal(); ok {
		return s
	}
	return m.src
}

// osPath folds os.path functions over constant parts.
func osPath(n string, args []*sym) *sym {
	if len(args) == 0 {
		return &sym{kind: "expr"}
	}
	switch n {
	case "os.path.join":
		out := ""
		r := &sym{kind: "str", cnst: true}
		for i, p := range args {
			ps := pathStrSym(p)
			r.taint(ps)
			if s, ok := ps.strVal(); ok && ps.kind == "str" {
				if r.cnst {
					out = joinPath(out, s)
				}
				continue
			}
			if r.cnst {
				r.cnst = false
				if i > 0 {
					r.prefix = strings.TrimSuffix(out, "/") + "/"
				}
			}
		}
		if r.cnst {
			r.s = out
			return r
		}
		r.kind = "expr"
		return r
	case "os.path.expanduser":
		p := pathStrSym(args[0])
		if s, ok := p.strVal(); ok {
			return strSym(s).taint(p)
		}
		return p
	case "os.path.expandvars":
		p := pathStrSym(args[0])
		if s, ok := p.strVal(); ok {
			return strSym(normPath(s)).taint(p)
		}
		return p
	default:
		p := pathStrSym(args[0])
		if s, ok := p.strVal(); ok {
			return strSym(normPath(s)).taint(p)
		}
		return p
	}
}

func (a *analyzer) pathMethod(c *callCtx, m string, recv *sym) *sym {
	n := c.name
	p := recv.path
	if p == nil {
		p = &sym{kind: "expr"}
	}
	switch m {
	case "read_text", "read_bytes":
		fa := a.fileAccess(c, recv, "read", n)
		r := &sym{kind: "expr"}
		if fa != nil {
			r.fromFile = fa.Path
		}
		return r.taint(p)
	case "write_text", "write_bytes":
		a.fileAccess(c, recv, "write", n)
		a.output(c, "file", c.args...)
		return nil
	case "open":
		return a.openFile(c, recv, c.arg(0, "mode"), n)
	case "unlink", "rmdir":
		a.fileAccess(c, recv, "delete", n)
		return nil
	case "mkdir", "touch":
		a.fileAccess(c, recv, "write", n)
		return nil
	case "rename", "replace":
		a.fileAccess(c, recv, "move", n)
		a.fileAccess(c, c.arg(0, "target"), "move", n)
		return nil
	case "symlink_to", "hardlink_to":
		a.fileAccess(c, recv, "link", n)
		return nil
	case "chmod":
		if fa := a.fileAccess(c, recv, "chmod", n); fa != nil {
			fa.Mode = modeString(c.arg(0, "mode"))
		}
		return nil
	case "glob", "rglob":
		pat, _ := c.arg(0, "pattern").strVal()
		pj := pathJoin(recv, strSym(pat))
		gp := *pathStrSym(pj)
		gp.glob = true
		fa := a.fileAccess(c, &gp, "list", n)
		if fa != nil {
			fa.Glob = !fa.Dynamic && hasGlobMeta(fa.Path)
		}
		root := &gp
		if m == "rglob" {
			root = p
		}
		return &sym{kind: "expr", el: pathSym((&sym{kind: "expr", walkRoot: root, src: "entry"}))}
	case "iterdir":
		a.fileAccess(c, recv, "list", n)
		return &sym{kind: "expr", el: pathSym(&sym{kind: "expr", walkRoot: globRoot(p, "*"), src: "entry"})}
	case "expanduser", "resolve", "absolute", "with_suffix", "with_name", "relative_to":
		if m == "expanduser" || m == "resolve" || m == "absolute" {
			return recv
		}
		return pathSym((&sym{kind: "expr"}).taint(p))
	case "joinpath":
		r := recv
		for _, x := range c.args {
			r = pathJoin(r, x)
		}
		return r
	case "exists", "is_file", "is_dir", "stat":
		return &sym{kind: "expr"}
	}
	return nil
}

// ---- network ----

func (a *analyzer) netCall(c *callCtx) (*sym, bool) {
	n := c.name
	arg0 := c.arg(0, "")
	// The first and last dotted parts, and whether there are just two,
	// without splitting the name (this runs for every call).
	lib, _, _ := strings.Cut(n, ".")
	last := n[strings.LastIndexByte(n, '.')+1:]
	twoParts := strings.Count(n, ".") == 1
	switch {
	case (lib == "requests" || lib == "httpx" || lib == "aiohttp" || lib == "urllib3") && httpMethods[strings.ToLower(last)] &&
		(twoParts || strings.HasSuffix(n, ".Session."+last) || strings.HasSuffix(n, ".Client."+last) || strings.HasSuffix(n, ".ClientSession."+last) || strings.HasSuffix(n, ".PoolManager."+last)):
		method := strings.ToLower(last)
		u := c.arg(0, "url")
		if method == "request" || lib == "urllib3" {
			if m, ok := arg0.strVal(); ok && arg0 != nil {
				method = strings.ToLower(m)
			}
			u = c.arg(1, "url")
		}
		upload := false
		for _, k := range []string{"data", "json", "files", "content", "body", "fields"} {
			if _, ok := c.kws[k]; ok {
				upload = true
			}
		}
		if (method == "post" || method == "put" || method == "patch") && len(c.args) > 1 && last != "request" {
			upload = true
		}
		a.netURL(c, n, u, upload)
		a.output(c, "network", a.allArgs(c)...)
		return &sym{kind: "expr", inst: "requests.Response", download: true}, true
	case n == "requests.Session" || n == "requests.session" || n == "httpx.Client" || n == "aiohttp.ClientSession" || n == "urllib3.PoolManager":
		inst := n
		if n == "requests.session" {
			inst = "requests.Session"
		}
		return &sym{kind: "expr", inst: inst}, true
	case n == "urllib.request.Request":
		u := c.arg(0, "url")
		r := &sym{kind: "expr", inst: "urllib.request.Request", path: u}
		if d := c.arg(1, "data"); d != nil && d.kind != "none" {
			r.upload = true
			r.taint(d)
		}
		if h := c.kws["headers"]; h != nil {
			r.taint(h)
		}
		return r, true
	case n == "urllib.request.urlopen" || n == "urllib.request.OpenerDirector.open":
		u := c.arg(0, "url")
		d := c.arg(1, "data")
		upload := d != nil && d.kind != "none"
		a.netURL(c, n, u, upload)
		a.output(c, "network", u, d)
		return &sym{kind: "expr", inst: "http.client.HTTPResponse", download: true}, true
	case n == "http.client.HTTPConnection" || n == "http.client.HTTPSConnection":
		scheme := "http"
		if strings.HasSuffix(n, "SConnection") {
			scheme = "https"
		}
		i := a.netHost(c, n, scheme, c.arg(0, "host"), c.arg(1, "port"))
		if a.f.Network[i].Port == 0 {
			if scheme == "https" {
				a.f.Network[i].Port = 443
			} else {
				a.f.Network[i].Port = 80
			}
		}
		return &sym{kind: "expr", inst: "http.client.HTTPConnection", netIdx: []int{i}}, true
	case n == "http.client.HTTPConnection.request":
		if r := c.fn.recv; r != nil && (len(c.args) > 2 || c.kws["body"] != nil) {
			for _, i := range r.netIdx {
				a.f.Network[i].Upload = true
			}
		}
		a.output(c, "network", a.allArgs(c)...)
		return nil, true
	case n == "socket.socket" || n == "socket.socketpair" || n == "ssl.SSLSocket":
		return &sym{kind: "expr", inst: "socket.socket", sock: true}, true
	case n == "socket.create_connection":
		h, p := hostPort(c.arg(0, "address"))
		i := a.netHost(c, n, "tcp", h, p)
		return &sym{kind: "expr", inst: "socket.socket", sock: true, netIdx: []int{i}}, true
	case n == "socket.socket.connect" || n == "socket.socket.connect_ex" || n == "socket.socket.bind" || n == "socket.socket.sendto":
		addr := arg0
		if n == "socket.socket.sendto" {
			addr = c.arg(len(c.args)-1, "address")
			a.output(c, "network", arg0)
		}
		h, p := hostPort(addr)
		i := a.netHost(c, n, "tcp", h, p)
		if n == "socket.socket.bind" {
			a.f.Network[i].Listen = true
		}
		if r := c.fn.recv; r != nil {
			r.netIdx = append(r.netIdx, i)
		}
		return nil, true
	case n == "socket.socket.fileno" || n == "socket.socket.makefile" || n == "socket.socket.detach":
		r := &sym{kind: "expr", sock: true}
		if c.fn.recv != nil {
			r.netIdx = append(r.netIdx, c.fn.recv.netIdx...)
		}
		return r, true
	case n == "socket.socket.send" || n == "socket.socket.sendall":
		a.output(c, "network", arg0)
		return nil, true
	case n == "socket.socket.recv":
		return &sym{kind: "expr", download: true}, true
	case n == "ssl.wrap_socket" || n == "ssl.SSLContext.wrap_socket":
		if arg0 != nil {
			return arg0, true
		}
		return nil, true
	case n == "urllib.request.build_opener":
		return &sym{kind: "expr", inst: "urllib.request.OpenerDirector"}, true
	case n == "dns.resolver.resolve" || n == "dns.resolver.query" || n == "dns.resolver.Resolver.resolve" || n == "dns.resolver.Resolver.query":
		a.netHost(c, n, "dns", c.arg(0, "qname"), nil)
		return nil, true
	case n == "dns.resolver.Resolver":
		return &sym{kind: "expr", inst: n}, true
	case n == "ssl.create_default_context" || n == "ssl.SSLContext":
		return &sym{kind: "expr", inst: "ssl.SSLContext"}, true
	case n == "socket.gethostbyname" || n == "socket.gethostbyname_ex" || n == "socket.getaddrinfo" || n == "socket.gethostbyaddr":
		h := c.arg(0, "host")
		a.netHost(c, n, "dns", h, c.arg(1, "port"))
		if n == "socket.gethostbyname" && h != nil && h.isStr() {
			// the address of a name: later connections to it reach that host
			return h, true
		}
		return nil, true
	case n == "smtplib.SMTP" || n == "smtplib.SMTP_SSL" || n == "ftplib.FTP" || n == "ftplib.FTP_TLS" || n == "telnetlib.Telnet" || n == "poplib.POP3" || n == "imaplib.IMAP4" || n == "imaplib.IMAP4_SSL":
		inst := n
		if h := c.arg(0, "host"); h != nil && !(h.cnst && h.kind == "str" && h.s == "") {
			scheme := strings.ToLower(strings.SplitN(strings.TrimPrefix(n, lib+"."), "_", 2)[0])
			i := a.netHost(c, n, scheme, h, c.arg(1, "port"))
			return &sym{kind: "expr", inst: inst, netIdx: []int{i}}, true
		}
		return &sym{kind: "expr", inst: inst}, true
	case (strings.HasPrefix(n, "smtplib.") || strings.HasPrefix(n, "ftplib.") || strings.HasPrefix(n, "paramiko.")) && last == "connect":
		h := c.arg(0, "host")
		if h == nil {
			h = c.kws["hostname"]
		}
		scheme := "ssh"
		if lib != "paramiko" {
			scheme = lib[:len(lib)-3]
		}
		i := a.netHost(c, n, scheme, h, c.arg(1, "port"))
		if a.f.Network[i].Port == 0 && lib == "paramiko" {
			a.f.Network[i].Port = 22
		}
		return nil, true
	case n == "paramiko.SSHClient" || n == "paramiko.client.SSHClient":
		return &sym{kind: "expr", inst: "paramiko.SSHClient"}, true
	case strings.HasPrefix(n, "smtplib.SMTP") && (last == "sendmail" || last == "send_message"):
		a.output(c, "network", a.allArgs(c)...)
		return nil, true
	case n == "xmlrpc.client.ServerProxy" || n == "websocket.create_connection" || n == "websockets.connect" || n == "websocket.WebSocketApp" || n == "aiohttp.request" || n == "urllib3.request":
		u := c.arg(0, "url")
		if n == "aiohttp.request" || n == "urllib3.request" {
			u = c.arg(1, "url")
		}
		a.netURL(c, n, u, false)
		return &sym{kind: "expr", download: true}, true
	}
	return nil, false
}

// urlJoin resolves ref against base the way urllib.parse.urljoin does
// for the common cases (absolute, host-relative and path-relative refs).
func urlJoin(base, ref string) string {
	if strings.Contains(ref, "://") {
		return ref
	}
	i := strings.Index(base, "://")
	if i < 0 {
		return ref
	}
	rest := base[i+3:]
	hostEnd := strings.IndexByte(rest, '/')
	origin := base
	path := "/"
	if hostEnd >= 0 {
		origin = base[:i+3+hostEnd]
		path = rest[hostEnd:]
	}
	if strings.HasPrefix(ref, "//") {
		return base[:i+1] + ref
	}
	if strings.HasPrefix(ref, "/") {
		return origin + ref
	}
	if j := strings.LastIndexByte(path, '/'); j >= 0 {
		path = path[:j+1]
	}
	return origin + path + ref
}

// shlexSplit splits a command line the way shlex.split does in POSIX
// mode: whitespace separates words, quotes group, backslash escapes.
func shlexSplit(line string) ([]string, bool) {
	var words []string
	var cur strings.Builder
	inWord := false
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		case c == '\\':
			inWord = true
			if i+1 < len(line) {
				i++
				cur.WriteByte(line[i])
			}
		case c == '\'':
			inWord = true
			j := strings.IndexByte(line[i+1:], '\'')
			if j < 0 {
				return nil, false
			}
			cur.WriteString(line[i+1 : i+1+j])
			i += j + 1
		case c == '"':
			inWord = true
			i++
			for ; i < len(line) && line[i] != '"'; i++ {
				if line[i] == '\\' && i+1 < len(line) && strings.IndexByte("\\\"$`", line[i+1]) >= 0 {
					i++
				}
				cur.WriteByte(line[i])
			}
			if i >= len(line) {
				return nil, false
			}
		default:
			inWord = true
			cur.WriteByte(c)
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words, true
}

// makeTrans builds the table of str.maketrans("abc", "xyz"[, "del"]):
// code point → code point, or None for deleted characters. It returns nil
// when the arguments are not constant strings of equal length.
func makeTrans(args []*sym) *sym {
	if len(args) < 2 || !args[0].isStr() || !args[1].isStr() {
		return nil
	}
	from, to := []rune(args[0].s), []rune(args[1].s)
	if len(from) != len(to) {
		return nil
	}
	r := &sym{kind: "dict"}
	for i := range from {
		r.keys = append(r.keys, intSym(int64(from[i])))
		r.items = append(r.items, intSym(int64(to[i])))
	}
	if len(args) > 2 && args[2].isStr() {
		for _, d := range args[2].s {
			r.keys = append(r.keys, intSym(int64(d)))
			r.items = append(r.items, &sym{kind: "none", cnst: true})
		}
	}
	return r
}

// decodedUnknown is the result of a decoder applied to content that is not
// constant (read from a file, computed): its text is unknown, but it is
// still decoded content, so executing it is executing encoded content
// (`exec(b64decode(open('p.b64').read()))`). Without an argument it is
// nothing.
func decodedUnknown(arg0 *sym, kind string) *sym {
	if arg0 == nil {
		return nil
	}
	return (&sym{kind: "call"}).taint(arg0).decoded(kind)
}
