package python

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// tokKind classifies a token of Python source.
type tokKind uint8

const (
	tEOF tokKind = iota
	tNewline
	tIndent
	tDedent
	tName
	tNumber
	tString
	tOp
)

// fpart is one piece of an f-string: literal text, or the source of a
// replacement field (with its byte offset in the file, for positions).
type fpart struct {
	lit     string
	expr    string
	conv    byte // 'r', 's', 'a' or 0
	hasExpr bool
	off     int
}

// strLit is the decoded form of a string literal token.
type strLit struct {
	val   string
	bytes bool
	fstr  bool
	parts []fpart
}

// token is one lexical token; text is a slice of the source. It is kept
// small because a file produces about one token per three bytes.
type token struct {
	kind tokKind
	text string
	lit  *strLit
	line int32
	col  int32
	off  int32
	end  int32
}

// syntaxError is a tokenize or parse failure at a position.
type syntaxError struct {
	msg       string
	line, col int
}

func (e *syntaxError) Error() string { return fmt.Sprintf("line %d col %d: %s", e.line, e.col, e.msg) }

// lexer turns source into tokens, tracking indentation and bracket depth
// the way CPython's tokenizer does (implicit joining inside brackets).
type lexer struct {
	src       string
	pos       int
	line      int
	lineStart int
	depth     int
	indents   []int
	toks      []token
	atLineBeg bool
}

func tokenize(src string) (toks []token, err error) {
	lx := &lexer{src: src, line: 1, indents: []int{0}, atLineBeg: true}
	lx.toks = make([]token, 0, len(src)/3+16)
	if err := lx.run(); err != nil {
		return lx.complete(), err
	}
	return lx.toks, nil
}

// complete returns the tokens of the logical lines before a tokenize
// error, closed so they parse: the statements before a bad line are still
// analyzed.
func (lx *lexer) complete() []token {
	keep := 0
	for i := len(lx.toks) - 1; i >= 0; i-- {
		if lx.toks[i].kind == tNewline {
			keep = i + 1
			break
		}
	}
	toks := lx.toks[:keep]
	depth := 0
	for _, t := range toks {
		switch t.kind {
		case tIndent:
			depth++
		case tDedent:
			depth--
		}
	}
	end := int32(len(lx.src))
	for ; depth > 0; depth-- {
		toks = append(toks, token{kind: tDedent, off: end, end: end})
	}
	return append(toks, token{kind: tEOF, off: end, end: end})
}

func (lx *lexer) errf(off int, format string, a ...any) error {
	line, col := lx.lineColAt(off)
	return &syntaxError{msg: fmt.Sprintf(format, a...), line: line, col: col}
}

// lineColAt recomputes a position for an offset at or after lineStart.
func (lx *lexer) lineColAt(off int) (int, int) {
	if off >= lx.lineStart {
		return lx.line, off - lx.lineStart + 1
	}
	line := 1 + strings.Count(lx.src[:off], "\n")
	ls := strings.LastIndexByte(lx.src[:off], '\n') + 1
	return line, off - ls + 1
}

func (lx *lexer) emit(k tokKind, start, end int) *token {
	lx.toks = append(lx.toks, token{kind: k, text: lx.src[start:end], line: int32(lx.line), col: int32(start - lx.lineStart + 1), off: int32(start), end: int32(end)})
	return &lx.toks[len(lx.toks)-1]
}

func (lx *lexer) newline() {
	lx.line++
	lx.lineStart = lx.pos
}

