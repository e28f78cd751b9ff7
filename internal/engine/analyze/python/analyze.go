package python

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/toolwarden/toolwarden/internal/engine/facts"
	"github.com/toolwarden/toolwarden/internal/engine/secrets"
	"github.com/toolwarden/toolwarden/sdk"
)

// Language is the name nested content in Python is registered under.
const Language = "python"

// maxSteps bounds the work of one analysis (expression evaluations), so
// loop unrolling and deep nesting cannot make a scan slow; past it the
// document is marked Truncated.
const maxSteps = 400000

// budgets maps a document being built to the nested-content budget of
// its top-level Python analysis, so nested analyses share it.
var budgets sync.Map

// maxContent caps DynamicExec.Content, as documented in sdk.
const maxContent = 4096

// Analyze parses src as Python and appends its facts to b, placing each
// through at. It never panics: content that does not tokenize or parse
// yields an sdk.ParseError (fail closed), and the statements before the
// error are still analyzed.
func Analyze(b *facts.Builder, src string, at facts.Frame) {
	defer func() {
		if r := recover(); r != nil {
			line, col := 1, 1
			b.Facts.ParseErrors = append(b.Facts.ParseErrors, sdk.ParseError{
				Message:  fmt.Sprintf("python analyzer failed: %v", r),
				Language: Language,
				Pos:      at.Pos(line, col),
			})
		}
	}()
	toks, err := tokenize(src)
	if err != nil {
		se, _ := err.(*syntaxError)
		line, col := 1, 1
		if se != nil {
			line, col = se.line, se.col
		}
		b.Facts.ParseErrors = append(b.Facts.ParseErrors, sdk.ParseError{
			Message: "tokenize: " + err.Error(), Language: Language, Pos: at.Pos(line, col),
		})
	}
	stmts, calls, perr := parseModule(toks, src)
	if err != nil {
		perr = nil // the tokenize error already covers the rest
	}
	a := newAnalyzer(b, src, at)
	if at.Depth == 0 {
		// one budget for all nested content of this document
		a.budget = new(int)
		budgets.Store(b.Facts, a.budget)
		defer budgets.Delete(b.Facts)
	} else if v, ok := budgets.Load(b.Facts); ok {
		a.budget = v.(*int)
	} else {
		a.budget = new(int)
	}
	if at.Depth == 0 && b.Facts.Calls == nil {
		// Each call expression is recorded about once.
		b.Facts.Calls = make([]sdk.Call, 0, calls+4)
	}
	a.hoistImports(stmts)
	a.hoistConstants(stmts)
	a.block(stmts, a.mod)
	a.finish()
	if at.Depth == 0 {
		sortBySource(b.Facts)
	}
	if perr != nil {
		b.Facts.ParseErrors = append(b.Facts.ParseErrors, sdk.ParseError{
			Message: "parse: " + perr.Error(), Language: Language, Pos: at.Pos(perr.line, perr.col),
		})
	}
}

// scope maps names to what they are bound to.
type scope struct {
	vars   map[string]*sym
	parent *scope
	stars  []string
	fn     string
	// class is set on a class body's scope: defs there are methods.
	class string
}

func newScope(parent *scope, fn string) *scope {
	return &scope{vars: make(map[string]*sym, 8), parent: parent, fn: fn}
}

func (s *scope) lookup(name string) (*sym, bool) {
	for sc := s; sc != nil; sc = sc.parent {
		if v, ok := sc.vars[name]; ok {
			return v, true
		}
	}
	return nil, false
}

func (s *scope) starImports() []string {
	var out []string
	for sc := s; sc != nil; sc = sc.parent {
		out = append(out, sc.stars...)
	}
	return out
}

type funcInfo struct {
	idx       int
	recursive bool
	called    bool
	def       *stmt
	scope     *scope
	defaults  []*sym
	key       string
	method    bool
	inlined   int
	// ret is the function's constant return value, when every return
	// statement returns the same constant.
	ret *sym
	// raises are the values the body's raise statements raise (bounded
	// by maxAlts): a call of the function in a try body raises them.
	raises []*sym
	// decorated is what a method's decorators defined here bound its name
	// to, when that is not the method itself.
	decorated *sym
}

// retFrame collects the return values of the function body being walked.
type retFrame struct {
	vals []*sym
	// yields are the values of the body's yield expressions: the body is
	// a generator's.
	yields []*sym
}

// analyzer walks one piece of content.
type analyzer struct {
	b        *facts.Builder
	f        *sdk.Facts
	at       facts.Frame
	src      string
	mod      *scope
	modAttrs map[string]*sym
	// classes holds the attributes assigned on each class defined in the
	// content (class body names and self.x assignments).
	classes map[string]map[string]*sym
	funcs   map[string]*funcInfo
	// bases lists the base classes (defined here) of each class.
	bases map[string][]string
	// altDepth counts the alternative expansions under way (callAlts).
	altDepth int
	fnStack  []string
	unroll   int
	inline   int
	depth    int
	// sites counts the Call facts recorded per call site.
	sites map[int64]int
	// budget counts content handed to nested analysis, shared by every
	// Python analysis of one document.
	budget   *int
	rets     []*retFrame
	steps    int
	dup2     []int
	procExec bool
	lines    []int
	// cwd is the directory os.chdir last moved to with a constant
	// argument: relative paths opened after it are under it.
	cwd string
	// dlFiles are the files written with downloaded content: opening one
	// again reads a download (saved, then loaded or run).
	dlFiles map[string]bool
	// keyLines are the lines where a folded string already yielded a
	// private-key Secret.
	keyLines map[int]bool
	// raised collects, per try body (and per function body) being walked,
	// the values its raise statements raise: the handlers' `as` names
	// are bound to them.
	raised []*[]*sym
	// excClasses are the classes defined here that derive from an
	// exception class.
	excClasses map[string]bool
}

func newAnalyzer(b *facts.Builder, src string, at facts.Frame) *analyzer {
	a := &analyzer{b: b, f: b.Facts, at: at, src: src, mod: newScope(nil, ""), modAttrs: map[string]*sym{}, funcs: map[string]*funcInfo{}, classes: map[string]map[string]*sym{}, budget: new(int), sites: map[int64]int{}}
	if at.Argv != nil {
		// python -c CODE ARGS: sys.argv is ['-c', ARGS...]
		argv := &sym{kind: "list", cnst: true, items: []*sym{strSym("-c")}}
		for _, s := range at.Argv {
			argv.items = append(argv.items, strSym(s))
		}
		a.modAttrs["sys.argv"] = argv
	}
	a.lines = make([]int, 1, strings.Count(src, "\n")+1)
	for i := 0; ; {
		k := strings.IndexByte(src[i:], '\n')
		if k < 0 {
			break
		}
		i += k + 1
		a.lines = append(a.lines, i)
	}
	return a
}

func (a *analyzer) finish() {
	for _, fi := range a.funcs {
		fn := &a.f.Functions[fi.idx]
		fn.Recursive = fn.Recursive || fi.recursive
		fn.CalledAtTop = fn.CalledAtTop || fi.called
	}
	if a.procExec {
		for _, i := range a.dup2 {
			if i >= 0 && i < len(a.f.Network) {
				a.f.Network[i].ExecShell = true
			}
		}
	}
}

func (a *analyzer) pos(line, col int) sdk.Pos { return a.at.Pos(line, col) }

