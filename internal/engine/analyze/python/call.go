package python

import (
	"sort"
	"strconv"
	"strings"

	"github.com/toolwarden/toolwarden/sdk"
)

// callCtx is one call being analyzed.
type callCtx struct {
	e      *expr
	sc     *scope
	fn     *sym
	name   string
	args   []*sym
	argEx  []*expr
	kws    map[string]*sym
	kwList []string
	kwEx   map[string]*expr
	line   int
	col    int
	ev     string
}

func (c *callCtx) arg(i int, kw string) *sym {
	if i >= 0 && i < len(c.args) {
		return c.args[i]
	}
	if kw != "" {
		if v, ok := c.kws[kw]; ok {
			return v
		}
	}
	return nil
}

// literalArg reports whether argument i is written without variable
// references (a literal or an operation on literals).
func (c *callCtx) literalArg(i int) bool {
	if i >= len(c.argEx) {
		return false
	}
	return isLiteral(c.argEx[i])
}

func isLiteral(e *expr) bool {
	if e == nil {
		return true
	}
	switch e.kind {
	case eStr, eNum, eConst:
		return true
	case eBin, eUnary:
		return isLiteral(e.x) && isLiteral(e.y)
	case eSubscript:
		return isLiteral(e.x) && isLiteral(e.y)
	case eSlice:
		return isLiteral(e.x) && isLiteral(e.y) && isLiteral(e.z)
	case eList, eTuple:
		for _, x := range e.args {
			if !isLiteral(x) {
				return false
			}
		}
		return true
	}
	return false
}

var canonPrefixes = [][2]string{
	{"posixpath.", "os.path."}, {"ntpath.", "os.path."}, {"posix.", "os."}, {"nt.", "os."},
	{"__builtin__.", ""}, {"builtins.", ""},
	{"urllib2.urlopen", "urllib.request.urlopen"}, {"urllib2.Request", "urllib.request.Request"},
	{"urllib.urlopen", "urllib.request.urlopen"}, {"urllib.urlretrieve", "urllib.request.urlretrieve"},
	{"six.moves.urllib.request.", "urllib.request."}, {"future.moves.urllib.request.", "urllib.request."},
	{"pathlib.PosixPath", "pathlib.Path"}, {"pathlib.WindowsPath", "pathlib.Path"},
	{"pathlib.PurePosixPath", "pathlib.PurePath"}, {"pathlib.PureWindowsPath", "pathlib.PurePath"},
	{"subprocess.os.", "os."}, {"shutil.os.", "os."}, {"pathlib.os.", "os."}, {"glob.os.", "os."}, {"tempfile.os.", "os."},
	{"importlib.__import__", "__import__"}, {"commands.", "subprocess."}, {"httpx.AsyncClient", "httpx.Client"},
	{"asyncio.subprocess.create_subprocess_", "asyncio.create_subprocess_"},
}

// canon maps equivalent qualified names onto one spelling, so rules see
// os.system for posix.system and urllib.request.urlopen for urllib2.urlopen.
func canon(q string) string {
	for _, p := range canonPrefixes {
		if strings.HasPrefix(q, p[0]) {
			return p[1] + q[len(p[0]):]
		}
	}
	return q
}

var knownQuals = map[string]bool{}

func init() {
	for _, n := range strings.Fields(`os.system os.popen os.remove os.unlink os.rmdir os.removedirs os.environ os.getenv
os.putenv os.unsetenv os.chmod os.chown os.walk os.path os.listdir os.scandir os.rename os.replace os.makedirs os.mkdir
os.dup2 os.setuid os.fork os.kill os.execv os.execve os.execvp os.execvpe os.execl os.execle os.execlp os.execlpe
os.spawnv os.spawnl os.spawnvp os.spawnlp os.posix_spawn os.posix_spawnp os.open os.symlink os.link
subprocess.run subprocess.call subprocess.check_call subprocess.check_output subprocess.Popen subprocess.getoutput
subprocess.getstatusoutput subprocess.PIPE shutil.rmtree shutil.copy shutil.copy2 shutil.copyfile shutil.copytree
shutil.move shutil.chown socket.socket socket.create_connection socket.gethostbyname socket.getaddrinfo
socket.AF_INET socket.SOCK_STREAM pty.spawn requests.get requests.post requests.put requests.patch requests.delete
requests.head requests.request requests.Session urllib.request.urlopen urllib.request.Request
urllib.request.urlretrieve time.sleep base64.b64decode base64.b64encode codecs.decode pathlib.Path glob.glob
glob.iglob ctypes.CDLL ctypes.cdll runpy.run_module runpy.run_path importlib.import_module asyncio.sleep
asyncio.create_subprocess_exec asyncio.create_subprocess_shell zlib.decompress http.client.HTTPConnection
http.client.HTTPSConnection`) {
		knownQuals[n] = true
	}
}

func knownQual(q string) bool { return knownQuals[q] }

