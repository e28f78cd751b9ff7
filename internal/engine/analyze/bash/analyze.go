package bash

import (
	"fmt"
	"path"
	"strconv"
	"strings"
	"sync"

	"mvdan.cc/sh/v3/syntax"

	"github.com/toolwarden/toolwarden/internal/engine/facts"
	"github.com/toolwarden/toolwarden/sdk"
)

// Language is the language name the analyzer registers under.
const Language = "bash"

// parserKit is a parser with the reader it reads from, pooled together
// so that a parse allocates neither.
type parserKit struct {
	p *syntax.Parser
	r strings.Reader
}

// reader points k's reader at src.
func (k *parserKit) reader(src string) *strings.Reader {
	k.r.Reset(src)
	return &k.r
}

// put drops k's reference to the source and returns it to parserPool.
func (k *parserKit) put() {
	k.r.Reset("")
	parserPool.Put(k)
}

var parserPool = sync.Pool{New: func() any {
	return &parserKit{p: syntax.NewParser(syntax.Variant(syntax.LangBash), syntax.KeepComments(false))}
}}

// Analyze parses src as bash and appends its facts to b.Facts, placing
// every fact through at. It never panics: content that does not parse, and
// any internal failure, becomes an sdk.ParseError fact so the scan fails
// closed instead of silently allowing.
func Analyze(b *facts.Builder, src string, at facts.Frame) {
	analyze(b, src, at, nil, nil)
}

// analyze is Analyze with positional parameters ($0, $1, …) known, as for
// `bash -c 'code' name arg…`.
// targets are the paths a placeholder among them stands for (find -exec
// sh -c '…' _ {}).
func analyze(b *facts.Builder, src string, at facts.Frame, positional []field, targets []string) {
	defer func() {
		if r := recover(); r != nil {
			b.Facts.ParseErrors = append(b.Facts.ParseErrors, sdk.ParseError{
				Message:  fmt.Sprintf("bash analyzer failure: %v", r),
				Language: Language,
				Pos:      at.Pos(1, 1),
			})
		}
	}()
	if strings.Contains(src, "\r\n") {
		src = strings.ReplaceAll(src, "\r\n", "\n")
	}
	if d := nestingDepth(src); d > maxNesting {
		// Pathological nesting would exhaust the parser's and the
		// walker's stacks; it is not something a script needs.
		b.Facts.ParseErrors = append(b.Facts.ParseErrors, sdk.ParseError{
			Message:  fmt.Sprintf("parse bash: nesting of %d levels exceeds %d", d, maxNesting),
			Language: Language,
			Pos:      at.Pos(1, 1),
		})
		return
	}
	k := parserPool.Get().(*parserKit)
	file, err := k.p.Parse(k.reader(src), "")
	k.put()
	if err != nil {
		line, col := 1, 1
		if pe, ok := err.(syntax.ParseError); ok {
			line, col = int(pe.Pos.Line()), int(pe.Pos.Col())
		}
		b.Facts.ParseErrors = append(b.Facts.ParseErrors, sdk.ParseError{
			Message:  fmt.Sprintf("parse bash: %v", err),
			Language: Language,
			Pos:      at.Pos(line, col),
		})
		return
	}
	var scan treeScan
	if scan.tooDeep(file) || scan.odd {
		// treeDepth gives the exact depth for the message, and the
		// same behaviour as always on trees treeScan does not vouch for.
		if d := treeDepth(file); d > maxTreeDepth {
			b.Facts.ParseErrors = append(b.Facts.ParseErrors, sdk.ParseError{
				Message:  fmt.Sprintf("parse bash: syntax nested %d levels deep exceeds %d", d, maxTreeDepth),
				Language: Language,
				Pos:      at.Pos(1, 1),
			})
			return
		}
	}
	commands() // the command table semantics reads, built once
	a := analyzerPool.Get().(*analyzer)
	a.b, a.nestBudget, a.src, a.at = b, len(src)+nestMargin, src, at
	if at.Depth == 0 && b.Facts.Commands == nil {
		presize(b.Facts, &scan)
	}
	// Sized by the scan, the slabs take one block each for most scripts.
	a.strSlab.reserve(scan.args + 2*scan.pipes + 16)
	a.intSlab.reserve(scan.calls + scan.ops + 8)
	a.redirSlab.reserve(scan.redirs)
	a.extraSlab.reserve(scan.dyns/2 + 2) // many expand statically
	if positional != nil {
		a.setPositional(positional, true)
	}
	start := a.pushCtx()
	start.targets = targets
	if at.Depth > 0 && (at.Via == "eval" || strings.HasSuffix(at.Via, ">eval")) {
		start.reach = []string{"eval"}
	}
	a.walkStmts(file.Stmts, start)
	a.popCtx()
	// Not reached when the walk panics: a half-walked analyzer is left
	// to the collector rather than reset.
	a.recycle()
}

// analyzerPool keeps analyzers between scans for their working memory:
// the two variable maps, the field stack and the small caches, which a
// short command would otherwise allocate afresh every scan.
var analyzerPool = sync.Pool{New: func() any {
	return &analyzer{vars: map[string]varVal{}, assigned: map[string]bool{}}
}}

// Bounds on what recycle keeps: a long script's larger maps and field
// chunks go to the collector instead of being cleared and held.
const (
	maxPooledVars   = 64
	maxPooledFields = 4 * minFieldChunk
	maxPooledCtxs   = 16
	maxPooledStages = 64
)

// pushCtx returns a zero ctx from a's stack of them, for a walk that
// passes its address down; popCtx gives back the last one pushed, which
// must then no longer be used. The ctx values are reused across scans
// with the analyzer (ctx holds nothing a fact keeps).
func (a *analyzer) pushCtx() *ctx {
	if a.ctxTop == len(a.ctxs) {
		a.ctxs = append(a.ctxs, new(ctx))
	}
	c := a.ctxs[a.ctxTop]
	a.ctxTop++
	return c
}

