package python

import (
	"strings"
)

// ekind classifies an expression node.
type ekind uint8

const (
	eName ekind = iota
	eAttr
	eCall
	eSubscript
	eStr
	eNum
	eBin
	eUnary
	eList
	eTuple
	eDict
	eSet
	eLambda
	eComp
	eIfExp
	eCompare
	eBool
	eStarred
	eSlice
	eFString
	eAwait
	eWalrus
	eYield
	eConst // None, True, False, Ellipsis
)

// expr is an expression node. Fields are used per kind (see parser);
// the slices only some kinds need live in exprMore, which keeps the common
// nodes (names, attributes, constants, operators) small.
type expr struct {
	kind  ekind
	bytes bool
	name  string // eName id, eAttr attribute, operator, eConst name
	str   string // eStr value, eNum text
	x     *expr
	y     *expr
	z     *expr
	args  []*expr
	*exprMore
	line int
	col  int
	off  int
	end  int
}

// exprMore holds the parts of calls (keywords), dicts (values),
// comprehensions and f-strings.
type exprMore struct {
	vals   []*expr
	kws    []kwarg
	comp   []compFor
	parts  []fpart
	fexprs []*expr
}

type kwarg struct {
	name string // "" for **mapping
	v    *expr
}

// compFor is one `for target in iter [if cond]*` clause.
type compFor struct {
	target *expr
	iter   *expr
	conds  []*expr
}

// skind classifies a statement.
type skind uint8

const (
	sExpr skind = iota
	sAssign
	sAugAssign
	sImport
	sFrom
	sDef
	sClass
	sIf
	sFor
	sWhile
	sWith
	sTry
	sReturn
	sBreak
	sContinue
	sRaise
	sPass
	sDel
	sOther
)

type alias struct{ name, as string }

type handler struct {
	typ  *expr
	name string
	body []*stmt
}

type withItem struct{ ctx, as *expr }

// stmt is a statement node.
type stmt struct {
	kind       skind
	targets    []*expr
	value      *expr
	op         string
	names      []alias
	module     string
	body       []*stmt
	orelse     []*stmt
	final      []*stmt
	handlers   []handler
	items      []withItem
	name       string
	params     []string
	defaults   []*expr // per parameter, nil when it has no default
	decorators []*expr
	bases      []*expr
	line       int
	col        int
	off        int
	end        int
}

// parser is a recursive-descent parser for the statement and expression
// grammar of Python 3, deep enough to resolve names, calls and constants.
type parser struct {
	toks []token
	i    int
	src  string
	// base is added to offsets when parsing an f-string field.
	depth int
	// exprs and stmts are blocks the nodes are carved from: one
	// allocation per block instead of one per node, which made node
	// allocation the largest cost of parsing.
	exprs []expr
	stmts []stmt
	// calls counts the call expressions parsed.
	calls int
}

// nodeBlock is the number of nodes a parser allocates at once.
const nodeBlock = 64

// newExpr returns a zero expression node.
func (p *parser) newExpr() *expr {
	if len(p.exprs) == 0 {
		p.exprs = make([]expr, nodeBlock)
	}
	e := &p.exprs[0]
	p.exprs = p.exprs[1:]
	return e
}

// newStmt returns a zero statement node.
func (p *parser) newStmt() *stmt {
	if len(p.stmts) == 0 {
		p.stmts = make([]stmt, nodeBlock/4)
	}
	s := &p.stmts[0]
	p.stmts = p.stmts[1:]
	return s
}

type parseFail struct{ err *syntaxError }

func (p *parser) fail(msg string) {
	t := p.toks[p.i]
	panic(parseFail{&syntaxError{msg: msg, line: int(t.line), col: int(t.col)}})
}

func (p *parser) peek() *token { return &p.toks[p.i] }

func (p *parser) next() *token {
	t := &p.toks[p.i]
	if t.kind != tEOF {
		p.i++
	}
	return t
}

func (p *parser) isOp(s string) bool {
	t := &p.toks[p.i]
	return t.kind == tOp && t.text == s
}

func (p *parser) isKw(s string) bool {
	t := &p.toks[p.i]
	return t.kind == tName && t.text == s
}

func (p *parser) acceptOp(s string) bool {
	if p.isOp(s) {
		p.i++
		return true
	}
	return false
}

func (p *parser) acceptKw(s string) bool {
	if p.isKw(s) {
		p.i++
		return true
	}
	return false
}

func (p *parser) expectOp(s string) {
	if !p.acceptOp(s) {
		p.fail("expected '" + s + "', found " + describe(p.peek()))
	}
}

func describe(t *token) string {
	switch t.kind {
	case tEOF:
		return "end of input"
	case tNewline:
		return "end of line"
	case tIndent:
		return "indent"
	case tDedent:
		return "dedent"
	}
	s := t.text
	if len(s) > 20 {
		s = s[:20] + "…"
	}
	return "'" + s + "'"
}

