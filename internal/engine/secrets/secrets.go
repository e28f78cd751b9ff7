// Package secrets finds credential-looking literals in content and redacts
// them.
//
// The analyzers record what Find reports as facts (so rules can deny a
// private key pasted into a script), and the report builder runs Redact
// over evidence and messages so that a SafetyReport, an audit line or a
// log never repeats a credential it caught.
//
// Detection is literal: a variable reference ($TOKEN, os.environ[...]) is
// not a secret, and neither is the word "password" in prose or a PEM header
// without its dashes (`grep -c "BEGIN OPENSSH PRIVATE KEY" docs/x.md`). A full
// `-----BEGIN … PRIVATE KEY-----` header is a private key whatever follows it
// (RULES.md: the body may be redacted or split away).
package secrets

import (
	"math/bits"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/toolwarden/toolwarden/sdk"
)

// Kinds of secret, as documented on sdk.Secret.
const (
	KindPrivateKey = "private_key"
	KindAWSKey     = "aws_access_key"
	KindGitHub     = "github_token"
	KindSlack      = "slack_token"
	KindJWT        = "jwt"
	KindPassword   = "password_assignment"
	KindGeneric    = "generic_token"
)

// Marker returns the text that replaces a secret of kind in redacted
// output, e.g. "[REDACTED:github_token]".
func Marker(kind string) string { return "[REDACTED:" + kind + "]" }

// match is one secret found in content: [start,end) is the span that
// redaction replaces (for an assignment, only the value), at the offset
// where the construct starts (for an assignment, the key).
type match struct {
	start, end int
	at         int
	kind       string
	shape      string
	prio       int
}

// Find returns the secrets in content in source order, with 1-based line
// and byte column. The literals themselves are never returned: Redacted
// shows only their shape ("ghp_…[40 chars]", "DB_PASSWORD=****").
func Find(content string) []sdk.Secret {
	ms := scan(content)
	if len(ms) == 0 {
		return nil
	}
	lines := lineStarts(content)
	out := make([]sdk.Secret, len(ms))
	for i, m := range ms {
		line := sort.Search(len(lines), func(j int) bool { return lines[j] > m.at })
		out[i] = sdk.Secret{
			Kind:     m.kind,
			Redacted: m.shape,
			Pos:      sdk.Pos{Line: line, Col: m.at - lines[line-1] + 1},
		}
	}
	return out
}

// Redact replaces every secret in s with its Marker and reports whether
// anything was replaced. For an assignment only the value is replaced
// ("password=[REDACTED:password_assignment]"), so the evidence still says
// what was assigned. Redact is idempotent.
func Redact(s string) (string, bool) {
	ms := scan(s)
	if len(ms) == 0 {
		return s, false
	}
	var b strings.Builder
	b.Grow(len(s))
	last := 0
	for _, m := range ms {
		b.WriteString(s[last:m.start])
		b.WriteString(Marker(m.kind))
		last = m.end
	}
	b.WriteString(s[last:])
	return b.String(), true
}

// scan finds all secrets, resolves overlaps in favour of the more specific
// kind, and returns them sorted by position. It is linear in len(s).
func scan(s string) []match {
	var ms []match
	if strings.Contains(s, "PRIVATE KEY") {
		ms = findPEM(s, ms)
	}
	// A header split across literals may split any of its words, so the
	// (linear) squashed read requires only "---": a split of the five
	// leading dashes in two keeps three together. Dashes spread over three
	// or more literals are not looked for.
	if strings.Contains(s, "---") {
		ms = findSplitPEM(s, ms)
	}
	ms = findTokens(s, ms)
	if strings.ContainsAny(s, "=:") {
		ms = findAssignments(s, ms)
	}
	if strings.Contains(s, "://") {
		ms = findURLPasswords(s, ms)
	}
	if len(ms) == 0 {
		return nil
	}
	sort.Slice(ms, func(i, j int) bool {
		if ms[i].start != ms[j].start {
			return ms[i].start < ms[j].start
		}
		return ms[i].prio < ms[j].prio
	})
	// One sweep: kept spans are disjoint and sorted, so a new span can only
	// overlap the last kept one; the more specific kind (lower prio) wins.
	kept := ms[:0:0]
	for _, m := range ms {
		if n := len(kept); n > 0 && kept[n-1].end > m.start {
			if kept[n-1].prio <= m.prio {
				continue
			}
			kept = kept[:n-1]
		}
		kept = append(kept, m)
	}
	return kept
}

