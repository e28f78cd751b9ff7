package python

import (
	"strconv"
	"strings"

	"github.com/toolwarden/toolwarden/sdk"
)

// The builtins topic: the interpreter's own functions that fold constants
// (str, bytes, chr, range, …) or resolve names indirectly (getattr,
// __import__, globals, vars, sys.modules), so what they reach is judged.

func init() {
	registerAPI("builtins", apiGetattr, "getattr")
	registerAPI("builtins", apiImport, "__import__", "importlib.import_module", "importlib.__import__")
	registerAPI("builtins", apiOperatorAttrgetter, "operator.attrgetter", "operator.methodcaller")
	registerAPI("builtins", apiSysModulesGet, "sys.modules.get", "sys.modules.__getitem__")
	registerAPI("builtins", apiGlobals, "globals", "locals")
	registerAPI("builtins", apiVars, "vars")
	registerAPI("builtins", apiChr, "chr")
	registerAPI("builtins", apiOrd, "ord")
	registerAPI("builtins", apiStr, "str")
	registerAPI("builtins", apiRepr, "repr", "ascii", "format")
	registerAPI("builtins", apiBytes, "bytes", "bytearray")
	registerAPI("builtins", apiReversed, "reversed")
	registerAPI("builtins", apiMap, "map")
	registerAPI("builtins", apiList, "list", "tuple")
	registerAPI("builtins", apiRange, "range")
	registerAPI("builtins", apiEnumerate, "enumerate")
	registerAPI("builtins", apiSorted, "sorted", "iter")
	registerAPI("builtins", apiInt, "int")
	registerAPI("builtins", apiItertoolsCount, "itertools.count", "itertools.cycle")
	registerAPI("builtins", apiFloat, "float")
	registerAPI("builtins", apiFunctoolsPartial, "functools.partial", "functools.partialmethod")
	registerAPI("builtins", apiThreadingEvent, "threading.Event")
	registerAPI("builtins", apiStrMaketrans, "str.maketrans", "bytes.maketrans")
	registerAPI("builtins", apiShlexSplit, "shlex.split")
	registerAPI("builtins", apiShlexJoin, "shlex.join")
	registerAPI("builtins", apiShlexQuote, "shlex.quote", "pipes.quote")
	registerAPI("builtins", apiUrllibParseUrljoin, "urllib.parse.urljoin")
	registerAPI("builtins", apiInput, "input")
	registerAPI("builtins", apiFilter, "filter", "itertools.filterfalse")
	registerAPI("builtins", apiThread, "threading.Thread", "multiprocessing.Process", "threading.Timer")
	registerAPI("builtins", apiDict, "dict", "collections.OrderedDict", "collections.ChainMap")
	registerAPI("builtins", apiSuper, "super")
	registerAPI("builtins", apiSetattr, "setattr")
	registerAPI("builtins", apiNext, "next")
	registerAPI("builtins", apiZip, "zip")
	registerAPI("builtins", apiDefaultdict, "collections.defaultdict")
}

// apiSetattr: setattr(module, 'name', v) binds module.name to v, as the
// assignment module.name = v does.
func apiSetattr(a *analyzer, c *callCtx) *sym {
	if len(c.args) == 3 && c.args[0].qual != "" {
		if n, ok := c.args[1].strVal(); ok && c.args[1].kind == "str" {
			a.modAttrs[c.args[0].qual+"."+n] = c.args[2]
		}
	}
	return &sym{kind: "none", cnst: true}
}

// apiNext: next(it) is one of the elements of it.
func apiNext(a *analyzer, c *callCtx) *sym {
	arg0 := c.arg(0, "")
	if arg0 == nil {
		return nil
	}
	return elemOf(arg0)
}

// apiZip: zip of sequences of known length is the list of their tuples.
func apiZip(a *analyzer, c *callCtx) *sym {
	if len(c.args) == 0 {
		return nil
	}
	n := -1
	for _, v := range c.args {
		if (v.kind != "list" && v.kind != "tuple") || hasNil(v.items) {
			return nil
		}
		if n < 0 || len(v.items) < n {
			n = len(v.items)
		}
	}
	if n > maxCompItems {
		return nil
	}
	r := &sym{kind: "list"}
	for i := 0; i < n; i++ {
		t := &sym{kind: "tuple"}
		for _, v := range c.args {
			t.items = append(t.items, v.items[i])
			t.taint(v.items[i])
		}
		r.items = append(r.items, t)
		r.taint(t)
	}
	return r
}