var keywords = map[string]bool{
	"False": true, "None": true, "True": true, "and": true, "as": true, "assert": true, "async": true,
	"await": true, "break": true, "class": true, "continue": true, "def": true, "del": true, "elif": true,
	"else": true, "except": true, "finally": true, "for": true, "from": true, "global": true, "if": true,
	"import": true, "in": true, "is": true, "lambda": true, "nonlocal": true, "not": true, "or": true,
	"pass": true, "raise": true, "return": true, "try": true, "while": true, "with": true, "yield": true,
}

// parseModule parses a whole file. On a syntax error it returns the
// statements parsed so far and the error.
// parseModule parses a module; calls is the number of call expressions
// (parsed before any error), which sizes the Calls facts.
func parseModule(toks []token, src string) (stmts []*stmt, calls int, err *syntaxError) {
	p := &parser{toks: toks, src: src}
	defer func() { calls = p.calls }()
	// About one expression per two tokens and a statement per ten: the
	// first blocks are sized so that most modules need no other.
	p.exprs = make([]expr, len(toks)*9/20+8)
	p.stmts = make([]stmt, len(toks)/10+4)
	defer func() {
		if r := recover(); r != nil {
			pf, ok := r.(parseFail)
			if !ok {
				panic(r)
			}
			err = pf.err
		}
	}()
	for p.peek().kind != tEOF {
		if p.peek().kind == tNewline {
			p.next()
			continue
		}
		stmts = append(stmts, p.statement()...)
	}
	return stmts, p.calls, nil
}

func (p *parser) mk(k skind, t *token) *stmt {
	s := p.newStmt()
	s.kind, s.line, s.col, s.off = k, int(t.line), int(t.col), int(t.off)
	return s
}

func (p *parser) finish(s *stmt) *stmt {
	if p.i > 0 {
		s.end = int(p.toks[p.i-1].end)
	}
	return s
}

// statement parses one logical line or compound statement.
func (p *parser) statement() []*stmt {
	t := p.peek()
	if t.kind == tIndent {
		p.fail("unexpected indent")
	}
	if t.kind == tName {
		switch t.text {
		case "if":
			return []*stmt{p.ifStmt()}
		case "while":
			p.next()
			s := p.mk(sWhile, t)
			s.value = p.namedTest()
			s.body = p.suite()
			if p.acceptKw("else") {
				s.orelse = p.suite()
			}
			return []*stmt{p.finish(s)}
		case "for":
			return []*stmt{p.forStmt(t)}
		case "try":
			return []*stmt{p.tryStmt()}
		case "with":
			return []*stmt{p.withStmt(t)}
		case "def":
			return []*stmt{p.defStmt(t, nil)}
		case "class":
			return []*stmt{p.classStmt(t, nil)}
		case "async":
			p.next()
			switch {
			case p.isKw("def"):
				return []*stmt{p.defStmt(t, nil)}
			case p.isKw("for"):
				return []*stmt{p.forStmt(t)}
			case p.isKw("with"):
				return []*stmt{p.withStmt(t)}
			}
			p.fail("invalid syntax after async")
		case "match":
			if s := p.tryMatch(t); s != nil {
				return []*stmt{s}
			}
		}
	}
	if t.kind == tOp && t.text == "@" {
		var decs []*expr
		for p.acceptOp("@") {
			decs = append(decs, p.namedTest())
			p.expectNewline()
		}
		d := p.peek()
		if p.acceptKw("async") {
		}
		switch {
		case p.isKw("def"):
			return []*stmt{p.defStmt(d, decs)}
		case p.isKw("class"):
			return []*stmt{p.classStmt(d, decs)}
		}
		p.fail("expected def or class after decorator")
	}
	return p.simpleStmts()
}

func (p *parser) expectNewline() {
	t := p.peek()
	if t.kind == tNewline {
		p.next()
		return
	}
	if t.kind == tEOF {
		return
	}
	p.fail("expected end of line, found " + describe(t))
}

func (p *parser) simpleStmts() []*stmt {
	var out []*stmt
	for {
		out = append(out, p.smallStmt())
		if !p.acceptOp(";") {
			break
		}
		if p.peek().kind == tNewline || p.peek().kind == tEOF {
			break
		}
	}
	p.expectNewline()
	return out
}

