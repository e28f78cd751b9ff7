package layout

import (
	"encoding/json"
	"strconv"
	"unicode/utf8"
)

// maxFastJSONDepth bounds the nesting the in-place metadata reader
// follows; deeper values go to encoding/json.
const maxFastJSONDepth = 32

// decodeJSONObject decodes the JSON object s into a map exactly as
// json.Unmarshal into a map[string]any would (float64 numbers, []any
// arrays, map[string]any objects, last duplicate key wins), with its
// strings sharing s's memory. Metadata is a small flat object of plain
// strings in practice, for which encoding/json costs a copy of the whole
// text, a copy of every key and string, and a reflect-driven map build.
// Anything the fast reader does not handle by itself — an escape, a
// control character, invalid UTF-8, a number strconv rejects, deep
// nesting, any syntax error — sends the whole text to json.Unmarshal, so
// results and errors stay encoding/json's.
func decodeJSONObject(s string) (map[string]any, error) {
	r := jsonReader{s: s}
	if m, ok := r.object(0); ok {
		if r.ws(); r.i == len(r.s) {
			return m, nil
		}
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		return nil, err
	}
	return m, nil
}

// jsonReader is decodeJSONObject's cursor over its text.
type jsonReader struct {
	s string
	i int
}

func (r *jsonReader) ws() {
	for r.i < len(r.s) {
		switch r.s[r.i] {
		case ' ', '\t', '\n', '\r':
			r.i++
		default:
			return
		}
	}
}

// next skips white space and reports the next byte (0 at the end).
func (r *jsonReader) next() byte {
	r.ws()
	if r.i < len(r.s) {
		return r.s[r.i]
	}
	return 0
}

func (r *jsonReader) object(depth int) (map[string]any, bool) {
	if depth > maxFastJSONDepth || r.next() != '{' {
		return nil, false
	}
	r.i++
	m := make(map[string]any)
	if r.next() == '}' {
		r.i++
		return m, true
	}
	for {
		if r.next() != '"' {
			return nil, false
		}
		k, ok := r.str()
		if !ok || r.next() != ':' {
			return nil, false
		}
		r.i++
		v, ok := r.value(depth)
		if !ok {
			return nil, false
		}
		m[k] = v
		switch r.next() {
		case ',':
			r.i++
		case '}':
			r.i++
			return m, true
		default:
			return nil, false
		}
	}
}

func (r *jsonReader) array(depth int) ([]any, bool) {
	if depth > maxFastJSONDepth {
		return nil, false
	}
	r.i++ // '['
	// Elements are gathered on the stack and copied once into a slice of
	// their number: no growth by appending.
	var buf [16]any
	a := buf[:0]
	if r.next() == ']' {
		r.i++
		return []any{}, true
	}
	for {
		v, ok := r.value(depth)
		if !ok {
			return nil, false
		}
		a = append(a, v)
		switch r.next() {
		case ',':
			r.i++
		case ']':
			r.i++
			return append(make([]any, 0, len(a)), a...), true
		default:
			return nil, false
		}
	}
}

func (r *jsonReader) value(depth int) (any, bool) {
	switch c := r.next(); {
	case c == '"':
		s, ok := r.str()
		return s, ok
	case c == '{':
		return r.object(depth + 1)
	case c == '[':
		return r.array(depth + 1)
	case c == '-' || c >= '0' && c <= '9':
		return r.number()
	default:
		for _, lit := range [...]struct {
			text string
			v    any
		}{{"true", true}, {"false", false}, {"null", nil}} {
			if len(r.s)-r.i >= len(lit.text) && r.s[r.i:r.i+len(lit.text)] == lit.text {
				r.i += len(lit.text)
				return lit.v, true
			}
		}
		return nil, false
	}
}

// str reads a string without escapes or control characters, in valid
// UTF-8, as a view of the text.
func (r *jsonReader) str() (string, bool) {
	start := r.i + 1
	ascii := true
	for j := start; j < len(r.s); j++ {
		switch c := r.s[j]; {
		case c == '"':
			v := r.s[start:j]
			if !ascii && !utf8.ValidString(v) {
				return "", false
			}
			r.i = j + 1
			return v, true
		case c == '\\' || c < 0x20:
			return "", false
		case c >= utf8.RuneSelf:
			ascii = false
		}
	}
	return "", false
}

// number reads a number of JSON's grammar as encoding/json does for an
// interface value (strconv.ParseFloat).
func (r *jsonReader) number() (any, bool) {
	s, j := r.s, r.i
	digits := func() bool {
		k := j
		for j < len(s) && s[j] >= '0' && s[j] <= '9' {
			j++
		}
		return j > k
	}
	if s[j] == '-' {
		j++
	}
	if j < len(s) && s[j] == '0' {
		j++
	} else if !digits() {
		return nil, false
	}
	if j < len(s) && s[j] == '.' {
		j++
		if !digits() {
			return nil, false
		}
	}
	if j < len(s) && (s[j] == 'e' || s[j] == 'E') {
		j++
		if j < len(s) && (s[j] == '+' || s[j] == '-') {
			j++
		}
		if !digits() {
			return nil, false
		}
	}
	f, err := strconv.ParseFloat(s[r.i:j], 64)
	if err != nil {
		return nil, false
	}
	r.i = j
	return f, true
}