// sortBySource restores source order, which walking function bodies again
// at their call sites disturbs. The sort is stable, so facts of one
// construct (the commands of one nested pipeline) keep their order.
func sortBySource(f *sdk.Facts) {
	less := func(p, q sdk.Pos) bool {
		if p.Line != q.Line {
			return p.Line < q.Line
		}
		return p.Col < q.Col
	}
	sort.SliceStable(f.Commands, func(i, j int) bool { return less(f.Commands[i].Pos, f.Commands[j].Pos) })
	sort.SliceStable(f.Files, func(i, j int) bool { return less(f.Files[i].Pos, f.Files[j].Pos) })
	sort.SliceStable(f.Network, func(i, j int) bool { return less(f.Network[i].Pos, f.Network[j].Pos) })
	sort.SliceStable(f.DynamicExec, func(i, j int) bool { return less(f.DynamicExec[i].Pos, f.DynamicExec[j].Pos) })
	sort.SliceStable(f.Calls, func(i, j int) bool { return less(f.Calls[i].Pos, f.Calls[j].Pos) })
	sort.SliceStable(f.Loops, func(i, j int) bool { return less(f.Loops[i].Pos, f.Loops[j].Pos) })
	sort.SliceStable(f.Sleeps, func(i, j int) bool { return less(f.Sleeps[i].Pos, f.Sleeps[j].Pos) })
	sort.SliceStable(f.Assignments, func(i, j int) bool { return less(f.Assignments[i].Pos, f.Assignments[j].Pos) })
	sort.SliceStable(f.EnvReads, func(i, j int) bool { return less(f.EnvReads[i].Pos, f.EnvReads[j].Pos) })
	sort.SliceStable(f.Outputs, func(i, j int) bool { return less(f.Outputs[i].Pos, f.Outputs[j].Pos) })
	sort.SliceStable(f.ShellFeatures, func(i, j int) bool { return less(f.ShellFeatures[i].Pos, f.ShellFeatures[j].Pos) })
	sort.SliceStable(f.ParseErrors, func(i, j int) bool { return less(f.ParseErrors[i].Pos, f.ParseErrors[j].Pos) })
}

// evidence returns the trimmed source line containing off.
func (a *analyzer) evidence(line int) string {
	if line < 1 || line > len(a.lines) {
		return ""
	}
	start := a.lines[line-1]
	end := len(a.src)
	if line < len(a.lines) {
		end = a.lines[line] - 1
	}
	s := strings.TrimSpace(a.src[start:end])
	if len(s) > 200 {
		s = s[:200]
	}
	return s
}

func (a *analyzer) text(e *expr) string {
	if e == nil || e.end <= e.off || e.end > len(a.src) {
		return ""
	}
	s := a.src[e.off:e.end]
	if len(s) > 200 {
		s = s[:200]
	}
	return s
}

// ---- statements ----

// hoistConstants binds module-level names assigned a literal or an alias
// (`CMD = "rm -rf /"`, `run = os.system`) before the walk, so a function
// defined above the assignment, and walked where it is defined, still
// sees the value it will have when it runs.
func (a *analyzer) hoistConstants(stmts []*stmt) {
	for _, s := range stmts {
		if s.kind != sAssign || !isHoistable(s.value) {
			continue
		}
		for _, t := range s.targets {
			if t.kind == eName {
				a.assign(t, a.eval(s.value, a.mod), s.value, a.mod)
			}
		}
	}
}

// credentialWords are the name parts that make a Python variable assigned a
// string literal a named secret in the facts. It is a loose pre-filter: the
// rules judge the name with their own list, this only keeps names that
// cannot be secret-named (cmd, url) from carrying their own name.
var credentialWords = []string{"KEY", "TOKEN", "SECRET", "PASSW", "PWD", "CRED", "AUTH", "PRIVATE", "SESSION", "COOKIE"}

func credentialName(name string) bool {
	n := strings.ToUpper(name)
	for _, w := range credentialWords {
		if strings.Contains(n, w) {
			return true
		}
	}
	return false
}

// credentialValue reports a literal that can be a credential: not empty,
// one word (a message such as 'enter your password' is not a secret).
func credentialValue(s string) bool {
	return len(s) >= 4 && len(s) <= 4096 && !strings.ContainsAny(s, " \t\n")
}

func isHoistable(e *expr) bool {
	switch e.kind {
	case eName, eStr, eNum, eConst:
		return true
	case eAttr:
		return isHoistable(e.x)
	case eBin:
		return isLiteral(e)
	case eList, eTuple:
		return isLiteral(e)
	}
	return false
}

// hoistImports binds the module-level imports before the walk, so a
// function defined above an import still resolves the names it uses (its
// body runs later, when the import has happened).
func (a *analyzer) hoistImports(stmts []*stmt) {
	for _, s := range stmts {
		switch s.kind {
		case sImport, sFrom:
			a.stmt(s, a.mod)
		case sIf, sTry, sWith:
			a.hoistImports(s.body)
			a.hoistImports(s.orelse)
			a.hoistImports(s.final)
			for _, h := range s.handlers {
				a.hoistImports(h.body)
			}
		}
	}
}

func (a *analyzer) block(stmts []*stmt, sc *scope) {
	for _, s := range stmts {
		if a.steps > maxSteps {
			a.f.Truncated = true
			return
		}
		a.stmt(s, sc)
	}
}

func (a *analyzer) stmt(s *stmt, sc *scope) {
	switch s.kind {
	case sExpr:
		if s.value != nil {
			a.eval(s.value, sc)
		}
	case sRaise:
		if s.value != nil {
			a.raise(a.eval(s.value, sc))
		}
	case sReturn:
		var v *sym
		if s.value != nil {
			v = a.eval(s.value, sc)
		} else {
			v = &sym{kind: "none", cnst: true}
		}
		if n := len(a.rets); n > 0 {
			a.rets[n-1].vals = append(a.rets[n-1].vals, v)
		}
	case sAssign:
		v := a.eval(s.value, sc)
		for _, t := range s.targets {
			a.assign(t, v, s.value, sc)
		}
	case sAugAssign:
		v := a.eval(s.value, sc)
		t := s.targets[0]
		cur := a.eval(t, sc)
		nv := binop(s.op, cur, v)
		nv.src = a.text(t)
		a.assign(t, nv, nil, sc)
	case sImport:
		for _, al := range s.names {
			if al.as != "" {
				sc.vars[al.as] = a.qualSym(al.name, false)
			} else {
				top := al.name
				if i := strings.IndexByte(top, '.'); i >= 0 {
					top = top[:i]
				}
				sc.vars[top] = a.qualSym(top, false)
			}
		}
	case sFrom:
		mod := strings.TrimLeft(s.module, ".")
		for _, al := range s.names {
			if al.name == "*" {
				sc.stars = append(sc.stars, mod)
				continue
			}
			q := al.name
			if mod != "" {
				q = mod + "." + al.name
			}
			n := al.as
			if n == "" {
				n = al.name
			}
			sc.vars[n] = a.qualSym(q, false)
		}
	case sDef:
		a.def(s, sc)
	case sClass:
		for _, d := range s.decorators {
			a.eval(d, sc)
		}
		for _, bse := range s.bases {
			bv := a.eval(bse, sc)
			if isExcQual(bv.qual) || bv.kind == "name" && bv.qual == "" && isExcQual(bv.src) || strings.HasPrefix(bv.inst, "class:") && a.excClasses[bv.inst[6:]] {
				if a.excClasses == nil {
					a.excClasses = map[string]bool{}
				}
				a.excClasses[s.name] = true
			}
			if strings.HasPrefix(bv.inst, "class:") {
				if a.bases == nil {
					a.bases = map[string][]string{}
				}
				a.bases[s.name] = append(a.bases[s.name], bv.inst[6:])
			}
		}
		attrs := a.classes[s.name]
		if attrs == nil {
			attrs = map[string]*sym{}
			a.classes[s.name] = attrs
		}
		sc.vars[s.name] = &sym{kind: "name", inst: "class:" + s.name, src: s.name}
		cs := newScope(sc, "")
		cs.class = s.name
		a.block(s.body, cs)
		for n, v := range cs.vars {
			if _, set := attrs[n]; !set {
				attrs[n] = v
			}
		}
	case sIf:
		a.eval(s.value, sc)
		a.branches(s.body, s.orelse, sc)
	case sWhile:
		cond := a.eval(s.value, sc)
		if t, ok := cond.truthy(); ok && t {
			a.f.Loops = append(a.f.Loops, sdk.Loop{Kind: "while_true", HasBreak: hasExit(s.body, true), Evidence: a.evidence(s.line), Pos: a.pos(s.line, s.col)})
		}
		a.block(s.body, sc)
		a.block(s.orelse, sc)
	case sFor:
		a.forStmt(s, sc)
	case sWith:
		for _, it := range s.items {
			v := a.eval(it.ctx, sc)
			if it.as != nil {
				a.assign(it.as, v, it.ctx, sc)
			}
		}
		a.block(s.body, sc)
	case sTry:
		raised := a.collectRaised(func() { a.block(s.body, sc) })
		for _, h := range s.handlers {
			if h.typ != nil {
				a.eval(h.typ, sc)
			}
			// a handler runs only when the body failed: its fallbacks
			// (`except ImportError: requests = None`) must not hide what
			// the body bound
			hs := newScope(sc, sc.fn)
			if h.name != "" {
				hs.vars[h.name] = &sym{kind: "name", src: h.name}
				if len(raised) > 0 {
					// what the body raised (the handler's type is not
					// matched: any of them may be what it catches)
					ev := altsOf(raised...)
					if ev.src == "" {
						cp := *ev
						cp.src = h.name
						ev = &cp
					}
					hs.vars[h.name] = ev
				}
			}
			a.block(h.body, hs)
			mergeFallback(sc, hs)
		}
		a.block(s.orelse, sc)
		a.block(s.final, sc)
	case sDel:
		for _, t := range flattenTargets(s.targets[0]) {
			if t.kind == eSubscript {
				base := a.eval(t.x, sc)
				if base.qual == "os.environ" {
					k := a.eval(t.y, sc)
					a.envAssign(k, nil, "unset", t.line, t.col)
				}
			}
		}
	case sOther:
		if s.value != nil {
			a.eval(s.value, sc)
		}
	}
}