func (p *parser) smallStmt() *stmt {
	t := p.peek()
	if t.kind == tName {
		switch t.text {
		case "pass":
			p.next()
			return p.finish(p.mk(sPass, t))
		case "break":
			p.next()
			return p.finish(p.mk(sBreak, t))
		case "continue":
			p.next()
			return p.finish(p.mk(sContinue, t))
		case "return":
			p.next()
			s := p.mk(sReturn, t)
			if !p.atStmtEnd() {
				s.value = p.testListStar()
			}
			return p.finish(s)
		case "raise":
			p.next()
			s := p.mk(sRaise, t)
			if !p.atStmtEnd() {
				s.value = p.test()
				if p.acceptKw("from") {
					p.test()
				}
			}
			return p.finish(s)
		case "global", "nonlocal":
			p.next()
			s := p.mk(sOther, t)
			for {
				s.names = append(s.names, alias{name: p.name()})
				if !p.acceptOp(",") {
					break
				}
			}
			return p.finish(s)
		case "del":
			p.next()
			s := p.mk(sDel, t)
			s.targets = append(s.targets, p.exprList())
			return p.finish(s)
		case "assert":
			p.next()
			s := p.mk(sExpr, t)
			s.value = p.test()
			if p.acceptOp(",") {
				p.test()
			}
			return p.finish(s)
		case "import":
			p.next()
			s := p.mk(sImport, t)
			for {
				n := p.dottedName()
				a := alias{name: n}
				if p.acceptKw("as") {
					a.as = p.name()
				}
				s.names = append(s.names, a)
				if !p.acceptOp(",") {
					break
				}
			}
			return p.finish(s)
		case "from":
			p.next()
			s := p.mk(sFrom, t)
			dots := 0
			for p.isOp(".") || p.isOp("...") {
				dots += len(p.next().text)
			}
			if !p.isKw("import") {
				s.module = p.dottedName()
			}
			s.module = strings.Repeat(".", dots) + s.module
			if !p.acceptKw("import") {
				p.fail("expected import")
			}
			if p.acceptOp("*") {
				s.names = []alias{{name: "*"}}
				return p.finish(s)
			}
			paren := p.acceptOp("(")
			for {
				if paren && p.isOp(")") {
					break
				}
				a := alias{name: p.name()}
				if p.acceptKw("as") {
					a.as = p.name()
				}
				s.names = append(s.names, a)
				if !p.acceptOp(",") {
					break
				}
			}
			if paren {
				p.expectOp(")")
			}
			return p.finish(s)
		case "type":
			// soft keyword: type X = ...
			if p.toks[p.i+1].kind == tName && p.i+2 < len(p.toks) && (p.toks[p.i+2].text == "=" || p.toks[p.i+2].text == "[") {
				p.next()
				s := p.mk(sOther, t)
				p.name()
				if p.acceptOp("[") {
					p.skipBalanced("]")
				}
				p.expectOp("=")
				s.value = p.test()
				return p.finish(s)
			}
		}
	}
	// expression statement / assignment
	s := p.mk(sExpr, t)
	var first *expr
	if p.isKw("yield") {
		first = p.yieldExpr()
	} else {
		first = p.testListStar()
	}
	if p.isOp("=") {
		s.kind = sAssign
		s.targets = []*expr{first}
		for p.acceptOp("=") {
			var v *expr
			if p.isKw("yield") {
				v = p.yieldExpr()
			} else {
				v = p.testListStar()
			}
			s.targets = append(s.targets, v)
		}
		s.value = s.targets[len(s.targets)-1]
		s.targets = s.targets[:len(s.targets)-1]
		return p.finish(s)
	}
	if p.isOp(":") {
		// annotated assignment
		p.next()
		p.test()
		if p.acceptOp("=") {
			s.kind = sAssign
			s.targets = []*expr{first}
			if p.isKw("yield") {
				s.value = p.yieldExpr()
			} else {
				s.value = p.testListStar()
			}
		} else {
			s.kind = sPass
		}
		return p.finish(s)
	}
	if tk := p.peek(); tk.kind == tOp && len(tk.text) >= 2 && strings.HasSuffix(tk.text, "=") && tk.text != "==" && tk.text != "<=" && tk.text != ">=" && tk.text != "!=" {
		p.next()
		s.kind = sAugAssign
		s.op = strings.TrimSuffix(tk.text, "=")
		s.targets = []*expr{first}
		if p.isKw("yield") {
			s.value = p.yieldExpr()
		} else {
			s.value = p.testList()
		}
		return p.finish(s)
	}
	s.value = first
	return p.finish(s)
}

func (p *parser) atStmtEnd() bool {
	t := p.peek()
	return t.kind == tNewline || t.kind == tEOF || (t.kind == tOp && t.text == ";")
}

func (p *parser) name() string {
	t := p.peek()
	if t.kind != tName {
		p.fail("expected name, found " + describe(t))
	}
	p.next()
	return t.text
}

func (p *parser) dottedName() string {
	n := p.name()
	for p.acceptOp(".") {
		n += "." + p.name()
	}
	return n
}

func (p *parser) skipBalanced(closer string) {
	depth := 1
	for depth > 0 {
		t := p.next()
		if t.kind == tEOF {
			p.fail("unexpected end of input")
		}
		if t.kind == tOp {
			switch t.text {
			case "(", "[", "{":
				depth++
			case ")", "]", "}":
				depth--
			}
		}
	}
}

// suite parses the body after a ':'.
func (p *parser) suite() []*stmt {
	p.expectOp(":")
	if p.peek().kind != tNewline {
		return p.simpleStmts()
	}
	p.next()
	if p.peek().kind != tIndent {
		p.fail("expected an indented block")
	}
	p.next()
	var body []*stmt
	for p.peek().kind != tDedent && p.peek().kind != tEOF {
		if p.peek().kind == tNewline {
			p.next()
			continue
		}
		body = append(body, p.statement()...)
	}
	if p.peek().kind == tDedent {
		p.next()
	}
	return body
}