// lineStarts returns the byte offset at which each line starts.
func lineStarts(s string) []int {
	starts := []int{0}
	for i := 0; i < len(s); i++ {
		if s[i] == '\n' {
			starts = append(starts, i+1)
		}
	}
	return starts
}

// pemHeader is a private-key armor header: PEM ("RSA PRIVATE KEY",
// "ENCRYPTED PRIVATE KEY", "OPENSSH PRIVATE KEY", ...) and OpenPGP's
// "PGP PRIVATE KEY BLOCK".
var pemHeader = regexp.MustCompile(`-----BEGIN ([A-Z0-9]+ )*PRIVATE KEY( BLOCK)?-----`)

// minPEMBody is the least amount of base64 after a header that makes a key:
// real keys have hundreds of characters, a header quoted in docs has none.
const minPEMBody = 40

// findPEM finds PEM private key blocks that carry a body. The body may be
// split by real newlines or by escaped ones ("\n" inside a string literal)
// and may be preceded by RFC 1421 headers (Proc-Type, DEK-Info).
func findPEM(s string, ms []match) []match {
	for _, loc := range pemHeader.FindAllStringIndex(s, -1) {
		i := loc[1]
		body := 0
		end := i
	body:
		for i < len(s) {
			c := s[i]
			switch {
			case isB64(c):
				// A "Name: value" header line inside the block.
				if j := headerLineEnd(s, i); j > i {
					i = j
					continue
				}
				body++
				i++
				end = i
			case c == '\n' || c == '\r' || c == ' ' || c == '\t':
				i++
			case c == '\\' && i+1 < len(s) && (s[i+1] == 'n' || s[i+1] == 'r'):
				i += 2
			default:
				break body
			}
		}
		_ = minPEMBody // RULES.md: the header alone is enough, whatever the body
		if strings.HasPrefix(s[i:], "-----END ") {
			if j := strings.Index(s[i+9:], "-----"); j >= 0 && j < 40 {
				end = i + 9 + j + 5
			}
		}
		header := s[loc[0]:loc[1]]
		ms = append(ms, match{start: loc[0], end: end, at: loc[0], kind: KindPrivateKey,
			shape: header + "…[" + strconv.Itoa(end-loc[0]) + " chars]", prio: 0})
	}
	return ms
}

// splitPEMHeader is a PEM private-key header with the spaces removed.
var splitPEMHeader = regexp.MustCompile(`-----BEGIN[A-Z0-9]*PRIVATEKEY(BLOCK)?-----`)

// findSplitPEM finds a private-key header assembled from several literals
// (`'-----BEGIN RSA PRIV' 'ATE KEY-----'`, `"-----BEGIN " + "PRIVATE
// KEY-----"`, printf arguments): the text is read with quotes, spaces,
// concatenation operators and line continuations removed, and a header found
// there that is not already a plain header is reported where it starts.
func findSplitPEM(s string, ms []match) []match {
	squashed := make([]byte, 0, len(s))
	offs := make([]int, 0, len(s))
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '\'', '"', ' ', '\t', '\n', '\r', '+', '.', ',', '\\', '(', ')':
			continue
		default:
			squashed = append(squashed, c)
			offs = append(offs, i)
		}
	}
	for _, loc := range splitPEMHeader.FindAllIndex(squashed, -1) {
		start, end := offs[loc[0]], offs[loc[1]-1]+1
		if pemHeader.MatchString(s[start:end]) {
			continue // a plain header: findPEM reported it
		}
		ms = append(ms, match{start: start, end: end, at: start, kind: KindPrivateKey,
			shape: "-----BEGIN …PRIVATE KEY----- (split across literals)", prio: 0})
	}
	return ms
}

// headerLineEnd returns the end of a "Proc-Type: …" style header line
// starting at i (after its newline), or i when there is none.
func headerLineEnd(s string, i int) int {
	j := i
	for j < len(s) && (isAlnum(s[j]) || s[j] == '-') {
		j++
	}
	if j == i || j+1 >= len(s) || s[j] != ':' || s[j+1] != ' ' {
		return i
	}
	for j < len(s) && s[j] != '\n' {
		if s[j] == '\\' && j+1 < len(s) && s[j+1] == 'n' {
			return j
		}
		j++
	}
	return j
}