func (a *analyzer) call(e *expr, sc *scope) *sym {
	fn := a.eval(e.x, sc)
	c := &callCtx{e: e, sc: sc, fn: fn, line: e.line, col: e.col}
	if len(e.args) > 0 {
		c.args = make([]*sym, 0, len(e.args))
		c.argEx = make([]*expr, 0, len(e.args))
	}
	for _, x := range e.args {
		if x.kind == eStarred {
			v := a.eval(x.x, sc)
			if (v.kind == "list" || v.kind == "tuple") && len(v.items) > 0 {
				for _, it := range v.items {
					c.args = append(c.args, it)
					c.argEx = append(c.argEx, nil)
				}
				continue
			}
			sv := &sym{kind: "expr", src: a.text(x)}
			c.args = append(c.args, sv.taint(v))
			c.argEx = append(c.argEx, x)
			continue
		}
		c.args = append(c.args, a.eval(x, sc))
		c.argEx = append(c.argEx, x)
	}
	var kws []kwarg
	if e.exprMore != nil {
		kws = e.kws
	}
	for _, k := range kws {
		v := a.eval(k.v, sc)
		if c.kws == nil {
			c.kws = map[string]*sym{}
			c.kwEx = map[string]*expr{}
		}
		if k.name == "" {
			if v.kind == "dict" {
				for i, key := range v.keys {
					if key != nil && key.kind == "str" && key.cnst {
						c.kws[key.s] = v.items[i]
						c.kwList = append(c.kwList, key.s)
					}
				}
			}
			continue
		}
		c.kws[k.name] = v
		c.kwEx[k.name] = k.v
		c.kwList = append(c.kwList, k.name)
	}
	if len(fn.boundKws) > 0 {
		if c.kws == nil {
			c.kws = map[string]*sym{}
			c.kwEx = map[string]*expr{}
		}
		names := make([]string, 0, len(fn.boundKws))
		for k := range fn.boundKws {
			names = append(names, k)
		}
		sort.Strings(names)
		for _, k := range names {
			if _, ok := c.kws[k]; !ok {
				c.kws[k] = fn.boundKws[k]
				c.kwList = append(c.kwList, k)
			}
		}
	}
	if len(fn.boundArgs) > 0 && fn.inst != "operator.methodcaller" {
		// partial(f, a, b)(c) calls f(a, b, c)
		c.args = append(append([]*sym(nil), fn.boundArgs...), c.args...)
		c.argEx = append(make([]*expr, len(fn.boundArgs)), c.argEx...)
	}
	return a.callAlts(c)
}

// maxAltDepth bounds how many alternative-carrying operands of one call
// are expanded (the callee and then arguments, one level each), so the
// calls analyzed for one site stay at most maxAlts^maxAltDepth.
const maxAltDepth = 3

// callAlts analyzes c once per alternative of its callee or of its first
// argument that has alternatives (`f = os.system if x else print`, a
// command set in either branch of an if), and returns the alternatives of
// the results. Without alternatives it is callResolved.
func (a *analyzer) callAlts(c *callCtx) *sym {
	if a.altDepth >= maxAltDepth {
		return a.callResolved(c)
	}
	if len(c.fn.alts) > 0 {
		a.altDepth++
		var rs []*sym
		for _, f := range c.fn.alts {
			a.steps++
			cc := *c
			cc.fn = f
			if len(f.boundArgs) > 0 && f.inst != "operator.methodcaller" && f.localFn != "" {
				// one alternative is bound to arguments of its own (a
				// decorated method's wrapper bound to the instance)
				cc.args = append(append([]*sym(nil), f.boundArgs...), c.args...)
				cc.argEx = append(make([]*expr, len(f.boundArgs)), c.argEx...)
			}
			rs = append(rs, a.callAlts(&cc))
		}
		a.altDepth--
		return altsOf(rs...)
	}
	for i, v := range c.args {
		if len(v.alts) == 0 {
			continue
		}
		a.altDepth++
		var rs []*sym
		for _, alt := range v.alts {
			a.steps++
			cc := *c
			cc.args = append([]*sym(nil), c.args...)
			cc.args[i] = alt
			rs = append(rs, a.callAlts(&cc))
		}
		a.altDepth--
		return altsOf(rs...)
	}
	for _, k := range c.kwList {
		v := c.kws[k]
		if v == nil || len(v.alts) == 0 {
			continue
		}
		a.altDepth++
		var rs []*sym
		for _, alt := range v.alts {
			a.steps++
			cc := *c
			cc.kws = make(map[string]*sym, len(c.kws))
			for n, x := range c.kws {
				cc.kws[n] = x
			}
			cc.kws[k] = alt
			rs = append(rs, a.callAlts(&cc))
		}
		a.altDepth--
		return altsOf(rs...)
	}
	return a.callResolved(c)
}

// callResolved analyzes a call whose callee and arguments are evaluated.
func (a *analyzer) callResolved(c *callCtx) *sym {
	fn, e := c.fn, c.e
	if fn.localFn != "" {
		return a.localCall(fn.localFn, c)
	}
	if m, ok := unboundStrMethod(fn); ok && len(c.args) > 0 && c.args[0] != nil && c.args[0].isStr() {
		// str.join(' ', parts) is ' '.join(parts): call the method on
		// the first argument so the result folds the same way.
		bc := *c
		bc.args = c.args[1:]
		if len(c.argEx) > 0 {
			bc.argEx = c.argEx[1:]
		}
		return a.method(&sym{kind: "method", s: m, recv: c.args[0]}, &bc)
	}
	if strings.HasPrefix(fn.inst, "obj:") {
		// calling an instance runs its class's __call__
		if fi := a.findMethod(fn.inst[4:], "__call__"); fi != nil {
			cc := *c
			cc.fn = &sym{kind: "name", localFn: fi.key, recv: fn}
			return a.localCall(fi.key, &cc)
		}
	}
	if strings.HasPrefix(fn.inst, "class:") {
		// instantiating a class defined here: run __init__ with the
		// arguments when they are known
		obj := &sym{kind: "expr", inst: "obj:" + fn.inst[6:]}
		if a.excClasses[fn.inst[6:]] {
			obj = excInstance(obj.inst, c.args)
		}
		if fi := a.findMethod(fn.inst[6:], "__init__"); fi != nil {
			init := &callCtx{e: c.e, sc: c.sc, fn: &sym{localFn: fi.key, recv: obj}, args: c.args, argEx: c.argEx, kws: c.kws, kwEx: c.kwEx, kwList: c.kwList, line: c.line, col: c.col}
			a.localCall(fi.key, init)
		}
		return obj
	}
	if fn.kind == "method" && fn.qual == "" {
		return a.method(fn, c)
	}
	if fn.inst == "operator.methodcaller" && fn.path != nil && len(c.args) == 1 {
		// methodcaller('system', cmd)(os) is os.system(cmd)
		if name, ok := fn.path.strVal(); ok {
			m := a.attr(c.args[0], name)
			if m.qual != "" {
				cp := *m
				cp.indirect = true
				m = &cp
			}
			return a.invoke(m, fn.boundArgs, c)
		}
	}
	if fn.inst == "operator.attrgetter" && fn.path != nil && len(c.args) == 1 {
		if name, ok := fn.path.strVal(); ok {
			r := a.attr(c.args[0], name)
			if r.qual != "" {
				cp := *r
				cp.indirect = true
				return &cp
			}
			return r
		}
	}
	if fn.qual == "" {
		if fn.kind == "name" && isExcQual(fn.src) {
			// ValueError(msg), a builtin not bound here
			return excInstance("", c.args)
		}
		r := &sym{kind: "call"}
		return r.taint(c.args...)
	}
	c.name = canon(fn.qual)
	c.ev = a.evidence(e.line)
	return a.finishCall(c)
}