// branches walks the two branches of an if from the same bindings and
// keeps, for each name either rebinds, both values as alternatives: what
// runs after the if sees the value of whichever branch ran, not only the
// last one walked. Each branch binds into an overlay of sc, so the cost is
// the names the branches bind, not every name in scope.
func (a *analyzer) branches(body, orelse []*stmt, sc *scope) {
	overlay := func(stmts []*stmt) *scope {
		o := &scope{vars: make(map[string]*sym, 4), parent: sc, fn: sc.fn, class: sc.class}
		a.block(stmts, o)
		return o
	}
	bs := overlay(body)
	es := overlay(orelse)
	for k, bv := range bs.vars {
		if ev, ok := es.vars[k]; ok {
			sc.vars[k] = altsOf(bv, ev)
		} else if old, ok := sc.lookup(k); ok && old != bv {
			sc.vars[k] = altsOf(bv, old)
		} else {
			sc.vars[k] = bv
		}
	}
	for k, ev := range es.vars {
		if _, done := bs.vars[k]; done {
			continue
		}
		if old, ok := sc.lookup(k); ok && old != ev {
			sc.vars[k] = altsOf(old, ev)
		} else {
			sc.vars[k] = ev
		}
	}
	sc.stars = append(append(sc.stars, bs.stars...), es.stars...)
}

// mergeFallback copies the bindings of an except handler into sc, except
// where they would replace a module, function or object with a plain
// value.
func mergeFallback(sc, hs *scope) {
	for name, v := range hs.vars {
		old, ok := sc.vars[name]
		if ok && (old.qual != "" || old.inst != "") && v.qual == "" && v.inst == "" {
			continue
		}
		if ok && old != v {
			// what the body bound or what the handler did: either may
			// be what runs after the try
			v = altsOf(old, v)
		}
		sc.vars[name] = v
	}
	sc.stars = append(sc.stars, hs.stars...)
}

func hasStarred(es []*expr) bool {
	for _, e := range es {
		if e.kind == eStarred {
			return true
		}
	}
	return false
}

func flattenTargets(e *expr) []*expr {
	if e.kind == eTuple || e.kind == eList {
		return e.args
	}
	return []*expr{e}
}

func (a *analyzer) def(s *stmt, sc *scope) {
	var decs []*sym
	for _, d := range s.decorators {
		decs = append(decs, a.eval(d, sc))
	}
	defaults := make([]*sym, len(s.defaults))
	for i, d := range s.defaults {
		if d != nil {
			defaults[i] = a.eval(d, sc)
		}
	}
	key := s.name
	if sc.class != "" {
		key = sc.class + "." + s.name
	}
	sc.vars[s.name] = &sym{kind: "name", localFn: key, src: s.name}
	fi, ok := a.funcs[key]
	if !ok {
		a.f.Functions = append(a.f.Functions, sdk.Function{Name: s.name, Pos: a.pos(s.line, s.col)})
		fi = &funcInfo{idx: len(a.f.Functions) - 1}
		a.funcs[key] = fi
	}
	fi.def, fi.scope, fi.defaults, fi.key = s, sc, defaults, key
	fi.method = sc.class != "" && len(s.params) > 0 && !isStatic(s)
	fs := newScope(sc, key)
	for i, p := range s.params {
		p = strings.TrimLeft(p, "*")
		if i == 0 && fi.method {
			fs.vars[p] = &sym{kind: "name", inst: selfKind(s) + sc.class, src: p}
			continue
		}
		if v := defaults[i]; v != nil && (v.qual != "" || v.inst != "") {
			// a default bound to a function is an alias of it
			cp := *v
			cp.indirect = cp.qual != ""
			fs.vars[p] = &cp
			continue
		}
		fs.vars[p] = &sym{kind: "name", src: p}
	}
	fi.ret = a.walkBody(fi.key, s, fs)
	if sc.class == "" {
		a.decorate(s, decs, sc)
	} else if r := a.decorate(s, decs, sc); r != nil {
		// a method replaced by a function a decorator returned: reading
		// it on an instance or the class gives that function
		fi.decorated = r
	}
}

// decorate applies the decorators defined here to the function s just
// defined, innermost first, as Python does at the def: the name is bound
// to what the decorator returns when that is callable (a wrapper that
// calls the function, a registry that returns it, a replacement such as a
// lambda running a command). A wrapper is kept alongside the function
// itself, so a call of the name runs the wrapper's body and the body of
// the function it wraps even when the wrapper's closure cannot be told
// apart from another decoration's. Decorators not defined here
// (functools.lru_cache, dataclass) leave the name to the function.
func (a *analyzer) decorate(s *stmt, decs []*sym, sc *scope) *sym {
	cur := sc.vars[s.name]
	orig := cur
	for i := len(decs) - 1; i >= 0; i-- {
		d := decs[i]
		if d == nil || !(d.localFn != "" || strings.HasPrefix(d.inst, "class:") || len(d.alts) > 0) {
			continue
		}
		at := &callCtx{e: s.decorators[i], sc: sc, line: s.decorators[i].line, col: s.decorators[i].col, ev: a.evidence(s.decorators[i].line)}
		r := a.invoke(d, []*sym{cur}, at)
		if r == nil || r == cur || !isCallable(r) && len(r.alts) == 0 || r.localFn != "" && r.localFn == cur.localFn {
			continue
		}
		cur = altsOf(r, cur)
	}
	if cur != orig {
		sc.vars[s.name] = cur
		return cur
	}
	return nil
}

// isProperty reports a getter: @property, @functools.cached_property.
func isProperty(s *stmt) bool {
	for _, d := range s.decorators {
		switch {
		case d.kind == eName && (d.name == "property" || d.name == "cached_property"):
			return true
		case d.kind == eAttr && d.name == "cached_property":
			return true
		}
	}
	return false
}

// hasConstDefault reports a parameter default that is a constant: a call
// without arguments still binds it (`def rd(p='/etc/shadow')`, `rd()`).
func hasConstDefault(fi *funcInfo) bool {
	for _, d := range fi.defaults {
		if d != nil && d.cnst {
			return true
		}
	}
	return false
}

// selfKind is what a method's first parameter is bound to: the class for
// a @classmethod ("class:"), else the instance ("obj:").
func selfKind(s *stmt) string {
	for _, d := range s.decorators {
		if (d.kind == eName || d.kind == eAttr) && d.name == "classmethod" {
			return "class:"
		}
	}
	return "obj:"
}

func isStatic(s *stmt) bool {
	for _, d := range s.decorators {
		if d.kind == eName && d.name == "staticmethod" {
			return true
		}
	}
	return false
}

