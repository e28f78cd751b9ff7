package staged

import (
	"regexp"
	"strings"
)

var (
	makeAssign = regexp.MustCompile(`^\s*(?:export\s+|override\s+)*([A-Za-z_][A-Za-z0-9_.-]*)\s*(:::=|::=|:=|\?=|\+=|!=|=)\s*(.*)$`)
	makeVar    = regexp.MustCompile(`^\$[({]([A-Za-z_][A-Za-z0-9_]*)[)}]$`)
)

// MakeToShell turns a makefile into the shell script its recipes amount
// to, line for line (so findings keep the makefile's line numbers):
// recipe lines (tab-led) lose their tab and @/-/+ prefixes; variable
// assignments become shell assignments, so `$(RM) -rf /` resolves through
// `RM = rm`; `$(shell cmd)` and `!=` become command substitutions, `$$`
// becomes `$`, `$(VAR)` becomes `${VAR}`. Rule lines, conditionals and
// other make syntax become empty lines. Make functions other than shell
// become an unknown word, which the analyzers treat as dynamic.
func MakeToShell(src string) string {
	lines := strings.Split(src, "\n")
	out := make([]string, len(lines))
	for i := 0; i < len(lines); i++ {
		start := i
		line := lines[i]
		for strings.HasSuffix(line, "\\") && i+1 < len(lines) {
			i++
			line = line[:len(line)-1] + " " + strings.TrimLeft(lines[i], " \t")
		}
		out[start] = makeLine(line)
	}
	return strings.Join(out, "\n")
}

func makeLine(line string) string {
	if strings.HasPrefix(line, "\t") {
		body := strings.TrimLeft(line[1:], " \t")
		body = strings.TrimLeft(body, "@-+")
		return makeExpand(body)
	}
	if m := makeAssign.FindStringSubmatch(line); m != nil && !strings.HasPrefix(strings.TrimSpace(line), "#") {
		name := strings.ReplaceAll(strings.ReplaceAll(m[1], ".", "_"), "-", "_")
		val := makeExpand(strings.TrimSpace(m[3]))
		if m[2] == "!=" {
			return name + "=\"$(" + val + ")\""
		}
		return name + "=\"" + strings.ReplaceAll(val, `"`, `\"`) + "\""
	}
	return ""
}

// makeExpand rewrites make references into shell ones.
func makeExpand(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '$' || i+1 >= len(s) {
			b.WriteByte(c)
			continue
		}
		n := s[i+1]
		switch {
		case n == '$':
			b.WriteByte('$')
			i++
		case n == '(' || n == '{':
			closeCh := byte(')')
			if n == '{' {
				closeCh = '}'
			}
			end := matchClose(s, i+1, n, closeCh)
			if end < 0 {
				b.WriteString(s[i:])
				return b.String()
			}
			inner := s[i+2 : end]
			switch {
			case strings.HasPrefix(inner, "shell "):
				b.WriteString("$(" + makeExpand(strings.TrimSpace(inner[len("shell "):])) + ")")
			case makeVar.MatchString(s[i : end+1]):
				b.WriteString("${" + inner + "}")
			default:
				b.WriteString("${MAKE_FUNCTION_RESULT}")
			}
			i = end
		default:
			b.WriteByte('$') // $@, $<, $^: automatic variables
		}
	}
	return b.String()
}

func matchClose(s string, open int, o, c byte) int {
	depth := 0
	for j := open; j < len(s); j++ {
		switch s[j] {
		case o:
			depth++
		case c:
			depth--
			if depth == 0 {
				return j
			}
		}
	}
	return -1
}