// popCtx releases the ctx pushCtx returned last, zeroing it.
func (a *analyzer) popCtx() {
	a.ctxTop--
	*a.ctxs[a.ctxTop] = ctx{}
}

// recycle resets a to a fresh analyzer's state and returns it to
// analyzerPool. It keeps only working memory no fact refers to (see
// fieldStack), cleared so that no text of this scan stays reachable; the
// slabs, whose blocks facts keep using, start anew.
func (a *analyzer) recycle() {
	keep := analyzer{
		vars:     a.vars,
		assigned: a.assigned,
		reaches:  a.reaches[:0],
		idStack:  a.idStack[:0],
		saved:    a.saved[:0],
		stages:   a.stages[:0],
	}
	if cap(keep.stages) > maxPooledStages {
		keep.stages = nil
	}
	if len(a.ctxs) <= maxPooledCtxs {
		// popCtx left them zero.
		keep.ctxs = a.ctxs
	}
	if len(keep.vars) > maxPooledVars {
		keep.vars = map[string]varVal{}
	} else {
		clear(keep.vars)
	}
	if len(keep.assigned) > maxPooledVars {
		keep.assigned = map[string]bool{}
	} else {
		clear(keep.assigned)
	}
	clear(a.reaches)
	clear(a.saved[:cap(a.saved)])
	fields := 0
	for _, c := range a.fieldSlab.chunks {
		fields += len(c)
	}
	if fields <= maxPooledFields {
		for _, c := range a.fieldSlab.chunks {
			clear(c)
		}
		keep.fieldSlab.chunks = a.fieldSlab.chunks
	}
	*a = keep
	analyzerPool.Put(a)
}

// presize reserves room for the facts of a top-level script so appending
// them does not copy large structs over and over, sized by what the tree
// scan counted (see treeScan.estimate).
func presize(f *sdk.Facts, scan *treeScan) {
	commands, files, features := scan.estimate()
	f.Commands = make([]sdk.Command, 0, commands)
	f.Files = make([]sdk.FileAccess, 0, files)
	f.ShellFeatures = make([]sdk.ShellFeature, 0, features)
}

// savedVar is a variable's value saved while a function call is walked;
// had is false when it was not set.
type savedVar struct {
	v   varVal
	had bool
}

// varVal is what the analyzer knows about a shell variable.
type varVal struct {
	val    string
	static bool
	// enc, decoders and downloaded carry the provenance of a value
	// folded from a substitution (`x=$(echo … | base64 -d)`).
	enc        bool
	decoders   []string
	downloaded bool
	// arr holds the elements of a statically known indexed array.
	arr []string
	// placeholder marks a positional parameter filled by find/xargs.
	placeholder bool
	// flow, rarely set, says which variables the value stands for (a
	// pointer so that varVal, a map value, stays small).
	flow *varFlow
}

// varFlow is the value flow of a variable that is not a static value.
type varFlow struct {
	// from, when set, is the variable's own name followed by the
	// variables its dynamic value was built from (`t=$API_TOKEN`,
	// `h="Bearer $TOKEN"`): a use of the variable reads them all, so
	// sending or printing $t is judged as sending $API_TOKEN. Built once
	// per assignment and shared by every use (never modified in place);
	// at most maxFrom names.
	from []string
	// arrRefs, when set, parallels varVal.arr: arrRefs[i] names the
	// variable whose unknown value element i is (`read -a a <<< "$SHELL
	// -c id"`: a[0] is $SHELL), "" for a static element.
	arrRefs []string
}

// maxFrom bounds varVal.from: values assembled from many variables
// (doubling tricks) stop adding names.
const maxFrom = 16

type analyzer struct {
	// cwd is the directory outside the workspace that cd last moved to
	// (chdir), "" when in the workspace or unknown.
	cwd string
	// keyLines are the lines where expanded words already yielded a
	// private-key Secret (foldedKey).
	keyLines map[int]bool
	// links maps a link the script created (ln -s TARGET LINK) to its
	// target: a path through the link is judged as the target's.
	links map[string]string
	// cmdEnv holds the static prefix assignments of the simple command
	// being walked (`https_proxy=… curl …`).
	cmdEnv   map[string]string
	b        *facts.Builder
	src      string
	at       facts.Frame
	vars     map[string]varVal
	assigned map[string]bool
	aliases  map[string]string
	// funcs maps a declared function name to its index in Facts.Functions.
	funcs map[string]int
	// written holds static text the script wrote to files; fetched the
	// files it downloaded to. Running such a file is judged by them.
	written  map[string]*strings.Builder
	overflow map[string]bool
	fetched  map[string]bool
	// nestedArgv are the static arguments of the `python3 -c CODE ARGS`
	// being analyzed, handed to the nested Python analysis as sys.argv.
	nestedArgv []string
	// fetchedDirs are the extraction directories of downloaded archives
	// ("." for the working directory): files in them are downloaded.
	fetchedDirs []string
	// funcBodies holds the bodies of functions that read their arguments;
	// calling marks those being walked for a call.
	funcBodies map[string]*syntax.Stmt
	calling    map[string]bool
	// nestBudget is how many bytes of nested content this analysis may
	// still hand to nested analyses; callWalks counts function bodies
	// walked again for calls.
	nestBudget int
	callWalks  int
	// loopWalks counts for loops walked once per known word (walkFor).
	loopWalks   int
	braceFields int
	// foldDepth counts nested folds of substitutions.
	foldDepth int
	// positional are the arguments after `bash -c 'code'`, handed to the
	// nested analysis of that code as $0, $1 …, with the targets of the
	// placeholder among them.
	positional []field
	posTargets []string
	// tcpFDs maps descriptors opened on /dev/tcp to their network fact.
	tcpFDs map[int]int
	// ifs is the field separator set by the script (default IFS when "").
	ifs string
	// effName is the innermost command name of the last emitted command.
	effName string
	// lineStarts caches line offsets for evidence, and evLine/ev the
	// evidence of the last line asked for.
	lineStarts []int
	evLine     int
	ev         string
	// fieldSlab, strSlab and intSlab back the short slices made per
	// word and per command (see slab).
	fieldSlab fieldStack
	strSlab   slab[string]
	intSlab   slab[int]
	redirSlab slab[sdk.Redirect]
	extraSlab slab[fieldExtra]
	// reaches interns ctx.reach slices (see with).
	reaches []reachEntry
	// saved holds the positional parameters of the callers of the
	// functions being walked for a call (see callFunc).
	saved []savedVar
	// idStack holds the IDs collected for the substitutions and pipeline
	// stages being walked. Collections nest strictly (an inner one ends
	// before its outer one continues), so each is a region at the top of
	// one shared stack instead of a slice of its own.
	idStack []int
	// stages is the stack of the pipelines being walked (walkPipeline).
	stages []*syntax.Stmt
	// ctxs is the stack of pushCtx, ctxTop how much of it is in use.
	ctxs   []*ctx
	ctxTop int
}