func (lx *lexer) run() error {
	src := lx.src
	for {
		if lx.atLineBeg && lx.depth == 0 {
			// measure indentation; skip blank and comment-only lines
			width := 0
			p := lx.pos
			for p < len(src) {
				c := src[p]
				if c == ' ' {
					width++
				} else if c == '\t' {
					width = (width/8 + 1) * 8
				} else if c == '\f' {
					width = 0
				} else {
					break
				}
				p++
			}
			if p >= len(src) {
				lx.pos = p
				break
			}
			c := src[p]
			if c == '#' || c == '\n' || c == '\r' || (c == '\\' && p+1 < len(src) && (src[p+1] == '\n' || src[p+1] == '\r')) {
				// blank line: skip to end of line
				if c == '\\' {
					lx.pos = p + 1
				} else {
					for p < len(src) && src[p] != '\n' {
						p++
					}
					lx.pos = p
				}
				if lx.pos < len(src) && src[lx.pos] == '\r' {
					lx.pos++
				}
				if lx.pos < len(src) && src[lx.pos] == '\n' {
					lx.pos++
				}
				lx.newline()
				continue
			}
			lx.pos = p
			lx.atLineBeg = false
			top := lx.indents[len(lx.indents)-1]
			if width > top {
				lx.indents = append(lx.indents, width)
				lx.emit(tIndent, p, p)
			} else {
				for width < lx.indents[len(lx.indents)-1] {
					lx.indents = lx.indents[:len(lx.indents)-1]
					lx.emit(tDedent, p, p)
				}
				if width != lx.indents[len(lx.indents)-1] {
					return lx.errf(p, "unindent does not match any outer indentation level")
				}
			}
		}
		if lx.pos >= len(src) {
			break
		}
		c := src[lx.pos]
		switch {
		case c == ' ' || c == '\t' || c == '\f':
			lx.pos++
		case c == '#':
			for lx.pos < len(src) && src[lx.pos] != '\n' {
				lx.pos++
			}
		case c == '\r' || c == '\n':
			if c == '\r' && lx.pos+1 < len(src) && src[lx.pos+1] == '\n' {
				lx.pos++
			}
			if lx.depth == 0 {
				lx.emit(tNewline, lx.pos, lx.pos)
				lx.atLineBeg = true
			}
			lx.pos++
			lx.newline()
		case c == '\\':
			p := lx.pos + 1
			if p < len(src) && src[p] == '\r' {
				p++
			}
			if p < len(src) && src[p] == '\n' {
				lx.pos = p + 1
				lx.newline()
				continue
			}
			if p >= len(src) {
				lx.pos = p
				continue
			}
			return lx.errf(lx.pos, "unexpected character after line continuation character")
		case c >= '0' && c <= '9' || (c == '.' && lx.pos+1 < len(src) && src[lx.pos+1] >= '0' && src[lx.pos+1] <= '9'):
			lx.lexNumber()
		case c == '"' || c == '\'':
			if err := lx.lexString(lx.pos, lx.pos); err != nil {
				return err
			}
		case isIdentStart(c):
			start := lx.pos
			for lx.pos < len(src) && isIdentByte(src[lx.pos]) {
				lx.pos++
			}
			if lx.pos < len(src) && src[lx.pos] >= utf8.RuneSelf {
				lx.scanUnicodeIdent()
			}
			// string prefix?
			if lx.pos < len(src) && (src[lx.pos] == '"' || src[lx.pos] == '\'') && lx.pos-start <= 2 && isStrPrefix(src[start:lx.pos]) {
				if err := lx.lexString(start, lx.pos); err != nil {
					return err
				}
				continue
			}
			lx.emit(tName, start, lx.pos)
		case c >= utf8.RuneSelf:
			r, size := utf8.DecodeRuneInString(src[lx.pos:])
			if unicode.IsLetter(r) || r == '_' {
				start := lx.pos
				lx.pos += size
				lx.scanUnicodeIdent()
				lx.emit(tName, start, lx.pos)
				continue
			}
			if r == '\u00a0' || r == '\ufeff' {
				lx.pos += size
				continue
			}
			return lx.errf(lx.pos, "invalid character %q", r)
		default:
			if err := lx.lexOp(); err != nil {
				return err
			}
		}
	}
	if lx.depth > 0 {
		return lx.errf(len(src), "unexpected EOF: unclosed bracket")
	}
	if n := len(lx.toks); n > 0 && lx.toks[n-1].kind != tNewline && lx.toks[n-1].kind != tDedent {
		lx.emit(tNewline, len(src), len(src))
	}
	for len(lx.indents) > 1 {
		lx.indents = lx.indents[:len(lx.indents)-1]
		lx.emit(tDedent, len(src), len(src))
	}
	lx.emit(tEOF, len(src), len(src))
	return nil
}

