package bash

import (
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// field is one argument word after expansion: quotes removed, escapes
// decoded, static variables and substitutions substituted, braces expanded
// and unquoted expansions re-split. Parts that cannot be known keep their
// source text and mark the field dynamic.
type field struct {
	s      string
	dyn    bool
	glob   bool
	quoted bool
	// subst is set when a command or process substitution contributed.
	subst bool
	// procSubst is set when a process substitution contributed.
	procSubst bool
	// enc and downloaded describe content folded from a substitution
	// (`$(echo … | base64 -d)`, `$(curl …)`).
	enc        bool
	downloaded bool
	// x holds the rarely needed details; nil for plain words, which keeps
	// the field small. It is never modified once set (copy on write),
	// since fields are copied freely.
	x *fieldExtra
}

// fieldExtra is the provenance of the dynamic and decoded parts of a word.
type fieldExtra struct {
	// vars are names of variables whose unknown value is part of s.
	vars []string
	// dynRanges are byte ranges of s that came from dynamic parts.
	dynRanges [][2]int
	// ids are the command IDs of substitutions inside the word.
	ids []int
	// decoders are the transforms of folded content, in order.
	decoders []string
	// proc is what a process substitution's commands print, when that
	// folds statically (`<(echo 'rm -rf /')`): the text an interpreter
	// reading the substitution runs.
	proc *string
	// oneRange and oneVar back dynRanges and vars when they hold a single
	// element (the common `$X` or `$(cmd)` word part), so that such
	// details take one allocation instead of three.
	oneRange [1][2]int
	oneVar   [1]string
}

func (f field) varNames() []string {
	if f.x == nil {
		return nil
	}
	return f.x.vars
}

func (f field) dynSpans() [][2]int {
	if f.x == nil {
		return nil
	}
	return f.x.dynRanges
}

func (f field) substIDs() []int {
	if f.x == nil {
		return nil
	}
	return f.x.ids
}

func (f field) decoderList() []string {
	if f.x == nil {
		return nil
	}
	return f.x.decoders
}

// edit returns a private copy of f's extra details to modify. The slices
// are shared with the original but clipped, so appending to them copies
// and the original never changes.
func (f *field) edit() *fieldExtra {
	n := &fieldExtra{}
	if f.x != nil {
		n.vars = clip(f.x.vars)
		n.dynRanges = clip(f.x.dynRanges)
		n.ids = clip(f.x.ids)
		n.decoders = clip(f.x.decoders)
		n.proc = f.x.proc
	}
	f.x = n
	return n
}

// clip limits s's capacity to its length (nil when empty), so that an
// append to it cannot write into memory another slice shares.
func clip[T any](s []T) []T {
	if len(s) == 0 {
		return nil
	}
	return s[:len(s):len(s)]
}

// concat returns a followed by b, sharing either when the other is empty
// (details are never modified in place, see edit).
func concat[T any](a, b []T) []T {
	switch {
	case len(b) == 0:
		return clip(a)
	case len(a) == 0:
		return clip(b)
	}
	out := make([]T, len(a)+len(b))
	copy(out, a)
	copy(out[len(a):], b)
	return out
}

// dynField returns the field of one dynamic word part: its source text,
// the IDs of the substitutions it runs, the decoders its content went
// through and the variable it reads (when name is not ""). It is what
// setIDs, setDecoders, appendDyn and addVar build one after another, from
// the analysis' slab.
func (a *analyzer) dynField(text string, ids []int, decoders []string, name string) field {
	x := &a.extraSlab.take(1)[:1][0]
	x.ids, x.decoders = clip(ids), clip(decoders)
	x.oneRange[0] = [2]int{0, len(text)}
	x.dynRanges = x.oneRange[:1:1]
	if name != "" {
		x.oneVar[0] = name
		x.vars = x.oneVar[:1:1]
	}
	return field{s: text, dyn: true, x: x}
}

func (f *field) addVar(name string) {
	x := f.edit()
	x.vars = append(x.vars, name)
}

func (f *field) setIDs(ids []int) {
	if len(ids) == 0 && f.x == nil {
		return
	}
	f.edit().ids = ids
}

func (f *field) setDecoders(d []string) {
	if len(d) == 0 && f.x == nil {
		return
	}
	f.edit().decoders = d
}

// procContent returns the content an interpreter reading the process
// substitution f runs: static when the substitution folded (so
// `bash <(echo 'rm -rf /')` is judged by what it prints), dynamic otherwise.
// Encoding and download provenance carry over either way.
func (f field) procContent() field {
	c := field{enc: f.enc, downloaded: f.downloaded}
	c.setDecoders(f.decoderList())
	if f.x != nil && f.x.proc != nil && !f.downloaded {
		c.s = *f.x.proc
		return c
	}
	c.dyn = true
	return c
}

func (f *field) setSpans(r [][2]int) {
	if len(r) == 0 && f.x == nil {
		return
	}
	f.edit().dynRanges = r
}

// qmode is the quoting context of a word part.
type qmode uint8

const (
	unquoted qmode = iota
	dquoted
	// assignCtx is the value of an assignment: unquoted escapes, no
	// field splitting.
	assignCtx
)

// maxAlternatives bounds brace expansion so `{a,b}{c,d}…` cannot explode.
const maxAlternatives = 64

func (f *field) appendDyn(s string) {
	start := len(f.s)
	f.s += s
	f.dyn = true
	x := f.edit()
	x.dynRanges = append(x.dynRanges, [2]int{start, len(f.s)})
}

// merge appends g to f (g continues the same word).
func (f *field) merge(g field) {
	off := len(f.s)
	f.s += g.s
	f.dyn = f.dyn || g.dyn
	f.glob = f.glob || g.glob
	f.quoted = f.quoted || g.quoted
	f.subst = f.subst || g.subst
	f.procSubst = f.procSubst || g.procSubst
	f.enc = f.enc || g.enc
	f.downloaded = f.downloaded || g.downloaded
	if g.x == nil {
		return
	}
	if f.x == nil && off == 0 {
		// Nothing before g: the details are g's (never modified in
		// place, so they can be shared).
		f.x = g.x
		return
	}
	old := f.x
	x := &fieldExtra{}
	var fx fieldExtra
	if old != nil {
		fx = *old
	}
	x.vars = concat(fx.vars, g.x.vars)
	x.ids = concat(fx.ids, g.x.ids)
	x.decoders = concat(fx.decoders, g.x.decoders)
	switch n := len(fx.dynRanges) + len(g.x.dynRanges); {
	case n == 0:
	case n == 1 && len(g.x.dynRanges) == 1:
		r := g.x.dynRanges[0]
		x.oneRange[0] = [2]int{r[0] + off, r[1] + off}
		x.dynRanges = x.oneRange[:1:1]
	case len(g.x.dynRanges) == 0:
		x.dynRanges = clip(fx.dynRanges)
	default:
		rs := make([][2]int, len(fx.dynRanges), n)
		copy(rs, fx.dynRanges)
		for _, r := range g.x.dynRanges {
			rs = append(rs, [2]int{r[0] + off, r[1] + off})
		}
		x.dynRanges = rs
	}
	// A substitution's printed text is the word only when nothing else is.
	if off == 0 && fx.proc == nil {
		x.proc = g.x.proc
	}
	f.x = x
}

// joinInPlace appends the fields b to the open word a, reusing a.
func joinInPlace(a, b []field) []field {
	if len(b) == 0 {
		return a
	}
	if len(a) == 0 {
		// b is always a fresh slice built by the part handlers.
		return b
	}
	a[len(a)-1].merge(b[0])
	return append(a, b[1:]...)
}

// joinFields appends the fields b to the open word a: the last field of a
// and the first of b are the same word. a is not modified.
func joinFields(a, b []field) []field {
	if len(b) == 0 {
		return a
	}
	if len(a) == 0 {
		return append([]field(nil), b...)
	}
	out := make([]field, len(a), len(a)+len(b)-1)
	copy(out, a)
	out[len(out)-1].merge(b[0])
	return append(out, b[1:]...)
}

// expandWord expands one shell word into its fields. With emit set the
// substitutions inside it are walked and their facts recorded; without it
// the expansion is pure (used for folding and look-ahead).
func (a *analyzer) expandWord(w *syntax.Word, emit bool) []field {
	return a.appendWord(nil, w, emit)
}

// callWords expands the words of a simple command without recording
// anything: the look-ahead of pipelines and folds.
func (a *analyzer) callWords(call *syntax.CallExpr) []field {
	fs := a.fieldSlab.take(len(call.Args))
	for _, w := range call.Args {
		fs = a.appendWord(fs, w, false)
	}
	return fs
}

// one returns a one-field slice holding f.
func (a *analyzer) one(f field) []field {
	return append(a.fieldSlab.take(1), f)
}

// appendWord appends the fields of w to out.
func (a *analyzer) appendWord(out []field, w *syntax.Word, emit bool) []field {
	if w == nil || len(w.Parts) == 0 {
		return out
	}
	parts := w.Parts
	if len(parts) == 1 {
		if l, ok := parts[0].(*syntax.Lit); ok && !hasWordMeta(l.Value) {
			if len(out) == cap(out) {
				out = append(a.fieldSlab.take(2*len(out)+1), out...)
			}
			return append(out, field{s: l.Value})
		}
	}
	if hasBraceLit(parts) {
		w2 := &syntax.Word{Parts: append([]syntax.WordPart(nil), parts...)}
		if syntax.SplitBraces(w2) {
			parts = w2.Parts
		}
	}
	one, alts := a.expandSeq(parts, emit, unquoted)
	if alts != nil {
		// Brace expansion multiplies words; bound what one analysis
		// produces by the size of its content.
		a.braceFields += len(alts)
		if a.braceFields > len(a.src)/2+maxAlternatives {
			alts = alts[:1]
		}
	}
	if alts == nil {
		for _, f := range one {
			if f.s == "" && !f.quoted && !f.dyn {
				continue
			}
			out = append(out, f)
		}
		return out
	}
	for _, alt := range alts {
		for _, f := range alt {
			if f.s == "" && !f.quoted && !f.dyn {
				continue
			}
			out = append(out, f)
		}
	}
	return out
}

// spaceJoin joins fields with spaces into one, as the shell joins the
// words of eval or of ssh's remote command.
func spaceJoin(fs []field) field {
	f := field{}
	for i, g := range fs {
		if i > 0 {
			f.merge(field{s: " "})
		}
		f.merge(g)
	}
	return f
}

// expandOne expands a word that is used as a single value (a redirect
// target, an assignment value): fields are joined with spaces.
func (a *analyzer) expandOne(w *syntax.Word, emit bool) field {
	fs := a.expandWord(w, emit)
	if len(fs) == 0 {
		return field{}
	}
	f := fs[0]
	for _, g := range fs[1:] {
		f.merge(field{s: " "})
		f.merge(g)
	}
	return f
}

func hasBraceLit(parts []syntax.WordPart) bool {
	for _, p := range parts {
		if l, ok := p.(*syntax.Lit); ok && strings.IndexByte(l.Value, '{') >= 0 {
			return true
		}
	}
	return false
}

// expandParts returns the alternatives (from brace expansion) of a word,
// each a list of fields.
func (a *analyzer) expandParts(parts []syntax.WordPart, emit bool, q qmode) [][]field {
	one, alts := a.expandSeq(parts, emit, q)
	if alts != nil {
		return alts
	}
	return [][]field{one}
}

// expandSeq expands word parts; alts is nil unless brace expansion made
// several alternatives, in which case one is unused.
func (a *analyzer) expandSeq(parts []syntax.WordPart, emit bool, q qmode) (one []field, alts [][]field) {
	quoted := q != unquoted
	add := func(fs []field) {
		if alts == nil {
			one = joinInPlace(one, fs)
			return
		}
		for i := range alts {
			alts[i] = joinFields(alts[i], fs)
		}
	}
	// addOne adds a part that is a single field without allocating a
	// slice for it in the common case.
	addOne := func(f field) {
		if alts == nil {
			if len(one) == 0 {
				if cap(one) == 0 {
					one = a.fieldSlab.take(2)
				}
				one = append(one, f)
			} else {
				one[len(one)-1].merge(f)
			}
			return
		}
		add([]field{f})
	}
	for _, p := range parts {
		switch p := p.(type) {
		case *syntax.Lit:
			var f field
			if q == dquoted {
				f.s = unescapeDouble(p.Value)
				f.quoted = true
			} else if q == assignCtx {
				f.s, _ = unescapeUnquoted(p.Value)
			} else {
				f.s, f.glob = unescapeUnquoted(p.Value)
			}
			addOne(f)
		case *syntax.SglQuoted:
			f := field{quoted: true}
			if p.Dollar {
				f.s = decodeANSIC(p.Value)
			} else {
				f.s = p.Value
			}
			addOne(f)
		case *syntax.DblQuoted:
			// Inside quotes nothing splits, except "${arr[@]}" which
			// yields one word per element.
			fs, inner := a.expandSeq(p.Parts, emit, dquoted)
			if inner != nil {
				fs = inner[0]
			}
			if len(fs) == 0 {
				fs = a.one(field{})
			}
			for i := range fs {
				fs[i].quoted = true
			}
			add(fs)
		case *syntax.ParamExp:
			add(a.expandParam(p, emit, quoted))
		case *syntax.CmdSubst:
			add(a.expandCmdSubst(p, emit, quoted))
		case *syntax.ProcSubst:
			var ids []int
			if emit {
				ids = a.walkNested(p.Stmts, "process_substitution")
				a.feature("process_substitution", p.Pos())
			}
			fr := a.foldStmts(p.Stmts)
			f := a.dynField(a.text(p), ids, fr.decoders, "")
			f.subst, f.procSubst = true, true
			f.downloaded = fr.downloaded
			f.enc = fr.encoded
			if fr.static {
				text := fr.content
				f.x.proc = &text // f.x is new, not shared yet
			}
			addOne(f)
		case *syntax.ArithmExp:
			if emit {
				a.walkHiddenSubsts(p.X)
			}
			if v, ok := a.arith(p.X); ok {
				addOne(field{s: strconv.Itoa(v)})
			} else {
				addOne(a.dynField(a.text(p), nil, nil, ""))
			}
		case *syntax.ExtGlob:
			addOne(field{s: a.text(p), glob: true})
		case *syntax.BraceExp:
			var choices [][]field
			if p.Sequence {
				for _, s := range braceSeq(p) {
					choices = append(choices, []field{{s: s}})
				}
			} else {
				for _, e := range p.Elems {
					for _, alt := range a.expandParts(e.Parts, emit, q) {
						choices = append(choices, alt)
					}
				}
			}
			if len(choices) == 0 {
				continue
			}
			if alts == nil {
				alts = [][]field{one}
			}
			var next [][]field
			for _, base := range alts {
				for _, c := range choices {
					if len(next) >= maxAlternatives {
						break
					}
					next = append(next, joinFields(base, c))
				}
			}
			alts = next
		default:
			addOne(field{s: a.text(p), dyn: true})
		}
	}
	return one, alts
}

func braceSeq(b *syntax.BraceExp) []string {
	if len(b.Elems) < 2 {
		return nil
	}
	from, to := b.Elems[0].Lit(), b.Elems[1].Lit()
	if x, err1 := strconv.Atoi(from); err1 == nil {
		y, err2 := strconv.Atoi(to)
		if err2 != nil {
			return nil
		}
		step := 1
		if x > y {
			step = -1
		}
		var out []string
		for i := x; len(out) < maxAlternatives; i += step {
			out = append(out, strconv.Itoa(i))
			if i == y {
				break
			}
		}
		return out
	}
	if len(from) == 1 && len(to) == 1 {
		x, y := from[0], to[0]
		var out []string
		for c := int(x); len(out) < maxAlternatives; {
			out = append(out, string(rune(c)))
			if c == int(y) {
				break
			}
			if x < y {
				c++
			} else {
				c--
			}
		}
		return out
	}
	return nil
}

// defaultIFS is the shell's default field separator.
const defaultIFS = " \t\n"

// splitIFS splits an unquoted expansion on the IFS characters. Leading
// and trailing separators yield empty boundary fields so that joinFields
// starts a new word.
func splitIFS(s, ifs string) []string {
	if ifs == "" {
		ifs = defaultIFS
	}
	if s == "" || strings.IndexAny(s, ifs) < 0 {
		return []string{s}
	}
	isSep := func(r rune) bool { return strings.ContainsRune(ifs, r) }
	var out []string
	if isSep(rune(s[0])) {
		out = append(out, "")
	}
	out = append(out, strings.FieldsFunc(s, isSep)...)
	if isSep(rune(s[len(s)-1])) {
		out = append(out, "")
	}
	return out
}

// hasIFS reports whether s holds a field separator (and so splits).
func (a *analyzer) hasIFS(s string) bool {
	if a.ifs == "" || a.ifs == defaultIFS {
		for i := 0; i < len(s); i++ {
			if c := s[i]; c == ' ' || c == '\t' || c == '\n' {
				return true
			}
		}
		return false
	}
	return strings.IndexAny(s, a.ifs) >= 0
}

func (a *analyzer) staticFields(s string, quoted bool) []field {
	if quoted {
		return a.one(field{s: s, quoted: true})
	}
	if !a.hasIFS(s) {
		// Nothing to split (splitIFS would return s alone).
		return a.one(field{s: s, glob: hasGlobMeta(s)})
	}
	parts := splitIFS(s, a.ifs)
	out := make([]field, len(parts))
	for i, p := range parts {
		out[i] = field{s: p}
		if hasGlobMeta(p) {
			out[i].glob = true
		}
	}
	return out
}

// expandParam resolves $X / ${X…}.
func (a *analyzer) expandParam(p *syntax.ParamExp, emit, quoted bool) []field {
	name := ""
	if p.Param != nil {
		name = p.Param.Value
	}
	if emit && isIdent(name) && !a.assigned[name] && name != "IFS" {
		a.b.Facts.EnvReads = append(a.b.Facts.EnvReads, sdkEnvRead(name, a.at.Pos(a.lc(p.Pos()))))
	}
	if emit {
		if p.Exp != nil && p.Exp.Word != nil {
			a.walkHiddenSubsts(p.Exp.Word)
		}
		if p.Repl != nil {
			a.walkHiddenSubsts(p.Repl.Orig)
			a.walkHiddenSubsts(p.Repl.With)
		}
		if p.Slice != nil {
			a.walkHiddenSubsts(p.Slice.Offset)
			a.walkHiddenSubsts(p.Slice.Length)
		}
		if p.Index != nil {
			a.walkHiddenSubsts(p.Index)
		}
	}
	prov, hasProv := a.vars[name]
	if (name == "@" || name == "*") && p.Index == nil && p.Exp == nil && p.Slice == nil && p.Repl == nil && !p.Length && !p.Excl {
		if all, ok := a.vars["@"]; ok && all.static {
			if name == "*" && quoted {
				return a.staticFields(all.val, true)
			}
			var fs []field
			for _, e := range all.arr {
				fs = append(fs, a.staticFields(e, quoted)...)
			}
			if fs == nil && quoted {
				return nil
			}
			return fs
		}
	}
	if hasProv && prov.arr != nil && p.Index != nil && !p.Length && p.Exp == nil && p.Slice == nil && p.Repl == nil {
		if u, ok := p.Index.(*syntax.UnaryArithm); ok && u.Op == syntax.Minus && !u.Post {
			// ${a[-1]}: from the end
			if w, ok := u.X.(*syntax.Word); ok {
				if n, ok := a.arrayIndex(w, w.Lit()); ok && n > 0 && n <= len(prov.arr) {
					return a.staticFields(prov.arr[len(prov.arr)-n], quoted)
				}
			}
		}
		if idx, ok := p.Index.(*syntax.Word); ok {
			// elem is element i: static text, or the variable it
			// expands (arrRefs).
			var refs []string
			if prov.flow != nil {
				refs = prov.flow.arrRefs
			}
			elem := func(i int) []field {
				if i < len(refs) && refs[i] != "" {
					r := refs[i]
					return a.one(a.dynField("$"+r, nil, nil, r))
				}
				return a.staticFields(prov.arr[i], quoted)
			}
			switch lit := idx.Lit(); lit {
			case "@", "*":
				if lit == "*" && quoted && refs == nil {
					return a.staticFields(strings.Join(prov.arr, " "), true)
				}
				var fs []field
				for i := range prov.arr {
					fs = append(fs, elem(i)...)
				}
				return fs
			default:
				if n, ok := a.arrayIndex(idx, lit); ok {
					if n < 0 {
						n += len(prov.arr) // ${a[-1]}: from the end
					}
					if n >= 0 && n < len(prov.arr) {
						return elem(n)
					}
				}
			}
		}
	}
	if p.Excl && hasProv && prov.static && isIdent(prov.val) && p.Index == nil && p.Names == 0 {
		// ${!ref}: indirection through a variable holding a name.
		target := &syntax.ParamExp{Param: &syntax.Lit{Value: prov.val}, Short: p.Short}
		if v, ok := a.paramValue(target, prov.val); ok {
			return a.staticFields(v, quoted)
		}
		// The target is not known here: it is the environment
		// variable it names, read and used like $TARGET.
		if emit && !a.assigned[prov.val] {
			a.b.Facts.EnvReads = append(a.b.Facts.EnvReads, sdkEnvRead(prov.val, a.at.Pos(a.lc(p.Pos()))))
		}
		return a.one(a.dynField("$"+prov.val, nil, nil, prov.val))
	}
	if hasProv && prov.placeholder && p.Exp == nil && p.Slice == nil && p.Repl == nil && !p.Length {
		return []field{{s: placeholder, dyn: true, quoted: quoted}}
	}
	if v, ok := a.paramValue(p, name); ok {
		fs := a.staticFields(v, quoted)
		if hasProv && (prov.enc || prov.downloaded) {
			for i := range fs {
				fs[i].enc, fs[i].downloaded = prov.enc, prov.downloaded
				fs[i].setDecoders(prov.decoders)
			}
		}
		return fs
	}
	var decoders []string
	if hasProv {
		decoders = prov.decoders
	}
	vname := ""
	if isIdent(name) {
		vname = name
	}
	f := a.dynField(a.text(p), nil, decoders, vname)
	if hasProv {
		f.enc, f.downloaded = prov.enc, prov.downloaded
		if prov.flow != nil && len(prov.flow.from) > 0 && vname == name && f.x != nil {
			f.x.vars = prov.flow.from // the field's own extra, fresh from the slab
		}
	}
	return a.one(f)
}

// wellKnownSlice holds plausible values of variables whose value is not
// known but whose shape is: slicing them (`${PATH:0:1}`) is static.
var wellKnownSlice = map[string]string{
	"PATH":  "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
	"HOME":  "/home/user",
	"SHELL": "/bin/bash",
	"PWD":   "/",
}

func (a *analyzer) paramValue(p *syntax.ParamExp, name string) (string, bool) {
	if name == "" || p.Excl || p.Length || p.Names != 0 || p.Index != nil || p.NestedParam != nil {
		return "", false
	}
	val, known := "", false
	if v, ok := a.vars[name]; ok {
		val, known = v.val, v.static
	} else if name == "HOME" {
		val, known = "~", true
	} else if name == "PWD" {
		// The working directory is the workspace: `$PWD/.env` is `./.env`.
		val, known = ".", true
	} else if name == "IFS" {
		val, known = " ", true
	}
	switch {
	case p.Slice != nil:
		base := val
		if wk, ok := wellKnownSlice[name]; ok && (!known || name == "HOME" || name == "PWD") {
			base, known = wk, true
		}
		if !known {
			return "", false
		}
		off, ok := a.arith(p.Slice.Offset)
		if !ok {
			return "", false
		}
		if off < 0 {
			off += len(base)
		}
		if off < 0 || off > len(base) {
			return "", true
		}
		rest := base[off:]
		if p.Slice.Length != nil {
			n, ok := a.arith(p.Slice.Length)
			if !ok {
				return "", false
			}
			if n < 0 {
				n += len(rest)
			}
			if n < 0 {
				return "", false
			}
			if n < len(rest) {
				rest = rest[:n]
			}
		}
		return rest, true
	case p.Repl != nil:
		if !known {
			return "", false
		}
		orig, ok1 := a.staticWord(p.Repl.Orig)
		with, ok2 := a.staticWord(p.Repl.With)
		if !ok1 || !ok2 || hasGlobMeta(orig) || orig == "" {
			return "", false
		}
		if p.Repl.All {
			return strings.ReplaceAll(val, orig, with), true
		}
		return strings.Replace(val, orig, with, 1), true
	case p.Exp != nil:
		arg, argOK := a.staticWord(p.Exp.Word)
		switch p.Exp.Op {
		case syntax.DefaultUnset, syntax.DefaultUnsetOrNull, syntax.AssignUnset, syntax.AssignUnsetOrNull:
			if known && (val != "" || p.Exp.Op == syntax.DefaultUnset || p.Exp.Op == syntax.AssignUnset) {
				return val, true
			}
			return "", false
		case syntax.AlternateUnset, syntax.AlternateUnsetOrNull:
			if known && val != "" && argOK {
				return arg, true
			}
			return "", false
		case syntax.RemSmallPrefix, syntax.RemLargePrefix, syntax.RemSmallSuffix, syntax.RemLargeSuffix:
			if !known {
				if wk, ok := wellKnownSlice[name]; ok {
					val, known = wk, true
				}
			}
			if known && argOK && len(val) <= maxPatternSubject {
				return trimPattern(val, arg, p.Exp.Op), true
			}
		case syntax.UpperAll:
			if known {
				return strings.ToUpper(val), true
			}
		case syntax.LowerAll:
			if known {
				return strings.ToLower(val), true
			}
		case syntax.ErrorUnset, syntax.ErrorUnsetOrNull:
			if known {
				return val, true
			}
		}
		return "", false
	}
	return val, known
}

// staticWord returns the value of w when it is fully static (nil → "").
func (a *analyzer) staticWord(w *syntax.Word) (string, bool) {
	if w == nil {
		return "", true
	}
	if len(w.Parts) == 1 {
		if l, ok := w.Parts[0].(*syntax.Lit); ok && strings.IndexByte(l.Value, '\\') < 0 && strings.IndexByte(l.Value, '{') < 0 {
			return l.Value, true
		}
	}
	f := a.expandOne(w, false)
	return f.s, !f.dyn
}

// arith evaluates simple constant arithmetic (literals, + - * /, unary -).
func (a *analyzer) arith(x syntax.ArithmExpr) (int, bool) {
	switch x := x.(type) {
	case nil:
		return 0, true
	case *syntax.Word:
		s, ok := a.staticWord(x)
		if !ok {
			return 0, false
		}
		s = strings.TrimSpace(s)
		n, err := strconv.Atoi(s)
		if err != nil {
			if v, ok := a.vars[s]; ok && v.static {
				n, err = strconv.Atoi(v.val)
				return n, err == nil
			}
			return 0, false
		}
		return n, true
	case *syntax.ParenArithm:
		return a.arith(x.X)
	case *syntax.UnaryArithm:
		v, ok := a.arith(x.X)
		if !ok {
			return 0, false
		}
		switch x.Op {
		case syntax.Minus:
			return -v, true
		case syntax.Plus:
			return v, true
		}
		return 0, false
	case *syntax.BinaryArithm:
		l, ok1 := a.arith(x.X)
		r, ok2 := a.arith(x.Y)
		if !ok1 || !ok2 {
			return 0, false
		}
		switch x.Op {
		case syntax.Add:
			return l + r, true
		case syntax.Sub:
			return l - r, true
		case syntax.Mul:
			return l * r, true
		case syntax.Quo:
			if r == 0 {
				return 0, false
			}
			return l / r, true
		}
	}
	return 0, false
}

// expandCmdSubst walks $(…)/`…` and resolves its output when it folds
// statically (echo/printf, optionally through decoders).
func (a *analyzer) expandCmdSubst(p *syntax.CmdSubst, emit, quoted bool) []field {
	var ids []int
	if emit {
		kind := "substitution"
		if p.Backquotes {
			kind = "backtick"
		}
		a.feature(kind, p.Pos())
		cwd := a.cwd // $( … ) is a subshell
		ids = a.walkNested(p.Stmts, "substitution")
		a.cwd = cwd
	}
	fr := a.foldStmts(p.Stmts)
	if fr.static {
		out := strings.TrimRight(fr.content, "\n")
		fs := a.staticFields(out, quoted)
		if len(fs) == 0 {
			fs = []field{{}}
		}
		for i := range fs {
			fs[i].subst = true
			fs[i].enc = fr.encoded
			fs[i].setDecoders(fr.decoders)
		}
		fs[0].setIDs(ids)
		return fs
	}
	f := a.dynField(a.text(p), ids, fr.decoders, "")
	f.subst, f.enc, f.downloaded = true, fr.encoded, fr.downloaded
	return a.one(f)
}

// unescapeUnquoted removes backslash escapes from an unquoted literal and
// reports whether it holds unescaped glob metacharacters.
func unescapeUnquoted(s string) (string, bool) {
	if strings.IndexByte(s, '\\') < 0 {
		return s, hasGlobMeta(s)
	}
	var sb strings.Builder
	glob := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '\\' && i+1 < len(s) {
			i++
			if s[i] == '\n' {
				continue
			}
			sb.WriteByte(s[i])
			continue
		}
		if c == '*' || c == '?' || c == '[' && strings.IndexByte(s[i+1:], ']') >= 0 {
			glob = true
		}
		sb.WriteByte(c)
	}
	return sb.String(), glob
}