// ctx is how the statement being walked is reached.
type ctx struct {
	reach  []string
	pipe   int
	stage  int
	stdin  []int
	inFunc string
	bg     bool
	// prevStage/nextStage are the neighbouring pipeline stages.
	prevStage, nextStage *syntax.Stmt
	// earlier are all previous stages of the pipeline.
	earlier []*syntax.Stmt
	// collect pushes the IDs of commands emitted under this context onto
	// analyzer.idStack (see walkNested and walkPipeline).
	collect bool
	// targets replace placeholder arguments (find -exec {}, xargs input)
	// with the paths they stand for.
	targets []string
}

// with returns c reached one step further, through r. Reach slices are
// shared by every command reached the same way (and end up in their facts),
// so they are interned: a script makes only a few distinct ones.
func (a *analyzer) with(c *ctx, r string) ctx {
	out := *c
	out.reach = a.reach(c.reach, r)
	return out
}

// reach returns the interned Reach of parent extended by r.
func (a *analyzer) reach(parent []string, r string) []string {
	for i := range a.reaches {
		e := &a.reaches[i]
		if e.parentLen == len(parent) && e.step == r && (len(parent) == 0 || e.parent == &parent[0]) {
			return e.reach
		}
	}
	n := append(append(a.strSlab.take(len(parent)+1), parent...), r)
	e := reachEntry{parentLen: len(parent), step: r, reach: n}
	if len(parent) > 0 {
		e.parent = &parent[0]
	}
	if a.reaches == nil {
		a.reaches = make([]reachEntry, 0, maxReaches/2)
	}
	if len(a.reaches) < maxReaches {
		a.reaches = append(a.reaches, e)
	}
	return n
}

// reachEntry is one interned Reach: parent (identified by its first
// element and length) extended by step.
type reachEntry struct {
	parent    *string
	parentLen int
	step      string
	reach     []string
}

// maxReaches bounds the interned reaches searched by with; deeper
// nestings than that are rare and simply not shared.
const maxReaches = 32

// text returns the source text of a node.
func (a *analyzer) text(n syntax.Node) string {
	s, e := int(n.Pos().Offset()), int(n.End().Offset())
	if s < 0 || e > len(a.src) || s > e {
		return ""
	}
	return a.src[s:e]
}

func (a *analyzer) lc(p syntax.Pos) (int, int) {
	l, c := int(p.Line()), int(p.Col())
	if l == 0 {
		l = 1
	}
	if c == 0 {
		c = 1
	}
	return l, c
}

func (a *analyzer) pos(p syntax.Pos) sdk.Pos { return a.at.Pos(a.lc(p)) }

// maxEvidence bounds the evidence quoted from one line.
const maxEvidence = 240

// evidence is the trimmed source line holding p.
func (a *analyzer) evidence(p syntax.Pos) string {
	if a.lineStarts == nil {
		a.lineStarts = make([]int, 1, strings.Count(a.src, "\n")+1)
		for i := 0; ; {
			k := strings.IndexByte(a.src[i:], '\n')
			if k < 0 {
				break
			}
			i += k + 1
			a.lineStarts = append(a.lineStarts, i)
		}
	}
	l := int(p.Line())
	if l < 1 || l > len(a.lineStarts) {
		return ""
	}
	if l == a.evLine {
		// Most facts come in runs from one statement.
		return a.ev
	}
	s := a.lineStarts[l-1]
	e := len(a.src)
	if l < len(a.lineStarts) {
		e = a.lineStarts[l] - 1
	}
	line := strings.TrimSpace(a.src[s:e])
	if len(line) > maxEvidence {
		line = line[:maxEvidence]
	}
	a.evLine, a.ev = l, line
	return line
}

func (a *analyzer) feature(kind string, p syntax.Pos) {
	a.b.Facts.ShellFeatures = append(a.b.Facts.ShellFeatures, sdk.ShellFeature{
		Kind: kind, Evidence: a.evidence(p), Pos: a.pos(p),
	})
}

func sdkEnvRead(name string, p sdk.Pos) sdk.EnvRead { return sdk.EnvRead{Name: name, Pos: p} }

// walkNested walks statements of a substitution and returns the IDs of
// the commands they emit.
func (a *analyzer) walkNested(stmts []*syntax.Stmt, reach string) []int {
	base := len(a.idStack)
	nc := a.pushCtx()
	nc.collect = true
	nc.reach = a.reach(nil, reach)
	a.walkStmts(stmts, nc)
	a.popCtx()
	ids := a.intSlab.copyOf(a.idStack[base:])
	a.idStack = a.idStack[:base]
	return ids
}

