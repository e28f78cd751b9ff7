package sdk

import (
	"encoding/binary"
	"fmt"
	"math/bits"
	"slices"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"
)

// DecodeScanInput decodes the JSON of a ScanInput without reflection.
//
// A rule plugin decodes its whole input on every scan, and inside Wasm the
// reflection of encoding/json costs milliseconds for a few kilobytes of
// facts — more than judging them. This decoder is a hand-written tokenizer
// with one decode function per type of the ABI, and it agrees with
// json.Unmarshal on every input that json.Unmarshal accepts: unknown fields
// are skipped (so a newer host stays compatible), keys match field names
// case-insensitively, strings get full escape handling (\uXXXX with
// surrogate pairs; invalid UTF-8 and lone surrogates become U+FFFD), numbers
// parse as int, int64 or float64 with the same range checks, null leaves a
// value alone or clears a pointer, slice or map, and a repeated key decodes
// into what the earlier one left, as encoding/json does. Config and Metadata
// values decode like json into any (map[string]any, []any, float64, string,
// bool, nil).
//
// It returns an error for malformed JSON and for a value of the wrong JSON
// type, naming the field, so a plugin fails closed on input it cannot read.
// Strings without escapes share the memory of one copy of b.
func DecodeScanInput(b []byte) (*ScanInput, error) {
	d := decoder{b: b, s: string(b)}
	in := new(ScanInput)
	if err := d.document(in); err != nil {
		return nil, err
	}
	return in, nil
}

// A Decoder decodes one ScanInput after another like DecodeScanInput, but
// reuses its memory from one call to the next: the ScanInput, the facts and
// the policy structs, the backing arrays of their slices, the override map,
// and the input bytes themselves, which decoded strings point into instead
// of copying them.
//
// Inside Wasm every heap allocation costs microseconds (Go's allocator is
// dozens of calls, each paying wazero's interrupt check), and a facts
// document has hundreds of arrays and strings, so a rule plugin decoding
// each scan into fresh memory spends most of its time allocating. The guest
// kit (sdk/rule) keeps one Decoder per instance; an instance serves one scan
// at a time.
//
// The price is lifetime: the result of Decode, and everything reachable
// from it, is valid only until the next call to Decode, and only while the
// bytes given to Decode are left unchanged. Copy what must outlive the scan.
// The zero Decoder is ready to use; it must not be used concurrently.
type Decoder struct {
	in     ScanInput
	facts  Facts
	policy Policy
	spare  Facts
	strs   []string
	ints   []int
	redirs []Redirect
	bytes  []byte
}

// Decode decodes b as DecodeScanInput does, into memory owned by dec. The
// result agrees with DecodeScanInput's on every input (same values, same
// errors); see Decoder for how long it stays valid.
func (dec *Decoder) Decode(b []byte) (*ScanInput, error) {
	// Keep the capacity of the previous document's slices and map, zero
	// everything else: a field absent from b must read as absent.
	dec.spare = dec.facts
	rules := dec.policy.Rules
	clear(rules)
	dec.facts, dec.policy, dec.in = Facts{}, Policy{}, ScanInput{}
	d := decoder{
		b:           b,
		s:           unsafe.String(unsafe.SliceData(b), len(b)),
		strArena:    dec.strs[:0],
		intArena:    dec.ints[:0],
		byteArena:   dec.bytes[:0],
		redirArena:  dec.redirs[:0],
		spare:       &dec.spare,
		spareFacts:  &dec.facts,
		sparePolicy: &dec.policy,
		spareRules:  rules,
	}
	err := d.document(&dec.in)
	dec.strs, dec.ints, dec.bytes, dec.redirs = d.strArena, d.intArena, d.byteArena, d.redirArena
	if err != nil {
		return nil, err
	}
	return &dec.in, nil
}

// document decodes one top-level value into in.
func (d *decoder) document(in *ScanInput) error {
	d.ws()
	if d.lit("null") {
		// json.Unmarshal leaves the target alone for a top-level null.
	} else if err := d.scanInput(in); err != nil {
		return fmt.Errorf("decode scan input: %w", err)
	}
	d.ws()
	if d.i != len(d.s) {
		return fmt.Errorf("decode scan input: %w", d.errf("unexpected %q after the top-level value", d.s[d.i]))
	}
	return nil
}

// maxDepth is encoding/json's nesting limit, kept so both accept the same
// documents and a hostile one cannot exhaust the stack.
const maxDepth = 10000

type decoder struct {
	b     []byte // the input, read eight bytes at a time in str
	s     string // the same bytes as a string, shared by decoded strings
	i     int
	depth int

	// strs and ints are arenas: the elements of every []string and []int
	// of the document, each slice a capped window into them, so a command's
	// arguments cost no allocation of their own.
	strArena   []string
	intArena   []int
	redirArena []Redirect
	byteArena  []byte // unescaped bytes of strings that had escapes

	// For a Decoder: memory of the previous document to decode into
	// instead of allocating. Nil when decoding into fresh memory.
	spare       *Facts
	spareFacts  *Facts
	sparePolicy *Policy
	spareRules  map[string]RuleOverride
}

// syntaxError is a malformed document; typeError a well-formed value of the
// wrong JSON type for its field.
type syntaxError struct {
	msg string
	off int
}

func (e *syntaxError) Error() string { return fmt.Sprintf("%s at offset %d", e.msg, e.off) }

func (d *decoder) errf(format string, args ...any) error {
	return &syntaxError{msg: fmt.Sprintf(format, args...), off: d.i}
}