func isB64(c byte) bool { return isAlnum(c) || c == '+' || c == '/' || c == '=' }

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// tokenRule recognises a credential by its own shape. Each rule starts with
// a literal prefix: Find locates prefixes with strings.Index (fast, no
// regexp state) and only then runs the rule's anchored pattern there, which
// keeps a scan a few microseconds per kilobyte.
type tokenRule struct {
	prefixes []string
	re       *regexp.Regexp
	kind     string
	// boundary requires a non-word byte (or the start) before the prefix.
	boundary bool
	// scheme marks "Authorization: Bearer x" rules: only the credential
	// after the last space is redacted.
	scheme bool
}

var jwtPattern = regexp.MustCompile(`^eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}`)

var tokenRules = []tokenRule{
	{[]string{"AKIA", "ASIA", "ABIA", "ACCA"}, regexp.MustCompile(`^(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}\b`), KindAWSKey, true, false},
	{[]string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_"}, regexp.MustCompile(`^gh[pousr]_[A-Za-z0-9]{36,255}\b`), KindGitHub, true, false},
	{[]string{"github_pat_"}, regexp.MustCompile(`^github_pat_[A-Za-z0-9_]{22,255}\b`), KindGitHub, true, false},
	{[]string{"xox"}, regexp.MustCompile(`^xox[abposre]-[A-Za-z0-9-]{10,}`), KindSlack, true, false},
	{[]string{"https://hooks.slack.com/services/"}, regexp.MustCompile(`^https://hooks\.slack\.com/services/[A-Za-z0-9/_-]{20,}`), KindSlack, false, false},
	{[]string{"eyJ"}, jwtPattern, KindJWT, true, false},
	{[]string{"sk-"}, regexp.MustCompile(`^sk-(?:proj-|ant-|live-|test-)?[A-Za-z0-9_-]{20,}\b`), KindGeneric, true, false},
	{[]string{"sk_live_", "sk_test_", "rk_live_", "rk_test_"}, regexp.MustCompile(`^[sr]k_(?:live|test)_[A-Za-z0-9]{16,}\b`), KindGeneric, true, false},
	{[]string{"glpat-"}, regexp.MustCompile(`^glpat-[A-Za-z0-9_-]{20,}\b`), KindGeneric, true, false},
	{[]string{"AIza"}, regexp.MustCompile(`^AIza[0-9A-Za-z_-]{35}\b`), KindGeneric, true, false},
	{[]string{"npm_"}, regexp.MustCompile(`^npm_[A-Za-z0-9]{36}\b`), KindGeneric, true, false},
	{[]string{"hf_"}, regexp.MustCompile(`^hf_[A-Za-z0-9]{30,}\b`), KindGeneric, true, false},
	{[]string{"xapp-"}, regexp.MustCompile(`^xapp-[A-Za-z0-9-]{20,}\b`), KindGeneric, true, false},
	{[]string{"Authorization:", "authorization:", "AUTHORIZATION:", "Bearer ", "bearer ", "BEARER ", "Bearer\t", "bearer\t"},
		regexp.MustCompile(`^(?i:authorization:[ \t]*(?:bearer|basic|token)[ \t]+|bearer[ \t]+)[A-Za-z0-9._~+/-]{16,}=*`), KindGeneric, true, true},
}

func isWord(c byte) bool { return isAlnum(c) || c == '_' }

// tokenPrefixes lists every tokenRules prefix once, in rule order; bit i
// of a prefixesIn mask stands for tokenPrefixes[i]. prefixFirst[c] and
// prefixSecond[c] have bit i set when tokenPrefixes[i] has byte c first or
// second.
var tokenPrefixes, prefixFirst, prefixSecond = func() ([]string, [256]uint64, [256]uint64) {
	var all []string
	var first, second [256]uint64
	for _, r := range tokenRules {
		for _, p := range r.prefixes {
			if len(p) < 2 || len(all) == 64 {
				panic("secrets: a token prefix is shorter than two bytes, or there are more than a mask holds")
			}
			first[p[0]] |= 1 << len(all)
			second[p[1]] |= 1 << len(all)
			all = append(all, p)
		}
	}
	return all, first, second
}()

// prefixesIn returns the set of tokenPrefixes that occur in s, in one pass
// of two table lookups per byte: most content holds none, and then
// findTokens needs no search per prefix (three dozen strings.Index calls
// over the same bytes).
func prefixesIn(s string) uint64 {
	var m uint64
	for i := 0; i+1 < len(s); i++ {
		c := prefixFirst[s[i]] & prefixSecond[s[i+1]] &^ m
		for c != 0 {
			id := bits.TrailingZeros64(c)
			c &^= 1 << id
			if strings.HasPrefix(s[i:], tokenPrefixes[id]) {
				m |= 1 << id
			}
		}
	}
	return m
}

func findTokens(s string, ms []match) []match {
	present := prefixesIn(s)
	if present == 0 {
		return ms
	}
	id := 0
	for ri := range tokenRules {
		r := &tokenRules[ri]
		for _, prefix := range r.prefixes {
			id++
			if present&(1<<(id-1)) == 0 {
				// Not in s: strings.Index would find nothing.
				continue
			}
			from := 0
			for {
				k := strings.Index(s[from:], prefix)
				if k < 0 {
					break
				}
				pos := from + k
				from = pos + 1
				if r.boundary && pos > 0 && isWord(s[pos-1]) {
					continue
				}
				loc := r.re.FindStringIndex(s[pos:])
				if loc == nil {
					continue
				}
				start, end := pos, pos+loc[1]
				lit := s[start:end]
				if !r.scheme {
					ms = append(ms, match{start: start, end: end, at: start, kind: r.kind,
						shape: tokenShape(lit), prio: 1})
					from = end
					continue
				}
				// Keep the scheme words; redact the credential after them.
				sp := strings.LastIndexAny(lit, " \t") + 1
				cred := lit[sp:]
				if isPlaceholder(cred) || strings.HasPrefix(cred, "[REDACTED") {
					continue
				}
				kind := r.kind
				if l := jwtPattern.FindStringIndex(cred); l != nil && l[1] == len(cred) {
					kind = KindJWT
				}
				ms = append(ms, match{start: start + sp, end: end, at: start, kind: kind,
					shape: lit[:sp] + "…[" + strconv.Itoa(len(cred)) + " chars]", prio: 2})
				from = end
			}
		}
	}
	return ms
}

// tokenShape keeps a token's well-known prefix and its length.
func tokenShape(lit string) string {
	prefix := lit
	if i := strings.IndexAny(lit, "_-."); i >= 0 && i < 12 {
		prefix = lit[:i+1]
	} else if len(lit) > 4 {
		prefix = lit[:4]
	}
	if strings.HasPrefix(lit, "https://") {
		prefix = "https://hooks.slack.com/services/"
	}
	return prefix + "…[" + strconv.Itoa(len(lit)) + " chars]"
}

// secretKeySuffixes are the endings of key names that hold credentials
// (DB_PASSWORD, client_secret, GITHUB_TOKEN, apiKey, aws_secret_access_key).
// A key must end with one: max_tokens, tokenizer and token_url do not.
var secretKeySuffixes = []string{
	"password", "passwd", "passphrase", "pwd", "secret", "token",
	"apikey", "api_key", "api-key", "accesskey", "access_key", "access-key",
	"secretkey", "secret_key", "secret-key", "privatekey", "private_key", "private-key",
	"credential", "credentials", "authkey", "auth_key", "auth-key",
}

// maxKeyLen bounds how far back from an operator a key name is looked for.
const maxKeyLen = 64

func isKeyByte(c byte) bool { return isWord(c) || c == '.' || c == '-' }

// findAssignments finds `key = value`, `key: value`, `"key": "value"`,
// `key := value` and `--key=value` where the key names a credential and the
// value is a literal. It walks the operators of s once and looks back for
// the key, so it costs one pass over the content.
func findAssignments(s string, ms []match) []match {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '=' && c != ':' {
			continue
		}
		op, opEnd := string(c), i+1
		switch {
		case c == ':' && opEnd < len(s) && s[opEnd] == '=':
			op, opEnd = ":=", opEnd+1
		case c == '=' && opEnd < len(s) && s[opEnd] == '>':
			op, opEnd = "=>", opEnd+1
		case c == '=' && opEnd < len(s) && s[opEnd] == '=':
			i++ // comparison
			continue
		case c == ':' && opEnd < len(s) && (s[opEnd] == ':' || s[opEnd] == '/'):
			continue // "::" or a URL scheme
		case c == '=' && i > 0 && strings.IndexByte("=!<>+-*/%&|^~", s[i-1]) >= 0:
			continue // comparison or compound assignment
		}
		// Look back: spaces, an optional closing quote, the key, an
		// optional opening quote.
		j := i
		for j > 0 && (s[j-1] == ' ' || s[j-1] == '\t') {
			j--
		}
		spacedBefore := j < i
		closeQ := byte(0)
		if j > 0 && (s[j-1] == '"' || s[j-1] == '\'') {
			closeQ = s[j-1]
			j--
		}
		keyEnd := j
		for j > 0 && keyEnd-j < maxKeyLen && isKeyByte(s[j-1]) {
			j--
		}
		if j > 0 && isKeyByte(s[j-1]) {
			continue // key longer than maxKeyLen: not a credential name
		}
		for j < keyEnd && (s[j] == '-' || s[j] == '.') {
			j++ // "--password" → "password"
		}
		keyStart := j
		if keyStart == keyEnd || !hasSecretSuffix(s[keyStart:keyEnd]) {
			continue
		}
		key := strings.ToLower(s[keyStart:keyEnd])
		if key == "pwd" || key == "oldpwd" {
			continue // the shell's working directory variables
		}
		openQ := byte(0)
		if keyStart > 0 && (s[keyStart-1] == '"' || s[keyStart-1] == '\'') {
			openQ = s[keyStart-1]
		}
		if openQ == 0 && closeQ != 0 {
			continue // `password"=` is not a key
		}
		// A quote before the key alone opens a surrounding string
		// (`echo "token=abc"`); a key in matching quotes is a mapping key.
		quotedKey := openQ != 0 && openQ == closeQ
		keyFrom := keyStart
		if quotedKey {
			keyFrom--
		}
		if op == ":" && !quotedKey && !lineStartBefore(s, keyFrom) {
			// A bare `key: value` is a mapping only at the start of a line
			// (YAML, env files, HTTP headers); elsewhere it is prose.
			continue
		}
		vStart := opEnd
		for vStart < len(s) && (s[vStart] == ' ' || s[vStart] == '\t') {
			vStart++
		}
		spaced := spacedBefore || vStart > opEnd
		vs, ve, ok := literalValue(s, vStart, op, spaced, quotedKey || op == ":")
		if !ok {
			continue
		}
		ms = append(ms, match{start: vs, end: ve, at: keyStart, kind: KindPassword,
			shape: s[keyStart:keyEnd] + op + "****", prio: 3})
		i = ve - 1
	}
	return ms
}

