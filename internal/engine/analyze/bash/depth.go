package bash

import "mvdan.cc/sh/v3/syntax"

// treeScan is one pass over a parsed file before it is analyzed: it checks
// the depth bound (maxTreeDepth) and counts the simple commands, which
// sizes the facts. It visits exactly the nodes syntax.Walk visits, at the
// same depths, but with a type switch instead of a callback per node,
// which made the depth check cost as much as a fifth of the analysis.
//
// Trees syntax.Walk would treat specially (comments, which the parser is
// told not to keep, or nil nodes it would trip over) set odd; the caller
// then falls back to treeDepth so that such input behaves exactly as
// before.
type treeScan struct {
	// calls counts simple commands, redirs redirections, and ops the
	// other constructs recorded as shell features (operators,
	// substitutions, subshells, background jobs).
	calls, redirs, ops int
	// args counts the arguments of simple commands, dyns the word parts
	// expanded into dynamic fields, pipes the pipelines: they size the
	// analyzer's slabs.
	args, dyns, pipes int
	odd               bool
}

// estimate returns the expected numbers of commands, file accesses and
// shell features of the file, from what the scan counted, for sizing the
// facts: too small copies large structs as they grow, too large wastes
// memory the collector then scans.
func (t *treeScan) estimate() (commands, files, features int) {
	return t.calls + t.calls/4 + 4, t.calls*2/3 + t.redirs + 2, t.ops + t.redirs + t.calls/8 + 2
}

// tooDeep reports whether file has a node deeper than maxTreeDepth.
func (t *treeScan) tooDeep(file *syntax.File) bool {
	if len(file.Last) > 0 {
		t.odd = true
		return false
	}
	return t.stmts(file.Stmts, 2)
}

func (t *treeScan) stmts(list []*syntax.Stmt, d int) bool {
	for _, s := range list {
		if t.stmt(s, d) {
			return true
		}
	}
	return false
}

func (t *treeScan) words(list []*syntax.Word, d int) bool {
	for _, w := range list {
		if t.word(w, d) {
			return true
		}
	}
	return false
}

func (t *treeScan) stmt(s *syntax.Stmt, d int) bool {
	if d > maxTreeDepth {
		return true
	}
	if s == nil || len(s.Comments) > 0 {
		t.odd = true
		return false
	}
	if s.Background || s.Coprocess {
		t.ops++
	}
	if s.Cmd != nil && t.command(s.Cmd, d+1) {
		return true
	}
	t.redirs += len(s.Redirs)
	for _, r := range s.Redirs {
		if t.redirect(r, d+1) {
			return true
		}
	}
	return false
}

func (t *treeScan) redirect(r *syntax.Redirect, d int) bool {
	if d > maxTreeDepth {
		return true
	}
	if r == nil || r.Word == nil {
		t.odd = true
		return false
	}
	if r.N != nil && d+1 > maxTreeDepth {
		return true
	}
	if t.word(r.Word, d+1) {
		return true
	}
	return r.Hdoc != nil && t.word(r.Hdoc, d+1)
}

func (t *treeScan) assign(as *syntax.Assign, d int) bool {
	if d > maxTreeDepth {
		return true
	}
	if as == nil {
		t.odd = true
		return false
	}
	if as.Name != nil && d+1 > maxTreeDepth {
		return true
	}
	if as.Value != nil && t.word(as.Value, d+1) {
		return true
	}
	if as.Index != nil && t.arith(as.Index, d+1) {
		return true
	}
	if as.Array != nil {
		if d+1 > maxTreeDepth {
			return true
		}
		if len(as.Array.Last) > 0 {
			t.odd = true
			return false
		}
		for _, e := range as.Array.Elems {
			if d+2 > maxTreeDepth {
				return true
			}
			if e == nil || len(e.Comments) > 0 {
				t.odd = true
				return false
			}
			if e.Index != nil && t.arith(e.Index, d+3) {
				return true
			}
			if e.Value != nil && t.word(e.Value, d+3) {
				return true
			}
		}
	}
	return false
}