func (a *analyzer) walkStmts(stmts []*syntax.Stmt, c *ctx) {
	for i, s := range stmts {
		m := a.fieldSlab.mark()
		a.walkStmt(s, c)
		a.fieldSlab.release(m)
		if s.Semicolon.IsValid() && i+1 < len(stmts) && !s.Background {
			off := int(s.Semicolon.Offset())
			if off < len(a.src) && a.src[off] == ';' && stmts[i+1].Pos().Line() == s.Semicolon.Line() {
				a.feature("semicolon", s.Semicolon)
			}
		}
	}
}

func (a *analyzer) walkStmt(s *syntax.Stmt, c *ctx) {
	if s == nil {
		return
	}
	if s.Background || s.Coprocess {
		a.walkBackground(s, c)
		return
	}
	a.walkStmtIn(s, c)
}

// walkBackground walks a statement run in the background. It and
// walkVia hold the contexts made for a step of the walk in frames of their
// own: declared in walkStmtIn, which is on every level of the recursion,
// each would make every level's frame larger by a ctx (160 bytes), and
// growing the goroutine stack showed in profiles.
//
//go:noinline
func (a *analyzer) walkBackground(s *syntax.Stmt, c *ctx) {
	a.feature("background", s.Pos())
	bc := a.pushCtx()
	*bc = a.with(c, "background")
	bc.bg = true
	a.walkStmtIn(s, bc)
	a.popCtx()
}

// walkVia walks stmts (or the one statement s) reached from c through r.
//
//go:noinline
func (a *analyzer) walkVia(stmts []*syntax.Stmt, s *syntax.Stmt, c *ctx, r string) {
	nc := a.pushCtx()
	*nc = a.with(c, r)
	if s != nil {
		a.walkStmt(s, nc)
	} else {
		a.walkStmts(stmts, nc)
	}
	a.popCtx()
}

// walkStmtIn walks s in context c, its background step already taken.
func (a *analyzer) walkStmtIn(s *syntax.Stmt, c *ctx) {
	call, isCall := s.Cmd.(*syntax.CallExpr)
	if d, ok := s.Cmd.(*syntax.DeclClause); !isCall && !(ok && declListing(declVariant(d), d) != nil) {
		// Redirects of compound commands apply to all they contain
		// (a listing builtin takes its own, like a simple command).
		a.stmtRedirects(s, "", c)
	}
	switch cmd := s.Cmd.(type) {
	case *syntax.CallExpr:
		a.walkCall(s, call, c)
	case *syntax.BinaryCmd:
		switch cmd.Op {
		case syntax.Pipe, syntax.PipeAll:
			a.walkPipeline(s, c)
		case syntax.AndStmt, syntax.OrStmt:
			kind := "and"
			if cmd.Op == syntax.OrStmt {
				kind = "or"
			}
			a.walkStmt(cmd.X, c)
			a.feature(kind, cmd.OpPos)
			a.walkStmt(cmd.Y, c)
		}
	case *syntax.Block:
		a.walkStmts(cmd.Stmts, c)
	case *syntax.Subshell:
		a.feature("subshell", cmd.Pos())
		// A cd inside ( … ) does not move the shell that continues.
		cwd := a.cwd
		a.walkVia(cmd.Stmts, nil, c, "subshell")
		a.cwd = cwd
	case *syntax.IfClause:
		for ic := cmd; ic != nil; ic = ic.Else {
			a.walkVia(ic.Cond, nil, c, "condition")
			a.walkStmts(ic.Then, c)
		}
	case *syntax.WhileClause:
		a.walkWhile(s, cmd, c)
	case *syntax.ForClause:
		a.walkFor(s, cmd, c)
	case *syntax.CaseClause:
		a.expandWord(cmd.Word, true)
		for _, it := range cmd.Items {
			a.walkStmts(it.Stmts, c)
		}
	case *syntax.FuncDecl:
		a.walkFunc(cmd, c)
	case *syntax.DeclClause:
		a.walkDecl(s, cmd, c)
	case *syntax.TimeClause:
		if cmd.Stmt != nil {
			a.walkVia(nil, cmd.Stmt, c, "wrapper")
		}
	case *syntax.CoprocClause:
		if cmd.Stmt != nil {
			a.walkVia(nil, cmd.Stmt, c, "background")
		}
	case *syntax.TestClause:
		a.walkTest(cmd.X)
	case *syntax.ArithmCmd, *syntax.LetClause:
		// Arithmetic runs no commands itself, but substitutions inside
		// it do.
		a.walkHiddenSubsts(cmd)
	}
}

// walkTest expands the words of a [[ … ]] test so substitutions inside it
// are seen.
func (a *analyzer) walkTest(x syntax.TestExpr) {
	switch x := x.(type) {
	case *syntax.Word:
		a.expandWord(x, true)
	case *syntax.BinaryTest:
		a.walkTest(x.X)
		a.walkTest(x.Y)
	case *syntax.UnaryTest:
		a.walkTest(x.X)
	case *syntax.ParenTest:
		a.walkTest(x.X)
	}
}

// flattenPipe returns the stages of a pipeline and the operator positions.
func flattenPipe(s *syntax.Stmt, out []*syntax.Stmt, ops []syntax.Pos) ([]*syntax.Stmt, []syntax.Pos) {
	if b, ok := s.Cmd.(*syntax.BinaryCmd); ok && (b.Op == syntax.Pipe || b.Op == syntax.PipeAll) &&
		len(s.Redirs) == 0 && !s.Background && !s.Negated {
		out, ops = flattenPipe(b.X, out, ops)
		ops = append(ops, b.OpPos)
		return flattenPipe(b.Y, out, ops)
	}
	return append(out, s), ops
}