// finishCall records a resolved call and applies what is known of it.
// opaqueBuiltins return something about a value without revealing it.
var opaqueBuiltins = map[string]bool{"len": true, "bool": true, "isinstance": true, "callable": true,
	"type": true, "id": true, "hash": true, "hasattr": true}

// keyIterBuiltins iterate their argument: over a dict, only its keys.
var keyIterBuiltins = map[string]bool{"sorted": true, "list": true, "set": true, "tuple": true, "frozenset": true,
	"iter": true, "enumerate": true, "min": true, "max": true}

func (a *analyzer) finishCall(c *callCtx) *sym {
	fn := c.fn
	a.recordCall(c)
	r := a.dispatch(c)
	if r == nil && isExcQual(fn.qual) {
		// ValueError(msg): an exception carrying its arguments
		return excInstance("", c.args)
	}
	if r == nil {
		r = &sym{kind: "call"}
		if opaqueBuiltins[fn.qual] {
			// len(SECRET), bool(SECRET), …: the result does not reveal
			// the value, so it carries no environment taint.
			return r
		}
		if keyIterBuiltins[fn.qual] && len(c.args) == 1 && environKeys(c.args[0]) {
			// sorted(os.environ), list(os.environ): the names only.
			return &sym{kind: "expr", src: "os.environ.keys()"}
		}
		if keyIterBuiltins[fn.qual] && len(c.args) == 1 && c.args[0] != nil && c.args[0].kind == "dict" {
			// sorted(d), list(d), …: iterating a dict yields its keys,
			// so a secret among the values does not flow out.
			r.taint(c.args[0].keys...)
			return r
		}
		r.taint(c.args...)
		if fn.recv != nil {
			r.taint(fn.recv)
		}
	}
	return r
}

// unboundStrMethod reports a str/bytes method named through its class
// (`str.join`, `bytes.decode`) and the method's name.
func unboundStrMethod(fn *sym) (string, bool) {
	for _, cls := range []string{"str.", "bytes."} {
		if m, ok := strings.CutPrefix(fn.qual, cls); ok && m != "" && !strings.Contains(m, ".") && m != "maketrans" && m != "fromhex" {
			return m, true
		}
	}
	return "", false
}

func (a *analyzer) localCall(name string, c *callCtx) *sym {
	unknown := (&sym{kind: "call"}).taint(c.args...)
	fi := a.funcs[name]
	if fi == nil {
		return unknown
	}
	for _, f := range a.fnStack {
		if f == name {
			fi.recursive = true
			return unknown
		}
	}
	fi.called = true
	defer func() { a.raise(fi.raises...) }()
	// a method called on an object created here (not on `self` inside
	// another method) is walked again: its constructor may have set
	// constants
	onObject := fi.method && c.fn.recv != nil && c.fn.recv.kind == "expr" && strings.HasPrefix(c.fn.recv.inst, "obj:")
	if fi.def != nil && a.inline < maxInline && a.steps < maxSteps/2 && fi.inlined < maxInlinePerFunc && (anyKnown(c) || onObject || hasConstDefault(fi)) {
		fi.inlined++
		if r := a.inlineCall(fi, c); r != nil {
			return r
		}
		return unknown
	}
	if fi.ret != nil {
		return fi.ret
	}
	return unknown
}

// anyKnown reports whether a call passes a constant or a resolved name,
// which makes walking the callee again worthwhile.
func anyKnown(c *callCtx) bool {
	for _, v := range c.args {
		if v.cnst || v.qual != "" || v.localFn != "" || v.inst != "" {
			return true
		}
	}
	for _, v := range c.kws {
		if v.cnst || v.qual != "" || v.localFn != "" || v.inst != "" {
			return true
		}
	}
	return false
}

// maxCallsPerSite bounds the Call facts one call site produces when loop
// unrolling or inlining walks it many times; the call's other facts are
// still produced every time.
const maxCallsPerSite = 8

func (a *analyzer) recordCall(c *callCtx) {
	site := int64(c.line)<<32 | int64(c.col)
	if a.sites[site]++; a.sites[site] > maxCallsPerSite {
		return
	}
	call := sdk.Call{Name: c.name, Indirect: c.fn.indirect, Evidence: c.ev, Pos: a.pos(c.line, c.col)}
	if len(c.args) > 0 {
		call.Args = make([]sdk.Value, len(c.args))
		for i, v := range c.args {
			call.Args[i] = v.toValue()
			if !call.Args[i].Const && c.argEx[i] != nil {
				call.Args[i].Str = a.text(c.argEx[i])
			}
		}
	}
	if len(c.kwList) > 0 {
		call.Kwargs = make(map[string]sdk.Value, len(c.kwList))
		for _, k := range c.kwList {
			v := c.kws[k].toValue()
			if ex := c.kwEx[k]; !v.Const && ex != nil {
				v.Str = a.text(ex)
			}
			call.Kwargs[k] = v
		}
	}
	a.f.Calls = append(a.f.Calls, call)
}