// ws skips JSON whitespace.
func (d *decoder) ws() {
	for d.i < len(d.s) {
		switch d.s[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

// lit consumes the literal word (true, false, null) if it comes next.
func (d *decoder) lit(word string) bool {
	if len(d.s)-d.i >= len(word) && sameBytes(d.s[d.i:d.i+len(word)], word) {
		d.i += len(word)
		return true
	}
	return false
}

// peek returns the next non-space byte, 0 at the end.
//
// The common case, no whitespace, returns before the loop in ws: inside
// Wasm even entering a loop pays wazero's interrupt check.
func (d *decoder) peek() byte {
	if d.i < len(d.s) {
		if c := d.s[d.i]; c > ' ' {
			return c
		}
	}
	d.ws()
	if d.i < len(d.s) {
		return d.s[d.i]
	}
	return 0
}

// null consumes a null if it comes next. The common answer, "no: a
// printable non-'n' byte is next", is decided inline: inside Wasm a call
// costs an exit to the host.
func (d *decoder) null() bool {
	if i := d.i; i < len(d.s) {
		if c := d.s[i]; c > ' ' && c != 'n' {
			return false
		}
	}
	return d.nullSlow()
}

func (d *decoder) nullSlow() bool {
	return d.peek() == 'n' && d.lit("null")
}

// kind names the JSON type of the next value, for errors.
func (d *decoder) kind() string {
	switch d.peek() {
	case '{':
		return "object"
	case '[':
		return "array"
	case '"':
		return "string"
	case 't', 'f':
		return "bool"
	case 'n':
		return "null"
	case 0:
		return "end of input"
	}
	return "number"
}

func (d *decoder) typeErr(want string) error {
	k := d.kind()
	if k == "end of input" {
		return d.errf("unexpected end of input looking for a value")
	}
	if k == "number" && !isNumStart(d.s[d.i]) {
		return d.errf("invalid character %q looking for a value", d.s[d.i])
	}
	return fmt.Errorf("cannot decode %s into %s at offset %d", k, want, d.i)
}

func isNumStart(c byte) bool { return c == '-' || (c >= '0' && c <= '9') }

// enter counts one more level of nesting; small enough to inline, with
// the error built out of line.
func (d *decoder) enter() error {
	d.depth++
	if d.depth > maxDepth {
		return errTooDeep
	}
	return nil
}

var errTooDeep = fmt.Errorf("exceeded max depth %d", maxDepth)

// object decodes the members of an object. For each key it finds the index
// of the field in fields (exact match first, then case-insensitive, as
// encoding/json) and calls field, which must consume the value; members of
// unknown keys are skipped.
//
// Inside Wasm every function call and every loop iteration costs an
// interrupt check, so the member loop is written out here rather than
// shared with members through another closure.
func (d *decoder) object(what string, fields *fieldSet, field func(i int) error) error {
	if d.peek() != '{' {
		return d.typeErr(what)
	}
	if err := d.enter(); err != nil {
		return err
	}
	d.i++ // '{'
	if d.peek() == '}' {
		d.i++
		d.depth--
		return nil
	}
	for {
		if d.peek() != '"' {
			return d.errf("expected a string key in object")
		}
		i, ok := d.shortKey(fields)
		if !ok {
			key, err := d.str()
			if err != nil {
				return err
			}
			i = fields.index(key)
		}
		if d.peek() != ':' {
			return d.errf("expected ':' after object key")
		}
		d.i++
		if i >= 0 {
			if err := field(i); err != nil {
				return fmt.Errorf("%s.%s: %w", what, fields.names[i], err)
			}
		} else if err := d.skip(); err != nil {
			return err
		}
		switch d.peek() {
		case ',':
			d.i++
		case '}':
			d.i++
			d.depth--
			return nil
		default:
			return d.errf("expected ',' or '}' in object")
		}
	}
}

// members walks an object whose '{' is next, calling member after each key
// and its colon.
func (d *decoder) members(member func(key string) error) error {
	if err := d.enter(); err != nil {
		return err
	}
	d.i++ // '{'
	if d.peek() == '}' {
		d.i++
		d.depth--
		return nil
	}
	for {
		if d.peek() != '"' {
			return d.errf("expected a string key in object")
		}
		key, err := d.str()
		if err != nil {
			return err
		}
		if d.peek() != ':' {
			return d.errf("expected ':' after object key")
		}
		d.i++
		if err := member(key); err != nil {
			return err
		}
		switch d.peek() {
		case ',':
			d.i++
		case '}':
			d.i++
			d.depth--
			return nil
		default:
			return d.errf("expected ',' or '}' in object")
		}
	}
}

// fieldSet is the JSON field names of one type, indexed by length so that
// matching a key costs one or two comparisons.
type fieldSet struct {
	names []string
	byLen [32][]uint8
	// words are the first sixteen bytes of each name as two little-endian
	// integers (zero past the end), for shortKey.
	words [][2]uint64
}

// shortKey matches the object key whose '"' is next against fields without
// decoding it, when it is shorter than sixteen bytes, has no escapes and
// matches a field exactly: the key's bytes are read as two words and
// compared with the names' words. It returns the field index and true, the
// key consumed; false leaves everything to the general path (str, then
// index, which also matches case-insensitively and reports unknown keys).
// Inside Wasm every call and branch costs an exit to the host, and keys are
// half of what a facts document is made of.
func (d *decoder) shortKey(fields *fieldSet) (int, bool) {
	i := d.i + 1
	if i+16 > len(d.b) {
		return 0, false
	}
	w0 := binary.LittleEndian.Uint64(d.b[i : i+8])
	w1 := binary.LittleEndian.Uint64(d.b[i+8 : i+16])
	var n int
	if m := special(w0); m != 0 {
		n = bits.TrailingZeros64(m) / 8
		w0 &= 1<<(8*n) - 1
		w1 = 0
	} else if m := special(w1); m != 0 {
		n = 8 + bits.TrailingZeros64(m)/8
		w1 &= 1<<(8*(n-8)) - 1
	} else {
		return 0, false
	}
	if d.b[i+n] != '"' {
		return 0, false
	}
	for _, f := range fields.byLen[n] {
		if w := fields.words[f]; w[0] == w0 && w[1] == w1 {
			d.i = i + n + 1
			return int(f), true
		}
	}
	return 0, false
}

// sameBytes reports whether a and b, of equal length, are equal, comparing
// eight bytes at a time. Inside Wasm, Go's string == is a byte loop whose
// every iteration pays wazero's interrupt check (~30 ns a byte here), and
// matching keys is the decoder's most frequent comparison.
func sameBytes(a, b string) bool {
	i := 0
	for ; i+8 <= len(a); i += 8 {
		if word(a, i) != word(b, i) {
			return false
		}
	}
	return i == len(a) || tail(a, i) == tail(b, i)
}

// tail is the fewer than eight bytes of s from i on as a little-endian
// integer, assembled without a loop.
func tail(s string, i int) uint64 {
	var x uint64
	switch s = s[i:]; len(s) {
	case 7:
		x |= uint64(s[6]) << 48
		fallthrough
	case 6:
		x |= uint64(s[5]) << 40
		fallthrough
	case 5:
		x |= uint64(s[4]) << 32
		fallthrough
	case 4:
		x |= uint64(s[3]) << 24
		fallthrough
	case 3:
		x |= uint64(s[2]) << 16
		fallthrough
	case 2:
		x |= uint64(s[1]) << 8
		fallthrough
	case 1:
		x |= uint64(s[0])
	}
	return x
}

// word is the eight bytes of s at i as a little-endian integer.
func word(s string, i int) uint64 {
	s = s[i : i+8]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

func newFieldSet(names ...string) *fieldSet {
	fs := &fieldSet{names: names, words: make([][2]uint64, len(names))}
	for i, n := range names {
		var b [16]byte
		copy(b[:], n)
		fs.words[i] = [2]uint64{binary.LittleEndian.Uint64(b[:8]), binary.LittleEndian.Uint64(b[8:])}
		if len(n) >= len(fs.byLen) {
			continue // found by the EqualFold pass
		}
		fs.byLen[len(n)] = append(fs.byLen[len(n)], uint8(i))
	}
	return fs
}

// index returns the field a key names, -1 for an unknown key: exact match
// first, then a case-insensitive one, as encoding/json matches.
func (fs *fieldSet) index(key string) int {
	if len(key) < len(fs.byLen) {
		for _, i := range fs.byLen[len(key)] {
			if sameBytes(fs.names[i], key) {
				return int(i)
			}
		}
	}
	// EqualFold matches non-ASCII folds (the Kelvin sign is a "k"), so
	// the lengths of the key and the name may differ.
	for i, f := range fs.names {
		if strings.EqualFold(f, key) {
			return i
		}
	}
	return -1
}

// array walks an array whose '[' is next, calling elem for each element
// with its index; elem must consume the element. It returns the count.
func (d *decoder) array(what string, elem func(i int) error) (int, error) {
	if d.peek() != '[' {
		return 0, d.typeErr(what)
	}
	if err := d.enter(); err != nil {
		return 0, err
	}
	d.i++
	if d.peek() == ']' {
		d.i++
		d.depth--
		return 0, nil
	}
	for n := 0; ; {
		if err := elem(n); err != nil {
			return 0, err
		}
		n++
		switch d.peek() {
		case ',':
			d.i++
		case ']':
			d.i++
			d.depth--
			return n, nil
		default:
			return 0, d.errf("expected ',' or ']' in array")
		}
	}
}

// slice decodes an array into *s with encoding/json's semantics: null
// clears it, elements decode into what the slice already holds (so a
// repeated key merges like json), the length is cut to the element count,
// and an empty array is an empty, non-nil slice.
func slice[T any](d *decoder, s *[]T, what string, elem func(*T) error) error {
	if d.null() {
		*s = nil
		return nil
	}
	v := *s
	n, err := d.array(what, func(i int) error {
		if i >= cap(v) {
			v = slices.Grow(v, 1)
		}
		if i >= len(v) {
			// A reused backing array holds the previous document's
			// element here; a fresh element starts from zero.
			v = v[:i+1]
			var zero T
			v[i] = zero
		}
		return elem(&v[i])
	})
	if err != nil {
		return err
	}
	if n == 0 {
		if v == nil {
			v = make([]T, 0)
		}
		*s = v[:0]
		return nil
	}
	*s = v[:n]
	return nil
}

// reuse points *s, when a document first sets it, at the backing array the
// previous document's slice left, so that slice decodes into it.
func reuse[T any](s *[]T, spare []T) {
	if *s == nil && spare != nil {
		*s = spare[:0]
	}
}

// str decodes a string whose '"' is next.
func (d *decoder) str() (string, error) {
	if d.peek() != '"' {
		return "", d.typeErr("string")
	}
	start := d.i + 1
	i := start
	for i < len(d.s) {
		i = d.plain(i)
		if i >= len(d.s) {
			break
		}
		c := d.s[i]
		switch {
		case c == '"':
			d.i = i + 1
			return d.s[start:i], nil
		case c == '\\' || c < 0x20:
			return d.strSlow(start)
		case c < utf8.RuneSelf:
			i++
		default:
			r, size := utf8.DecodeRuneInString(d.s[i:])
			if r == utf8.RuneError && size == 1 {
				return d.strSlow(start)
			}
			i += size
		}
	}
	d.i = i
	return "", d.errf("unterminated string")
}

// plain returns the index of the first byte at or after i that is a quote,
// a backslash, a control byte or non-ASCII, looking at eight bytes at a
// time: inside Wasm each loop iteration pays an interrupt check, and most of
// an input is plain string bytes. The lowest flagged byte of a word is exact
// (see special). Within the last seven bytes of the input it may stop early
// at a plain byte; callers handle any byte it stops at.
func (d *decoder) plain(i int) int {
	b := d.b
	for i+8 <= len(b) {
		m := special(binary.LittleEndian.Uint64(b[i : i+8]))
		if m != 0 {
			return i + bits.TrailingZeros64(m)/8
		}
		i += 8
	}
	return i
}

const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

// special flags (with its high bit, in a little-endian word) each of the
// eight bytes in x that is '"', '\\', below 0x20 or at or above 0x80, using
// the classic "has zero byte" tricks. Their false positives arise only from
// a borrow out of a truly flagged byte, so they lie above it: the lowest
// flag is always exact.
func special(x uint64) uint64 {
	q := x ^ (ones * '"')
	bs := x ^ (ones * '\\')
	return ((q-ones) & ^q | (bs-ones) & ^bs | (x-ones*0x20) & ^x | x) & highs
}

// strSlow decodes a string with escapes or invalid UTF-8 exactly as
// encoding/json does.
func (d *decoder) strSlow(start int) (string, error) {
	s := d.s
	// The unescaped bytes go to the end of the byte arena while it has
	// room, so a string with escapes costs no allocation of its own.
	if cap(d.byteArena)-len(d.byteArena) < 64 {
		d.byteArena = make([]byte, 0, max(2*cap(d.byteArena), 512))
	}
	base := len(d.byteArena)
	b := d.byteArena[base:base]
	i := start
	for i < len(s) {
		if j := d.plain(i); j > i {
			b = append(b, s[i:j]...)
			if i = j; i >= len(s) {
				break
			}
		}
		c := s[i]
		switch {
		case c == '"':
			d.i = i + 1
			return d.keep(base, b), nil
		case c < 0x20:
			d.i = i
			return "", d.errf("invalid control character %q in string", c)
		case c == '\\':
			if i+1 >= len(s) {
				d.i = i
				return "", d.errf("unterminated string escape")
			}
			switch e := s[i+1]; e {
			case '"', '\\', '/':
				b = append(b, e)
				i += 2
			case 'b':
				b = append(b, '\b')
				i += 2
			case 'f':
				b = append(b, '\f')
				i += 2
			case 'n':
				b = append(b, '\n')
				i += 2
			case 'r':
				b = append(b, '\r')
				i += 2
			case 't':
				b = append(b, '\t')
				i += 2
			case 'u':
				r := hex4(s, i+2)
				if r < 0 {
					d.i = i
					return "", d.errf("invalid \\u escape in string")
				}
				i += 6
				if utf16.IsSurrogate(r) {
					r2 := rune(-1)
					if i+1 < len(s) && s[i] == '\\' && s[i+1] == 'u' {
						r2 = hex4(s, i+2)
					}
					if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
						b = utf8.AppendRune(b, dec)
						i += 6
						break
					}
					r = utf8.RuneError
				}
				b = utf8.AppendRune(b, r)
			default:
				d.i = i
				return "", d.errf("invalid escape \\%c in string", e)
			}
		case c < utf8.RuneSelf:
			b = append(b, c)
			i++
		default:
			r, size := utf8.DecodeRuneInString(s[i:])
			b = utf8.AppendRune(b, r)
			i += size
		}
	}
	d.i = i
	return "", d.errf("unterminated string")
}

// keep makes b, appended at base of the byte arena, part of the arena and
// returns it as a string. When b outgrew the arena it lives in a new array,
// which becomes the arena from then on; strings made earlier keep the old
// one alive.
func (d *decoder) keep(base int, b []byte) string {
	if len(b) == 0 {
		return ""
	}
	if base+len(b) <= cap(d.byteArena) && unsafe.SliceData(b) == unsafe.SliceData(d.byteArena[base:cap(d.byteArena)]) {
		d.byteArena = d.byteArena[:base+len(b)]
	} else {
		d.byteArena = b
	}
	return unsafe.String(unsafe.SliceData(b), len(b))
}

// hex4 parses the four hex digits at s[i:], -1 when they are not.
func hex4(s string, i int) rune {
	if i+4 > len(s) {
		return -1
	}
	var r rune
	for _, c := range []byte(s[i : i+4]) {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			c = c - 'A' + 10
		default:
			return -1
		}
		r = r*16 + rune(c)
	}
	return r
}

// number consumes a number token per the JSON grammar and returns its text.
func (d *decoder) number(what string) (string, error) {
	d.peek()
	s, start, i := d.s, d.i, d.i
	if i < len(s) && s[i] == '-' {
		i++
	}
	switch {
	case i < len(s) && s[i] == '0':
		i++
	case i < len(s) && s[i] >= '1' && s[i] <= '9':
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
	default:
		if i == start {
			return "", d.typeErr(what)
		}
		d.i = i
		return "", d.errf("invalid number")
	}
	if i < len(s) && s[i] == '.' {
		i++
		if i >= len(s) || s[i] < '0' || s[i] > '9' {
			d.i = i
			return "", d.errf("invalid number: digit expected after '.'")
		}
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if i >= len(s) || s[i] < '0' || s[i] > '9' {
			d.i = i
			return "", d.errf("invalid number: digit expected in exponent")
		}
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
	}
	d.i = i
	return s[start:i], nil
}

// int64 decodes a number into *v (null leaves it alone). Like
// encoding/json it refuses fractions, exponents and out-of-range values.
func (d *decoder) int64(v *int64) error {
	if d.null() {
		return nil
	}
	t, err := d.number("integer")
	if err != nil {
		return err
	}
	// Short plain integers, nearly every one, skip strconv.
	if n := len(t); n > 0 && n < 19 {
		neg := t[0] == '-'
		digits := t
		if neg {
			digits = t[1:]
		}
		var x int64
		ok := len(digits) > 0
		for j := 0; j < len(digits) && ok; j++ {
			c := digits[j]
			ok = c >= '0' && c <= '9'
			x = x*10 + int64(c-'0')
		}
		if ok {
			if neg {
				x = -x
			}
			*v = x
			return nil
		}
	}
	x, err := strconv.ParseInt(t, 10, 64)
	if err != nil {
		return fmt.Errorf("cannot decode number %s into an integer", t)
	}
	*v = x
	return nil
}

// int decodes a number into *v; Go's int is 64 bits on every target the
// host and the plugins run on (amd64, arm64, wasm).
func (d *decoder) int(v *int) error {
	// Fast path for the small non-negative integers of line numbers,
	// columns and IDs: one pass over the digits and one check of what
	// follows. Inside Wasm every branch taken costs an exit to the host,
	// and the general path below takes dozens.
	if i := d.i; i < len(d.s) && d.s[i] >= '1' && d.s[i] <= '9' {
		x, j := int(d.s[i]-'0'), i+1
		for ; j < len(d.s) && j < i+18; j++ {
			c := d.s[j]
			if c < '0' || c > '9' {
				break
			}
			x = x*10 + int(c-'0')
		}
		if j < len(d.s) {
			if c := d.s[j]; c != '.' && c != 'e' && c != 'E' && (c < '0' || c > '9') {
				d.i = j
				*v = x
				return nil
			}
		}
	}
	x := int64(*v)
	if err := d.int64(&x); err != nil {
		return err
	}
	if int64(int(x)) != x {
		return fmt.Errorf("number %d overflows int", x)
	}
	*v = int(x)
	return nil
}

// float decodes a number into *v (null leaves it alone).
func (d *decoder) float(v *float64) error {
	if d.null() {
		return nil
	}
	t, err := d.number("number")
	if err != nil {
		return err
	}
	x, err := strconv.ParseFloat(t, 64)
	if err != nil {
		return fmt.Errorf("cannot decode number %s into float64", t)
	}
	*v = x
	return nil
}

// bool decodes true or false into *v (null leaves it alone).
func (d *decoder) bool(v *bool) error {
	switch d.peek() {
	case 't':
		if d.lit("true") {
			*v = true
			return nil
		}
	case 'f':
		if d.lit("false") {
			*v = false
			return nil
		}
	case 'n':
		if d.lit("null") {
			return nil
		}
	}
	return d.typeErr("bool")
}

// string decodes a string into *v (null leaves it alone).
func (d *decoder) string(v *string) error {
	// Fast path: the string starts right here and has no escapes, so it is
	// found with the word scan alone, without str's general loop.
	if i := d.i; i < len(d.b) && d.b[i] == '"' {
		j := d.plain(i + 1)
		if j < len(d.b) && d.b[j] == '"' {
			*v = d.s[i+1 : j]
			d.i = j + 1
			return nil
		}
	}
	if d.null() {
		return nil
	}
	s, err := d.str()
	if err != nil {
		return err
	}
	*v = s
	return nil
}

// strings decodes a []string into a window of the decoder's string arena.
func (d *decoder) strings(v *[]string) error {
	return arenaSlice(d, v, &d.strArena, "[]string", d.string)
}

// ints decodes an []int into a window of the decoder's int arena.
func (d *decoder) ints(v *[]int) error {
	return arenaSlice(d, v, &d.intArena, "[]int", d.int)
}

// arenaSlice decodes an array into *v as slice does, but appends the
// elements to *arena and makes *v a capped window into it, so the array
// costs no allocation of its own. An element that is null keeps what *v
// held at that index, as encoding/json leaves it. elem must not append to
// the same arena (T must not nest itself).
func arenaSlice[T any](d *decoder, v *[]T, arena *[]T, what string, elem func(*T) error) error {
	if d.null() {
		*v = nil
		return nil
	}
	old, start := *v, len(*arena)
	n, err := d.array(what, func(i int) error {
		var x T
		if i < len(old) {
			x = old[i]
		}
		*arena = append(*arena, x)
		return elem(&(*arena)[len(*arena)-1])
	})
	if err != nil {
		return err
	}
	if n == 0 {
		if old == nil {
			old = make([]T, 0)
		}
		*v = old[:0]
		return nil
	}
	end := len(*arena)
	*v = (*arena)[start:end:end]
	return nil
}

// any decodes any JSON value as encoding/json does into an interface{}.
func (d *decoder) any() (any, error) {
	switch c := d.peek(); c {
	case '{':
		m := map[string]any{}
		err := d.members(func(key string) error {
			v, err := d.any()
			m[key] = v
			return err
		})
		return m, err
	case '[':
		a := make([]any, 0)
		_, err := d.array("[]any", func(int) error {
			v, err := d.any()
			a = append(a, v)
			return err
		})
		return a, err
	case '"':
		return d.str()
	case 't', 'f':
		var b bool
		err := d.bool(&b)
		return b, err
	case 'n':
		if d.lit("null") {
			return nil, nil
		}
		return nil, d.errf("invalid literal")
	default:
		if !isNumStart(c) {
			return nil, d.typeErr("any")
		}
		t, err := d.number("number")
		if err != nil {
			return nil, err
		}
		x, err := strconv.ParseFloat(t, 64)
		if err != nil {
			return nil, fmt.Errorf("cannot decode number %s into float64", t)
		}
		return x, nil
	}
}

// skip consumes and validates one value of any type.
func (d *decoder) skip() error {
	switch c := d.peek(); c {
	case '{':
		return d.members(func(string) error { return d.skip() })
	case '[':
		_, err := d.array("value", func(int) error { return d.skip() })
		return err
	case '"':
		_, err := d.str()
		return err
	case 't', 'f':
		var b bool
		return d.bool(&b)
	case 'n':
		if d.lit("null") {
			return nil
		}
		return d.errf("invalid literal")
	default:
		_, err := d.number("value")
		return err
	}
}

// mapOf decodes an object into *m like encoding/json into a map[string]T:
// null clears it, members are added to an existing map, each value decoded
// into a fresh T.
func mapOf[T any](d *decoder, m *map[string]T, what string, elem func(*T) error) error {
	if d.null() {
		*m = nil
		return nil
	}
	if d.peek() != '{' {
		return d.typeErr(what)
	}
	if *m == nil {
		*m = map[string]T{}
	}
	mm := *m
	return d.members(func(key string) error {
		var v T
		if err := elem(&v); err != nil {
			return err
		}
		mm[key] = v
		return nil
	})
}

// anyMap decodes an object into *m like encoding/json into a
// map[string]any.
func (d *decoder) anyMap(m *map[string]any) error {
	return mapOf(d, m, "map[string]any", func(v *any) (err error) {
		*v, err = d.any()
		return err
	})
}

var (
	lineKey = binary.LittleEndian.Uint64([]byte(`{"line":`))
	colKey  = binary.LittleEndian.Uint64([]byte(`,"col":` + "\x00"))
)

// fastPos decodes the position every fact carries in the shape the
// analyzers write it, {"line":N,"col":N} with small non-negative numbers,
// by comparing words instead of walking the object; anything else (other
// fields, spaces, big numbers) is left to the general path. A document has
// one position per fact, so this is the decoder's most frequent object.
func (d *decoder) fastPos(v *Pos) bool {
	j := d.i
	if j+24 > len(d.b) || binary.LittleEndian.Uint64(d.b[j:j+8]) != lineKey {
		return false
	}
	line, j, ok := smallInt(d.b, j+8)
	if !ok || binary.LittleEndian.Uint64(d.b[j:j+8])&(1<<56-1) != colKey {
		return false
	}
	col, j, ok := smallInt(d.b, j+7)
	if !ok || j >= len(d.b) || d.b[j] != '}' {
		return false
	}
	v.Line, v.Col = line, col // like encoding/json, keep the other fields
	d.i = j + 1
	return true
}

// smallInt reads a JSON integer of one to nine digits without sign,
// fraction or exponent at b[i:], returning it and the index after it; ok is
// false for anything else (which the general path then decodes or rejects).
// The caller guarantees b holds at least ten bytes from i.
func smallInt(b []byte, i int) (x, end int, ok bool) {
	if i+10 > len(b) || b[i] < '0' || b[i] > '9' || (b[i] == '0' && b[i+1] >= '0' && b[i+1] <= '9') {
		return 0, i, false
	}
	end = i
	for ; end < i+9 && b[end] >= '0' && b[end] <= '9'; end++ {
		x = x*10 + int(b[end]-'0')
	}
	if c := b[end]; (c >= '0' && c <= '9') || c == '.' || c == 'e' || c == 'E' {
		return 0, i, false
	}
	return x, end, true
}

// Field names, in the order of each type's switch below. They are the
// JSON names of the ABI and must match the struct tags.
var (
	scanInputFields  = newFieldSet("facts", "content", "language", "context", "policy", "config")
	requestCtxFields = newFieldSet("tool_name", "cwd", "timeout_seconds", "max_output_bytes", "command_args", "env_keys", "metadata")
	policyFields     = newFieldSet("name", "allowed_domains", "allowed_commands", "denied_paths", "max_timeout_seconds",
		"max_output_bytes", "deny_dependency_install", "deny_privilege_escalation", "review_unknown_network",
		"review_process_execution", "review_shell_features", "long_sleep_seconds", "block_on_review", "rules",
		"audit_log_path")
	overrideFields = newFieldSet("disabled", "decision", "risk_level")
	factsFields    = newFieldSet("version", "language", "commands", "files", "network", "dynamic_exec", "calls", "loops",
		"sleeps", "shell_features", "functions", "assignments", "env_reads", "outputs", "secrets", "parse_errors",
		"truncated")
	posFields     = newFieldSet("line", "col", "depth", "via", "encoded")
	commandFields = newFieldSet("id", "name", "path", "candidates", "args", "dynamic_args", "dynamic", "reach", "pipeline",
		"stage", "stdin_sources", "arg_sources", "redirects", "evidence", "pos")
	redirectFields = newFieldSet("op", "fd", "target", "dynamic")
	fileFields     = newFieldSet("path", "op", "recursive", "force", "mode", "owner", "glob", "dynamic", "by", "evidence", "pos")
	networkFields  = newFieldSet("url", "host", "port", "scheme", "via", "dynamic", "data_in_host", "upload", "upload_from",
		"listen", "exec_shell", "evidence", "pos")
	dynExecFields  = newFieldSet("kind", "interpreter", "static", "encoded", "decoders", "downloaded", "content", "evidence", "pos")
	callFields     = newFieldSet("name", "args", "kwargs", "indirect", "evidence", "pos")
	valueFields    = newFieldSet("kind", "const", "str", "items", "encoded")
	loopFields     = newFieldSet("kind", "has_break", "evidence", "pos")
	sleepFields    = newFieldSet("seconds", "dynamic", "evidence", "pos")
	featureFields  = newFieldSet("kind", "evidence", "pos")
	funcFields     = newFieldSet("name", "recursive", "self_pipe", "background", "called_at_top", "pos")
	assignFields   = newFieldSet("name", "value", "dynamic", "op", "pos")
	envReadFields  = newFieldSet("name", "pos")
	outputFields   = newFieldSet("sink", "vars", "evidence", "pos")
	secretFields   = newFieldSet("kind", "redacted", "pos")
	parseErrFields = newFieldSet("message", "language", "pos")
)

func (d *decoder) scanInput(v *ScanInput) error {
	return d.object("scan_input", scanInputFields, func(i int) error {
		switch i {
		case 0:
			if d.null() {
				v.Facts = nil
				return nil
			}
			if v.Facts == nil {
				if v.Facts = d.spareFacts; v.Facts == nil {
					v.Facts = new(Facts)
				}
			}
			return d.facts(v.Facts)
		case 1:
			return d.string(&v.Content)
		case 2:
			return d.string(&v.Language)
		case 3:
			return d.requestContext(&v.Context)
		case 4:
			if d.null() {
				v.Policy = nil
				return nil
			}
			if v.Policy == nil {
				if v.Policy = d.sparePolicy; v.Policy == nil {
					v.Policy = new(Policy)
				}
			}
			return d.policy(v.Policy)
		default:
			return d.anyMap(&v.Config)
		}
	})
}

func (d *decoder) requestContext(v *RequestContext) error {
	if d.null() {
		return nil
	}
	return d.object("context", requestCtxFields, func(i int) error {
		switch i {
		case 0:
			return d.string(&v.ToolName)
		case 1:
			return d.string(&v.Cwd)
		case 2:
			return d.float(&v.TimeoutSeconds)
		case 3:
			return d.int64(&v.MaxOutputBytes)
		case 4:
			return d.strings(&v.CommandArgs)
		case 5:
			return d.strings(&v.EnvKeys)
		default:
			return d.anyMap(&v.Metadata)
		}
	})
}

func (d *decoder) policy(v *Policy) error {
	return d.object("policy", policyFields, func(i int) error {
		switch i {
		case 0:
			return d.string(&v.Name)
		case 1:
			return d.strings(&v.AllowedDomains)
		case 2:
			return d.strings(&v.AllowedCommands)
		case 3:
			return d.strings(&v.DeniedPaths)
		case 4:
			return d.float(&v.MaxTimeoutSeconds)
		case 5:
			return d.int64(&v.MaxOutputBytes)
		case 6:
			return d.bool(&v.DenyDependencyInstall)
		case 7:
			return d.bool(&v.DenyPrivilegeEscalation)
		case 8:
			return d.bool(&v.ReviewUnknownNetwork)
		case 9:
			return d.bool(&v.ReviewProcessExecution)
		case 10:
			return d.bool(&v.ReviewShellFeatures)
		case 11:
			return d.float(&v.LongSleepSeconds)
		case 12:
			return d.bool(&v.BlockOnReview)
		case 13:
			return d.overrides(&v.Rules)
		default:
			return d.string(&v.AuditLogPath)
		}
	})
}

func (d *decoder) overrides(m *map[string]RuleOverride) error {
	if d.null() {
		*m = nil
		return nil
	}
	if d.peek() != '{' {
		return d.typeErr("map[string]RuleOverride")
	}
	if *m == nil {
		if *m, d.spareRules = d.spareRules, nil; *m == nil {
			*m = map[string]RuleOverride{}
		}
	}
	mm := *m
	// Not mapOf: its element goes through a func value, which makes every
	// value escape to the heap; this decoder allocates nothing once warm.
	return d.members(func(key string) error {
		var v RuleOverride
		if err := d.override(&v); err != nil {
			return err
		}
		mm[key] = v
		return nil
	})
}

func (d *decoder) override(v *RuleOverride) error {
	if d.null() {
		return nil
	}
	return d.object("rule_override", overrideFields, func(i int) error {
		switch i {
		case 0:
			return d.bool(&v.Disabled)
		case 1:
			return d.string((*string)(&v.Decision))
		default:
			return d.string((*string)(&v.RiskLevel))
		}
	})
}

func (d *decoder) facts(v *Facts) error {
	return d.object("facts", factsFields, func(i int) error {
		switch i {
		case 0:
			return d.int(&v.Version)
		case 1:
			return d.string(&v.Language)
		case 2:
			if d.spare != nil {
				reuse(&v.Commands, d.spare.Commands)
			}
			return slice(d, &v.Commands, "commands", d.command)
		case 3:
			if d.spare != nil {
				reuse(&v.Files, d.spare.Files)
			}
			return slice(d, &v.Files, "files", d.file)
		case 4:
			if d.spare != nil {
				reuse(&v.Network, d.spare.Network)
			}
			return slice(d, &v.Network, "network", d.network)
		case 5:
			if d.spare != nil {
				reuse(&v.DynamicExec, d.spare.DynamicExec)
			}
			return slice(d, &v.DynamicExec, "dynamic_exec", d.dynamicExec)
		case 6:
			if d.spare != nil {
				reuse(&v.Calls, d.spare.Calls)
			}
			return slice(d, &v.Calls, "calls", d.call)
		case 7:
			if d.spare != nil {
				reuse(&v.Loops, d.spare.Loops)
			}
			return slice(d, &v.Loops, "loops", d.loop)
		case 8:
			if d.spare != nil {
				reuse(&v.Sleeps, d.spare.Sleeps)
			}
			return slice(d, &v.Sleeps, "sleeps", d.sleep)
		case 9:
			if d.spare != nil {
				reuse(&v.ShellFeatures, d.spare.ShellFeatures)
			}
			return slice(d, &v.ShellFeatures, "shell_features", d.shellFeature)
		case 10:
			if d.spare != nil {
				reuse(&v.Functions, d.spare.Functions)
			}
			return slice(d, &v.Functions, "functions", d.function)
		case 11:
			if d.spare != nil {
				reuse(&v.Assignments, d.spare.Assignments)
			}
			return slice(d, &v.Assignments, "assignments", d.assignment)
		case 12:
			if d.spare != nil {
				reuse(&v.EnvReads, d.spare.EnvReads)
			}
			return slice(d, &v.EnvReads, "env_reads", d.envRead)
		case 13:
			if d.spare != nil {
				reuse(&v.Outputs, d.spare.Outputs)
			}
			return slice(d, &v.Outputs, "outputs", d.output)
		case 14:
			if d.spare != nil {
				reuse(&v.Secrets, d.spare.Secrets)
			}
			return slice(d, &v.Secrets, "secrets", d.secret)
		case 15:
			if d.spare != nil {
				reuse(&v.ParseErrors, d.spare.ParseErrors)
			}
			return slice(d, &v.ParseErrors, "parse_errors", d.parseError)
		default:
			return d.bool(&v.Truncated)
		}
	})
}

func (d *decoder) pos(v *Pos) error {
	if d.fastPos(v) {
		return nil
	}
	if d.null() {
		return nil
	}
	return d.object("pos", posFields, func(i int) error {
		switch i {
		case 0:
			return d.int(&v.Line)
		case 1:
			return d.int(&v.Col)
		case 2:
			return d.int(&v.Depth)
		case 3:
			return d.string(&v.Via)
		default:
			return d.bool(&v.Encoded)
		}
	})
}

func (d *decoder) command(v *Command) error {
	if d.null() {
		return nil
	}
	return d.object("command", commandFields, func(i int) error {
		switch i {
		case 0:
			return d.int(&v.ID)
		case 1:
			return d.string(&v.Name)
		case 2:
			return d.string(&v.Path)
		case 3:
			return d.strings(&v.Candidates)
		case 4:
			return d.strings(&v.Args)
		case 5:
			return d.ints(&v.DynamicArgs)
		case 6:
			return d.bool(&v.Dynamic)
		case 7:
			return d.strings(&v.Reach)
		case 8:
			return d.int(&v.Pipeline)
		case 9:
			return d.int(&v.Stage)
		case 10:
			return d.ints(&v.StdinSources)
		case 11:
			return d.ints(&v.ArgSources)
		case 12:
			return arenaSlice(d, &v.Redirects, &d.redirArena, "redirects", d.redirect)
		case 13:
			return d.string(&v.Evidence)
		default:
			return d.pos(&v.Pos)
		}
	})
}

func (d *decoder) redirect(v *Redirect) error {
	if d.null() {
		return nil
	}
	return d.object("redirect", redirectFields, func(i int) error {
		switch i {
		case 0:
			return d.string(&v.Op)
		case 1:
			return d.int(&v.Fd)
		case 2:
			return d.string(&v.Target)
		default:
			return d.bool(&v.Dynamic)
		}
	})
}

func (d *decoder) file(v *FileAccess) error {
	if d.null() {
		return nil
	}
	return d.object("file", fileFields, func(i int) error {
		switch i {
		case 0:
			return d.string(&v.Path)
		case 1:
			return d.string(&v.Op)
		case 2:
			return d.bool(&v.Recursive)
		case 3:
			return d.bool(&v.Force)
		case 4:
			return d.string(&v.Mode)
		case 5:
			return d.string(&v.Owner)
		case 6:
			return d.bool(&v.Glob)
		case 7:
			return d.bool(&v.Dynamic)
		case 8:
			return d.string(&v.By)
		case 9:
			return d.string(&v.Evidence)
		default:
			return d.pos(&v.Pos)
		}
	})
}

func (d *decoder) network(v *NetworkUse) error {
	if d.null() {
		return nil
	}
	return d.object("network", networkFields, func(i int) error {
		switch i {
		case 0:
			return d.string(&v.URL)
		case 1:
			return d.string(&v.Host)
		case 2:
			return d.int(&v.Port)
		case 3:
			return d.string(&v.Scheme)
		case 4:
			return d.string(&v.Via)
		case 5:
			return d.bool(&v.Dynamic)
		case 6:
			return d.bool(&v.DataInHost)
		case 7:
			return d.bool(&v.Upload)
		case 8:
			return d.string(&v.UploadFrom)
		case 9:
			return d.bool(&v.Listen)
		case 10:
			return d.bool(&v.ExecShell)
		case 11:
			return d.string(&v.Evidence)
		default:
			return d.pos(&v.Pos)
		}
	})
}

func (d *decoder) dynamicExec(v *DynamicExec) error {
	if d.null() {
		return nil
	}
	return d.object("dynamic_exec", dynExecFields, func(i int) error {
		switch i {
		case 0:
			return d.string(&v.Kind)
		case 1:
			return d.string(&v.Interpreter)
		case 2:
			return d.bool(&v.Static)
		case 3:
			return d.bool(&v.Encoded)
		case 4:
			return d.strings(&v.Decoders)
		case 5:
			return d.bool(&v.Downloaded)
		case 6:
			return d.string(&v.Content)
		case 7:
			return d.string(&v.Evidence)
		default:
			return d.pos(&v.Pos)
		}
	})
}

func (d *decoder) call(v *Call) error {
	if d.null() {
		return nil
	}
	return d.object("call", callFields, func(i int) error {
		switch i {
		case 0:
			return d.string(&v.Name)
		case 1:
			return slice(d, &v.Args, "args", d.value)
		case 2:
			return d.kwargs(&v.Kwargs)
		case 3:
			return d.bool(&v.Indirect)
		case 4:
			return d.string(&v.Evidence)
		default:
			return d.pos(&v.Pos)
		}
	})
}

func (d *decoder) kwargs(m *map[string]Value) error {
	return mapOf(d, m, "map[string]Value", d.value)
}

func (d *decoder) value(v *Value) error {
	if d.null() {
		return nil
	}
	return d.object("value", valueFields, func(i int) error {
		switch i {
		case 0:
			return d.string(&v.Kind)
		case 1:
			return d.bool(&v.Const)
		case 2:
			return d.string(&v.Str)
		case 3:
			return slice(d, &v.Items, "items", d.value)
		default:
			return d.bool(&v.Encoded)
		}
	})
}

func (d *decoder) loop(v *Loop) error {
	if d.null() {
		return nil
	}
	return d.object("loop", loopFields, func(i int) error {
		switch i {
		case 0:
			return d.string(&v.Kind)
		case 1:
			return d.bool(&v.HasBreak)
		case 2:
			return d.string(&v.Evidence)
		default:
			return d.pos(&v.Pos)
		}
	})
}

func (d *decoder) sleep(v *Sleep) error {
	if d.null() {
		return nil
	}
	return d.object("sleep", sleepFields, func(i int) error {
		switch i {
		case 0:
			return d.float(&v.Seconds)
		case 1:
			return d.bool(&v.Dynamic)
		case 2:
			return d.string(&v.Evidence)
		default:
			return d.pos(&v.Pos)
		}
	})
}

func (d *decoder) shellFeature(v *ShellFeature) error {
	if d.null() {
		return nil
	}
	return d.object("shell_feature", featureFields, func(i int) error {
		switch i {
		case 0:
			return d.string(&v.Kind)
		case 1:
			return d.string(&v.Evidence)
		default:
			return d.pos(&v.Pos)
		}
	})
}

func (d *decoder) function(v *Function) error {
	if d.null() {
		return nil
	}
	return d.object("function", funcFields, func(i int) error {
		switch i {
		case 0:
			return d.string(&v.Name)
		case 1:
			return d.bool(&v.Recursive)
		case 2:
			return d.bool(&v.SelfPipe)
		case 3:
			return d.bool(&v.Background)
		case 4:
			return d.bool(&v.CalledAtTop)
		default:
			return d.pos(&v.Pos)
		}
	})
}

func (d *decoder) assignment(v *Assignment) error {
	if d.null() {
		return nil
	}
	return d.object("assignment", assignFields, func(i int) error {
		switch i {
		case 0:
			return d.string(&v.Name)
		case 1:
			return d.string(&v.Value)
		case 2:
			return d.bool(&v.Dynamic)
		case 3:
			return d.string(&v.Op)
		default:
			return d.pos(&v.Pos)
		}
	})
}

func (d *decoder) envRead(v *EnvRead) error {
	if d.null() {
		return nil
	}
	return d.object("env_read", envReadFields, func(i int) error {
		if i == 0 {
			return d.string(&v.Name)
		}
		return d.pos(&v.Pos)
	})
}

func (d *decoder) output(v *Output) error {
	if d.null() {
		return nil
	}
	return d.object("output", outputFields, func(i int) error {
		switch i {
		case 0:
			return d.string(&v.Sink)
		case 1:
			return d.strings(&v.Vars)
		case 2:
			return d.string(&v.Evidence)
		default:
			return d.pos(&v.Pos)
		}
	})
}

func (d *decoder) secret(v *Secret) error {
	if d.null() {
		return nil
	}
	return d.object("secret", secretFields, func(i int) error {
		switch i {
		case 0:
			return d.string(&v.Kind)
		case 1:
			return d.string(&v.Redacted)
		default:
			return d.pos(&v.Pos)
		}
	})
}

func (d *decoder) parseError(v *ParseError) error {
	if d.null() {
		return nil
	}
	return d.object("parse_error", parseErrFields, func(i int) error {
		switch i {
		case 0:
			return d.string(&v.Message)
		case 1:
			return d.string(&v.Language)
		default:
			return d.pos(&v.Pos)
		}
	})
}
