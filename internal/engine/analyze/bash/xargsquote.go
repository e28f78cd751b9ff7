package bash

import "strings"

// xargsWords splits xargs input into items the way xargs does without -0
// or -d: blanks and newlines separate items; single and double quotes
// group blanks into one item and are removed; a backslash outside single
// quotes takes the next character as it is (`echo '"/"' | xargs rm -rf`
// removes /, `echo '/e\tc' | xargs rm -rf` removes /etc). An unmatched
// quote ends the input, as xargs stops there.
func xargsWords(text string) []string {
	var out []string
	var w strings.Builder
	in := false // a word is being built (an empty quoted word counts)
	var quote byte
	for i := 0; i < len(text); i++ {
		ch := text[i]
		switch {
		case quote != 0:
			if ch == quote {
				quote = 0
			} else if ch == '\n' {
				return out // xargs: unmatched quote
			} else {
				w.WriteByte(ch)
			}
		case ch == '\'' || ch == '"':
			quote, in = ch, true
		case ch == '\\' && i+1 < len(text):
			i++
			w.WriteByte(text[i])
			in = true
		case ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r' || ch == '\f' || ch == '\v':
			if in {
				out = append(out, w.String())
				w.Reset()
				in = false
			}
		default:
			w.WriteByte(ch)
			in = true
		}
	}
	if quote != 0 {
		return out
	}
	if in {
		out = append(out, w.String())
	}
	return out
}