// method folds str/bytes methods on constants and propagates taint
// through methods of unknown objects.
func (a *analyzer) method(fn *sym, c *callCtx) *sym {
	recv := fn.recv
	m := fn.s
	if m == "format" && recv != nil && recv.isStr() {
		// '{}'.format(obj): each object converts through its __format__
		for i, v := range c.args {
			if t := a.asText(v, "__format__", c); t != v {
				c.args = append([]*sym(nil), c.args...)
				c.args[i] = t
			}
		}
	}
	arg0 := c.arg(0, "")
	if m == "update" || m == "setdefault" {
		// s.headers.update({'Authorization': token}): the session sends it.
		for _, v := range c.args {
			sendTaint(sessionPart(recv), v)
		}
		for _, v := range c.kws {
			sendTaint(sessionPart(recv), v)
		}
	}
	if recv.kind == "dict" && recv.qual == "" {
		if r, ok := a.dictMethod(recv, m, c); ok {
			return r
		}
	}
	if m == "submit" || m == "map" || m == "apply_async" || m == "run_in_executor" || m == "call_soon" || m == "call_later" {
		// pool.submit(f, *args), pool.map(f, items), loop.run_in_executor(None, f, *args): f runs
		args := c.args
		if m == "run_in_executor" || m == "call_later" {
			if len(args) > 0 {
				args = args[1:]
			}
		}
		if len(args) > 0 && isCallable(args[0]) {
			if m == "map" && len(args) == 2 {
				return a.mapCall(args[0], args[1], c)
			}
			if m == "apply_async" && len(args) == 2 && (args[1].kind == "tuple" || args[1].kind == "list") {
				return a.invoke(args[0], args[1].items, c)
			}
			return a.invoke(args[0], args[1:], c)
		}
	}
	if recv.kind == "list" && arg0 != nil {
		// list mutation: argv built with append/extend/insert
		switch m {
		case "append", "insert":
			if m == "insert" {
				at := c.arg(0, "")
				arg0 = c.arg(1, "")
				if arg0 == nil {
					break
				}
				if at != nil && at.kind == "int" && at.cnst && int(at.num) == 0 && len(recv.items) < maxCompItems {
					recv.items = append([]*sym{arg0}, recv.items...)
					recv.cnst = recv.cnst && arg0.cnst && arg0.qual == "" && arg0.inst == ""
					recv.taint(arg0)
					return &sym{kind: "none", cnst: true}
				}
			}
			if len(recv.items) < maxCompItems {
				recv.items = append(recv.items, arg0)
				recv.cnst = recv.cnst && arg0.cnst && arg0.qual == "" && arg0.inst == ""
				recv.taint(arg0)
			}
			return &sym{kind: "none", cnst: true}
		case "extend":
			if arg0.isSeq() && len(recv.items)+len(arg0.items) <= maxCompItems {
				recv.items = append(recv.items, arg0.items...)
				recv.taint(arg0)
			} else {
				recv.cnst = false
				recv.items = append(recv.items, (&sym{kind: "expr", src: arg0.src}).taint(arg0))
			}
			return &sym{kind: "none", cnst: true}
		}
	}
	if !recv.cnst && (m == "format" || m == "format_map") {
		return (&sym{kind: "expr"}).taint(recv).taint(c.args...)
	}
	if recv.cnst && (recv.kind == "str" || recv.kind == "bytes") {
		switch m {
		case "join":
			if arg0 != nil && arg0.isSeq() {
				parts := make([]string, 0, len(arg0.items))
				ok := true
				for _, it := range arg0.items {
					s, sok := it.strVal()
					if !sok || it.kind == "int" || it.kind == "float" {
						ok = false
						break
					}
					parts = append(parts, s)
				}
				if ok && joinedLen(parts, recv.s) <= maxConst {
					r := &sym{kind: recv.kind, cnst: true, s: strings.Join(parts, recv.s)}
					r.taint(arg0)
					for _, it := range arg0.items {
						r.taint(it)
					}
					if r.chr {
						r.decoded("chr")
					}
					return r
				}
			}
			if arg0 != nil && arg0.inst == "reversed" && arg0.path != nil && arg0.path.isStr() {
				rs := []rune(arg0.path.s)
				for i, j := 0, len(rs)-1; i < j; i, j = i+1, j-1 {
					rs[i], rs[j] = rs[j], rs[i]
				}
				return (&sym{kind: recv.kind, cnst: true, s: string(rs)}).taint(arg0.path).decoded("rev")
			}
		case "decode", "encode":
			k := "str"
			if m == "encode" {
				k = "bytes"
			}
			if enc, ok := arg0.strVal(); ok && arg0 != nil && strings.Contains(strings.ToLower(enc), "rot") {
				return (&sym{kind: k, cnst: true, s: rot13(recv.s)}).taint(recv).decoded("rot13")
			}
			return (&sym{kind: k, cnst: true, s: recv.s}).taint(recv)
		case "format":
			if s, ok := strFormat(recv.s, c.args, c.kws); ok {
				return strSym(s).taint(recv).taint(c.args...)
			}
			r := &sym{kind: "expr"}
			if i := strings.IndexByte(recv.s, '{'); i >= 0 {
				r.prefix = recv.s[:i]
			}
			if i := strings.LastIndexByte(recv.s, '}'); i >= 0 {
				r.suffix = recv.s[i+1:]
			}
			return r.taint(recv).taint(c.args...)
		case "replace":
			o, ok1 := arg0.strVal()
			n, ok2 := c.arg(1, "").strVal()
			if ok1 && ok2 && c.arg(0, "").kind == recv.kind && o != "" && len(recv.s)+strings.Count(recv.s, o)*len(n) <= maxConst {
				return (&sym{kind: recv.kind, cnst: true, s: strings.ReplaceAll(recv.s, o, n)}).taint(recv)
			}
		case "upper":
			return (&sym{kind: recv.kind, cnst: true, s: strings.ToUpper(recv.s)}).taint(recv)
		case "lower":
			return (&sym{kind: recv.kind, cnst: true, s: strings.ToLower(recv.s)}).taint(recv)
		case "strip", "lstrip", "rstrip":
			cut := " \t\n\r\x0b\x0c"
			if s, ok := arg0.strVal(); ok && arg0 != nil {
				cut = s
			}
			s := recv.s
			if m != "rstrip" {
				s = strings.TrimLeft(s, cut)
			}
			if m != "lstrip" {
				s = strings.TrimRight(s, cut)
			}
			return (&sym{kind: recv.kind, cnst: true, s: s}).taint(recv)
		case "hex":
			return (&sym{kind: "str", cnst: true, s: hexEncode(recv.s)}).taint(recv)
		case "split":
			sep, ok := arg0.strVal()
			var parts []string
			if arg0 == nil || (arg0.kind == "none") {
				parts = strings.Fields(recv.s)
			} else if ok && sep != "" {
				parts = strings.Split(recv.s, sep)
			}
			if parts != nil && len(parts) <= maxCompItems {
				r := &sym{kind: "list", cnst: true}
				for _, p := range parts {
					r.items = append(r.items, &sym{kind: recv.kind, cnst: true, s: p})
				}
				return r.taint(recv)
			}
		case "translate":
			if arg0 != nil && arg0.kind == "dict" && recv.kind == "str" {
				if out, ok := translate(recv.s, arg0); ok {
					return (&sym{kind: "str", cnst: true, s: out}).taint(recv).decoded("translate")
				}
			}
		case "maketrans":
			if t := makeTrans(c.args); t != nil {
				return t
			}
		}
	}
	r := &sym{kind: "call"}
	r.taint(recv).taint(c.args...)
	// reading a file or download keeps its provenance; so do transforms
	if m == "read" || m == "decode" || m == "encode" || m == "readlines" {
		r.fromFile = recv.fromFile
	}
	return r
}