// unescapeDouble removes the escapes that are special inside double quotes.
func unescapeDouble(s string) string {
	if strings.IndexByte(s, '\\') < 0 {
		return s
	}
	var sb strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '\\' && i+1 < len(s) {
			switch s[i+1] {
			case '$', '`', '"', '\\':
				sb.WriteByte(s[i+1])
				i++
				continue
			case '\n':
				i++
				continue
			}
		}
		sb.WriteByte(c)
	}
	return sb.String()
}

// hasGlobMeta reports whether s holds glob syntax: * or ?, or a [ with a
// closing ] after it (a lone [ is the test command, not a pattern).
func hasGlobMeta(s string) bool {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '*', '?':
			return true
		case '[':
			if strings.IndexByte(s[i+1:], ']') >= 0 {
				return true
			}
		}
	}
	return false
}

// hasWordMeta reports whether an unquoted literal holds anything that
// expansion changes (escapes, braces, glob characters): without them the
// literal is its own single field. A byte loop, as this runs for most
// words and strings.ContainsAny builds a set each call.
func hasWordMeta(s string) bool {
	for i := 0; i < len(s); i++ {
		if wordMeta[s[i]] {
			return true
		}
	}
	return false
}

// wordMeta marks the bytes hasWordMeta looks for: one table load per
// byte instead of five comparisons.
var wordMeta = [256]bool{'\\': true, '{': true, '*': true, '?': true, '[': true}