// apiDefaultdict: an empty mapping whose keys are set by assignment.
func apiDefaultdict(a *analyzer, c *callCtx) *sym {
	return &sym{kind: "dict"}
}

// apiFilter: filter(f, items) calls f on each item and yields some of the
// items, so iterating the result sees what iterating items would.
func apiFilter(a *analyzer, c *callCtx) *sym {
	if len(c.args) != 2 {
		return nil
	}
	if isCallable(c.args[0]) {
		a.mapCall(c.args[0], c.args[1], c)
	}
	it := c.args[1]
	if it.kind == "list" || it.kind == "tuple" {
		r := *it
		r.kind, r.cnst = "list", false
		return &r
	}
	return (&sym{kind: "call", el: elemOf(it)}).taint(it)
}

// apiThread: Thread(target=f, args=(…)) and Process(…) run f with args;
// Timer(interval, f, args) too. The thread object is returned.
func apiThread(a *analyzer, c *callCtx) *sym {
	target := c.arg(-1, "target")
	argsV := c.arg(-1, "args")
	if c.name == "threading.Timer" {
		target, argsV = c.arg(1, "function"), c.arg(2, "args")
	}
	if target != nil && isCallable(target) {
		var args []*sym
		if argsV != nil && (argsV.kind == "tuple" || argsV.kind == "list") {
			args = argsV.items
		}
		a.invoke(target, args, c)
	}
	return &sym{kind: "expr", inst: c.name}
}

// apiDict: dict(mapping, **kw), dict(pairs), dict(**kw) build a mapping
// whose keys and values are known when the arguments' are.
func apiDict(a *analyzer, c *callCtx) *sym {
	if arg0 := c.arg(0, ""); arg0 != nil && arg0.qual == "os.environ" {
		return &sym{kind: "expr", env: []string{"*"}} // dict(os.environ): a copy of it all
	}
	r := &sym{kind: "dict"}
	for _, v := range c.args {
		switch {
		case v.kind == "dict" && v.qual == "":
			r.keys = append(r.keys, v.keys...)
			r.items = append(r.items, v.items...)
		case (v.kind == "list" || v.kind == "tuple") && len(v.items) <= maxItems:
			for _, p := range v.items {
				if p == nil || (p.kind != "tuple" && p.kind != "list") || len(p.items) != 2 {
					return nil
				}
				r.keys = append(r.keys, p.items[0])
				r.items = append(r.items, p.items[1])
			}
		default:
			return nil
		}
		r.taint(v)
	}
	for _, k := range c.kwList {
		r.keys = append(r.keys, strSym(k))
		r.items = append(r.items, c.kws[k])
		r.taint(c.kws[k])
	}
	if len(r.keys) > maxItems {
		return nil
	}
	return r
}

// apiSuper: super() inside a method of a class defined here names the
// first base class defined here, so super().__init__(…) runs its method.
func apiSuper(a *analyzer, c *callCtx) *sym {
	for i := len(a.fnStack) - 1; i >= 0; i-- {
		k := a.fnStack[i]
		j := strings.LastIndexByte(k, '.')
		if j <= 0 {
			continue
		}
		if bs := a.bases[k[:j]]; len(bs) > 0 {
			return &sym{kind: "expr", inst: "obj:" + bs[0]}
		}
		return nil
	}
	return nil
}

func apiGetattr(a *analyzer, c *callCtx) *sym {
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
}

func apiImport(a *analyzer, c *callCtx) *sym {
	return a.doImport(c)
}

func apiOperatorAttrgetter(a *analyzer, c *callCtx) *sym {
	n := c.name
	arg0 := c.arg(0, "")
	if arg0 != nil && arg0.isStr() && n == "operator.attrgetter" {
		return &sym{kind: "expr", inst: "operator.attrgetter", path: arg0}
	}
	if arg0 != nil && arg0.isStr() && n == "operator.methodcaller" {
		// methodcaller(name, *args)(obj) calls obj.name(*args)
		return &sym{kind: "expr", inst: "operator.methodcaller", path: arg0, boundArgs: append([]*sym(nil), c.args[1:]...)}
	}
	return nil
}

// dictGetCall handles module.__dict__.get('name') and
// vars(module).get('name'): the module's attribute, reached indirectly.
func dictGetCall(a *analyzer, c *callCtx) (*sym, bool) {
	mod, ok := strings.CutSuffix(c.name, ".__dict__.get")
	if !ok {
		mod, ok = strings.CutSuffix(c.name, ".__dict__.__getitem__")
	}
	if !ok || mod == "" {
		return nil, false
	}
	key, kok := c.arg(0, "").strVal()
	if !kok {
		return nil, true
	}
	return a.attr(&sym{qual: mod, indirect: true}, key), true
}