// translate applies a str.maketrans table (code point → code point,
// string or None) to s.
func translate(s string, table *sym) (string, bool) {
	m := map[rune]*sym{}
	for i, k := range table.keys {
		if k == nil || !k.cnst || k.kind != "int" {
			return "", false
		}
		m[rune(int(k.num))] = table.items[i]
	}
	var b strings.Builder
	for _, r := range s {
		v, ok := m[r]
		switch {
		case !ok:
			b.WriteRune(r)
		case v.cnst && v.kind == "int":
			b.WriteRune(rune(int(v.num)))
		case v.cnst && v.kind == "str":
			b.WriteString(v.s)
		case v.cnst && v.kind == "none":
		default:
			return "", false
		}
	}
	return b.String(), true
}

func joinedLen(parts []string, sep string) int {
	n := len(sep) * len(parts)
	for _, p := range parts {
		n += len(p)
	}
	return n
}

func hexEncode(s string) string {
	const digits = "0123456789abcdef"
	out := make([]byte, 0, len(s)*2)
	for i := 0; i < len(s); i++ {
		out = append(out, digits[s[i]>>4], digits[s[i]&15])
	}
	return string(out)
}

// ---- nested content ----

// maxNestedBytes bounds the nested content one document hands on, so a
// large constant passed to many calls (or built in many nested exec
// levels) cannot multiply the work.
const maxNestedBytes = 1 << 20

func (a *analyzer) nested(lang, content string, c *callCtx, via string, encoded bool) bool {
	*a.budget += len(content)
	if *a.budget > maxNestedBytes {
		a.f.Truncated = true
		return false
	}
	return a.b.Nested(lang, content, a.at, c.line, c.col, via, encoded)
}

func (a *analyzer) dynExec(c *callCtx, kind, interp string, code *sym, static bool) {
	d := sdk.DynamicExec{Kind: kind, Interpreter: interp, Static: static, Evidence: c.ev, Pos: a.pos(c.line, c.col)}
	if code != nil {
		d.Encoded = code.encoded
		d.Decoders = append([]string(nil), code.decoders...)
		d.Downloaded = code.download
		if static {
			d.Content = code.s
			if len(d.Content) > maxContent {
				d.Content = d.Content[:maxContent]
			}
		}
	}
	a.f.DynamicExec = append(a.f.DynamicExec, d)
}

// shellLine renders a command value as a shell command line: the constant
// string, or its constant head and tail around a "$PYDYN" placeholder.
func shellLine(v *sym) (string, bool) {
	if v == nil {
		return "", false
	}
	if s, ok := v.strVal(); ok && (v.kind == "str" || v.kind == "bytes") {
		return s, true
	}
	if v.prefix != "" || v.suffix != "" {
		return v.prefix + `"$PYDYN"` + v.suffix, true
	}
	// wholly unknown: the shell runs a command that cannot be known
	return `"$` + dynName(v.src) + `"`, true
}

// argvLine renders an argv list (or a single program string) as a shell
// command line; dynamic elements become "$name" words.
func argvLine(v *sym) (string, bool) {
	if v == nil {
		return "", false
	}
	if v.kind == "list" || v.kind == "tuple" {
		if len(v.items) == 0 {
			return "", false
		}
		var b strings.Builder
		for i, it := range v.items {
			if i > 0 {
				b.WriteByte(' ')
			}
			if s, ok := it.strVal(); ok {
				b.WriteString(quoteWord(s))
			} else if it.inst == "pathlib.Path" && it.path != nil && it.path.cnst {
				b.WriteString(quoteWord(it.path.s))
			} else {
				b.WriteString(`"$` + dynName(it.src) + `"`)
			}
		}
		return b.String(), true
	}
	if s, ok := v.strVal(); ok {
		return quoteWord(s), true
	}
	return `"$` + dynName(v.src) + `"`, true
}

func dynName(src string) string {
	var b strings.Builder
	for i := 0; i < len(src) && b.Len() < 24; i++ {
		c := src[i]
		if isIdentByte(c) {
			if b.Len() == 0 && c >= '0' && c <= '9' {
				continue
			}
			b.WriteByte(c)
		} else if b.Len() > 0 {
			break
		}
	}
	if b.Len() == 0 {
		return "PYDYN"
	}
	return b.String()
}

func concatArgv(words []*sym) *sym {
	return &sym{kind: "list", items: words}
}

// ---- helpers for paths ----

func pathSym(p *sym) *sym {
	return &sym{kind: "expr", inst: "pathlib.Path", path: p, src: p.src}
}

// pathStrSym returns the path string a value denotes (Path instance, open
// file or plain string).
func pathStrSym(v *sym) *sym {
	if v == nil {
		return &sym{kind: "expr"}
	}
	if (v.inst == "pathlib.Path" || v.inst == "pathlib.PurePath" || v.inst == "file") && v.path != nil {
		return v.path
	}
	return v
}

// normPath is sdk.NormalizePath: the path spelling every analyzer emits
// and the rules compare ($HOME as "~", "..", "//", "." and /proc aliases
// resolved).
func normPath(p string) string { return sdk.NormalizePath(p) }