func (a *analyzer) walkPipeline(s *syntax.Stmt, c *ctx) {
	// Pipeline stages run in subshells: a cd in one moves no other.
	cwd := a.cwd
	defer func() { a.cwd = cwd }()
	b := s.Cmd.(*syntax.BinaryCmd)
	var opBuf [8]syntax.Pos
	// The stages are working memory on a.stages, released when the
	// pipeline is walked (nested pipelines push theirs above them).
	stageBase := len(a.stages)
	stages, ops := flattenPipe(b.X, a.stages, opBuf[:0])
	ops = append(ops, b.OpPos)
	stages, ops = flattenPipe(b.Y, stages, ops)
	a.stages = stages
	stages = stages[stageBase:len(stages):len(stages)]
	for _, op := range ops {
		a.feature("pipe", op)
	}
	id := a.b.NextPipeline()
	netStart := len(a.b.Facts.Network)
	base := len(a.idStack)
	var prev []int
	// sc comes from a's ctx stack: its address goes down the recursive
	// walk (through handler values), so a local would be moved to the heap.
	sc := a.pushCtx()
	for i, st := range stages {
		*sc = *c
		sc.pipe, sc.stage = id, i
		sc.stdin = prev
		sc.earlier = stages[:i]
		if i > 0 {
			*sc = a.with(sc, "pipe")
			sc.prevStage = stages[i-1]
		} else {
			sc.prevStage = nil
		}
		sc.nextStage = nil
		if i+1 < len(stages) {
			sc.nextStage = stages[i+1]
		}
		// The stage's IDs stay on the stack: they are the next stage's
		// stdin and, when c collects, part of c's collection.
		sc.collect = true
		start := len(a.idStack)
		a.walkStmt(st, sc)
		prev = a.idStack[start:len(a.idStack):len(a.idStack)]
	}
	a.popCtx()
	if !c.collect {
		a.idStack = a.idStack[:base]
	}
	a.pipeInterpreter(stages, c)
	a.crontabPipe(stages)
	a.pipedShell(stages, netStart)
	clear(a.stages[stageBase:])
	a.stages = a.stages[:stageBase]
}

// pipedShell marks the connections of a pipeline that also runs a shell
// reading its stdin (`cat f | sh -i 2>&1 | nc h p > f`): the shell is
// attached to the connection.
func (a *analyzer) pipedShell(stages []*syntax.Stmt, netStart int) {
	if netStart >= len(a.b.Facts.Network) {
		return
	}
	shell := false
	for _, st := range stages {
		call, ok := st.Cmd.(*syntax.CallExpr)
		if !ok || len(call.Args) == 0 || !mayBe(call, isShell) {
			continue
		}
		fs := a.callWords(call)
		if len(fs) > 0 && !fs[0].dyn && isShell(path.Base(fs[0].s)) && readsStdinCode(path.Base(fs[0].s), fs[1:]) {
			shell = true
		}
	}
	if !shell {
		return
	}
	for i := netStart; i < len(a.b.Facts.Network); i++ {
		n := &a.b.Facts.Network[i]
		if streamUploaders[n.Via] && n.Pos.Depth == a.at.Depth || n.Via == "dev_tcp" {
			n.ExecShell = true
		}
	}
}

func (a *analyzer) walkWhile(s *syntax.Stmt, w *syntax.WhileClause, c *ctx) {
	if len(w.Cond) == 1 {
		if call, ok := w.Cond[0].Cmd.(*syntax.CallExpr); ok && len(call.Args) >= 1 && len(call.Assigns) == 0 {
			name, _ := a.staticWord(call.Args[0])
			kind := ""
			switch {
			case !w.Until && (name == "true" || name == ":") && len(call.Args) == 1:
				kind = "while_true"
			case !w.Until && (name == "[" || name == "test") && len(call.Args) >= 2 && len(call.Args) <= 3:
				// `while [ 1 ]` — a non-empty constant string is true.
				if v, ok := a.staticWord(call.Args[1]); ok && v != "" && v != "]" {
					kind = "while_true"
				}
			case w.Until && name == "false" && len(call.Args) == 1:
				kind = "until_false"
			}
			if kind != "" {
				a.b.Facts.Loops = append(a.b.Facts.Loops, sdk.Loop{
					Kind: kind, HasBreak: hasBreak(w.Do), Evidence: a.evidence(s.Pos()), Pos: a.pos(s.Pos()),
				})
			}
		}
	}
	a.walkVia(w.Cond, nil, c, "condition")
	a.pipedRead(w, c)
	a.walkVia(w.Do, nil, c, "loop")
}

// pipedRead gives the variables of `… | while read NAMES` the first line
// of what the earlier stages print, when that is static (`echo /etc/shadow
// | while read f; do cat "$f"; done`): the loop body sees the value the
// shell gives it. Later lines are not followed.
func (a *analyzer) pipedRead(w *syntax.WhileClause, c *ctx) {
	if w.Until || len(w.Cond) != 1 || len(c.earlier) == 0 {
		return
	}
	call, ok := w.Cond[0].Cmd.(*syntax.CallExpr)
	if !ok || len(call.Args) < 1 || len(w.Cond[0].Redirs) > 0 {
		return
	}
	if name, _ := a.staticWord(call.Args[0]); name != "read" {
		return
	}
	var names []string
	for _, arg := range call.Args[1:] {
		v, ok := a.staticWord(arg)
		if !ok {
			return
		}
		switch {
		case v == "-r":
		case strings.HasPrefix(v, "-"):
			return // -a, -d, -n …: not followed
		case isIdent(v):
			names = append(names, v)
		}
	}
	if len(names) == 0 {
		names = []string{"REPLY"}
	}
	r := a.foldStages(c.earlier)
	if !r.static || r.encoded || r.downloaded {
		return
	}
	line, _, _ := strings.Cut(r.content, "\n")
	a.readAssign(names, strings.Fields(line))
}