func apiSysModulesGet(a *analyzer, c *callCtx) *sym {
	arg0 := c.arg(0, "")
	if s, ok := arg0.strVal(); ok && arg0 != nil && arg0.kind == "str" {
		return &sym{qual: canon(s), indirect: true, src: s}
	}
	return nil
}

func apiGlobals(a *analyzer, c *callCtx) *sym {
	return &sym{qual: "<globals>"}
}

func apiVars(a *analyzer, c *callCtx) *sym {
	arg0 := c.arg(0, "")
	if arg0 == nil {
		return &sym{qual: "<globals>"}
	}
	if arg0.qual != "" {
		return &sym{qual: arg0.qual + ".__dict__", indirect: true}
	}
	return nil
}

func apiChr(a *analyzer, c *callCtx) *sym {
	arg0 := c.arg(0, "")
	if arg0 != nil && arg0.cnst && arg0.kind == "int" && arg0.num >= 0 && arg0.num < 0x110000 {
		r := strSym(string(rune(int(arg0.num))))
		r.chr = true
		r.taint(arg0)
		return r.decoded("chr")
	}
	return nil
}

func apiOrd(a *analyzer, c *callCtx) *sym {
	arg0 := c.arg(0, "")
	if arg0 != nil && arg0.cnst && arg0.kind == "str" {
		if rs := []rune(arg0.s); len(rs) == 1 {
			return intSym(int64(rs[0])).taint(arg0)
		}
	}
	if arg0 != nil && arg0.cnst && arg0.kind == "bytes" && len(arg0.s) == 1 {
		return intSym(int64(arg0.s[0])).taint(arg0)
	}
	return nil
}

func apiStr(a *analyzer, c *callCtx) *sym {
	arg0 := c.arg(0, "")
	if arg0 == nil {
		return strSym("")
	}
	if t := a.asText(arg0, "__str__", c); t != arg0 {
		return (&sym{kind: "str"}).taint(t).fromText(t)
	}
	if arg0.isStr() || arg0.isNum() {
		return (&sym{kind: "str", cnst: true, s: arg0.s}).taint(arg0)
	}
	if arg0.inst == "pathlib.Path" && arg0.path != nil {
		return arg0.path
	}
	return nil
}

// apiRepr: repr(obj), ascii(obj) and format(obj, spec) of an object of a
// class defined here run its __repr__ (format: __format__, then __str__).
func apiRepr(a *analyzer, c *callCtx) *sym {
	arg0 := c.arg(0, "")
	if arg0 == nil {
		return nil
	}
	dunder := "__repr__"
	if c.name == "format" {
		dunder = "__format__"
	}
	if t := a.asText(arg0, dunder, c); t != arg0 {
		return (&sym{kind: "str"}).taint(t).fromText(t)
	}
	return nil
}

func apiBytes(a *analyzer, c *callCtx) *sym {
	arg0 := c.arg(0, "")
	if arg0 != nil && arg0.isStr() {
		return (&sym{kind: "bytes", cnst: true, s: arg0.s}).taint(arg0)
	}
	if arg0 != nil && arg0.isSeq() {
		if s, ok := intsToBytes(arg0.items); ok {
			return (&sym{kind: "bytes", cnst: true, s: s}).taint(arg0).decoded("bytes")
		}
	}
	return nil
}

func apiReversed(a *analyzer, c *callCtx) *sym {
	arg0 := c.arg(0, "")
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
}