func (p *parser) ifStmt() *stmt {
	t := p.next()
	s := p.mk(sIf, t)
	s.value = p.namedTest()
	s.body = p.suite()
	if p.isKw("elif") {
		s.orelse = []*stmt{p.ifStmt()}
	} else if p.acceptKw("else") {
		s.orelse = p.suite()
	}
	return p.finish(s)
}

func (p *parser) forStmt(t *token) *stmt {
	p.next() // for
	s := p.mk(sFor, t)
	s.targets = []*expr{p.exprList()}
	if !p.acceptKw("in") {
		p.fail("expected 'in'")
	}
	s.value = p.testListStar()
	s.body = p.suite()
	if p.acceptKw("else") {
		s.orelse = p.suite()
	}
	return p.finish(s)
}

func (p *parser) tryStmt() *stmt {
	t := p.next()
	s := p.mk(sTry, t)
	s.body = p.suite()
	for p.isKw("except") {
		p.next()
		p.acceptOp("*")
		var h handler
		if !p.isOp(":") {
			h.typ = p.test()
			if p.acceptKw("as") {
				h.name = p.name()
			} else if p.acceptOp(",") {
				p.test()
			}
		}
		h.body = p.suite()
		s.handlers = append(s.handlers, h)
	}
	if p.acceptKw("else") {
		s.orelse = p.suite()
	}
	if p.acceptKw("finally") {
		s.final = p.suite()
	}
	return p.finish(s)
}

func (p *parser) withStmt(t *token) *stmt {
	p.next() // with
	s := p.mk(sWith, t)
	paren := false
	if p.isOp("(") {
		// parenthesized with-items (3.10+) or a parenthesized expression
		save := p.i
		func() {
			defer func() {
				if r := recover(); r != nil {
					if _, ok := r.(parseFail); !ok {
						panic(r)
					}
					p.i = save
					s.items = nil
					paren = false
				}
			}()
			p.next()
			for !p.isOp(")") {
				it := withItem{ctx: p.test()}
				if p.acceptKw("as") {
					it.as = p.target()
				}
				s.items = append(s.items, it)
				if !p.acceptOp(",") {
					break
				}
			}
			p.expectOp(")")
			if !p.isOp(":") {
				panic(parseFail{&syntaxError{msg: "retry"}})
			}
			paren = true
		}()
	}
	if !paren {
		for {
			it := withItem{ctx: p.test()}
			if p.acceptKw("as") {
				it.as = p.target()
			}
			s.items = append(s.items, it)
			if !p.acceptOp(",") {
				break
			}
		}
	}
	s.body = p.suite()
	return p.finish(s)
}

func (p *parser) target() *expr {
	return p.expr()
}

func (p *parser) defStmt(t *token, decs []*expr) *stmt {
	p.acceptKw("async")
	p.next() // def
	s := p.mk(sDef, t)
	s.decorators = decs
	s.name = p.name()
	if p.acceptOp("[") {
		p.skipBalanced("]")
	}
	p.expectOp("(")
	// parameters: names with optional annotations and defaults
	for !p.isOp(")") {
		star := ""
		if p.isOp("*") || p.isOp("**") {
			star = p.next().text
			if p.isOp(",") || p.isOp(")") {
				p.acceptOp(",")
				continue
			}
		}
		if p.acceptOp("/") {
			p.acceptOp(",")
			continue
		}
		s.params = append(s.params, star+p.name())
		if p.acceptOp(":") {
			p.test()
		}
		var def *expr
		if p.acceptOp("=") {
			def = p.test()
		}
		s.defaults = append(s.defaults, def)
		if !p.acceptOp(",") {
			break
		}
	}
	p.expectOp(")")
	if p.acceptOp("->") {
		p.test()
	}
	s.body = p.suite()
	return p.finish(s)
}

func (p *parser) classStmt(t *token, decs []*expr) *stmt {
	p.next() // class
	s := p.mk(sClass, t)
	s.decorators = decs
	s.name = p.name()
	if p.acceptOp("[") {
		p.skipBalanced("]")
	}
	if p.acceptOp("(") {
		args, kws := p.callArgs()
		s.bases = args
		for _, k := range kws {
			s.bases = append(s.bases, k.v)
		}
	}
	s.body = p.suite()
	return p.finish(s)
}