// decodeANSIC decodes the body of $'…'.
func decodeANSIC(s string) string {
	out, _ := decodeEscapes(s, true)
	return out
}

// decodeEscapes decodes backslash escapes as in $'…' (ansi) or printf/echo -e
// (!ansi: `\0NNN` octal as well). It reports whether a character-code escape
// (\x, \u, octal) was decoded, which hides text from a reader.
func decodeEscapes(s string, ansi bool) (string, bool) {
	if strings.IndexByte(s, '\\') < 0 {
		return s, false
	}
	var sb strings.Builder
	coded := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 >= len(s) {
			sb.WriteByte(c)
			continue
		}
		i++
		switch e := s[i]; e {
		case 'n':
			sb.WriteByte('\n')
		case 't':
			sb.WriteByte('\t')
		case 'r':
			sb.WriteByte('\r')
		case 'a':
			sb.WriteByte(7)
		case 'b':
			sb.WriteByte(8)
		case 'e', 'E':
			sb.WriteByte(27)
		case 'f':
			sb.WriteByte('\f')
		case 'v':
			sb.WriteByte('\v')
		case '\\':
			sb.WriteByte('\\')
		case '\'':
			sb.WriteByte('\'')
		case '"':
			sb.WriteByte('"')
		case 'x':
			j := i + 1
			for j < len(s) && j < i+3 && isHex(s[j]) {
				j++
			}
			if j == i+1 {
				sb.WriteString("\\x")
				continue
			}
			v, _ := strconv.ParseUint(s[i+1:j], 16, 8)
			sb.WriteByte(byte(v))
			coded = true
			i = j - 1
		case 'u', 'U':
			max := 4
			if e == 'U' {
				max = 8
			}
			j := i + 1
			for j < len(s) && j < i+1+max && isHex(s[j]) {
				j++
			}
			if j == i+1 {
				sb.WriteByte('\\')
				sb.WriteByte(e)
				continue
			}
			v, _ := strconv.ParseUint(s[i+1:j], 16, 32)
			sb.WriteRune(rune(v))
			coded = true
			i = j - 1
		case '0', '1', '2', '3', '4', '5', '6', '7':
			j := i
			limit := i + 3
			if !ansi && e == '0' {
				limit = i + 4
			}
			for j < len(s) && j < limit && s[j] >= '0' && s[j] <= '7' {
				j++
			}
			v, _ := strconv.ParseUint(s[i:j], 8, 16)
			sb.WriteByte(byte(v))
			coded = true
			i = j - 1
		default:
			sb.WriteByte('\\')
			sb.WriteByte(e)
		}
	}
	return sb.String(), coded
}