func (a *analyzer) walkFor(s *syntax.Stmt, f *syntax.ForClause, c *ctx) {
	switch l := f.Loop.(type) {
	case *syntax.CStyleLoop:
		a.walkHiddenSubsts(l)
		if l.Cond == nil {
			a.b.Facts.Loops = append(a.b.Facts.Loops, sdk.Loop{
				Kind: "for_ever", HasBreak: hasBreak(f.Do), Evidence: a.evidence(s.Pos()), Pos: a.pos(s.Pos()),
			})
		}
	case *syntax.WordIter:
		var vals []field
		for _, w := range l.Items {
			vals = append(vals, a.expandWord(w, true)...)
		}
		if l.Name != nil && len(vals) > 0 && len(vals) <= maxLoopValues && a.loopWalks < maxLoopWalks {
			static := true
			for _, v := range vals {
				static = static && !v.dyn
			}
			if static {
				// A loop over known words runs its body with each of them:
				// `for d in / ~; do rm -rf "$d"; done` deletes / and ~.
				a.loopWalks++
				lc := a.pushCtx()
				*lc = a.with(c, "loop")
				for _, v := range vals {
					a.setVar(l.Name.Value, v.s, true)
					a.walkStmts(f.Do, lc)
				}
				a.popCtx()
				a.setVar(l.Name.Value, "", false)
				return
			}
		}
		if l.Name != nil {
			a.setVar(l.Name.Value, "", false)
		}
	}
	lc := a.pushCtx()
	*lc = a.with(c, "loop")
	a.walkStmts(f.Do, lc)
	a.popCtx()
}

// maxLoopValues bounds the words a for loop's body is walked with, and
// maxLoopWalks the loops walked that way, so nested loops cannot explode.
const (
	maxLoopValues = 8
	maxLoopWalks  = 16
)

// hasBreak reports whether stmts contain a break/return/exit that leaves
// the loop (a break inside an inner loop does not count; an exit does).
func hasBreak(stmts []*syntax.Stmt) bool {
	found := false
	for _, s := range stmts {
		syntax.Walk(s, func(n syntax.Node) bool {
			if found {
				return false
			}
			switch n := n.(type) {
			case *syntax.WhileClause, *syntax.ForClause:
				inner := false
				switch n := n.(type) {
				case *syntax.WhileClause:
					inner = hasExit(n.Do)
				case *syntax.ForClause:
					inner = hasExit(n.Do)
				}
				if inner {
					found = true
				}
				return false
			case *syntax.CallExpr:
				if len(n.Args) > 0 {
					switch n.Args[0].Lit() {
					case "break", "return", "exit":
						found = true
					}
				}
			}
			return true
		})
	}
	return found
}

// hasExit reports an exit/return anywhere in stmts.
func hasExit(stmts []*syntax.Stmt) bool {
	found := false
	for _, s := range stmts {
		syntax.Walk(s, func(n syntax.Node) bool {
			if call, ok := n.(*syntax.CallExpr); ok && len(call.Args) > 0 {
				switch call.Args[0].Lit() {
				case "return", "exit":
					found = true
				}
			}
			return !found
		})
	}
	return found
}

func (a *analyzer) walkFunc(f *syntax.FuncDecl, c *ctx) {
	name := ""
	if f.Name != nil {
		name = f.Name.Value
	}
	if a.funcs == nil {
		a.funcs = map[string]int{}
	}
	a.funcs[name] = len(a.b.Facts.Functions)
	a.b.Facts.Functions = append(a.b.Facts.Functions, sdk.Function{Name: name, Pos: a.pos(f.Pos())})
	if usesPositional(f.Body) {
		if a.funcBodies == nil {
			a.funcBodies = map[string]*syntax.Stmt{}
		}
		a.funcBodies[name] = f.Body
	}
	fc := a.pushCtx()
	*fc = a.with(c, "function")
	fc.inFunc = name
	fc.bg = false
	fc.pipe = 0
	fc.earlier, fc.prevStage, fc.nextStage, fc.stdin = nil, nil, nil, nil
	a.walkStmt(f.Body, fc)
	a.popCtx()
}

func (a *analyzer) setVar(name, val string, static bool) {
	if len(val) > maxFold {
		// Values that large come from doubling tricks; stop tracking.
		val, static = "", false
	}
	a.vars[name] = varVal{val: val, static: static}
	a.assigned[name] = true
	if name == "IFS" {
		a.ifs = defaultIFS
		if static {
			a.ifs = val
		}
	}
}

func (a *analyzer) walkDecl(s *syntax.Stmt, d *syntax.DeclClause, c *ctx) {
	op := "set"
	variant := ""
	if d.Variant != nil {
		variant = d.Variant.Value
	}
	if listing := declListing(variant, d); listing != nil {
		// `export -p`, `declare -x`, `typeset -p`: the builtin prints
		// variables (the whole environment for export/-x) and is a
		// command whose output the rules follow like env's.
		idx := len(a.b.Facts.Commands)
		a.effName = ""
		a.emitCommand(s, listing, c)
		redirs, _ := a.stmtRedirects(s, a.effName, c)
		if idx < len(a.b.Facts.Commands) {
			a.b.Facts.Commands[idx].Redirects = redirs
		}
		return
	}
	if variant == "export" {
		op = "export"
	}
	for _, as := range d.Args {
		if as.Naked && as.Name == nil && as.Value != nil {
			// An option such as declare -x (export) or -r.
			if opt := as.Value.Lit(); strings.HasPrefix(opt, "-") && strings.Contains(opt, "x") {
				op = "export"
			}
		}
	}
	for _, as := range d.Args {
		if as.Name == nil {
			if as.Value != nil {
				a.expandWord(as.Value, true)
			}
			continue
		}
		if as.Naked {
			a.b.Facts.Assignments = append(a.b.Facts.Assignments, sdk.Assignment{
				Name: as.Name.Value, Op: op, Pos: a.pos(as.Pos()),
			})
			continue
		}
		a.assign(as, op)
	}
}