// hasSecretSuffix reports whether key ends with a credential word, ignoring
// ASCII case.
func hasSecretSuffix(key string) bool {
	for _, suf := range secretKeySuffixes {
		if len(key) >= len(suf) && strings.EqualFold(key[len(key)-len(suf):], suf) {
			return true
		}
	}
	return false
}

// findURLPasswords finds passwords in URL user info
// ("postgres://app:s3cret@db/prod"); only the password is redacted.
func findURLPasswords(s string, ms []match) []match {
	from := 0
	for {
		k := strings.Index(s[from:], "://")
		if k < 0 {
			return ms
		}
		begin := from + k + 3
		from = begin
		// The authority ends at the first byte that cannot be in it.
		end := begin
		for end < len(s) && !strings.ContainsRune(" \t\r\n/?#\"'`<>()[]{}\\", rune(s[end])) {
			end++
		}
		at := strings.LastIndexByte(s[begin:end], '@')
		if at < 0 {
			continue
		}
		userinfo := s[begin : begin+at]
		colon := strings.IndexByte(userinfo, ':')
		if colon < 0 {
			continue
		}
		pw := userinfo[colon+1:]
		if len(pw) < 3 || isDynamic(pw) || isPlaceholder(pw) || strings.HasPrefix(pw, "[REDACTED") {
			continue
		}
		vs := begin + colon + 1
		scheme := from - 3
		for scheme > 0 && (isAlnum(s[scheme-1]) || s[scheme-1] == '+' || s[scheme-1] == '.' || s[scheme-1] == '-') {
			scheme--
		}
		ms = append(ms, match{start: vs, end: vs + len(pw), at: scheme, kind: KindPassword,
			shape: s[scheme:begin] + userinfo[:colon] + ":****@", prio: 3})
		from = begin + at + 1
	}
}