// tryMatch parses a match statement loosely: the subject is analyzed and
// each case body is parsed; patterns are skipped.
func (p *parser) tryMatch(t *token) *stmt {
	save := p.i
	ok := false
	var s *stmt
	func() {
		defer func() {
			if r := recover(); r != nil {
				if _, isPF := r.(parseFail); !isPF {
					panic(r)
				}
			}
		}()
		p.next()
		subj := p.testListStar()
		if !p.isOp(":") || p.toks[p.i+1].kind != tNewline {
			return
		}
		s = p.mk(sIf, t)
		s.value = subj
		ok = true
	}()
	if !ok {
		p.i = save
		return nil
	}
	p.expectOp(":")
	p.next() // newline
	if p.peek().kind != tIndent {
		p.fail("expected an indented block")
	}
	p.next()
	for p.peek().kind != tDedent && p.peek().kind != tEOF {
		if p.peek().kind == tNewline {
			p.next()
			continue
		}
		if !p.acceptKw("case") {
			p.fail("expected 'case'")
		}
		// skip pattern up to the ':' that opens the block at depth 0
		depth := 0
		for {
			tk := p.peek()
			if tk.kind == tEOF || tk.kind == tNewline {
				p.fail("invalid case pattern")
			}
			if tk.kind == tOp {
				switch tk.text {
				case "(", "[", "{":
					depth++
				case ")", "]", "}":
					depth--
				}
				if tk.text == ":" && depth == 0 {
					break
				}
			}
			p.next()
		}
		s.body = append(s.body, p.suite()...)
	}
	if p.peek().kind == tDedent {
		p.next()
	}
	return p.finish(s)
}

// ---- expressions ----

func (p *parser) node(k ekind, t *token) *expr {
	e := p.newExpr()
	e.kind, e.line, e.col, e.off = k, int(t.line), int(t.col), int(t.off)
	return e
}

func (p *parser) done(e *expr) *expr {
	if p.i > 0 {
		e.end = int(p.toks[p.i-1].end)
	}
	return e
}

func (p *parser) yieldExpr() *expr {
	t := p.next() // yield
	e := p.node(eYield, t)
	if p.acceptKw("from") {
		e.x = p.test()
	} else if !p.atStmtEnd() && !p.isOp(")") && !p.isOp("=") {
		e.x = p.testListStar()
	}
	return p.done(e)
}

// testListStar parses a comma list of tests or starred expressions; a
// single element without a comma is returned as is.
func (p *parser) testListStar() *expr {
	t := p.peek()
	first := p.starOrNamed()
	if !p.isOp(",") {
		return first
	}
	e := p.node(eTuple, t)
	e.args = []*expr{first}
	for p.acceptOp(",") {
		if p.atListEnd() {
			break
		}
		e.args = append(e.args, p.starOrNamed())
	}
	return p.done(e)
}

func (p *parser) testList() *expr { return p.testListStar() }

func (p *parser) atListEnd() bool {
	t := p.peek()
	if t.kind == tNewline || t.kind == tEOF {
		return true
	}
	if t.kind == tOp {
		switch t.text {
		case ")", "]", "}", "=", ";", ":":
			return true
		}
		if len(t.text) >= 2 && strings.HasSuffix(t.text, "=") && t.text != "==" && t.text != "<=" && t.text != ">=" && t.text != "!=" {
			return true
		}
	}
	if t.kind == tName && t.text == "in" {
		return true
	}
	return false
}

func (p *parser) exprList() *expr {
	t := p.peek()
	first := p.starOr(p.expr)
	if !p.isOp(",") {
		return first
	}
	e := p.node(eTuple, t)
	e.args = []*expr{first}
	for p.acceptOp(",") {
		if p.atListEnd() {
			break
		}
		e.args = append(e.args, p.starOr(p.expr))
	}
	return p.done(e)
}

func (p *parser) starOr(f func() *expr) *expr {
	t := p.peek()
	if p.acceptOp("*") {
		e := p.node(eStarred, t)
		e.x = p.expr()
		return p.done(e)
	}
	return f()
}

func (p *parser) starOrNamed() *expr { return p.starOr(p.namedTest) }

func (p *parser) namedTest() *expr {
	t := p.peek()
	if t.kind == tName && p.toks[p.i+1].kind == tOp && p.toks[p.i+1].text == ":=" {
		p.next()
		p.next()
		e := p.node(eWalrus, t)
		e.name = t.text
		e.x = p.test()
		return p.done(e)
	}
	return p.test()
}

func (p *parser) test() *expr {
	p.enter()
	defer func() { p.depth-- }()
	t := p.peek()
	if p.isKw("lambda") {
		return p.lambda()
	}
	e := p.orTest()
	if p.isKw("if") {
		// ternary; guard against comprehension 'if' handled by callers
		p.next()
		n := p.node(eIfExp, t)
		n.x = e
		n.y = p.orTest()
		if !p.acceptKw("else") {
			p.fail("expected 'else' in conditional expression")
		}
		n.z = p.test()
		return p.done(n)
	}
	return e
}

func (p *parser) testNoCond() *expr {
	if p.isKw("lambda") {
		return p.lambda()
	}
	return p.orTest()
}

func (p *parser) lambda() *expr {
	t := p.next()
	e := p.node(eLambda, t)
	for !p.isOp(":") {
		tk := p.next()
		if tk.kind == tEOF || tk.kind == tNewline {
			p.fail("invalid lambda")
		}
		if tk.kind == tName && !keywords[tk.text] {
			e.args = append(e.args, &expr{kind: eName, name: tk.text, line: int(tk.line), col: int(tk.col), off: int(tk.off), end: int(tk.end)})
		}
		if tk.kind == tOp && tk.text == "=" {
			p.test()
		}
	}
	p.next()
	e.x = p.test()
	return p.done(e)
}