func declVariant(d *syntax.DeclClause) string {
	if d.Variant != nil {
		return d.Variant.Value
	}
	return ""
}

// declListing returns the command words of a declaration builtin that
// only lists (options, no names: `export -p`, `declare -x`, `declare -p`,
// bare `export`), or nil when it declares something.
func declListing(variant string, d *syntax.DeclClause) []field {
	switch variant {
	case "export", "declare", "typeset", "readonly", "local":
	default:
		return nil
	}
	out := []field{{s: variant}}
	for _, as := range d.Args {
		if !as.Naked || as.Name != nil || as.Value == nil {
			return nil
		}
		opt := as.Value.Lit()
		if !strings.HasPrefix(opt, "-") {
			return nil
		}
		out = append(out, field{s: opt})
	}
	if len(out) == 1 && variant != "export" {
		return nil
	}
	return out
}

// maxArrayIndex bounds the literal array indexes followed ([5000]=x would
// otherwise make 5000 elements).
const maxArrayIndex = 64

// literalIndex returns an array index written as a decimal literal.
func literalIndex(x syntax.ArithmExpr) (int, bool) {
	w, ok := x.(*syntax.Word)
	if !ok {
		return 0, false
	}
	lit := w.Lit()
	if lit == "" || len(lit) > 4 {
		return 0, false
	}
	n := 0
	for i := 0; i < len(lit); i++ {
		if lit[i] < '0' || lit[i] > '9' {
			return 0, false
		}
		n = n*10 + int(lit[i]-'0')
	}
	return n, true
}

// assign records one NAME=value and tracks its value.
func (a *analyzer) assign(as *syntax.Assign, op string) {
	if as.Name == nil {
		return
	}
	fact := sdk.Assignment{Name: as.Name.Value, Op: op, Pos: a.pos(as.Pos())}
	switch {
	case as.Array != nil:
		var elems []string
		static := true
		for _, e := range as.Array.Elems {
			if e.Index != nil {
				// ([3]=x): a literal index places the element there
				// (the ones between are empty); any other index is
				// not followed.
				k, ok := literalIndex(e.Index)
				if !ok || k > maxArrayIndex {
					static = false
				} else {
					for len(elems) < k {
						elems = append(elems, "")
					}
					elems = elems[:k]
				}
			}
			if e.Value != nil {
				for _, f := range a.expandWord(e.Value, true) {
					elems = append(elems, f.s)
					static = static && !f.dyn
				}
			}
		}
		if static {
			fact.Value = strings.Join(elems, " ")
		} else {
			fact.Dynamic = true
		}
		a.setVar(as.Name.Value, strings.Join(elems, " "), static)
		if static {
			v := a.vars[as.Name.Value]
			v.arr = elems
			a.vars[as.Name.Value] = v
		}
	case as.Index != nil:
		var f field
		if as.Value != nil {
			f = a.expandOne(as.Value, true)
		}
		fact.Dynamic = true
		// q[2]=x on an array whose elements are known: the element is set
		k, ok := literalIndex(as.Index)
		if v, had := a.vars[as.Name.Value]; had && v.static && ok && k <= maxArrayIndex && !f.dyn && (v.arr != nil || v.val == "") {
			arr := append([]string(nil), v.arr...)
			for len(arr) <= k {
				arr = append(arr, "")
			}
			arr[k] = f.s
			a.setVar(as.Name.Value, strings.Join(arr, " "), true)
			nv := a.vars[as.Name.Value]
			nv.arr = arr
			a.vars[as.Name.Value] = nv
			break
		}
		a.setVar(as.Name.Value, "", false)
	default:
		f := field{}
		if as.Value != nil {
			f = a.expandOneNoSplit(as.Value)
		}
		val, static := f.s, !f.dyn
		if as.Append {
			if old, ok := a.vars[as.Name.Value]; ok {
				val, static = old.val+val, static && old.static
			} else {
				static = false
			}
		}
		if static {
			fact.Value = val
		} else {
			fact.Dynamic = true
		}
		a.setVar(as.Name.Value, val, static)
		if as.Name.Value == "PROMPT_COMMAND" && static && val != "" {
			// Run by the shell before every prompt.
			l, col := a.lc(as.Pos())
			a.nested("bash", val, l, col, "PROMPT_COMMAND", false)
		}
		if static {
			a.commandVar(as, val)
		}
		if f.enc || f.downloaded {
			v := a.vars[as.Name.Value]
			v.enc, v.decoders, v.downloaded = f.enc, f.decoderList(), f.downloaded
			a.vars[as.Name.Value] = v
		}
		if from := f.varNames(); !static && len(from) > 0 {
			v := a.vars[as.Name.Value]
			if len(from) > 4*maxFrom {
				from = from[:4*maxFrom]
			}
			names := dedup(append([]string{as.Name.Value}, from...))
			if len(names) > maxFrom {
				names = names[:maxFrom]
			}
			v.flow = &varFlow{from: clip(names)}
			a.vars[as.Name.Value] = v
		}
	}
	a.b.Facts.Assignments = append(a.b.Facts.Assignments, fact)
}

// expandOneNoSplit expands an assignment value: no field splitting, no
// globbing, substitutions walked.
func (a *analyzer) expandOneNoSplit(w *syntax.Word) field {
	alts := a.expandParts(w.Parts, true, assignCtx)
	f := field{}
	if len(alts) > 0 {
		f = spaceJoin(alts[0])
	}
	f.glob = false
	return f
}