// walkBody walks a function body and returns its constant return value,
// if it has exactly one.
func (a *analyzer) walkBody(key string, s *stmt, fs *scope) *sym {
	a.fnStack = append(a.fnStack, key)
	a.rets = append(a.rets, &retFrame{})
	raised := a.collectRaised(func() { a.block(s.body, fs) })
	if fi := a.funcs[key]; fi != nil {
		fi.raises = addRaised(fi.raises, raised...)
	}
	rf := a.rets[len(a.rets)-1]
	a.rets = a.rets[:len(a.rets)-1]
	a.fnStack = a.fnStack[:len(a.fnStack)-1]
	if len(rf.yields) > 0 && len(rf.yields) <= maxItems {
		// A generator: what it yields, as a sequence (constant when
		// every value is).
		g := &sym{kind: "list", cnst: true}
		for _, v := range rf.yields {
			g.items = append(g.items, v)
			g.cnst = g.cnst && v.cnst && v.qual == "" && v.inst == ""
		}
		if g.cnst {
			return g
		}
		return &sym{kind: "expr", el: (&sym{kind: "expr", src: "item"}).taint(g.items...)}
	}
	var ret *sym
	for _, v := range rf.vals {
		if ret == nil {
			ret = v
			continue
		}
		if !(ret.isStr() && v.isStr() && ret.s == v.s) {
			return carriedTaint(rf.vals)
		}
	}
	if ret != nil && !(ret.cnst || ret.qual != "" || ret.inst != "" || ret.localFn != "" || len(ret.alts) > 0) {
		return carriedTaint(rf.vals)
	}
	if ret != nil && (ret.cnst || ret.qual != "" || ret.inst != "" || ret.localFn != "" || len(ret.alts) > 0) {
		return ret
	}
	return nil
}

// carriedTaint returns an unknown value carrying what the return values
// of a function carry (environment values, file contents, downloads), so
// `def collect(): return dict(os.environ)` still hands the environment to
// its caller; nil when they carry nothing.
func carriedTaint(vals []*sym) *sym {
	r := (&sym{kind: "expr"}).taint(vals...)
	if len(r.env) == 0 && !r.download && r.fromFile == "" && !r.encoded {
		return nil
	}
	return r
}

// maxInline bounds how deep calls to local functions with constant
// arguments are followed into the function body, and maxInlinePerFunc how
// many call sites of one function are.
const (
	maxInline        = 2
	maxInlinePerFunc = 8
)

// inlineCall walks a local function's body again with the call's
// arguments bound to its parameters, so a wrapper such as
// `def run(c): os.system(c)` called as run("rm -rf /") reveals the
// command. It returns the call's result when known.
func (a *analyzer) inlineCall(fi *funcInfo, c *callCtx) *sym {
	s := fi.def
	fs := newScope(fi.scope, fi.key)
	params := s.params
	if fi.method && len(params) > 0 {
		self := c.fn.recv
		if self == nil || selfKind(s) == "class:" {
			self = &sym{kind: "name", inst: selfKind(s) + fi.scope.class}
		}
		fs.vars[strings.TrimLeft(params[0], "*")] = self
		params = params[1:]
	}
	for i, p := range params {
		switch {
		case strings.HasPrefix(p, "**"):
			p = p[2:]
			// the keywords no named parameter takes
			kw := &sym{kind: "dict", src: p}
			for _, k := range c.kwList {
				if !hasParam(params, k) {
					kw.keys = append(kw.keys, strSym(k))
					kw.items = append(kw.items, c.kws[k])
					kw.taint(c.kws[k])
				}
			}
			fs.vars[p] = kw
		case strings.HasPrefix(p, "*"):
			p = p[1:]
			t := &sym{kind: "tuple", cnst: true, src: p}
			if i < len(c.args) {
				for _, v := range c.args[i:] {
					t.items = append(t.items, v)
					t.cnst = t.cnst && v.cnst && v.qual == "" && v.inst == ""
				}
			}
			fs.vars[p] = t
		default:
			if v := c.arg(i, p); v != nil {
				fs.vars[p] = v
			} else if d := i + len(s.params) - len(params); d < len(fi.defaults) && fi.defaults[d] != nil {
				fs.vars[p] = fi.defaults[d]
			} else {
				fs.vars[p] = &sym{kind: "name", src: p}
			}
		}
	}
	a.inline++
	r := a.walkBody(fi.key, s, fs)
	a.inline--
	return r
}

func hasParam(params []string, name string) bool {
	for _, p := range params {
		if p == name {
			return true
		}
	}
	return false
}

// maxUnroll bounds how many elements of a constant sequence a for loop
// is walked with; a body of a few simple statements (a string built one
// character at a time) gets maxUnrollSmall.
const (
	maxUnroll      = 8
	maxUnrollSmall = 256
)

// smallBody reports whether a loop body is at most three simple
// statements.
func smallBody(body []*stmt) bool {
	if len(body) > 3 {
		return false
	}
	for _, s := range body {
		switch s.kind {
		case sExpr, sAssign, sAugAssign, sPass, sContinue, sBreak:
		default:
			return false
		}
	}
	return true
}

func (a *analyzer) forStmt(s *stmt, sc *scope) {
	it := a.eval(s.value, sc)
	if it.inst == "itertools.count" || it.inst == "itertools.cycle" || it.inst == "iter_sentinel" {
		a.f.Loops = append(a.f.Loops, sdk.Loop{Kind: "for_ever", HasBreak: hasExit(s.body, true), Evidence: a.evidence(s.line), Pos: a.pos(s.line, s.col)})
	}
	limit := maxUnroll
	if smallBody(s.body) {
		limit = maxUnrollSmall
	}
	if v := s.value; v.kind == eCall && v.x.kind == eName && v.x.name == "range" {
		// counting loops are walked once: the numbers rarely decide
		// what runs, and unrolling them costs time on ordinary code
		limit = 0
	}
	if it.kind == "str" && it.cnst && len([]rune(it.s)) <= limit && a.unroll < 2 {
		chars := &sym{kind: "list", cnst: true}
		for _, r := range it.s {
			chars.items = append(chars.items, strSym(string(r)))
		}
		it = chars.taint(it)
	}
	if !it.cnst && limit > maxUnroll {
		limit = maxUnroll // the many-character unrolling is for constants
	}
	if (it.kind == "list" || it.kind == "tuple") && len(it.items) > 0 && len(it.items) <= limit && !hasNil(it.items) && a.unroll < 2 {
		// unrolled element by element, constant or not, so the parts of
		// one element stay together (`for fn, arg in [(os.system, c)]`)
		a.unroll++
		for _, el := range it.items {
			a.assign(s.targets[0], el, nil, sc)
			a.block(s.body, sc)
		}
		a.unroll--
	} else {
		a.assign(s.targets[0], elemOf(it), nil, sc)
		a.block(s.body, sc)
	}
	a.block(s.orelse, sc)
}

// elemOf returns what iterating over v yields. Iterating the environment
// mapping (os.environ, its keys, a list of them) yields names, not values:
// the element is an envKey and carries no value of its own.
func elemOf(v *sym) *sym {
	if v.elem() != nil {
		return v.elem()
	}
	if environKeys(v) {
		return &sym{kind: "expr", src: "item", envKey: true}
	}
	if (v.kind == "list" || v.kind == "tuple") && len(v.items) > 0 && len(v.items) <= maxAlts && !hasNil(v.items) {
		// each element is one of the items: `for f in [os.system]: f(c)`
		return altsOf(v.items...)
	}
	e := &sym{kind: "expr", src: "item"}
	if v.isSeq() && len(v.items) > 0 {
		e.taint(v.items...)
	}
	return e.taint(v)
}

// environKeys reports a value whose iteration yields the names of the
// environment's variables: os.environ itself or os.environ.keys().
func environKeys(v *sym) bool {
	return v != nil && (v.qual == "os.environ" || v.src == "os.environ.keys()")
}

func hasNil(vs []*sym) bool {
	for _, v := range vs {
		if v == nil {
			return true
		}
	}
	return false
}