// lineStartBefore reports whether only spaces, tabs, "-", "#" or "export"
// separate offset i from the start of its line.
func lineStartBefore(s string, i int) bool {
	j := strings.LastIndexByte(s[:i], '\n') + 1
	prefix := strings.TrimSpace(s[j:i])
	prefix = strings.TrimPrefix(prefix, "export")
	prefix = strings.TrimLeft(prefix, " \t-#")
	return prefix == ""
}

// literalValue returns the span of a literal value starting at i, or false
// when the value is a reference, an expression or a placeholder. A quoted
// value is a literal unless it interpolates; an unquoted value is a literal
// only in assignment syntax (`KEY=value`, `--key=value`, `key: value` at
// line start), not as a Python keyword argument (`password=pw,` or `)`).
func literalValue(s string, i int, op string, spaced, mapping bool) (int, int, bool) {
	if i >= len(s) {
		return 0, 0, false
	}
	prefix := 0
	if (s[i] == 'b' || s[i] == 'r' || s[i] == 'u') && i+1 < len(s) && (s[i+1] == '"' || s[i+1] == '\'') {
		prefix = 1 // Python b"..", r"..", u".." literals
	}
	if q := s[i+prefix]; q == '"' || q == '\'' {
		start := i + prefix + 1
		end := strings.IndexByte(s[start:], q)
		if end < 0 {
			return 0, 0, false
		}
		v := s[start : start+end]
		if len(v) < 3 || strings.ContainsAny(v, " \t\n") || isDynamic(v) || isPlaceholder(v) {
			return 0, 0, false
		}
		return start, start + end, true
	}
	if s[i] == 'f' && i+1 < len(s) && (s[i+1] == '"' || s[i+1] == '\'') {
		return 0, 0, false // f-string: interpolated
	}
	if spaced && !mapping {
		// `password = something` unquoted is a variable or expression in
		// every language that allows spaces around "=".
		return 0, 0, false
	}
	j := i
	for j < len(s) && !strings.ContainsRune(" \t\r\n;&|\"'`,)(}[]<>", rune(s[j])) {
		j++
	}
	v := s[i:j]
	if len(v) < 4 || isDynamic(v) || isPlaceholder(v) || isPathLike(v) || isKeyword(v) {
		return 0, 0, false
	}
	if j < len(s) && strings.IndexByte(",)([", s[j]) >= 0 {
		return 0, 0, false // keyword argument or call: `password=pw)`, `token=get()`
	}
	if mapping && op == ":" {
		// YAML-style: the value must be the rest of the line.
		rest := s[j:]
		if k := strings.IndexByte(rest, '\n'); k >= 0 {
			rest = rest[:k]
		}
		if strings.TrimSpace(rest) != "" {
			return 0, 0, false
		}
	}
	if !mapping && isIdentifier(v) && looksLikeCode(s, j) {
		return 0, 0, false
	}
	return i, j, true
}