// walkHiddenSubsts walks the command and process substitutions nested in
// arithmetic or in parameter-expansion operands (`${X:-$(cmd)}`,
// `$(( $(cmd) ))`), which run even though their value is not used as a
// word.
func (a *analyzer) walkHiddenSubsts(n syntax.Node) {
	if n == nil {
		return
	}
	if w, ok := n.(*syntax.Word); ok && w == nil {
		return // e.g. the empty replacement of ${x/a}
	}
	syntax.Walk(n, func(x syntax.Node) bool {
		switch x := x.(type) {
		case *syntax.CmdSubst:
			kind := "substitution"
			if x.Backquotes {
				kind = "backtick"
			}
			a.feature(kind, x.Pos())
			a.walkNested(x.Stmts, "substitution")
			return false
		case *syntax.ProcSubst:
			a.feature("process_substitution", x.Pos())
			a.walkNested(x.Stmts, "process_substitution")
			return false
		}
		return true
	})
}

// setPositional sets $0 (when withZero) and $1… from fields; unknown
// values stay unknown.
func (a *analyzer) setPositional(fs []field, withZero bool) {
	start := 1
	if withZero {
		start = 0
	}
	var all []string
	known := true
	for i, f := range fs {
		n := strconv.Itoa(i + start)
		if f.dyn && f.s == placeholder {
			// find -exec sh -c '…' _ {}: stands for the found paths.
			known = false
			a.vars[n] = varVal{val: placeholder, static: true, placeholder: true}
		} else if f.dyn {
			known = false
			a.vars[n] = varVal{}
		} else {
			a.vars[n] = varVal{val: f.s, static: true}
		}
		if i+start > 0 {
			all = append(all, f.s)
		}
	}
	if known {
		a.vars["@"] = varVal{val: strings.Join(all, " "), static: true, arr: all}
		a.vars["#"] = varVal{val: strconv.Itoa(len(all)), static: true}
	}
}

// maxNesting bounds bracket nesting of analyzed content.
const maxNesting = 200

// nestingDepth returns the deepest nesting of ( and { in src, a cheap upper
// bound of the syntax tree's depth, or 0 when src has too few of them to
// nest deeper than maxNesting (the only question callers ask).
func nestingDepth(src string) int {
	if strings.Count(src, "(")+strings.Count(src, "{") <= maxNesting {
		// The depth is at most the number of openers; counting them is
		// much faster than following them.
		return 0
	}
	depth, max := 0, 0
	for i := 0; i < len(src); i++ {
		switch src[i] {
		case '(', '{':
			depth++
			if depth > max {
				max = depth
			}
		case ')', '}':
			if depth > 0 {
				depth--
			}
		}
	}
	return max
}

// maxTreeDepth bounds the depth of the syntax tree walked (compound
// commands nest a few nodes per level), keeping the walk linear.
const maxTreeDepth = 1000

// treeDepth returns the depth of the syntax tree, stopping early once it
// exceeds maxTreeDepth.
func treeDepth(file *syntax.File) int {
	depth, max := 0, 0
	syntax.Walk(file, func(n syntax.Node) bool {
		if n == nil {
			depth--
			return true
		}
		depth++
		if depth > max {
			max = depth
		}
		return max <= maxTreeDepth
	})
	return max
}

// usesPositional reports whether a function body reads $1…, $@ or $*.
func usesPositional(body *syntax.Stmt) bool {
	found := false
	syntax.Walk(body, func(n syntax.Node) bool {
		if pe, ok := n.(*syntax.ParamExp); ok && pe.Param != nil {
			switch v := pe.Param.Value; {
			case v == "@" || v == "*":
				found = true
			case len(v) > 0 && v[0] >= '1' && v[0] <= '9':
				found = true
			}
		}
		return !found
	})
	return found
}

// maxCallWalks bounds how many calls re-walk a function body.
const maxCallWalks = 64

// positionalNames are the variables a call's arguments set.
var positionalNames = [...]string{"1", "2", "3", "4", "5", "6", "7", "8", "9", "@", "#"}

// callFunc walks the body of a function that reads its arguments again at
// a call whose arguments are known (`f(){ $1 -rf $2; }; f rm /`), so what
// the call runs is seen. Recursion is not followed.
func (a *analyzer) callFunc(name string, args []field, c *ctx) {
	body := a.funcBodies[name]
	if body == nil || a.calling[name] || len(a.calling) >= 4 || a.callWalks >= maxCallWalks {
		return
	}
	a.callWalks++
	for _, f := range args {
		if f.dyn {
			return
		}
	}
	// The caller's positional parameters are saved on a.saved (calls
	// nest strictly), which keeps this frame small and allocates once.
	if a.saved == nil {
		a.saved = make([]savedVar, 0, len(positionalNames))
	}
	base := len(a.saved)
	for _, n := range positionalNames {
		v, had := a.vars[n]
		a.saved = append(a.saved, savedVar{v, had})
		delete(a.vars, n)
	}
	if a.calling == nil {
		a.calling = map[string]bool{}
	}
	a.calling[name] = true
	a.setPositional(args, false)
	fc := a.pushCtx()
	*fc = a.with(c, "function")
	fc.inFunc = name
	fc.pipe, fc.bg = 0, false
	fc.earlier, fc.prevStage, fc.nextStage, fc.stdin, fc.collect = nil, nil, nil, nil, false
	a.walkStmt(body, fc)
	a.popCtx()
	delete(a.calling, name)
	for i, n := range positionalNames {
		if sv := a.saved[base+i]; sv.had {
			a.vars[n] = sv.v
		} else {
			delete(a.vars, n)
		}
	}
	clear(a.saved[base:])
	a.saved = a.saved[:base]
}