func apiMap(a *analyzer, c *callCtx) *sym {
	if len(c.args) == 2 && c.args[0].qual != "" && c.args[0].qual != "chr" && c.args[1].isSeq() && len(c.args[1].items) <= maxUnroll {
		// map(os.system, [...]) calls the function on each element
		for _, it := range c.args[1].items {
			a.callWith(c.args[0], []*sym{it}, c)
		}
		return nil
	}
	if len(c.args) == 2 && c.args[0].qual != "chr" && isCallable(c.args[0]) {
		// map(lambda c: os.system(c), cmds), map(run, cmds)
		return a.mapCall(c.args[0], c.args[1], c)
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
}

func apiList(a *analyzer, c *callCtx) *sym {
	n := c.name
	arg0 := c.arg(0, "")
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
	if environKeys(arg0) {
		// sorted(os.environ): the names only (see elemOf)
		return &sym{kind: "expr", src: "os.environ.keys()"}
	}
	return nil
}

func apiRange(a *analyzer, c *callCtx) *sym {
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
}

func apiEnumerate(a *analyzer, c *callCtx) *sym {
	arg0 := c.arg(0, "")
	if arg0 != nil && arg0.isSeq() {
		r := &sym{kind: "list", cnst: true}
		for i, it := range arg0.items {
			r.items = append(r.items, &sym{kind: "tuple", cnst: it.cnst, items: []*sym{intSym(int64(i)), it}})
		}
		return r.taint(arg0)
	}
	return nil
}

func apiSorted(a *analyzer, c *callCtx) *sym {
	n := c.name
	arg0 := c.arg(0, "")
	if n == "iter" && len(c.args) == 2 {
		return &sym{kind: "expr", inst: "iter_sentinel"}
	}
	if arg0 != nil && arg0.el != nil {
		return &sym{kind: "expr", el: arg0.el}
	}
	if arg0 != nil && arg0.qual == "" && (arg0.kind == "list" || arg0.kind == "tuple") && len(arg0.items) > 0 {
		// iter(items), sorted(items): the same elements, in an order
		// not folded
		r := *arg0
		r.kind, r.cnst = "list", false
		return &r
	}
	return nil
}

func apiInt(a *analyzer, c *callCtx) *sym {
	arg0 := c.arg(0, "")
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
}

func apiItertoolsCount(a *analyzer, c *callCtx) *sym {
	n := c.name
	return &sym{kind: "expr", inst: n}
}

func apiFloat(a *analyzer, c *callCtx) *sym {
	arg0 := c.arg(0, "")
	if s, ok := arg0.strVal(); ok && arg0 != nil {
		if f, err := strconv.ParseFloat(strings.TrimSpace(s), 64); err == nil {
			return &sym{kind: "float", cnst: true, s: s, num: f}
		}
	}
	return nil
}

func apiFunctoolsPartial(a *analyzer, c *callCtx) *sym {
	arg0 := c.arg(0, "")
	// partial(f, …) calls f: the result is f under another name, so a
	// wrapper does not hide what runs. Bound keywords (shell=True)
	// are passed at each call; bound positional arguments are not
	// tracked.
	if arg0 != nil && (arg0.qual != "" || arg0.localFn != "") {
		cp := *arg0
		cp.indirect = true
		if len(c.args) > 1 {
			// bound positional arguments come before the call's own
			cp.boundArgs = append(append([]*sym(nil), arg0.boundArgs...), c.args[1:]...)
		}
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
}

func apiThreadingEvent(a *analyzer, c *callCtx) *sym {
	n := c.name
	return &sym{kind: "expr", inst: n}
}

func apiStrMaketrans(a *analyzer, c *callCtx) *sym {
	return makeTrans(c.args)
}

func apiShlexSplit(a *analyzer, c *callCtx) *sym {
	arg0 := c.arg(0, "")
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
}

func apiShlexJoin(a *analyzer, c *callCtx) *sym {
	arg0 := c.arg(0, "")
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
}

func apiShlexQuote(a *analyzer, c *callCtx) *sym {
	arg0 := c.arg(0, "")
	if arg0 != nil && arg0.isStr() {
		return strSym(quoteWord(arg0.s)).taint(arg0)
	}
	return nil
}

func apiUrllibParseUrljoin(a *analyzer, c *callCtx) *sym {
	if len(c.args) == 2 && c.args[0].isStr() && c.args[1].isStr() {
		return strSym(urlJoin(c.args[0].s, c.args[1].s)).taint(c.args...)
	}
	return nil
}

func apiInput(a *analyzer, c *callCtx) *sym {
	return &sym{kind: "expr", src: "input()"}
}

func init() {
	registerAPI("builtins", apiInMemoryFile, "io.BytesIO", "io.StringIO")
}

// apiInMemoryFile is a file over a value: reading it reads the value, with
// its provenance (a BytesIO of a download holds downloaded bytes).
func apiInMemoryFile(a *analyzer, c *callCtx) *sym {
	r := &sym{kind: "expr", inst: "file"}
	if v := c.arg(0, "initial_bytes"); v != nil {
		r.taint(v)
	}
	return r
}

// getattributeCall handles obj.__getattribute__(name) and
// object.__getattribute__(obj, name) on any object: the name lookup that
// getattr spells differently.
func getattributeCall(a *analyzer, c *callCtx) (*sym, bool) {
	n := c.name
	if !(strings.HasSuffix(n, ".__getattribute__") || strings.HasSuffix(n, ".__getattr__") || n == "object.__getattribute__") {
		return nil, false
	}
	arg0 := c.arg(0, "")
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
			return &cp, true
		}
		return r, true
	}
	return nil, true
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
