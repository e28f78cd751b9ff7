// Package match holds the matchers the built-in rule packs share: denied
// path patterns, the domain allowlist, secret-looking variable names and the
// system trees whose recursive deletion is never legitimate. They live in one
// place so every pack reads a policy list the same way.
package match

import (
	"math/bits"
	"path"
	"strings"

	"github.com/toolwarden/toolwarden/rules-wasm/packs/internal/lookup"
	"github.com/toolwarden/toolwarden/sdk"
)

// PathMatcher decides whether an accessed path falls under a policy's
// denied_paths. It is built once per policy and is safe for concurrent use
// because it is never modified after construction.
//
// Scripts name many paths and almost none is denied, so a literal path is
// not tried against every pattern: the matcher indexes, for each pattern,
// the component a matching path must have in one place (the first one
// under / or under a home, the last one, or any one), by literal name or
// by the first or last byte of a one-star glob. A path looks up its few
// components, and only the patterns they select are then matched exactly,
// in policy order, so the answer is the one the plain loop over the
// patterns gives.
type PathMatcher struct {
	pats []pathPattern

	// indexed is false when the policy has more patterns than a candidate
	// mask holds; every path then takes the plain loop.
	indexed bool
	// comps maps a literal pattern component to its masks in compMasks.
	comps     lookup.Table
	compMasks []roleMasks
	// starPre and starSuf select the one-star components ("id_rsa*",
	// "*.pem") by the first byte of their prefix or, without one, the
	// last byte of their suffix.
	starPre, starSuf [256]roleMasks
	// always are the patterns every path of a role must be tried on:
	// components that are other globs, and anchors without components
	// ("~", "/").
	always roleMasks
	// rootHome are the absolute patterns under /root, which also cover
	// "~root/...".
	rootHome uint64
	// all are the patterns of each place.
	all roleMasks
	// For a glob component (globMasks): the literal pattern components by
	// their first and last bytes, the one-star ones with a suffix by its
	// last byte, and those without.
	litAll, starSufAll, starNoSuf  roleMasks
	litFirst, litLast, starSufLast [256]roleMasks
}

// roleMasks are pattern sets, one bit per pattern, by the place of the
// path component that selects them.
type roleMasks struct {
	abs  uint64 // first component of an absolute path
	home uint64 // first component under a home
	last uint64 // last component
	any  uint64 // any component
}

func (r *roleMasks) and(o roleMasks) {
	r.abs &= o.abs
	r.home &= o.home
	r.last &= o.last
	r.any &= o.any
}

func (r *roleMasks) or(o roleMasks) {
	r.abs |= o.abs
	r.home |= o.home
	r.last |= o.last
	r.any |= o.any
}

type pathPattern struct {
	raw string
	// kind: patHome ("~/.ssh": under any home), patAbs ("/etc/shadow"),
	// patBase (no slash: matched against the base name), patSuffix
	// (relative with a slash: matched against trailing components).
	kind  int
	comps []compPat // components after the anchor
}

// compPat is one pattern component compiled once per policy, so matching a
// path does not rescan the pattern for glob characters or run path.Match
// for the common one-star globs ("*.pem", "id_rsa*", "credentials.*").
type compPat struct {
	raw string
	// glob is set when raw holds glob metacharacters.
	glob bool
	// star is set when raw is pre + "*" + suf with no other metacharacter
	// or escape: such a glob matches exactly the names that start with pre
	// and end with suf, without overlap.
	star     bool
	pre, suf string
	// wit is one concrete name the component accepts (see witness).
	wit string
}

func compileComp(raw string) compPat {
	c := compPat{raw: raw, glob: HasGlob(raw), wit: witness(raw)}
	if c.glob && strings.Count(raw, "*") == 1 && !strings.ContainsAny(raw, "?[\\") {
		i := strings.IndexByte(raw, '*')
		c.star, c.pre, c.suf = true, raw[:i], raw[i+1:]
	}
	return c
}

func compileComps(comps []string) []compPat {
	out := make([]compPat, len(comps))
	for i, s := range comps {
		out[i] = compileComp(s)
	}
	return out
}

const (
	patHome = iota
	patAbs
	patBase
	patSuffix
)