// assign binds target to v.
func (a *analyzer) assign(t *expr, v *sym, valueExpr *expr, sc *scope) {
	switch t.kind {
	case eName:
		if v.qual != "" && !v.indirect && valueExpr != nil {
			c := *v
			c.indirect = true
			v = &c
		}
		if v.src == "" || v.src == "item" {
			c := *v
			c.src = t.name
			v = &c
		}
		if valueExpr != nil && valueExpr.kind == eStr && v.isStr() && v.cnst && credentialName(t.name) && credentialValue(v.s) {
			// `api_key = 'sk-live-…'`: the name is a variable whose value
			// is a secret, like a shell variable; printing or sending
			// it writes that variable (rules judge the name).
			c := *v
			c.env = mergeNames(append([]string(nil), v.env...), []string{t.name})
			v = &c
		}
		sc.vars[t.name] = v
		if sc.class != "" {
			a.classes[sc.class][t.name] = v
		}
	case eTuple, eList:
		// A tuple of known parts unpacks part by part, constant or not
		// (`path, headers = urlretrieve(URL)`).
		if (v.isSeq() || v.kind == "tuple" && !hasNil(v.items)) && len(v.items) == len(t.args) && !hasStarred(t.args) {
			for i, el := range t.args {
				a.assign(el, v.items[i], nil, sc)
			}
			return
		}
		if (v.kind == "list" || v.kind == "tuple") && !hasNil(v.items) && hasStarred(t.args) && len(v.items) >= len(t.args)-1 {
			// head, *rest = [...]: the starred name takes the middle
			star := 0
			for i, el := range t.args {
				if el.kind == eStarred {
					star = i
				}
			}
			after := len(t.args) - star - 1
			for i := 0; i < star; i++ {
				a.assign(t.args[i], v.items[i], nil, sc)
			}
			mid := &sym{kind: "list", cnst: v.cnst, items: append([]*sym(nil), v.items[star:len(v.items)-after]...)}
			a.assign(t.args[star].x, mid.taint(mid.items...), nil, sc)
			for i := 0; i < after; i++ {
				a.assign(t.args[star+1+i], v.items[len(v.items)-after+i], nil, sc)
			}
			return
		}
		for _, el := range t.args {
			sub := &sym{kind: "expr", src: a.text(el)}
			if el.kind == eStarred {
				el = el.x
			}
			if v.elem() != nil && v.elem().walkRoot != nil {
				sub.walkRoot = v.elem().walkRoot
			}
			a.assign(el, sub.taint(v), nil, sc)
		}
	case eStarred:
		a.assign(t.x, v, nil, sc)
	case eAttr:
		base := a.eval(t.x, sc)
		if isSessionInst(base.inst) && sessionAttrs[t.name] {
			sendTaint(base, v) // s.auth = ('u', os.environ['PASSWORD'])
		}
		if isSessionInst(base.inst) && t.name == "proxies" {
			// s.proxies = {...}: the session's requests go through them
			a.proxyDestinations(a.attrCtx(t, base.inst+".proxies"), v)
		}
		if base.qual != "" {
			a.modAttrs[base.qual+"."+t.name] = v
		}
		if strings.HasPrefix(base.inst, "obj:") || strings.HasPrefix(base.inst, "class:") {
			cls := base.inst[strings.IndexByte(base.inst, ':')+1:]
			if attrs := a.classes[cls]; attrs != nil {
				attrs[t.name] = v
			}
		}
	case eSubscript:
		base := a.eval(t.x, sc)
		k := a.eval(t.y, sc)
		sendTaint(sessionPart(base), v) // s.headers['Authorization'] = token
		if base.qual == "os.environ" {
			a.envAssign(k, v, "set", t.line, t.col)
			return
		}
		if base.kind == "dict" && k.cnst {
			for i, key := range base.keys {
				if key != nil && key.cnst && key.s == k.s {
					base.items[i] = v
					return
				}
			}
			base.keys = append(base.keys, k)
			base.items = append(base.items, v)
		}
	}
}

func (a *analyzer) envAssign(k, v *sym, op string, line, col int) {
	name, ok := k.strVal()
	if !ok {
		name = k.src
	}
	as := sdk.Assignment{Name: name, Op: op, Pos: a.pos(line, col)}
	if v != nil {
		if s, ok := v.strVal(); ok {
			as.Value = s
		} else {
			as.Dynamic = true
		}
	}
	if op == "set" && v != nil && isProxyEnv(name) {
		// the process's HTTP clients are routed through it from now on
		a.proxyDestinations(&callCtx{name: "os.environ[" + name + "]", line: line, col: col, ev: a.evidence(line)}, v)
	}
	a.f.Assignments = append(a.f.Assignments, as)
}

// hasExit reports whether body has a reachable break (at this loop level),
// return, raise or process exit.
func hasExit(body []*stmt, top bool) bool {
	for _, s := range body {
		switch s.kind {
		case sBreak:
			if top {
				return true
			}
		case sReturn, sRaise:
			return true
		case sExpr, sAssign:
			if exprExits(s.value) {
				return true
			}
		case sIf, sTry, sWith:
			if s.kind == sIf && exprExits(s.value) {
				return true
			}
			if hasExit(s.body, top) || hasExit(s.orelse, top) || hasExit(s.final, top) {
				return true
			}
			for _, h := range s.handlers {
				if hasExit(h.body, top) {
					return true
				}
			}
		case sFor, sWhile:
			if hasExit(s.body, false) || hasExit(s.orelse, top) {
				return true
			}
		}
	}
	return false
}

func exprExits(e *expr) bool {
	if e == nil {
		return false
	}
	if e.kind == eCall {
		switch f := e.x; {
		case f.kind == eName && (f.name == "exit" || f.name == "quit"):
			return true
		case f.kind == eAttr && (f.name == "exit" || f.name == "_exit" || f.name == "abort") && f.x.kind == eName && (f.x.name == "sys" || f.x.name == "os"):
			return true
		}
	}
	if exprExits(e.x) || exprExits(e.y) || exprExits(e.z) {
		return true
	}
	for _, x := range e.args {
		if exprExits(x) {
			return true
		}
	}
	return false
}

// ---- expressions ----

var builtinNames = map[string]bool{}

func init() {
	for _, n := range strings.Fields(`abs aiter all anext any ascii bin bool breakpoint bytearray bytes callable chr classmethod
compile complex delattr dict dir divmod enumerate eval exec filter float format frozenset getattr globals hasattr hash
help hex id input int isinstance issubclass iter len list locals map max memoryview min next object oct open ord pow
print property range repr reversed round set setattr slice sorted staticmethod str sum super tuple type vars zip
__import__ exit quit`) {
		builtinNames[n] = true
	}
}

// qualSym returns the value a qualified name denotes: a known constant, a
// module attribute assigned earlier, or the name itself.
func (a *analyzer) qualSym(q string, indirect bool) *sym {
	q = canon(q)
	if v, ok := a.modAttrs[q]; ok {
		return v
	}
	switch q {
	case "sys.executable":
		return &sym{kind: "str", cnst: true, s: "python3", src: "sys.executable"}
	case "os.sep", "os.path.sep":
		return strSym("/")
	case "os.devnull":
		return strSym("/dev/null")
	case "os.curdir":
		return strSym(".")
	case "os.name":
		return strSym("posix")
	case "os.environ", "os.environb":
		return &sym{qual: "os.environ", indirect: indirect, env: []string{"*"}, src: q}
	}
	return &sym{qual: q, indirect: indirect, src: q}
}

// maxEvalDepth bounds recursion through nested expressions (long
// left-nested operator chains), keeping the stack small.
const maxEvalDepth = 2000

func (a *analyzer) eval(e *expr, sc *scope) *sym {
	a.steps++
	if a.depth >= maxEvalDepth || a.steps > maxSteps {
		a.f.Truncated = true
		return &sym{kind: "expr", src: a.text(e)}
	}
	a.depth++
	v := a.eval1(e, sc)
	a.depth--
	if v == nil {
		v = &sym{kind: "expr"}
	}
	if v.src == "" && !v.cnst {
		// display text only; setting it on a shared value is harmless
		v.src = a.text(e)
	}
	if v.cnst && e.kind != eStr && len(v.s) >= len("-----BEGIN PRIVATE KEY-----") && (v.kind == "str" || v.kind == "bytes") {
		a.foldedKey(v.s, e.line, e.col)
	}
	return v
}

// foldedKey records a private key that exists only once the content's own
// expressions are folded (`'-----BEGIN %s PRIVATE KEY-----' % 'RSA'`,
// `'-' * 5 + 'BEGIN … PRIVATE KEY' + '-' * 5`, `'-----'.join([...])`,
// f-strings of constants): RULES.md, the header is enough, however it is
// assembled. The literal text is scanned separately (secrets.Find).
func (a *analyzer) foldedKey(s string, line, col int) {
	if a.keyLines[line] || !strings.Contains(s, "PRIVATE KEY") {
		return
	}
	for _, sec := range secrets.Find(s) {
		if sec.Kind != secrets.KindPrivateKey {
			continue
		}
		if a.keyLines == nil {
			a.keyLines = map[int]bool{}
		}
		a.keyLines[line] = true
		a.f.Secrets = append(a.f.Secrets, sdk.Secret{Kind: sec.Kind, Redacted: sec.Redacted, Pos: a.pos(line, col)})
		return
	}
}