func (lx *lexer) scanUnicodeIdent() {
	for lx.pos < len(lx.src) {
		c := lx.src[lx.pos]
		if isIdentByte(c) {
			lx.pos++
			continue
		}
		if c < utf8.RuneSelf {
			return
		}
		r, size := utf8.DecodeRuneInString(lx.src[lx.pos:])
		if !(unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r) || unicode.Is(unicode.Mc, r)) {
			return
		}
		lx.pos += size
	}
}

func isIdentStart(c byte) bool {
	return c == '_' || (c|0x20) >= 'a' && (c|0x20) <= 'z'
}

func isIdentByte(c byte) bool { return isIdentStart(c) || c >= '0' && c <= '9' }

func isStrPrefix(p string) bool {
	switch strings.ToLower(p) {
	case "r", "u", "b", "f", "br", "rb", "fr", "rf", "t", "tr", "rt":
		return true
	}
	return false
}

// opLen returns the length of the operator at the start of rest (1, 2 or
// 3 bytes), by longest match.
func opLen(rest string) int {
	c := rest[0]
	var c1, c2 byte
	if len(rest) > 1 {
		c1 = rest[1]
	}
	if len(rest) > 2 {
		c2 = rest[2]
	}
	switch c {
	case '*', '/', '<', '>':
		if c1 == c { // ** // << >>
			if c2 == '=' {
				return 3
			}
			return 2
		}
		if c1 == '=' {
			return 2
		}
	case '.':
		if c1 == '.' && c2 == '.' {
			return 3
		}
	case '-':
		if c1 == '>' || c1 == '=' {
			return 2
		}
	case '+', '%', '&', '|', '^', '@', '=', '!', ':':
		if c1 == '=' {
			return 2
		}
	}
	return 1
}

func (lx *lexer) lexOp() error {
	rest := lx.src[lx.pos:]
	if n := opLen(rest); n > 1 {
		lx.emit(tOp, lx.pos, lx.pos+n)
		lx.pos += n
		return nil
	}
	c := rest[0]
	switch c {
	case '(', '[', '{':
		lx.depth++
	case ')', ']', '}':
		if lx.depth == 0 {
			return lx.errf(lx.pos, "unmatched %q", c)
		}
		lx.depth--
	case '+', '-', '*', '/', '%', '@', '&', '|', '^', '~', '<', '>', ',', ':', ';', '.', '=':
	default:
		return lx.errf(lx.pos, "invalid character %q", c)
	}
	lx.emit(tOp, lx.pos, lx.pos+1)
	lx.pos++
	return nil
}

func (lx *lexer) lexNumber() {
	src := lx.src
	start := lx.pos
	p := lx.pos
	if src[p] == '0' && p+1 < len(src) && strings.IndexByte("xXoObB", src[p+1]) >= 0 {
		p += 2
		for p < len(src) && (isHex(src[p]) || src[p] == '_') {
			p++
		}
	} else {
		for p < len(src) && (src[p] >= '0' && src[p] <= '9' || src[p] == '_') {
			p++
		}
		if p < len(src) && src[p] == '.' {
			p++
			for p < len(src) && (src[p] >= '0' && src[p] <= '9' || src[p] == '_') {
				p++
			}
		}
		if p < len(src) && (src[p] == 'e' || src[p] == 'E') {
			q := p + 1
			if q < len(src) && (src[q] == '+' || src[q] == '-') {
				q++
			}
			if q < len(src) && src[q] >= '0' && src[q] <= '9' {
				p = q
				for p < len(src) && (src[p] >= '0' && src[p] <= '9' || src[p] == '_') {
					p++
				}
			}
		}
		if p < len(src) && (src[p] == 'j' || src[p] == 'J') {
			p++
		}
	}
	lx.pos = p
	lx.emit(tNumber, start, p)
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || (c|0x20) >= 'a' && (c|0x20) <= 'f'
}