// NewPathMatcher compiles denied path patterns. Empty entries are ignored.
// Patterns follow the policy syntax: "~/.ssh" (under any user's home),
// "/etc/shadow" (absolute), ".env" or "*.pem" or "id_rsa*" (a base name
// anywhere), "*/.env" or ".aws/credentials" (trailing components).
func NewPathMatcher(patterns []string) *PathMatcher {
	m := &PathMatcher{}
	for _, raw := range patterns {
		p := strings.TrimSpace(raw)
		if p == "" {
			continue
		}
		pp := pathPattern{raw: p}
		switch {
		case p == "~" || strings.HasPrefix(p, "~/"):
			pp.kind = patHome
			pp.comps = compileComps(splitComps(strings.TrimPrefix(p, "~")))
		case strings.HasPrefix(p, "/"):
			pp.kind = patAbs
			pp.comps = compileComps(splitComps(p))
		case !strings.Contains(strings.TrimSuffix(p, "/"), "/"):
			pp.kind = patBase
			pp.comps = []compPat{compileComp(strings.TrimSuffix(p, "/"))}
		default:
			pp.kind = patSuffix
			pp.comps = compileComps(splitComps(p))
		}
		m.pats = append(m.pats, pp)
	}
	m.buildIndex()
	return m
}

// buildIndex fills the candidate masks (see PathMatcher): for each pattern
// the one component a literal path must match for the pattern to match it.
func (m *PathMatcher) buildIndex() {
	if len(m.pats) > 64 {
		return
	}
	m.indexed = true
	pos := map[string]int{}
	for i, pat := range m.pats {
		bit := uint64(1) << i
		var role roleMasks
		var pc compPat
		switch pat.kind {
		case patHome:
			if len(pat.comps) == 0 {
				m.always.home |= bit
				continue
			}
			role.home, pc = bit, pat.comps[0]
		case patAbs:
			if len(pat.comps) == 0 {
				m.always.abs |= bit
				continue
			}
			if pat.comps[0].raw == "root" {
				m.rootHome |= bit
			}
			role.abs, pc = bit, pat.comps[0]
		case patBase:
			role.last, pc = bit, pat.comps[0]
		case patSuffix:
			if len(pat.comps) == 0 {
				continue // matches nothing
			}
			role.any, pc = bit, pat.comps[len(pat.comps)-1]
		}
		m.all.or(role)
		switch {
		case !pc.glob:
			m.litAll.or(role)
			m.litFirst[pc.raw[0]].or(role)
			m.litLast[pc.raw[len(pc.raw)-1]].or(role)
		case pc.star && pc.suf != "":
			m.starSufAll.or(role)
			m.starSufLast[pc.suf[len(pc.suf)-1]].or(role)
		case pc.star:
			m.starNoSuf.or(role)
		}
		switch {
		case !pc.glob:
			k, ok := pos[pc.raw]
			if !ok {
				k = len(m.compMasks)
				pos[pc.raw] = k
				m.compMasks = append(m.compMasks, roleMasks{})
				m.comps.Add(pc.raw, uint64(k)+1)
			}
			m.compMasks[k].or(role)
		case pc.star && pc.pre != "":
			m.starPre[pc.pre[0]].or(role)
		case pc.star && pc.suf != "":
			m.starSuf[pc.suf[len(pc.suf)-1]].or(role)
		default:
			m.always.or(role)
		}
	}
}

// globMasks returns the patterns a glob component g of an accessed path
// may match (the other globs, in always, are tried anyway). A literal
// pattern component must start and end with g's first and last bytes when
// those are literal (globMatch's test); a one-star one with a suffix must
// end with g's last byte, which then ends g's witness too, unless g holds
// a class (the witness takes a class's first member).
func (m *PathMatcher) globMasks(g string) roleMasks {
	first, last := g[0], g[len(g)-1]
	lits := m.litAll
	if !isMeta(first) && first != ']' {
		lits.and(m.litFirst[first])
	}
	stars := m.starNoSuf
	if !isMeta(last) && last != ']' && (len(g) < 2 || g[len(g)-2] != '\\') {
		lits.and(m.litLast[last])
		if strings.IndexByte(g, '[') < 0 {
			stars.or(m.starSufLast[last])
		} else {
			stars.or(m.starSufAll)
		}
	} else {
		stars.or(m.starSufAll)
	}
	lits.or(stars)
	return lits
}