func (a *analyzer) eval1(e *expr, sc *scope) *sym {
	if e == nil {
		return &sym{kind: "none", cnst: true}
	}
	switch e.kind {
	case eName:
		return a.name(e.name, sc)
	case eAttr:
		return a.attr(a.eval(e.x, sc), e.name)
	case eCall:
		return a.call(e, sc)
	case eSubscript:
		return a.subscript(e, sc)
	case eStr:
		if e.bytes {
			return &sym{kind: "bytes", cnst: true, s: e.str}
		}
		return strSym(e.str)
	case eNum:
		return parseNum(e.str)
	case eConst:
		switch e.name {
		case "None":
			return &sym{kind: "none", cnst: true}
		case "True":
			return &sym{kind: "bool", cnst: true, num: 1, s: "True"}
		case "False":
			return &sym{kind: "bool", cnst: true, num: 0, s: "False"}
		}
		return &sym{kind: "expr"}
	case eBin:
		l := a.eval(e.x, sc)
		r := a.eval(e.y, sc)
		if e.name == "%" && l.isStr() {
			// 'x=%s' % obj: the object converts through its __str__
			r = a.textArgs(r, &callCtx{e: e, sc: sc, line: e.line, col: e.col, ev: a.evidence(e.line)})
		}
		if (len(l.alts) > 0 || len(r.alts) > 0) && len(altList(l))*len(altList(r)) <= maxAlts {
			// 'rm -rf ' + (a if c else b): each alternative folds
			var out []*sym
			for _, x := range altList(l) {
				for _, y := range altList(r) {
					out = append(out, binop(e.name, x, y))
				}
			}
			return altsOf(out...)
		}
		return binop(e.name, l, r)
	case eUnary:
		x := a.eval(e.x, sc)
		switch e.name {
		case "-":
			if x.isNum() {
				if x.kind == "float" {
					return floatSym(-x.num)
				}
				return intSym(-int64(x.num))
			}
		case "+":
			if x.isNum() {
				return x
			}
		case "not":
			if t, ok := x.truthy(); ok {
				if t {
					return &sym{kind: "bool", cnst: true, num: 0, s: "False"}
				}
				return &sym{kind: "bool", cnst: true, num: 1, s: "True"}
			}
		}
		return (&sym{kind: "expr"}).taint(x)
	case eList, eTuple, eSet:
		kind := "list"
		if e.kind == eTuple {
			kind = "tuple"
		}
		r := &sym{kind: kind, cnst: true}
		for _, it := range e.args {
			if it.kind == eStarred {
				v := a.eval(it.x, sc)
				if v.isSeq() {
					r.items = append(r.items, v.items...)
					continue
				}
				if (v.kind == "list" || v.kind == "tuple") && len(v.items) > 0 {
					r.cnst = false
					r.items = append(r.items, v.items...)
					r.taint(v)
					continue
				}
				r.cnst = false
				sv := &sym{kind: "expr", src: a.text(it)}
				r.items = append(r.items, sv.taint(v))
				r.taint(v)
				continue
			}
			v := a.eval(it, sc)
			if !v.cnst || v.qual != "" || v.inst != "" {
				r.cnst = false
				if it.kind == eName && v.src != it.name {
					cp := *v
					cp.src = it.name
					v = &cp
				}
			}
			r.items = append(r.items, v)
			r.taint(v)
		}
		return r
	case eDict:
		r := &sym{kind: "dict", cnst: true}
		for i, k := range e.args {
			v := a.eval(e.vals[i], sc)
			if k == nil && v.kind == "dict" && len(r.keys)+len(v.keys) <= maxItems {
				// {**base, **extra}: the spread mapping's keys and values
				r.keys = append(r.keys, v.keys...)
				r.items = append(r.items, v.items...)
				r.taint(v)
				continue
			}
			var kv *sym
			if k != nil {
				kv = a.eval(k, sc)
				if !kv.cnst {
					r.cnst = false
				}
			} else {
				r.cnst = false
			}
			if !v.cnst {
				r.cnst = false
			}
			r.keys = append(r.keys, kv)
			r.items = append(r.items, v)
			r.taint(v)
		}
		r.cnst = false // dict values are never folded into a Value string
		return r
	case eLambda:
		// A lambda is a function whose body returns one expression: it is
		// defined like a def so that calling it (`run = lambda c:
		// os.system(c); run('id')`) is followed like any local function.
		st := &stmt{kind: sDef, name: fmt.Sprintf("<lambda:%d:%d>", e.line, e.col), line: e.line, col: e.col, off: e.off, end: e.end}
		for _, p := range e.args {
			st.params = append(st.params, p.name)
		}
		st.defaults = make([]*expr, len(st.params))
		st.body = []*stmt{{kind: sReturn, value: e.x, line: e.line, col: e.col, off: e.off, end: e.end}}
		ls := newScope(sc, "")
		a.def(st, ls)
		return ls.vars[st.name]
	case eComp:
		return a.comp(e, sc)
	case eIfExp:
		body := a.eval(e.x, sc)
		cond := a.eval(e.y, sc)
		other := a.eval(e.z, sc)
		if t, ok := cond.truthy(); ok {
			if t {
				return body
			}
			return other
		}
		if body.kind == "dict" && other.kind == "dict" {
			// Either dict: still a dict, whose keys are either's keys.
			r := &sym{kind: "dict"}
			r.keys = append(append(r.keys, body.keys...), other.keys...)
			r.items = append(append(r.items, body.items...), other.items...)
			return r.taint(body, other)
		}
		return altsOf(body, other)
	case eCompare:
		l := a.eval(e.x, sc)
		r := a.eval(e.y, sc)
		if l.cnst && r.cnst && (e.name == "==" || e.name == "!=") && l.kind == r.kind && (l.isStr() || l.isNum()) {
			eq := l.s == r.s
			if e.name == "!=" {
				eq = !eq
			}
			if eq {
				return &sym{kind: "bool", cnst: true, num: 1, s: "True"}
			}
			return &sym{kind: "bool", cnst: true, num: 0, s: "False"}
		}
		return &sym{kind: "expr"}
	case eBool:
		l := a.eval(e.x, sc)
		r := a.eval(e.y, sc)
		if t, ok := l.truthy(); ok {
			if (e.name == "or") == t {
				return l
			}
			return r
		}
		// `sys.modules.get('os') or __import__('os')`, `x or os.system`:
		// a side that names a module, function or instance is what an
		// `or` of unknown truth may yield — judge it as what it names.
		if e.name == "or" && (l.qual != "" || l.inst != "") {
			return l
		}
		if e.name == "or" && (r.qual != "" || r.inst != "") {
			return r
		}
		return (&sym{kind: "expr"}).taint(l, r)
	case eYield:
		// A generator's values: calling it returns them as a sequence
		// (walkBody), so `for c in gen(): os.system(c)` sees each.
		if e.x == nil {
			return &sym{kind: "expr"}
		}
		v := a.eval(e.x, sc)
		if n := len(a.rets); n > 0 {
			rf := a.rets[n-1]
			switch {
			case e.name != "from":
				rf.yields = append(rf.yields, v)
			case v.isSeq():
				rf.yields = append(rf.yields, v.items...)
			default:
				rf.yields = append(rf.yields, elemOf(v))
			}
		}
		return &sym{kind: "expr"}
	case eStarred, eAwait:
		if e.x == nil {
			return &sym{kind: "expr"}
		}
		return a.eval(e.x, sc)
	case eWalrus:
		v := a.eval(e.x, sc)
		sc.vars[e.name] = v
		return v
	case eFString:
		return a.fstring(e, sc)
	case eSlice:
		return &sym{kind: "expr"}
	}
	return &sym{kind: "expr"}
}