func (p *parser) orTest() *expr {
	t := p.peek()
	e := p.andTest()
	for p.isKw("or") {
		p.next()
		n := p.node(eBool, t)
		n.name = "or"
		n.x, n.y = e, p.andTest()
		e = p.done(n)
	}
	return e
}

func (p *parser) andTest() *expr {
	t := p.peek()
	e := p.notTest()
	for p.isKw("and") {
		p.next()
		n := p.node(eBool, t)
		n.name = "and"
		n.x, n.y = e, p.notTest()
		e = p.done(n)
	}
	return e
}

// enter guards recursion depth; deeply nested input is a parse error
// rather than a stack overflow.
func (p *parser) enter() {
	p.depth++
	if p.depth > 400 {
		p.fail("expression nested too deeply")
	}
}

func (p *parser) notTest() *expr {
	p.enter()
	defer func() { p.depth-- }()
	t := p.peek()
	if p.acceptKw("not") {
		n := p.node(eUnary, t)
		n.name = "not"
		n.x = p.notTest()
		return p.done(n)
	}
	return p.comparison()
}

func (p *parser) comparison() *expr {
	t := p.peek()
	e := p.expr()
	for {
		tk := p.peek()
		op := ""
		switch {
		case tk.kind == tOp && (tk.text == "<" || tk.text == ">" || tk.text == "==" || tk.text == ">=" || tk.text == "<=" || tk.text == "!="):
			op = tk.text
			p.next()
		case tk.kind == tName && tk.text == "in":
			op = "in"
			p.next()
		case tk.kind == tName && tk.text == "not" && p.toks[p.i+1].kind == tName && p.toks[p.i+1].text == "in":
			op = "not in"
			p.next()
			p.next()
		case tk.kind == tName && tk.text == "is":
			op = "is"
			p.next()
			p.acceptKw("not")
		}
		if op == "" {
			return e
		}
		n := p.node(eCompare, t)
		n.name = op
		n.x, n.y = e, p.expr()
		e = p.done(n)
	}
}

var binPrec = map[string]int{"|": 1, "^": 2, "&": 3, "<<": 4, ">>": 4, "+": 5, "-": 5, "*": 6, "/": 6, "%": 6, "//": 6, "@": 6}

func (p *parser) expr() *expr { return p.binary(1) }

func (p *parser) binary(min int) *expr {
	t := p.peek()
	e := p.factor()
	for {
		tk := p.peek()
		if tk.kind != tOp {
			return e
		}
		prec, ok := binPrec[tk.text]
		if !ok || prec < min {
			return e
		}
		p.next()
		n := p.node(eBin, t)
		n.name = tk.text
		n.x = e
		n.y = p.binary(prec + 1)
		e = p.done(n)
	}
}

func (p *parser) factor() *expr {
	p.enter()
	defer func() { p.depth-- }()
	t := p.peek()
	if t.kind == tOp && (t.text == "-" || t.text == "+" || t.text == "~") {
		p.next()
		n := p.node(eUnary, t)
		n.name = t.text
		n.x = p.factor()
		return p.done(n)
	}
	return p.power()
}

func (p *parser) power() *expr {
	t := p.peek()
	var e *expr
	if p.isKw("await") {
		p.next()
		e = p.node(eAwait, t)
		e.x = p.atomTrailers()
		e = p.done(e)
	} else {
		e = p.atomTrailers()
	}
	if p.acceptOp("**") {
		n := p.node(eBin, t)
		n.name = "**"
		n.x = e
		n.y = p.factor()
		e = p.done(n)
	}
	return e
}

func (p *parser) atomTrailers() *expr {
	t := p.peek()
	e := p.atom()
	for {
		switch {
		case p.isOp("("):
			p.next()
			n := p.node(eCall, t)
			p.calls++
			n.x = e
			var kws []kwarg
			n.args, kws = p.callArgs()
			if len(kws) > 0 {
				n.exprMore = &exprMore{kws: kws}
			}
			e = p.done(n)
		case p.isOp("["):
			p.next()
			n := p.node(eSubscript, t)
			n.x = e
			n.y = p.subscriptList()
			p.expectOp("]")
			e = p.done(n)
		case p.isOp("."):
			p.next()
			n := p.node(eAttr, t)
			n.x = e
			n.name = p.name()
			e = p.done(n)
		default:
			return e
		}
	}
}