// underCwd places a relative path under the directory a constant
// os.chdir moved to ("os.chdir(expanduser('~')); open('.ssh/id_rsa')" reads
// ~/.ssh/id_rsa).
func (a *analyzer) underCwd(p string) string {
	if a.cwd == "" || p == "" || p[0] == '/' || p[0] == '~' || p[0] == '$' || strings.Contains(p, "://") {
		return p
	}
	return joinPath(a.cwd, p)
}

// anyDownload reports whether a value carries downloaded content.
func anyDownload(vs []*sym) bool {
	for _, v := range vs {
		if v != nil && v.download {
			return true
		}
	}
	return false
}

// normPrefix normalizes the static prefix of a dynamic path, keeping a
// trailing slash: "/var/data/" + X is inside /var/data, "/var/data" + X
// may be a sibling.
func normPrefix(p string) string {
	n := sdk.NormalizePath(p)
	if strings.HasSuffix(p, "/") && !strings.HasSuffix(n, "/") {
		n += "/"
	}
	return n
}

func joinPath(a, b string) string {
	if strings.HasPrefix(b, "/") || a == "" {
		return b
	}
	if strings.HasSuffix(a, "/") {
		return a + b
	}
	return a + "/" + b
}

// pathJoin implements Path / other.
func pathJoin(p, other *sym) *sym {
	l := pathStrSym(p)
	r := pathStrSym(other)
	if l.isStr() && r.isStr() {
		return pathSym(strSym(joinPath(l.s, r.s)).taint(l, r))
	}
	if r.isStr() && strings.HasPrefix(r.s, "/") {
		// Path(x) / "/etc/shadow" is "/etc/shadow"
		return pathSym(strSym(r.s).taint(l, r))
	}
	n := &sym{kind: "expr"}
	if l.isStr() {
		n.prefix = strings.TrimSuffix(l.s, "/") + "/"
	} else {
		n.prefix = l.prefix
	}
	// suffix: the text after the last dynamic part
	if r.isStr() {
		n.suffix = strings.TrimSuffix(l.suffix, "/") + "/" + r.s
	} else {
		n.suffix = r.suffix
	}
	return pathSym(n.taint(l, r))
}

func hasGlobMeta(s string) bool { return strings.ContainsAny(s, "*?[") }

// fileAccess records one path use.
func (a *analyzer) fileAccess(c *callCtx, v *sym, op string, by string) *sdk.FileAccess {
	if v == nil {
		return nil
	}
	ps := pathStrSym(v)
	fa := sdk.FileAccess{Op: op, By: by, Evidence: c.ev, Pos: a.pos(c.line, c.col)}
	if root := ps.walkRoot; root != nil && (op == "delete" || op == "chmod" || op == "chown") {
		rp := pathStrSym(root)
		if s, ok := rp.strVal(); ok {
			fa.Path = normPath(s)
		} else {
			fa.Path = rp.src
			fa.Dynamic = true
		}
		fa.Glob = root.glob
		fa.Recursive = !root.glob
		a.f.Files = append(a.f.Files, fa)
		return &a.f.Files[len(a.f.Files)-1]
	}
	if s, ok := ps.strVal(); ok && (ps.kind == "str" || ps.kind == "bytes") {
		fa.Path = normPath(a.underCwd(s))
		fa.Glob = ps.glob && hasGlobMeta(s)
	} else if ps.kind == "int" {
		return nil // a file descriptor
	} else if r, ok := procAliasPath(ps); ok {
		fa.Path = normPath(r)
	} else {
		fa.Dynamic = true
		if ps.prefix != "" {
			fa.Path = normPrefix(ps.prefix)
		} else {
			fa.Path = ps.src
		}
	}
	a.f.Files = append(a.f.Files, fa)
	return &a.f.Files[len(a.f.Files)-1]
}

// procAliasPath returns the path a dynamic path through a process's root or
// working directory reaches (f"/proc/{os.getpid()}/root/etc/shadow",
// "/proc/%d/cwd/.env" % pid): whichever process the dynamic part names, its
// root is this tree's root (sdk.ResolveProcAliases), so the known suffix is
// the path. ok is false for any other dynamic path.
func procAliasPath(ps *sym) (string, bool) {
	if !strings.HasSuffix(ps.prefix, "/proc/") && !strings.HasSuffix(ps.prefix, "/task/") {
		return "", false
	}
	if !strings.HasPrefix(ps.suffix, "/") {
		return "", false
	}
	cand := ps.prefix + "$PYDYN" + ps.suffix
	r := sdk.ResolveProcAliases(cand)
	return r, r != cand
}

// ---- outputs and env ----

func (a *analyzer) envRead(k *sym, line, col int) *sym {
	name, ok := k.strVal()
	if !ok {
		if k.envKey {
			// os.environ[k] for k in os.environ: every value in turn.
			return &sym{kind: "expr", env: []string{"*"}}
		}
		// A name the analysis cannot know: one unknown variable.
		return &sym{kind: "expr", env: []string{"?"}}
	}
	a.f.EnvReads = append(a.f.EnvReads, sdk.EnvRead{Name: name, Pos: a.pos(line, col)})
	if name == "HOME" {
		return &sym{kind: "str", cnst: true, s: "~", env: []string{name}, src: "~"}
	}
	return &sym{kind: "expr", env: []string{name}, src: "os.environ['" + name + "']"}
}

func (a *analyzer) output(c *callCtx, sink string, vals ...*sym) {
	var vars []string
	for _, v := range vals {
		if v == nil {
			continue
		}
		v = a.asText(v, "__str__", c)
		vars = mergeNames(vars, v.env)
		if v.qual == "os.environ" {
			vars = mergeNames(vars, []string{"*"})
		}
		if v.kind == "list" || v.kind == "tuple" || v.kind == "dict" {
			for _, it := range v.items {
				if it != nil {
					vars = mergeNames(vars, it.env)
				}
			}
		}
	}
	if len(vars) == 0 {
		return
	}
	sort.Strings(vars)
	a.f.Outputs = append(a.f.Outputs, sdk.Output{Sink: sink, Vars: vars, Evidence: c.ev, Pos: a.pos(c.line, c.col)})
}