// masksOf returns the patterns a path component selects: all of them when
// it is a glob, which could expand to any name.
func (m *PathMatcher) masksOf(comp string, glob bool) roleMasks {
	if glob && HasGlob(comp) {
		return m.globMasks(comp)
	}
	r := m.starPre[comp[0]]
	r.or(m.starSuf[comp[len(comp)-1]])
	if k := m.comps.Get(comp); k != 0 {
		r.or(m.compMasks[k-1])
	}
	return r
}

// Patterns returns the number of compiled patterns.
func (m *PathMatcher) Patterns() int { return len(m.pats) }

// Match reports the first denied pattern that p falls under, or that p
// could expand to when glob is set (".en?" could be ".env", "~/.ssh/id_*"
// could be "~/.ssh/id_rsa"). p is a normalized path as the analyzers emit it:
// home references are "~", "~user" or "/home/user". Recursive accesses of an
// ancestor (a `tar` of the whole home) are judged by MatchTree.
//
// Only the glob characters of p itself can make a component a glob, so
// glob changes nothing for a literal p; it is kept for callers that know
// the path came from an unexpanded word.
func (m *PathMatcher) Match(p string, glob bool) (string, bool) {
	if m == nil || p == "" || IsEnvTemplate(p) {
		return "", false
	}
	p = sdk.ResolveProcAliases(p)
	// A component can only be a glob when p has glob characters: with none,
	// compMatch never needs to look for them.
	var buf [8]string
	glob, clean, comps := scanPathComps(p, buf[:0])
	c := p
	if !clean {
		c = CleanPath(p)
		comps = appendComps(buf[:0], c)
	}
	if c[0] == '.' && strings.HasPrefix(c, "../") {
		// Enough ".." reach the root: judge what remains as absolute too.
		rest := c
		for strings.HasPrefix(rest, "../") {
			rest = rest[3:]
		}
		if pat, ok := m.Match("/"+rest, glob); ok {
			return pat, true
		}
	}
	var q query
	q.comps, q.abs = comps, p[0] == '/'
	home, rel, isHome := SplitHome(p)
	q.home, q.isHome = home, isHome
	switch {
	case isHome && clean:
		// rel is what follows the home's own components in p.
		q.rel = comps[homeDepth(p):]
	case isHome:
		var relBuf [8]string
		q.rel = appendComps(relBuf[:0], CleanPath(rel))
	}
	if glob {
		return m.matchGlob(q, clean && isHome)
	}
	return m.match(&q)
}

// query is an accessed path split for matching: its components, those
// under its home, and for a glob path what compMatch needs to know about
// each glob component, with the witnesses in wits.
type query struct {
	comps, rel   []string
	abs, isHome  bool
	home         string
	globs, rglob []compGlob
	wits         []byte
}

// compGlob is what compMatch needs about a component of a glob path,
// worked out once per path rather than once per pattern: whether it holds
// glob metacharacters and, if so, its witness (wits[off:end]) and whether
// that holds a byte other than ".".
type compGlob struct {
	is, nonDot bool
	off, end   int
}

// globView is a compGlob with its witness, for compMatch; the zero value
// stands for a literal component.
type globView struct {
	is, nonDot bool
	wit        []byte
}

// globAt returns what is known of component i of a path.
func (q *query) globAt(globs []compGlob, i int) globView {
	if globs == nil || !globs[i].is {
		return globView{}
	}
	g := &globs[i]
	return globView{is: true, nonDot: g.nonDot, wit: q.wits[g.off:g.end]}
}

// matchGlob is match for a path with glob characters. sharedRel is set
// when q.rel is a tail of q.comps.
func (m *PathMatcher) matchGlob(q query, sharedRel bool) (string, bool) {
	var globBuf, relBuf [8]compGlob
	var wits [256]byte
	w := wits[:0]
	describe := func(dst []compGlob, comps []string) []compGlob {
		if len(comps) > len(dst) {
			dst = make([]compGlob, len(comps))
		}
		dst = dst[:len(comps)]
		for i, comp := range comps {
			g := compGlob{is: HasGlob(comp)}
			if g.is {
				g.off = len(w)
				w = appendWitness(w, comp)
				g.end = len(w)
				g.nonDot = hasNonDot(w[g.off:g.end])
			}
			dst[i] = g
		}
		return dst
	}
	q.globs = describe(globBuf[:], q.comps)
	switch {
	case sharedRel:
		q.rglob = q.globs[len(q.comps)-len(q.rel):]
	case q.isHome:
		q.rglob = describe(relBuf[:], q.rel)
	}
	q.wits = w
	return m.match(&q)
}