// lexString scans a string literal whose prefix starts at start and whose
// opening quote is at q.
func (lx *lexer) lexString(start, q int) error {
	src := lx.src
	prefix := strings.ToLower(src[start:q])
	raw := strings.ContainsRune(prefix, 'r')
	isBytes := strings.ContainsRune(prefix, 'b')
	isF := strings.ContainsRune(prefix, 'f') || strings.ContainsRune(prefix, 't')
	quote := src[q]
	triple := q+2 < len(src) && src[q+1] == quote && src[q+2] == quote
	p := q + 1
	if triple {
		p = q + 3
	}
	bodyStart := p
	line, col := lx.line, start-lx.lineStart+1
	braces := 0
	for {
		if p >= len(src) {
			return &syntaxError{msg: "unterminated string literal", line: line, col: col}
		}
		c := src[p]
		if c == '\\' {
			p += 2
			if p-1 < len(src) && src[p-1] == '\n' {
				lx.line++
				lx.lineStart = p
			}
			continue
		}
		if c == '\n' {
			if !triple && braces == 0 {
				return &syntaxError{msg: "unterminated string literal", line: line, col: col}
			}
			p++
			lx.line++
			lx.lineStart = p
			continue
		}
		if isF {
			if c == '{' {
				if braces == 0 && p+1 < len(src) && src[p+1] == '{' {
					p += 2
					continue
				}
				braces++
			} else if c == '}' && braces > 0 {
				braces--
			} else if braces > 0 && (c == '"' || c == '\'') && c != quote {
				// nested string inside a replacement field
				e := strings.IndexByte(src[p+1:], c)
				if e < 0 {
					return &syntaxError{msg: "unterminated string in f-string", line: line, col: col}
				}
				p += e + 2
				continue
			}
		}
		if c == quote && braces == 0 {
			if !triple {
				break
			}
			if p+2 < len(src) && src[p+1] == quote && src[p+2] == quote {
				break
			}
		}
		p++
	}
	body := src[bodyStart:p]
	if triple {
		p += 3
	} else {
		p++
	}
	lx.pos = p
	lit := &strLit{bytes: isBytes, fstr: isF}
	tk := token{kind: tString, text: src[start:p], lit: lit, line: int32(line), col: int32(col), off: int32(start), end: int32(p)}
	if isF {
		lit.parts = splitFString(body, bodyStart, raw)
		var sb strings.Builder
		for _, pt := range lit.parts {
			sb.WriteString(pt.lit)
		}
		lit.val = sb.String()
	} else if raw {
		lit.val = body
	} else {
		lit.val = unescape(body, isBytes)
	}
	lx.toks = append(lx.toks, tk)
	return nil
}