// callArgs parses arguments after '(' through ')'.
func (p *parser) callArgs() (args []*expr, kws []kwarg) {
	for !p.isOp(")") {
		t := p.peek()
		switch {
		case p.acceptOp("**"):
			kws = append(kws, kwarg{v: p.test()})
		case p.isOp("*"):
			args = append(args, p.starOr(p.test))
		case t.kind == tName && p.toks[p.i+1].kind == tOp && p.toks[p.i+1].text == "=":
			p.next()
			p.next()
			kws = append(kws, kwarg{name: t.text, v: p.test()})
		default:
			a := p.namedTest()
			if p.isKw("for") || p.isKw("async") {
				g := p.node(eComp, t)
				g.name = "gen"
				g.x = a
				g.exprMore = &exprMore{comp: p.compFors()}
				a = p.done(g)
			}
			args = append(args, a)
		}
		if !p.acceptOp(",") {
			break
		}
	}
	p.expectOp(")")
	return
}

func (p *parser) compFors() []compFor {
	var out []compFor
	for p.isKw("for") || p.isKw("async") {
		p.acceptKw("async")
		p.next()
		var c compFor
		c.target = p.exprList()
		if !p.acceptKw("in") {
			p.fail("expected 'in' in comprehension")
		}
		c.iter = p.orTest()
		for p.isKw("if") {
			p.next()
			c.conds = append(c.conds, p.testNoCond())
		}
		out = append(out, c)
	}
	return out
}

func (p *parser) subscriptList() *expr {
	t := p.peek()
	first := p.subscript()
	if !p.isOp(",") {
		return first
	}
	e := p.node(eTuple, t)
	e.args = []*expr{first}
	for p.acceptOp(",") {
		if p.isOp("]") {
			break
		}
		e.args = append(e.args, p.subscript())
	}
	return p.done(e)
}

func (p *parser) subscript() *expr {
	t := p.peek()
	var lo *expr
	if !p.isOp(":") {
		lo = p.starOrNamed()
		if !p.isOp(":") {
			return lo
		}
	}
	n := p.node(eSlice, t)
	n.x = lo
	p.expectOp(":")
	if !p.isOp("]") && !p.isOp(":") && !p.isOp(",") {
		n.y = p.test()
	}
	if p.acceptOp(":") {
		if !p.isOp("]") && !p.isOp(",") {
			n.z = p.test()
		}
	}
	return p.done(n)
}

func (p *parser) atom() *expr {
	t := p.peek()
	switch t.kind {
	case tName:
		if keywords[t.text] {
			switch t.text {
			case "None", "True", "False":
				p.next()
				e := p.node(eConst, t)
				e.name = t.text
				return p.done(e)
			case "yield":
				return p.yieldExpr()
			}
			p.fail("invalid syntax: unexpected keyword '" + t.text + "'")
		}
		p.next()
		e := p.node(eName, t)
		e.name = t.text
		return p.done(e)
	case tNumber:
		p.next()
		e := p.node(eNum, t)
		e.str = t.text
		return p.done(e)
	case tString:
		return p.strings()
	case tOp:
		switch t.text {
		case "(":
			p.next()
			if p.acceptOp(")") {
				return p.done(p.node(eTuple, t))
			}
			if p.isKw("yield") {
				e := p.yieldExpr()
				p.expectOp(")")
				return e
			}
			first := p.starOrNamed()
			if p.isKw("for") || p.isKw("async") {
				g := p.node(eComp, t)
				g.name = "gen"
				g.x = first
				g.exprMore = &exprMore{comp: p.compFors()}
				p.expectOp(")")
				return p.done(g)
			}
			if !p.isOp(",") {
				p.expectOp(")")
				return first
			}
			e := p.node(eTuple, t)
			e.args = []*expr{first}
			for p.acceptOp(",") {
				if p.isOp(")") {
					break
				}
				e.args = append(e.args, p.starOrNamed())
			}
			p.expectOp(")")
			return p.done(e)
		case "[":
			p.next()
			e := p.node(eList, t)
			if p.acceptOp("]") {
				return p.done(e)
			}
			first := p.starOrNamed()
			if p.isKw("for") || p.isKw("async") {
				e.kind = eComp
				e.name = "list"
				e.x = first
				e.exprMore = &exprMore{comp: p.compFors()}
				p.expectOp("]")
				return p.done(e)
			}
			e.args = []*expr{first}
			for p.acceptOp(",") {
				if p.isOp("]") {
					break
				}
				e.args = append(e.args, p.starOrNamed())
			}
			p.expectOp("]")
			return p.done(e)
		case "{":
			return p.dictOrSet(t)
		case "...":
			p.next()
			e := p.node(eConst, t)
			e.name = "..."
			return p.done(e)
		}
	}
	p.fail("invalid syntax: unexpected " + describe(t))
	return nil
}