// match reports the first pattern, in policy order, that matches q.
func (m *PathMatcher) match(q *query) (string, bool) {
	if !m.indexed {
		for i := range m.pats {
			if m.matchOne(i, q) {
				return m.pats[i].raw, true
			}
		}
		return "", false
	}
	// Only the patterns some component of the path selects can match.
	glob := q.globs != nil
	var cand uint64
	for i, comp := range q.comps {
		r := m.masksOf(comp, glob && q.globs[i].is)
		cand |= r.any
		if i == 0 && q.abs {
			cand |= r.abs
		}
		if i == len(q.comps)-1 {
			cand |= r.last
		}
	}
	cand |= m.always.any
	if len(q.comps) > 0 {
		cand |= m.always.last
	}
	if q.abs {
		cand |= m.always.abs
	}
	if q.isHome {
		cand |= m.always.home
		if len(q.rel) > 0 {
			cand |= m.masksOf(q.rel[0], glob && q.rglob[0].is).home
		}
		if q.home == "root" {
			cand |= m.rootHome
		}
	}
	for ; cand != 0; cand &= cand - 1 {
		if i := bits.TrailingZeros64(cand); m.matchOne(i, q) {
			return m.pats[i].raw, true
		}
	}
	return "", false
}

// matchOne reports whether pattern i matches the path of q.
func (m *PathMatcher) matchOne(i int, q *query) bool {
	pat := &m.pats[i]
	switch pat.kind {
	case patHome:
		return q.isHome && prefixMatch(pat.comps, q.rel, q, q.rglob)
	case patAbs:
		if q.abs && prefixMatch(pat.comps, q.comps, q, q.globs) {
			return true
		}
		// "/root" also covers "~root/...".
		return q.isHome && len(pat.comps) > 0 && pat.comps[0].raw == "root" && q.home == "root" &&
			prefixMatch(pat.comps[1:], q.rel, q, q.rglob)
	case patBase:
		n := len(q.comps)
		return n > 0 && compMatch(&pat.comps[0], q.comps[n-1], q.globAt(q.globs, n-1))
	case patSuffix:
		return suffixMatch(pat.comps, q.comps, q, q.globs)
	}
	return false
}

// MatchTree reports a denied pattern that lies inside the tree rooted at p,
// for recursive reads and copies of an ancestor ("tar czf x.tgz ~" takes
// ~/.ssh with it). Only home- and absolute-anchored patterns are considered:
// a relative tree's contents are unknown.
func (m *PathMatcher) MatchTree(p string) (string, bool) {
	if m == nil || p == "" || HasGlob(p) {
		return "", false
	}
	_, rel, isHome := SplitHome(p)
	comps := splitComps(p)
	for _, pat := range m.pats {
		switch pat.kind {
		case patHome:
			if isHome && isPrefix(splitComps(rel), pat.comps) {
				return pat.raw, true
			}
			if p == "/" || p == "/home" || p == "/Users" {
				return pat.raw, true
			}
		case patAbs:
			if strings.HasPrefix(p, "/") && isPrefix(comps, pat.comps) {
				return pat.raw, true
			}
		}
	}
	return "", false
}

// SplitHome recognizes a path inside a home directory: "~", "~/x", "~bob/x",
// "/home/bob/x", "/root/x", "/Users/bob/x". It returns the owner ("~" for
// the current user, else the user name), the path relative to the home
// ("/x" or ""), and whether p is in a home at all.
func SplitHome(p string) (owner, rel string, ok bool) {
	switch {
	case p == "~" || strings.HasPrefix(p, "~/"):
		return "~", p[1:], true
	case strings.HasPrefix(p, "~"):
		rest := p[1:]
		i := strings.IndexByte(rest, '/')
		if i < 0 {
			return rest, "", true
		}
		return rest[:i], rest[i:], true
	case strings.HasPrefix(p, "/home/") || strings.HasPrefix(p, "/Users/"):
		rest := p[strings.IndexByte(p[1:], '/')+2:]
		if rest == "" {
			return "", "", false
		}
		i := strings.IndexByte(rest, '/')
		if i < 0 {
			return rest, "", true
		}
		return rest[:i], rest[i:], true
	case p == "/root" || strings.HasPrefix(p, "/root/"):
		return "root", p[len("/root"):], true
	}
	return "", "", false
}