func parseNum(t string) *sym {
	t = strings.ReplaceAll(t, "_", "")
	if strings.HasSuffix(t, "j") || strings.HasSuffix(t, "J") {
		return &sym{kind: "expr", src: t}
	}
	if n, err := strconv.ParseInt(t, 0, 64); err == nil {
		return intSym(n)
	}
	if len(t) > 1 && t[0] == '0' && strings.Trim(t, "0") == "" {
		return intSym(0)
	}
	if f, err := strconv.ParseFloat(t, 64); err == nil {
		return floatSym(f)
	}
	return &sym{kind: "int", src: t}
}

func (a *analyzer) name(n string, sc *scope) *sym {
	if v, ok := sc.lookup(n); ok {
		return v
	}
	switch n {
	case "__builtins__", "__builtin__":
		return &sym{qual: "builtins", indirect: true, src: n}
	case "__name__":
		return strSym("__main__")
	}
	for _, m := range sc.starImports() {
		if knownQual(canon(m + "." + n)) {
			return a.qualSym(m+"."+n, false)
		}
	}
	if builtinNames[n] {
		return &sym{qual: n, src: n}
	}
	if implicitModules[n] {
		// An unbound name that is a well-known module: code blocks are often
		// snippets run where the module is already imported (a REPL, an
		// executor with preloaded modules). Judge the call as if it were.
		return &sym{qual: n, src: n}
	}
	return &sym{kind: "name", src: n}
}

// implicitModules are module names resolved even without an import.
var implicitModules = map[string]bool{}

func init() {
	for _, n := range strings.Fields(`os subprocess shutil socket sys pathlib importlib pty ctypes base64 codecs zlib
runpy requests urllib httpx aiohttp asyncio glob tarfile zipfile platform signal builtins pickle marshal`) {
		implicitModules[n] = true
	}
}

func (a *analyzer) attr(base *sym, name string) *sym {
	if len(base.alts) > 0 {
		// (ujson or json).dumps: the attribute of each alternative
		out := make([]*sym, 0, len(base.alts))
		for _, x := range base.alts {
			out = append(out, a.attr(x, name))
		}
		return altsOf(out...)
	}
	if base.exc && name == "args" {
		t := &sym{kind: "tuple", cnst: true, items: base.excArgs}
		for _, v := range base.excArgs {
			t.cnst = t.cnst && v.cnst && v.qual == "" && v.inst == ""
		}
		return t.taint(base.excArgs...)
	}
	switch {
	case base.qual != "":
		q := base.qual
		if name == "__dict__" {
			return &sym{qual: q + ".__dict__", indirect: base.indirect}
		}
		if q == "builtins" || q == "builtins.__dict__" {
			return &sym{qual: name, indirect: true, src: name}
		}
		if base.localFn != "" {
			return &sym{kind: "expr"}
		}
		if (name == "update" || name == "setdefault") && sessionPart(base) != nil {
			// s.headers.update(...): a mutation of the session (method).
			return &sym{kind: "method", s: name, recv: base}
		}
		return a.qualSym(q+"."+name, base.indirect)
	case strings.HasPrefix(base.inst, "obj:") || strings.HasPrefix(base.inst, "class:"):
		cls := base.inst[strings.IndexByte(base.inst, ':')+1:]
		if fi := a.findMethod(cls, name); fi != nil {
			if fi.def != nil && isProperty(fi.def) {
				// obj.prop runs the getter: its value is what it returns
				if fi.ret != nil {
					return fi.ret
				}
				if a.inline < maxInline && fi.inlined < maxInlinePerFunc {
					fi.inlined++
					if r := a.inlineCall(fi, &callCtx{fn: &sym{recv: base}}); r != nil {
						return r
					}
				}
				return &sym{kind: "expr", src: name}
			}
			m := &sym{kind: "name", localFn: fi.key, recv: base, src: name}
			if fi.decorated != nil && strings.HasPrefix(base.inst, "obj:") {
				// obj.m() of a decorated method calls what the decorator
				// returned with the instance first (a function, not a
				// method), and the method itself
				var out []*sym
				for _, d := range altList(fi.decorated) {
					if d.localFn != "" && d.localFn != fi.key {
						if dfi := a.funcs[d.localFn]; dfi != nil && !dfi.method {
							out = append(out, &sym{kind: "name", localFn: d.localFn, boundArgs: []*sym{base}, src: name})
						}
					}
				}
				if len(out) > 0 {
					return altsOf(append(out, m)...)
				}
			}
			return m
		}
		if v := a.classAttr(cls, name); v != nil {
			return v
		}
		return &sym{kind: "expr"}
	case base.inst != "":
		switch base.inst {
		case "pathlib.Path":
			switch name {
			case "parent":
				p := pathStrSym(base)
				if p.cnst {
					d := p.s
					if i := strings.LastIndexByte(strings.TrimRight(d, "/"), '/'); i >= 0 {
						d = d[:i]
					} else {
						d = "."
					}
					return pathSym(strSym(d))
				}
				return pathSym((&sym{kind: "expr"}).taint(p))
			case "name", "stem", "suffix", "parts":
				return (&sym{kind: "expr"}).taint(pathStrSym(base))
			}
		}
		return (&sym{qual: base.inst + "." + name, recv: base, src: base.inst + "." + name}).taint(base)
	}
	return (&sym{kind: "method", s: name, recv: base}).taint(base)
}

func (a *analyzer) subscript(e *expr, sc *scope) *sym {
	base := a.eval(e.x, sc)
	if e.y != nil && e.y.kind == eSlice {
		var lo, hi, st *sym
		if e.y.x != nil {
			lo = a.eval(e.y.x, sc)
		}
		if e.y.y != nil {
			hi = a.eval(e.y.y, sc)
		}
		if e.y.z != nil {
			st = a.eval(e.y.z, sc)
		}
		return slice(base, lo, hi, st)
	}
	k := a.eval(e.y, sc)
	key, kok := k.strVal()
	if base.qual == "" && (base.kind == "list" || base.kind == "tuple" || base.kind == "dict") {
		r := index(base, k)
		if r.qual != "" && !r.indirect {
			cp := *r
			cp.indirect = true
			return &cp
		}
		return r
	}
	switch q := base.qual; {
	case q == "os.environ":
		return a.envRead(k, e.line, e.col)
	case q == "sys.modules" && kok && k.kind == "str":
		return &sym{qual: canon(key), indirect: true, src: key}
	case q == "builtins" && kok:
		return &sym{qual: key, indirect: true, src: key}
	case strings.HasSuffix(q, ".__dict__") && kok:
		return a.attr(&sym{qual: strings.TrimSuffix(q, ".__dict__"), indirect: true}, key)
	case q == "<globals>" && kok:
		if key == "__builtins__" {
			return &sym{qual: "builtins", indirect: true, src: key}
		}
		v := a.name(key, sc)
		if v.qual != "" {
			c := *v
			c.indirect = true
			return &c
		}
		return v
	}
	return index(base, k)
}

func (a *analyzer) fstring(e *expr, sc *scope) *sym {
	var b strings.Builder
	r := &sym{kind: "str", cnst: true}
	if e.bytes {
		r.kind = "bytes"
	}
	fi := 0
	var prefix strings.Builder
	suffix := ""
	dynamic := false
	for _, pt := range e.parts {
		if !pt.hasExpr {
			b.WriteString(pt.lit)
			if !dynamic {
				prefix.WriteString(pt.lit)
			}
			suffix += pt.lit
			continue
		}
		var v *sym
		if fi < len(e.fexprs) {
			v = a.eval(e.fexprs[fi], sc)
		} else {
			v = &sym{kind: "expr"}
		}
		fi++
		if pt.conv == 'r' {
			v = a.asText(v, "__repr__", &callCtx{e: e, sc: sc, line: e.line, col: e.col, ev: a.evidence(e.line)})
		} else {
			v = a.asText(v, "__format__", &callCtx{e: e, sc: sc, line: e.line, col: e.col, ev: a.evidence(e.line)})
		}
		r.taint(v)
		s, ok := formatArg(v, pt.conv == 'r')
		if v.inst == "pathlib.Path" && v.path != nil && v.path.cnst {
			s, ok = v.path.s, true
		}
		if !ok {
			dynamic = true
			r.cnst = false
			suffix = ""
			continue
		}
		b.WriteString(s)
		if !dynamic {
			prefix.WriteString(s)
		}
		suffix += s
	}
	if r.cnst && b.Len() <= maxConst {
		r.s = b.String()
		return r
	}
	r.cnst = false
	r.kind = "expr"
	r.prefix = prefix.String()
	r.suffix = suffix
	return r
}