// isDynamic reports values that reference something instead of being one.
func isDynamic(v string) bool {
	return strings.HasPrefix(v, "$") || strings.Contains(v, "${") || strings.Contains(v, "$(") ||
		strings.Contains(v, "{{") || (strings.Contains(v, "{") && strings.Contains(v, "}")) ||
		strings.HasPrefix(v, "%(") || strings.HasPrefix(v, "[REDACTED")
}

// isPlaceholder reports documentation values: <token>, ****, xxxx, "...".
func isPlaceholder(v string) bool {
	if strings.HasPrefix(v, "<") && strings.HasSuffix(v, ">") {
		return true
	}
	same := true
	for i := 1; i < len(v); i++ {
		if v[i] != v[0] {
			same = false
			break
		}
	}
	if same {
		return true
	}
	l := strings.ToLower(v)
	return strings.HasPrefix(l, "your_") || strings.HasPrefix(l, "your-") || l == "changeme" ||
		l == "placeholder" || l == "redacted" || strings.Trim(l, "x*.") == ""
}

func isPathLike(v string) bool {
	return strings.HasPrefix(v, "/") || strings.HasPrefix(v, "~/") || strings.HasPrefix(v, "./") ||
		strings.HasPrefix(v, "../")
}

func isKeyword(v string) bool {
	switch strings.ToLower(v) {
	case "true", "false", "none", "null", "nil", "undefined", "required", "optional", "str", "string", "bytes":
		return true
	}
	return false
}

func isIdentifier(v string) bool {
	for i := 0; i < len(v); i++ {
		c := v[i]
		if !(isAlnum(c) || c == '_' || c == '.') {
			return false
		}
	}
	return !(v[0] >= '0' && v[0] <= '9')
}

// looksLikeCode reports whether the text after an unquoted identifier value
// continues an expression (`token=a + c`) rather than ending a shell
// assignment or option (`DB_PASSWORD=x ./migrate`, `--password=x -u root`).
func looksLikeCode(s string, j int) bool {
	for j < len(s) && (s[j] == ' ' || s[j] == '\t') {
		j++
	}
	return j+1 < len(s) && strings.IndexByte("+-*/%", s[j]) >= 0 && (s[j+1] == ' ' || s[j+1] == '\t')
}