// OtherHome reports whether p is inside another user's home ("~bob/...",
// "/home/bob/...") rather than the current one.
func OtherHome(p string) (string, bool) {
	owner, _, ok := SplitHome(p)
	if !ok || owner == "~" || owner == "" {
		return "", false
	}
	return owner, true
}

// HasGlob reports whether s contains shell glob metacharacters. It looks
// at eight bytes per step (lookup.Word): inside Wasm each taken branch of
// a byte loop costs an exit to the host.
func HasGlob(s string) bool {
	i := 0
	for ; i+8 <= len(s); i += 8 {
		if globBytes(lookup.Word(s, i)) != 0 {
			return true
		}
	}
	if i < len(s) {
		w, valid := lookup.Tail(s, i)
		return globBytes(w)&valid != 0
	}
	return false
}

// globBytes marks the bytes of w that are glob metacharacters.
func globBytes(w uint64) uint64 {
	return lookup.Eq(w, '*') | lookup.Eq(w, '?') | lookup.Eq(w, '[')
}

// scanPath reports whether p holds glob metacharacters and whether it is
// clean already: CleanPath would return it unchanged, so Match need not
// copy it. A path with a "." or ".." component, an empty one or a trailing
// slash counts as not clean.
func scanPath(p string) (glob, clean bool) {
	glob, clean, _ = scanWords(p, nil, false)
	return glob, clean
}

// scanPathComps is scanPath that also appends to dst the components of p
// when p is clean (they are then those of CleanPath(p)), saving a second
// pass to split it. It looks at eight bytes per step and at each slash;
// only a path with a "/." or "//" in it, or starting with ".", takes the
// byte-by-byte pass (scanPathBytes), which tells hidden names (".ssh")
// from "." and "..".
func scanPathComps(p string, dst []string) (glob, clean bool, comps []string) {
	return scanWords(p, dst, true)
}

// scanWords is scanPathComps, appending the components only when collect
// is set.
func scanWords(p string, dst []string, collect bool) (glob, clean bool, comps []string) {
	n := len(p)
	if n == 0 || p[0] == '.' {
		return scanPathBytes(p, dst, collect)
	}
	orig := dst
	var g, bad, carry uint64
	start := 0
	for i := 0; i < n; i += 8 {
		var w, valid uint64 = 0, 0x8080808080808080
		if i+8 <= n {
			w = lookup.Word(p, i)
		} else {
			w, valid = lookup.Tail(p, i)
		}
		slash := lookup.Eq(w, '/') & valid
		g |= globBytes(w) & valid
		// A slash followed by a slash or a dot, within the word or across.
		bad |= (slash<<8 | carry) & (slash | lookup.Eq(w, '.')) & valid
		carry = slash >> 56
		if slash == 0 {
			continue
		}
		if !collect {
			start = i + 8 - bits.LeadingZeros64(slash)/8
			continue
		}
		for m := slash; m != 0; m &= m - 1 {
			pos := i + bits.TrailingZeros64(m)/8
			if pos > start {
				dst = append(dst, p[start:pos])
			}
			start = pos + 1
		}
	}
	if bad != 0 {
		return scanPathBytes(p, orig, collect)
	}
	if start < n && collect {
		dst = append(dst, p[start:])
	}
	// A trailing slash (but "/" itself) is not clean.
	return g != 0, start < n || n == 1, dst
}

// scanPathBytes is scanPathComps one byte at a time.
func scanPathBytes(p string, dst []string, collect bool) (glob, clean bool, comps []string) {
	clean = p != ""
	start := 0
	for i := 0; i < len(p); i++ {
		switch p[i] {
		case '*', '?', '[':
			glob = true
		case '/':
			if n := i - start; (n == 0 && i > 0) || dotComp(p[start:i]) {
				clean = false
			} else if n > 0 && collect {
				dst = append(dst, p[start:i])
			}
			start = i + 1
		}
	}
	if last := p[start:]; (last == "" && len(p) > 1) || dotComp(last) {
		clean = false
	} else if last != "" && collect {
		dst = append(dst, last)
	}
	return glob, clean, dst
}