func (p *parser) dictOrSet(t *token) *expr {
	p.next()
	e := p.node(eDict, t)
	e.exprMore = &exprMore{}
	if p.acceptOp("}") {
		return p.done(e)
	}
	// first element decides dict vs set
	if p.acceptOp("**") {
		e.args = append(e.args, nil)
		e.vals = append(e.vals, p.expr())
	} else {
		k := p.starOrNamed()
		if p.acceptOp(":") {
			v := p.test()
			if p.isKw("for") || p.isKw("async") {
				c := p.node(eComp, t)
				c.name = "dict"
				c.x = k
				c.y = v
				c.exprMore = &exprMore{comp: p.compFors()}
				p.expectOp("}")
				return p.done(c)
			}
			e.args = append(e.args, k)
			e.vals = append(e.vals, v)
		} else {
			e.kind = eSet
			if p.isKw("for") || p.isKw("async") {
				c := p.node(eComp, t)
				c.name = "set"
				c.x = k
				c.exprMore = &exprMore{comp: p.compFors()}
				p.expectOp("}")
				return p.done(c)
			}
			e.args = append(e.args, k)
			for p.acceptOp(",") {
				if p.isOp("}") {
					break
				}
				e.args = append(e.args, p.starOrNamed())
			}
			p.expectOp("}")
			return p.done(e)
		}
	}
	for p.acceptOp(",") {
		if p.isOp("}") {
			break
		}
		if p.acceptOp("**") {
			e.args = append(e.args, nil)
			e.vals = append(e.vals, p.expr())
			continue
		}
		k := p.test()
		p.expectOp(":")
		e.args = append(e.args, k)
		e.vals = append(e.vals, p.test())
	}
	p.expectOp("}")
	return p.done(e)
}

// strings parses adjacent string literals (implicit concatenation).
func (p *parser) strings() *expr {
	t := p.peek()
	var out *expr
	for p.peek().kind == tString {
		tk := p.next()
		var e *expr
		if tk.lit.fstr {
			e = p.node(eFString, tk)
			e.exprMore = &exprMore{parts: tk.lit.parts}
			e.bytes = tk.lit.bytes
			for _, pt := range tk.lit.parts {
				if pt.hasExpr {
					e.fexprs = append(e.fexprs, p.subExpr(pt, tk))
				}
			}
		} else {
			e = p.node(eStr, tk)
			e.str = tk.lit.val
			e.bytes = tk.lit.bytes
		}
		e.end = int(tk.end)
		if out == nil {
			out = e
			continue
		}
		if out.kind == eStr && e.kind == eStr {
			out.str += e.str
			out.end = e.end
			continue
		}
		// concatenation involving an f-string: fold into one f-string
		out = joinFStrings(out, e)
	}
	out.line, out.col, out.off = int(t.line), int(t.col), int(t.off)
	return out
}

func joinFStrings(a, b *expr) *expr {
	toF := func(e *expr) *expr {
		if e.kind == eFString {
			return e
		}
		return &expr{kind: eFString, exprMore: &exprMore{parts: []fpart{{lit: e.str}}}, line: e.line, col: e.col, off: e.off, end: e.end}
	}
	a, b = toF(a), toF(b)
	n := &expr{kind: eFString, exprMore: &exprMore{}, line: a.line, col: a.col, off: a.off, end: b.end}
	n.parts = append(append([]fpart{}, a.parts...), b.parts...)
	n.fexprs = append(append([]*expr{}, a.fexprs...), b.fexprs...)
	return n
}

// subExpr parses the source of one f-string replacement field. A field
// that does not parse becomes an opaque name so the string stays dynamic.
func (p *parser) subExpr(pt fpart, tk *token) *expr {
	src := strings.TrimSpace(pt.expr)
	opaque := &expr{kind: eName, name: "<fexpr>", line: int(tk.line), col: int(tk.col), off: int(tk.off), end: int(tk.end)}
	if src == "" {
		return opaque
	}
	toks, err := tokenize("(" + src + ")")
	if err != nil {
		return opaque
	}
	// The sub-parser carves its nodes from p's blocks, and hands back
	// what is left of them.
	sub := &parser{toks: toks, depth: p.depth + 10, exprs: p.exprs, stmts: p.stmts}
	defer func() { p.exprs, p.stmts = sub.exprs, sub.stmts }()
	var e *expr
	func() {
		defer func() {
			if r := recover(); r != nil {
				if _, ok := r.(parseFail); !ok {
					panic(r)
				}
				e = nil
			}
		}()
		e = sub.testListStar()
	}()
	if e == nil {
		return opaque
	}
	relocate(e, tk)
	return e
}

// relocate moves positions of a sub-parsed tree onto the carrying token.
func relocate(e *expr, tk *token) {
	if e == nil {
		return
	}
	e.line, e.col, e.off, e.end = int(tk.line), int(tk.col), int(tk.off), int(tk.end)
	relocate(e.x, tk)
	relocate(e.y, tk)
	relocate(e.z, tk)
	for _, a := range e.args {
		relocate(a, tk)
	}
	if e.exprMore == nil {
		return
	}
	for _, a := range e.vals {
		relocate(a, tk)
	}
	for _, k := range e.kws {
		relocate(k.v, tk)
	}
	for _, c := range e.comp {
		relocate(c.target, tk)
		relocate(c.iter, tk)
		for _, x := range c.conds {
			relocate(x, tk)
		}
	}
	for _, x := range e.fexprs {
		relocate(x, tk)
	}
}