func (t *treeScan) command(c syntax.Command, d int) bool {
	if d > maxTreeDepth {
		return true
	}
	switch c := c.(type) {
	case *syntax.CallExpr:
		t.calls++
		t.args += len(c.Args)
		for _, as := range c.Assigns {
			if t.assign(as, d+1) {
				return true
			}
		}
		return t.words(c.Args, d+1)
	case *syntax.BinaryCmd:
		t.ops++
		if c.Op == syntax.Pipe || c.Op == syntax.PipeAll {
			t.pipes++
		}
		return t.stmt(c.X, d+1) || t.stmt(c.Y, d+1)
	case *syntax.Subshell:
		t.ops++
		if len(c.Last) > 0 {
			t.odd = true
		}
		return t.stmts(c.Stmts, d+1)
	case *syntax.Block:
		if len(c.Last) > 0 {
			t.odd = true
		}
		return t.stmts(c.Stmts, d+1)
	case *syntax.IfClause:
		if len(c.CondLast) > 0 || len(c.ThenLast) > 0 || len(c.Last) > 0 {
			t.odd = true
		}
		if t.stmts(c.Cond, d+1) || t.stmts(c.Then, d+1) {
			return true
		}
		return c.Else != nil && t.command(c.Else, d+1)
	case *syntax.WhileClause:
		if len(c.CondLast) > 0 || len(c.DoLast) > 0 {
			t.odd = true
		}
		return t.stmts(c.Cond, d+1) || t.stmts(c.Do, d+1)
	case *syntax.ForClause:
		if len(c.DoLast) > 0 {
			t.odd = true
		}
		if d+1 > maxTreeDepth {
			return true
		}
		switch l := c.Loop.(type) {
		case *syntax.WordIter:
			if l.Name == nil {
				t.odd = true
				return false
			}
			if d+2 > maxTreeDepth || t.words(l.Items, d+2) {
				return true
			}
		case *syntax.CStyleLoop:
			for _, x := range []syntax.ArithmExpr{l.Init, l.Cond, l.Post} {
				if x != nil && t.arith(x, d+2) {
					return true
				}
			}
		default:
			t.odd = true
			return false
		}
		return t.stmts(c.Do, d+1)
	case *syntax.FuncDecl:
		if c.Name != nil && d+1 > maxTreeDepth {
			return true
		}
		for range c.Names {
			if d+1 > maxTreeDepth {
				return true
			}
		}
		return t.stmt(c.Body, d+1)
	case *syntax.ArithmCmd:
		return t.arith(c.X, d+1)
	case *syntax.CaseClause:
		if len(c.Last) > 0 {
			t.odd = true
		}
		if t.word(c.Word, d+1) {
			return true
		}
		for _, it := range c.Items {
			if d+1 > maxTreeDepth {
				return true
			}
			if it == nil || len(it.Comments) > 0 || len(it.Last) > 0 {
				t.odd = true
				return false
			}
			if t.words(it.Patterns, d+2) || t.stmts(it.Stmts, d+2) {
				return true
			}
		}
		return false
	case *syntax.TestClause:
		return t.test(c.X, d+1)
	case *syntax.DeclClause:
		for _, as := range c.Args {
			if t.assign(as, d+1) {
				return true
			}
		}
		return false
	case *syntax.TimeClause:
		return c.Stmt != nil && t.stmt(c.Stmt, d+1)
	case *syntax.CoprocClause:
		if c.Name != nil && t.word(c.Name, d+1) {
			return true
		}
		return t.stmt(c.Stmt, d+1)
	case *syntax.LetClause:
		for _, x := range c.Exprs {
			if t.arith(x, d+1) {
				return true
			}
		}
		return false
	case *syntax.TestDecl:
		return t.word(c.Description, d+1) || t.stmt(c.Body, d+1)
	}
	t.odd = true
	return false
}