// homeDepth is the number of components that make up the home of a path
// SplitHome accepts: "/home/bob" and "/Users/bob" two, "~", "~bob" and
// "/root" one.
func homeDepth(p string) int {
	if len(p) > 1 && (p[1] == 'h' || p[1] == 'U') && (strings.HasPrefix(p, "/home/") || strings.HasPrefix(p, "/Users/")) {
		return 2
	}
	return 1
}

// dotComp reports whether a path component is "." or "..".
func dotComp(s string) bool {
	return s == "." || s == ".."
}

// CleanPath normalizes a path for comparison: duplicate slashes, "." and
// ".." collapse, a trailing slash is dropped ("/" stays "/"), and a leading
// "./" disappears.
func CleanPath(p string) string {
	if _, clean := scanPath(p); (clean && !strings.HasPrefix(p, "/proc/") && !strings.HasPrefix(p, "$")) || p == "" {
		return p // most paths are: no copy, no allocation
	}
	return sdk.NormalizePath(p)
}

func splitComps(p string) []string {
	return appendComps(nil, CleanPath(p))
}

// appendComps appends the components of the cleaned path c to dst,
// skipping empty and "." ones; with a stack buffer as dst, splitting a path
// for one match allocates nothing.
func appendComps(dst []string, c string) []string {
	for len(c) > 0 {
		i := strings.IndexByte(c, '/')
		var s string
		if i < 0 {
			s, c = c, ""
		} else {
			s, c = c[:i], c[i+1:]
		}
		if s != "" && s != "." {
			dst = append(dst, s)
		}
	}
	return dst
}

// prefixMatch: path components start with the pattern components (the path
// is the pattern or inside it). When the path is shorter it cannot be inside.
func prefixMatch(pat []compPat, comps []string, q *query, globs []compGlob) bool {
	if len(comps) < len(pat) {
		return false
	}
	for i := range pat {
		if !compMatch(&pat[i], comps[i], q.globAt(globs, i)) {
			return false
		}
	}
	return true
}

// suffixMatch: the pattern components match consecutive components of the
// path, ending at the path's last component or any ancestor of it.
func suffixMatch(pat []compPat, comps []string, q *query, globs []compGlob) bool {
	if len(pat) == 0 {
		return false
	}
	for end := len(pat); end <= len(comps); end++ {
		ok := true
		for i := range pat {
			k := end - len(pat) + i
			if !compMatch(&pat[i], comps[k], q.globAt(globs, k)) {
				ok = false
				break
			}
		}
		if ok {
			return true
		}
	}
	return false
}

// isPrefix reports whether a is a (non-strict) prefix of b, literally.
func isPrefix(a []string, b []compPat) bool {
	if len(a) > len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i].raw {
			return false
		}
	}
	return true
}

// compMatch matches one pattern component against one path component. A
// pattern component may be a glob ("*.pem"); g is set when the path
// component is one too (from an unexpanded word), which matches if it
// could expand to a name the pattern accepts.
func compMatch(pc *compPat, comp string, g globView) bool {
	pat := pc.raw
	if pat == comp {
		return true
	}
	switch {
	case !pc.glob && !g.is:
		return false
	case pc.glob && !g.is:
		return pc.matches(comp)
	case !pc.glob:
		return specificGlob(comp, g, pat) && globMatch(comp, pat)
	}
	if !specificGlob(comp, g, pc.wit) {
		return false
	}
	// Both are globs: try a witness of each against the other.
	if globMatch(comp, pc.wit) {
		return true
	}
	if pc.star {
		return pc.starMatches(g.wit)
	}
	ok, _ := path.Match(GoGlob(pc.raw), string(g.wit))
	return ok
}

// starMatches is matches for a one-star component and a name held in
// bytes.
func (pc *compPat) starMatches(name []byte) bool {
	return len(name) >= len(pc.pre)+len(pc.suf) && string(name[:len(pc.pre)]) == pc.pre &&
		string(name[len(name)-len(pc.suf):]) == pc.suf
}