const maxCompItems = 256

func (a *analyzer) comp(e *expr, sc *scope) *sym {
	cs := newScope(sc, "")
	if len(e.comp) == 1 && len(e.comp[0].conds) == 0 && e.name == "dict" && e.y != nil {
		it := a.eval(e.comp[0].iter, sc)
		if (it.kind == "list" || it.kind == "tuple") && len(it.items) <= maxCompItems && !hasNil(it.items) {
			// {k: v for k, v in pairs}: a mapping of the pairs' parts
			r := &sym{kind: "dict"}
			for _, el := range it.items {
				a.assign(e.comp[0].target, el, nil, cs)
				k, v := a.eval(e.x, cs), a.eval(e.y, cs)
				r.keys = append(r.keys, k)
				r.items = append(r.items, v)
				r.taint(v)
			}
			return r
		}
		cs = newScope(sc, "")
		a.assign(e.comp[0].target, elemOf(it), nil, cs)
		r := (&sym{kind: "expr"}).taint(a.eval(e.y, cs))
		a.eval(e.x, cs)
		if !environKeys(it) {
			r.taint(it)
		}
		return r
	}
	if len(e.comp) == 1 && len(e.comp[0].conds) == 0 && e.name != "dict" {
		it := a.eval(e.comp[0].iter, sc)
		if (it.kind == "list" || it.kind == "tuple") && len(it.items) <= maxCompItems && !hasNil(it.items) && (it.cnst || len(it.items) <= maxUnroll) {
			// element by element, constant or not (a list of paths or
			// URLs built from a constant list)
			r := &sym{kind: "list", cnst: it.cnst}
			for _, el := range it.items {
				a.assign(e.comp[0].target, el, nil, cs)
				v := a.eval(e.x, cs)
				if !v.cnst {
					r.cnst = false
				}
				r.items = append(r.items, v)
				r.taint(v)
			}
			return r
		}
		if it.kind == "bytes" && it.cnst && len(it.s) <= 4*maxCompItems {
			// iterating bytes yields ints (XOR and shift decoders)
			r := &sym{kind: "list", cnst: true}
			for i := 0; i < len(it.s); i++ {
				a.assign(e.comp[0].target, intSym(int64(it.s[i])), nil, cs)
				v := a.eval(e.x, cs)
				if !v.cnst {
					r.cnst = false
				}
				r.items = append(r.items, v)
				r.taint(v)
			}
			return r.taint(it)
		}
		if it.kind == "str" && it.cnst && len(it.s) <= 4*maxCompItems {
			r := &sym{kind: "list", cnst: true}
			for _, ch := range it.s {
				a.assign(e.comp[0].target, strSym(string(ch)), nil, cs)
				v := a.eval(e.x, cs)
				if !v.cnst {
					r.cnst = false
				}
				r.items = append(r.items, v)
				r.taint(v)
			}
			return r.taint(it)
		}
		a.assign(e.comp[0].target, elemOf(it), nil, cs)
		v := a.eval(e.x, cs)
		if environKeys(it) {
			// Names of variables: only what the element expression reads
			// (os.environ[k]) carries values.
			return (&sym{kind: "expr"}).taint(v)
		}
		return (&sym{kind: "expr"}).taint(v, it)
	}
	r := &sym{kind: "expr"}
	for _, c := range e.comp {
		it := a.eval(c.iter, cs)
		a.assign(c.target, elemOf(it), nil, cs)
		for _, cond := range c.conds {
			a.eval(cond, cs)
		}
		if !environKeys(it) {
			r.taint(it)
		}
	}
	r.taint(a.eval(e.x, cs))
	if e.y != nil {
		r.taint(a.eval(e.y, cs))
	}
	return r
}

// attrCtx is the context of an effect an assignment has (a session's
// proxies set by attribute), placed at the assignment's target.
func (a *analyzer) attrCtx(t *expr, name string) *callCtx {
	return &callCtx{e: t, name: name, line: t.line, col: t.col, ev: a.evidence(t.line)}
}

// ---- exceptions ----

// collectRaised walks body with a fresh collector for raise statements and
// returns what it raised.
func (a *analyzer) collectRaised(body func()) []*sym {
	var got []*sym
	a.raised = append(a.raised, &got)
	body()
	a.raised = a.raised[:len(a.raised)-1]
	return got
}

// raise records values raised where the innermost try body or function
// body being walked collects them.
func (a *analyzer) raise(vs ...*sym) {
	if n := len(a.raised); n > 0 && len(vs) > 0 {
		*a.raised[n-1] = addRaised(*a.raised[n-1], vs...)
	}
}

// addRaised appends raised values, bounded by maxAlts (past it the values
// merge into one unknown exception carrying their taint).
func addRaised(to []*sym, vs ...*sym) []*sym {
	for _, v := range vs {
		if v == nil || (len(to) > 0 && to[len(to)-1] == v) {
			continue
		}
		if strings.HasPrefix(v.inst, "class:") || (isExcQual(v.qual) || v.kind == "name" && isExcQual(v.src)) && !v.exc {
			// `raise ValueError`: an instance made without arguments
			v = &sym{kind: "expr", exc: true, inst: v.inst, src: v.src}
			if strings.HasPrefix(v.inst, "class:") {
				v.inst = "obj:" + v.inst[6:]
			}
		}
		to = append(to, v)
	}
	if len(to) > maxAlts {
		m := (&sym{kind: "expr", exc: true}).taint(to...)
		return []*sym{m}
	}
	return to
}

// excNames are the builtin exception classes whose names do not end in
// Error, Exception or Warning.
var excNames = map[string]bool{"KeyboardInterrupt": true, "SystemExit": true, "StopIteration": true,
	"StopAsyncIteration": true, "GeneratorExit": true}

// isExcQual reports a qualified name naming an exception class
// (ValueError, Exception, requests.HTTPError, warnings' *Warning).
func isExcQual(q string) bool {
	if q == "" {
		return false
	}
	n := q[strings.LastIndexByte(q, '.')+1:]
	return excNames[n] || strings.HasSuffix(n, "Error") || strings.HasSuffix(n, "Exception") || strings.HasSuffix(n, "Warning")
}

// excInstance returns an exception instance made with args: its .args are
// args and it carries their taint.
func excInstance(inst string, args []*sym) *sym {
	r := &sym{kind: "expr", exc: true, inst: inst, excArgs: append([]*sym(nil), args...)}
	return r.taint(args...)
}

// asText returns what converting v to text yields (str(v), print(v),
// f'{v}', format(v)): an object of a class defined here converts through
// its __str__/__repr__/__format__ (dunder names the first one tried, the
// others are Python's fallbacks), an exception through its arguments;
// anything else is v itself.
func (a *analyzer) asText(v *sym, dunder string, c *callCtx) *sym {
	if v == nil {
		return v
	}
	if strings.HasPrefix(v.inst, "obj:") {
		order := []string{dunder}
		switch dunder {
		case "__format__":
			order = append(order, "__str__", "__repr__")
		case "__str__":
			order = append(order, "__repr__")
		}
		for _, m := range order {
			fi := a.findMethod(v.inst[4:], m)
			if fi == nil {
				continue
			}
			var args []*sym
			if m == "__format__" {
				args = []*sym{strSym("")}
			}
			if r := a.invoke(&sym{kind: "name", localFn: fi.key, recv: v, src: m}, args, c); r != nil {
				return r
			}
			return v
		}
	}
	if v.exc && dunder != "__repr__" && len(v.excArgs) == 1 && v.excArgs[0].isStr() {
		return v.excArgs[0]
	}
	return v
}

// textArgs converts the operand of a % format (one value or a tuple of
// them) to text as the format does: objects through their __str__.
func (a *analyzer) textArgs(r *sym, c *callCtx) *sym {
	if r.kind != "tuple" {
		return a.asText(r, "__str__", c)
	}
	var out *sym
	for i, v := range r.items {
		if t := a.asText(v, "__str__", c); t != v {
			if out == nil {
				cp := *r
				cp.items = append([]*sym(nil), r.items...)
				out = &cp
			}
			out.items[i] = t
			out.taint(t)
		}
	}
	if out == nil {
		return r
	}
	return out
}