func (a *analyzer) allArgs(c *callCtx) []*sym {
	out := append([]*sym(nil), c.args...)
	for _, k := range c.kwList {
		out = append(out, c.kws[k])
	}
	return out
}

// ---- network ----

type urlParts struct {
	scheme, host string
	port         int
	complete     bool
}

// parseURL splits scheme://[user@]host[:port]/... without normalizing the
// host beyond ASCII lower-casing (a homoglyph host must stay as written).
func parseURL(u string) urlParts {
	var p urlParts
	rest := u
	if i := strings.Index(rest, "://"); i > 0 {
		p.scheme = strings.ToLower(rest[:i])
		rest = rest[i+3:]
	} else if strings.HasPrefix(rest, "//") {
		rest = rest[2:]
	} else {
		return p
	}
	end := strings.IndexAny(rest, "/?#")
	hostport := rest
	if end >= 0 {
		hostport = rest[:end]
		p.complete = true
	}
	hostport = hostport[sdk.UserinfoEnd(hostport):]
	host := hostport
	if strings.HasPrefix(hostport, "[") {
		if j := strings.IndexByte(hostport, ']'); j > 0 {
			host = hostport[1:j]
			if strings.HasPrefix(hostport[j+1:], ":") {
				p.port, _ = strconv.Atoi(hostport[j+2:])
			}
		}
	} else if j := strings.LastIndexByte(hostport, ':'); j >= 0 {
		host = hostport[:j]
		p.port, _ = strconv.Atoi(hostport[j+1:])
	}
	p.host = asciiLower(host)
	if p.port == 0 {
		switch p.scheme {
		case "http", "ws":
			p.port = 80
		case "https", "wss":
			p.port = 443
		case "ftp":
			p.port = 21
		}
	}
	return p
}

func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 32
		}
	}
	return string(b)
}

// netURL records a request to a URL value.
func (a *analyzer) netURL(c *callCtx, via string, u *sym, upload bool) int {
	n := sdk.NetworkUse{Via: via, Upload: upload, Evidence: c.ev, Pos: a.pos(c.line, c.col)}
	if u != nil && u.inst == "urllib.request.Request" && u.path != nil {
		n.Upload = n.Upload || u.upload
		u = u.path
	}
	switch {
	case u == nil:
		n.Dynamic = true
	case u.isStr():
		n.URL = u.s
		p := parseURL(u.s)
		n.Scheme, n.Host, n.Port = p.scheme, p.host, p.port
		if n.Host == "" {
			n.Dynamic = true
		}
	case u.prefix != "" && strings.Contains(u.prefix, "://"):
		p := parseURL(u.prefix)
		n.URL = u.prefix
		n.Scheme = p.scheme
		if p.complete {
			n.Host, n.Port = p.host, p.port
		} else {
			n.Dynamic = true
		}
	default:
		n.Dynamic = true
		n.URL = u.src
	}
	// file contents anywhere in the request (body, files, params,
	// headers) are sent out
	for _, k := range c.kwList {
		if from := fileSource(c.kws[k]); from != "" {
			n.Upload, n.UploadFrom = true, from
		}
	}
	for i, v := range c.args {
		if from := fileSource(v); i > 0 && from != "" {
			n.Upload, n.UploadFrom = true, from
		}
	}
	a.f.Network = append(a.f.Network, n)
	return len(a.f.Network) - 1
}

// fileSource returns the path whose contents v carries: a read file, an
// open file object, or a container holding one.
func fileSource(v *sym) string {
	if v == nil {
		return ""
	}
	if v.fromFile != "" {
		return v.fromFile
	}
	if v.inst == "file" && v.path != nil {
		if s, ok := v.path.strVal(); ok {
			return normPath(s)
		}
	}
	for _, it := range v.items {
		if f := fileSource(it); f != "" {
			return f
		}
	}
	return ""
}

// netHost records a connection to a host and port.
func (a *analyzer) netHost(c *callCtx, via, scheme string, h, port *sym) int {
	n := sdk.NetworkUse{Via: via, Scheme: scheme, Evidence: c.ev, Pos: a.pos(c.line, c.col)}
	if h != nil && h.isStr() {
		host := h.s
		if i := strings.LastIndexByte(host, ':'); i > 0 && !strings.Contains(host[:i], ":") {
			n.Port, _ = strconv.Atoi(host[i+1:])
			host = host[:i]
		}
		n.Host = asciiLower(host)
	} else {
		n.Dynamic = true
		if h != nil {
			if h.suffix != "" {
				n.Host = asciiLower(strings.TrimLeft(h.suffix, "."))
				n.DataInHost = true
			}
		}
	}
	if port != nil && port.cnst && port.kind == "int" {
		n.Port = int(port.num)
	} else if port != nil && port.isStr() {
		n.Port, _ = strconv.Atoi(port.s)
	}
	a.f.Network = append(a.f.Network, n)
	return len(a.f.Network) - 1
}

func hostPort(addr *sym) (*sym, *sym) {
	if addr != nil && (addr.kind == "tuple" || addr.kind == "list") && len(addr.items) >= 2 {
		return addr.items[0], addr.items[1]
	}
	if addr != nil && (addr.kind == "tuple" || addr.kind == "list") && len(addr.items) == 1 {
		return addr.items[0], nil
	}
	return addr, nil
}

// callWith analyzes a call of fn made on the program's behalf by another
// API (map, attrgetter results), placed at the carrying call.
func (a *analyzer) callWith(fn *sym, args []*sym, at *callCtx) *sym {
	if fn.qual == "" {
		if fn.localFn != "" || len(fn.alts) > 0 || strings.HasPrefix(fn.inst, "obj:") || fn.inst == "operator.methodcaller" {
			return a.invoke(fn, args, at)
		}
		return nil
	}
	cp := *fn
	cp.indirect = true
	fn = &cp
	c := &callCtx{e: at.e, sc: at.sc, fn: fn, name: canon(fn.qual), args: args, argEx: make([]*expr, len(args)), line: at.line, col: at.col, ev: at.ev}
	return a.finishCall(c)
}