// matches reports whether the glob component accepts name.
func (pc *compPat) matches(name string) bool {
	if pc.star {
		return len(name) >= len(pc.pre)+len(pc.suf) &&
			strings.HasPrefix(name, pc.pre) && strings.HasSuffix(name, pc.suf)
	}
	ok, _ := path.Match(pc.raw, name)
	return ok
}

// globMatch is path.Match(g, name) for a glob found in an accessed path.
// A literal first or last byte of g must equal name's, which rules out
// most names without running path.Match.
func globMatch(g, name string) bool {
	g = GoGlob(g)
	if name == "" || g == "" {
		ok, _ := path.Match(g, name)
		return ok
	}
	if c := g[0]; !isMeta(c) && c != ']' && name[0] != c {
		return false
	}
	if c := g[len(g)-1]; !isMeta(c) && c != ']' && (len(g) < 2 || g[len(g)-2] != '\\') && name[len(name)-1] != c {
		return false
	}
	ok, _ := path.Match(g, name)
	return ok
}

// GoGlob rewrites the shell's negated bracket expression "[!…]" as the
// "[^…]" path.Match understands (for path.Match "[!.]" is the class of "!"
// and "."), so that `~/.[!.]*` is judged as the shell expands it.
func GoGlob(g string) string {
	if strings.IndexByte(g, '[') < 0 || !strings.Contains(g, "[!") {
		return g
	}
	return strings.ReplaceAll(g, "[!", "[^")
}

// isMeta reports whether c has a meaning in a glob.
func isMeta(c byte) bool {
	return c == '*' || c == '?' || c == '[' || c == '\\'
}

// specificGlob reports whether a glob in an accessed path aims at name
// rather than at everything: it must contain a literal character ("*" and
// "docs/*" do not single out ".env") or start with a literal "." (".*" is
// aimed at the hidden names), and, as in the shell, a name starting with
// "." is only reached by a glob that starts with a literal ".".
func specificGlob(g string, info globView, name string) bool {
	if strings.HasPrefix(name, ".") && !strings.HasPrefix(g, ".") {
		return false
	}
	if len(g) > 1 && g[0] == '.' && g != ".." {
		// A literal leading "." aims at hidden names whatever follows:
		// ".*" reaches ".env" and ".ssh" as surely as ".??*" does.
		return true
	}
	return info.nonDot
}

// witness returns one concrete name a glob accepts: "*" → "", "?" → "x",
// "[abc]" → "a".
func witness(g string) string {
	var buf [64]byte
	return string(appendWitness(buf[:0], g))
}

// appendWitness appends witness(g) to dst.
func appendWitness(dst []byte, g string) []byte {
	for i := 0; i < len(g); i++ {
		switch c := g[i]; c {
		case '*':
		case '?':
			dst = append(dst, 'x')
		case '[':
			j := i + 1
			if j < len(g) && (g[j] == '!' || g[j] == '^') {
				// Negated class: any other letter will do.
				dst = append(dst, 'x')
			} else if j < len(g) {
				dst = append(dst, g[j])
			}
			for j < len(g) && g[j] != ']' {
				j++
			}
			i = j
		case '\\':
			if i+1 < len(g) {
				i++
				dst = append(dst, g[i])
			}
		default:
			dst = append(dst, c)
		}
	}
	return dst
}

// hasNonDot reports whether a witness holds a byte other than ".".
func hasNonDot(w []byte) bool {
	for _, c := range w {
		if c != '.' {
			return true
		}
	}
	return false
}

// envTemplateSuffixes end the names of env-file templates: checked-in
// examples of the variables an application reads, without their values.
var envTemplateSuffixes = []string{".example", ".sample", ".template", ".dist"}

// IsEnvTemplate reports whether p names a template of an env file
// (".env.example", "config/.env.sample", ".env.production.template"):
// RULES.md does not count those as secrets, even under a ".env.*" pattern.
// A glob base name is never a template (".env.*" may expand to ".env").
func IsEnvTemplate(p string) bool {
	base := p
	if k := strings.LastIndexByte(p, '/'); k >= 0 {
		base = p[k+1:]
	}
	if !strings.HasPrefix(base, ".env.") || HasGlob(base) {
		return false
	}
	for _, suf := range envTemplateSuffixes {
		if strings.HasSuffix(base, suf) {
			return true
		}
	}
	return false
}