func isHex(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

func isIdent(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (i > 0 && c >= '0' && c <= '9') {
			continue
		}
		return false
	}
	return true
}

// maxPatternSubject bounds the values pattern trims are computed on (each
// trim tries every prefix or suffix).
const maxPatternSubject = 4096

// trimPattern implements ${v#p}, ${v##p}, ${v%p}, ${v%%p} for patterns
// made of literals, * and ?.
func trimPattern(val, pat string, op syntax.ParExpOperator) string {
	switch op {
	case syntax.RemSmallPrefix:
		for i := 0; i <= len(val); i++ {
			if globMatch(pat, val[:i]) {
				return val[i:]
			}
		}
	case syntax.RemLargePrefix:
		for i := len(val); i >= 0; i-- {
			if globMatch(pat, val[:i]) {
				return val[i:]
			}
		}
	case syntax.RemSmallSuffix:
		for i := len(val); i >= 0; i-- {
			if globMatch(pat, val[i:]) {
				return val[:i]
			}
		}
	case syntax.RemLargeSuffix:
		for i := 0; i <= len(val); i++ {
			if globMatch(pat, val[i:]) {
				return val[:i]
			}
		}
	}
	return val
}

// globMatch matches s against a shell pattern of literals, * and ? (other
// pattern syntax is taken literally). It backtracks only to the last star,
// so it runs in O(len(pat)·len(s)).
func globMatch(pat, s string) bool {
	p, i := 0, 0
	star, mark := -1, 0
	for i < len(s) {
		switch {
		case p < len(pat) && (pat[p] == '?' || pat[p] == s[i] && pat[p] != '*'):
			p++
			i++
		case p < len(pat) && pat[p] == '*':
			star, mark = p, i
			p++
		case star >= 0:
			p = star + 1
			mark++
			i = mark
		default:
			return false
		}
	}
	for p < len(pat) && pat[p] == '*' {
		p++
	}
	return p == len(pat)
}