// invoke analyzes a call of fn with args made on the program's behalf by
// another API (map, filter, executors, threads, methodcaller),
// placed at the carrying call: a local function is followed into, an API
// judged, alternatives expanded.
func (a *analyzer) invoke(fn *sym, args []*sym, at *callCtx) *sym {
	if fn == nil {
		return nil
	}
	a.steps++
	c := &callCtx{e: at.e, sc: at.sc, fn: fn, args: args, argEx: make([]*expr, len(args)), line: at.line, col: at.col, ev: at.ev}
	if len(fn.boundArgs) > 0 && fn.inst != "operator.methodcaller" {
		c.args = append(append([]*sym(nil), fn.boundArgs...), c.args...)
		c.argEx = append(make([]*expr, len(fn.boundArgs)), c.argEx...)
	}
	if c.e == nil {
		c.e = &expr{kind: eCall, line: at.line, col: at.col}
	}
	return a.callAlts(c)
}

// findMethod returns the function defined for name in class cls or, as
// Python's attribute lookup does, in its base classes defined here
// (breadth first, bounded).
func (a *analyzer) findMethod(cls, name string) *funcInfo {
	seen := map[string]bool{}
	queue := []string{cls}
	for len(queue) > 0 && len(seen) < 16 {
		k := queue[0]
		queue = queue[1:]
		if seen[k] {
			continue
		}
		seen[k] = true
		if fi := a.funcs[k+"."+name]; fi != nil {
			return fi
		}
		queue = append(queue, a.bases[k]...)
	}
	return nil
}

// classAttr returns the attribute name of class cls or of a base class
// defined here.
func (a *analyzer) classAttr(cls, name string) *sym {
	seen := map[string]bool{}
	queue := []string{cls}
	for len(queue) > 0 && len(seen) < 16 {
		k := queue[0]
		queue = queue[1:]
		if seen[k] {
			continue
		}
		seen[k] = true
		if v := a.classes[k][name]; v != nil {
			return v
		}
		queue = append(queue, a.bases[k]...)
	}
	return nil
}

// isCallable reports a value the analysis can follow when it is called: an
// API by name, a local function or lambda, an instance of a local class,
// a methodcaller, or alternatives of those.
func isCallable(v *sym) bool {
	if v == nil {
		return false
	}
	if len(v.alts) > 0 {
		for _, x := range v.alts {
			if isCallable(x) {
				return true
			}
		}
		return false
	}
	return v.qual != "" || v.localFn != "" || strings.HasPrefix(v.inst, "obj:") || v.inst == "operator.methodcaller"
}

// mapCall analyzes map(f, items): f called on each item (the items of a
// sequence, else one element standing for them all). It returns the
// results as a list.
func (a *analyzer) mapCall(f, items *sym, at *callCtx) *sym {
	var els []*sym
	if (items.kind == "list" || items.kind == "tuple") && len(items.items) > 0 && len(items.items) <= maxUnroll && !hasNil(items.items) {
		els = items.items
	} else {
		els = []*sym{elemOf(items)}
	}
	r := &sym{kind: "list"}
	for _, it := range els {
		res := a.invoke(f, []*sym{it}, at)
		if res == nil {
			res = (&sym{kind: "call"}).taint(it)
		}
		r.items = append(r.items, res)
		r.taint(res)
	}
	return r
}

// dictMethod applies the methods of a mapping built in the content: get,
// pop, setdefault, update, copy, values, items, keys. It reports whether
// m is one of them.
func (a *analyzer) dictMethod(d *sym, m string, c *callCtx) (*sym, bool) {
	arg0 := c.arg(0, "")
	switch m {
	case "get", "pop":
		if arg0 == nil {
			return nil, false
		}
		if arg0.cnst && !dictHasNoKey(d, arg0) {
			return index(d, arg0), true
		}
		if def := c.arg(1, "default"); def != nil {
			return altsOf(def, (&sym{kind: "expr"}).taint(d)), true
		}
		return nil, false
	case "setdefault":
		if arg0 == nil || !arg0.cnst {
			return nil, false
		}
		if !dictHasNoKey(d, arg0) {
			return index(d, arg0), true
		}
		v := c.arg(1, "")
		if v == nil {
			v = &sym{kind: "none", cnst: true}
		}
		if len(d.keys) < maxItems {
			d.keys = append(d.keys, arg0)
			d.items = append(d.items, v)
			d.taint(v)
		}
		return v, true
	case "update":
		if arg0 != nil && arg0.kind == "dict" && len(d.keys)+len(arg0.keys) <= maxItems {
			d.keys = append(d.keys, arg0.keys...)
			d.items = append(d.items, arg0.items...)
			d.taint(arg0)
		}
		for _, k := range c.kwList {
			if len(d.keys) < maxItems {
				d.keys = append(d.keys, strSym(k))
				d.items = append(d.items, c.kws[k])
				d.taint(c.kws[k])
			}
		}
		return &sym{kind: "none", cnst: true}, true
	case "copy":
		cp := *d
		cp.keys = append([]*sym(nil), d.keys...)
		cp.items = append([]*sym(nil), d.items...)
		return &cp, true
	case "values":
		return (&sym{kind: "list", items: append([]*sym(nil), d.items...)}).taint(d), true
	case "keys":
		r := &sym{kind: "list"}
		for _, k := range d.keys {
			if k == nil {
				return nil, false
			}
			r.items = append(r.items, k)
		}
		return r, true
	case "items":
		r := &sym{kind: "list"}
		for i, k := range d.keys {
			if k == nil {
				return nil, false
			}
			r.items = append(r.items, (&sym{kind: "tuple", items: []*sym{k, d.items[i]}}).taint(d.items[i]))
		}
		return r.taint(d), true
	}
	return nil, false
}

// dictHasNoKey reports that mapping d, whose keys are all known, has no
// key k.
func dictHasNoKey(d, k *sym) bool {
	for _, key := range d.keys {
		if key == nil || !key.cnst {
			return false
		}
		if key.s == k.s {
			return false
		}
	}
	return true
}