// splitFString splits an f-string body into literal pieces and
// replacement-field sources.
func splitFString(body string, off int, raw bool) []fpart {
	var parts []fpart
	var lit strings.Builder
	flush := func() {
		if lit.Len() > 0 {
			s := lit.String()
			if !raw {
				s = unescape(s, false)
			}
			parts = append(parts, fpart{lit: s})
			lit.Reset()
		}
	}
	for i := 0; i < len(body); i++ {
		c := body[i]
		if c == '{' && i+1 < len(body) && body[i+1] == '{' {
			lit.WriteByte('{')
			i++
			continue
		}
		if c == '}' && i+1 < len(body) && body[i+1] == '}' {
			lit.WriteByte('}')
			i++
			continue
		}
		if c != '{' {
			lit.WriteByte(c)
			continue
		}
		flush()
		// find end of the expression: top-level '!', ':' or '}' (or '=' debug)
		depth := 0
		j := i + 1
		exprEnd := -1
		var conv byte
		for j < len(body) {
			d := body[j]
			if d == '\'' || d == '"' {
				e := strings.IndexByte(body[j+1:], d)
				if e < 0 {
					j = len(body)
					break
				}
				j += e + 2
				continue
			}
			if d == '(' || d == '[' || d == '{' {
				depth++
			} else if d == ')' || d == ']' || (d == '}' && depth > 0) {
				depth--
			} else if depth == 0 {
				if d == '}' {
					if exprEnd < 0 {
						exprEnd = j
					}
					break
				}
				if exprEnd < 0 && d == '!' && j+1 < len(body) && body[j+1] != '=' {
					exprEnd = j
					if j+1 < len(body) {
						conv = body[j+1]
					}
				} else if exprEnd < 0 && d == ':' {
					exprEnd = j
				}
			}
			j++
		}
		if exprEnd < 0 {
			exprEnd = j
		}
		expr := body[i+1 : exprEnd]
		expr = strings.TrimRight(expr, " ")
		expr = strings.TrimSuffix(expr, "=")
		parts = append(parts, fpart{expr: expr, hasExpr: true, conv: conv, off: off + i + 1})
		i = j
	}
	flush()
	return parts
}

// unescape decodes Python backslash escapes. For bytes, \x and octal
// escapes produce raw bytes; for str they produce code points.
func unescape(s string, isBytes bool) string {
	if strings.IndexByte(s, '\\') < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 >= len(s) {
			b.WriteByte(c)
			continue
		}
		i++
		e := s[i]
		switch e {
		case '\n':
		case '\r':
			if i+1 < len(s) && s[i+1] == '\n' {
				i++
			}
		case '\\', '\'', '"':
			b.WriteByte(e)
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case 'r':
			b.WriteByte('\r')
		case 'a':
			b.WriteByte(7)
		case 'b':
			b.WriteByte(8)
		case 'f':
			b.WriteByte(12)
		case 'v':
			b.WriteByte(11)
		case '0', '1', '2', '3', '4', '5', '6', '7':
			j := i
			for j < len(s) && j < i+3 && s[j] >= '0' && s[j] <= '7' {
				j++
			}
			v, _ := strconv.ParseUint(s[i:j], 8, 32)
			writeCode(&b, rune(v), isBytes)
			i = j - 1
		case 'x':
			if i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]) {
				v, _ := strconv.ParseUint(s[i+1:i+3], 16, 32)
				writeCode(&b, rune(v), isBytes)
				i += 2
			} else {
				b.WriteString("\\x")
			}
		case 'u', 'U':
			n := 4
			if e == 'U' {
				n = 8
			}
			if !isBytes && i+n < len(s) && allHex(s[i+1:i+1+n]) {
				v, _ := strconv.ParseUint(s[i+1:i+1+n], 16, 32)
				b.WriteRune(rune(v))
				i += n
			} else {
				b.WriteByte('\\')
				b.WriteByte(e)
			}
		case 'N':
			if !isBytes && i+1 < len(s) && s[i+1] == '{' {
				if end := strings.IndexByte(s[i:], '}'); end > 0 {
					b.WriteString(s[i-1 : i+end+1])
					i += end
					continue
				}
			}
			b.WriteString("\\N")
		default:
			b.WriteByte('\\')
			b.WriteByte(e)
		}
	}
	return b.String()
}

func allHex(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isHex(s[i]) {
			return false
		}
	}
	return true
}

func writeCode(b *strings.Builder, r rune, isBytes bool) {
	if isBytes {
		b.WriteByte(byte(r))
		return
	}
	b.WriteRune(r)
}