func (t *treeScan) word(w *syntax.Word, d int) bool {
	if d > maxTreeDepth {
		return true
	}
	if w == nil {
		t.odd = true
		return false
	}
	return t.parts(w.Parts, d+1)
}

func (t *treeScan) parts(list []syntax.WordPart, d int) bool {
	for _, p := range list {
		if t.part(p, d) {
			return true
		}
	}
	return false
}

func (t *treeScan) part(p syntax.WordPart, d int) bool {
	if d > maxTreeDepth {
		return true
	}
	switch p := p.(type) {
	case *syntax.Lit, *syntax.SglQuoted:
		return false
	case *syntax.DblQuoted:
		return t.parts(p.Parts, d+1)
	case *syntax.CmdSubst:
		t.ops++
		t.dyns++
		if len(p.Last) > 0 {
			t.odd = true
		}
		return t.stmts(p.Stmts, d+1)
	case *syntax.ProcSubst:
		t.ops++
		t.dyns++
		if len(p.Last) > 0 {
			t.odd = true
		}
		return t.stmts(p.Stmts, d+1)
	case *syntax.ParamExp:
		t.dyns++
		return t.param(p, d)
	case *syntax.ArithmExp:
		t.dyns++
		return t.arith(p.X, d+1)
	case *syntax.ExtGlob:
		if p.Pattern == nil {
			t.odd = true
			return false
		}
		return d+1 > maxTreeDepth
	case *syntax.BraceExp:
		// Only made by SplitBraces, never by the parser; Walk panics
		// on it.
		t.odd = true
		return false
	}
	t.odd = true
	return false
}

func (t *treeScan) param(p *syntax.ParamExp, d int) bool {
	if (p.Flags != nil || p.Param != nil) && d+1 > maxTreeDepth {
		return true
	}
	if p.NestedParam != nil && t.part(p.NestedParam, d+1) {
		return true
	}
	if p.Index != nil && t.arith(p.Index, d+1) {
		return true
	}
	if p.Slice != nil {
		if p.Slice.Offset != nil && t.arith(p.Slice.Offset, d+1) {
			return true
		}
		if p.Slice.Length != nil && t.arith(p.Slice.Length, d+1) {
			return true
		}
	}
	if p.Repl != nil {
		if p.Repl.Orig != nil && t.word(p.Repl.Orig, d+1) {
			return true
		}
		if p.Repl.With != nil && t.word(p.Repl.With, d+1) {
			return true
		}
	}
	return p.Exp != nil && p.Exp.Word != nil && t.word(p.Exp.Word, d+1)
}

func (t *treeScan) arith(x syntax.ArithmExpr, d int) bool {
	if d > maxTreeDepth {
		return true
	}
	switch x := x.(type) {
	case *syntax.Word:
		if x == nil {
			break
		}
		return t.parts(x.Parts, d+1)
	case *syntax.BinaryArithm:
		return t.arith(x.X, d+1) || t.arith(x.Y, d+1)
	case *syntax.UnaryArithm:
		return t.arith(x.X, d+1)
	case *syntax.ParenArithm:
		return t.arith(x.X, d+1)
	case *syntax.FlagsArithm:
		if x.Flags == nil {
			break
		}
		if d+1 > maxTreeDepth {
			return true
		}
		return x.X != nil && t.arith(x.X, d+1)
	}
	t.odd = true
	return false
}

func (t *treeScan) test(x syntax.TestExpr, d int) bool {
	if d > maxTreeDepth {
		return true
	}
	switch x := x.(type) {
	case *syntax.Word:
		if x == nil {
			break
		}
		return t.parts(x.Parts, d+1)
	case *syntax.BinaryTest:
		return t.test(x.X, d+1) || t.test(x.Y, d+1)
	case *syntax.UnaryTest:
		return t.test(x.X, d+1)
	case *syntax.ParenTest:
		return t.test(x.X, d+1)
	}
	t.odd = true
	return false
}