// heredocBody expands a heredoc body (literal when the delimiter is quoted).
func (a *analyzer) heredocBody(r *syntax.Redirect, emit bool) field {
	if r.Hdoc == nil {
		return field{}
	}
	alts := a.expandParts(r.Hdoc.Parts, emit, dquoted)
	f := field{}
	if len(alts) > 0 {
		for _, g := range alts[0] {
			f.merge(g)
		}
	}
	return f
}

// arrayIndex resolves the index of ${a[i]} when it is static: a decimal
// literal (negative counts from the end), a variable named bare (the index
// is arithmetic, where names are variables: ${a[n]}) or expanded (${a[$n]})
// that holds one.
func (a *analyzer) arrayIndex(idx *syntax.Word, lit string) (int, bool) {
	if lit != "" {
		if n, err := strconv.Atoi(lit); err == nil {
			return n, true
		}
		if isIdent(lit) {
			if v, ok := a.vars[lit]; ok && v.static {
				n, err := strconv.Atoi(strings.TrimSpace(v.val))
				return n, err == nil
			}
		}
		return 0, false
	}
	if len(idx.Parts) != 1 {
		return 0, false
	}
	pe, ok := idx.Parts[0].(*syntax.ParamExp)
	if !ok || pe.Param == nil || pe.Index != nil || pe.Exp != nil || pe.Slice != nil || pe.Repl != nil || pe.Length || pe.Excl {
		return 0, false
	}
	if v, ok := a.vars[pe.Param.Value]; ok && v.static {
		n, err := strconv.Atoi(strings.TrimSpace(v.val))
		return n, err == nil
	}
	return 0, false
}
