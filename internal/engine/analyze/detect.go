package analyze

import (
	"strings"
)

// Detect guesses whether content is a shell script or Python. A shebang
// decides; otherwise each line votes by constructs that only one of the two
// languages has. Ties go to bash: agent tool calls are mostly command lines,
// and the bash analyzer reviews what it cannot parse rather than allowing it.
func Detect(content string) string {
	if strings.HasPrefix(content, "#!") {
		first := content
		if i := strings.IndexByte(first, '\n'); i >= 0 {
			first = first[:i]
		}
		if strings.Contains(first, "python") {
			return "python"
		}
		return "bash"
	}
	py, sh := 0, 0
	// Line by line (the lines strings.Split would give) without building
	// a slice of all the lines first.
	for rest, last := content, false; !last; {
		var raw string
		var found bool
		raw, rest, found = strings.Cut(rest, "\n")
		last = !found
		line := strings.TrimSpace(raw)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		switch {
		case strings.HasPrefix(line, "import ") || (strings.HasPrefix(line, "from ") && strings.Contains(line, " import ")):
			py += 3
		case strings.HasPrefix(line, "def ") && strings.HasSuffix(line, ":"),
			strings.HasPrefix(line, "class ") && strings.HasSuffix(line, ":"),
			strings.HasPrefix(line, "async def "),
			strings.HasPrefix(line, "elif ") || line == "else:" || line == "try:" || strings.HasPrefix(line, "except"),
			strings.HasPrefix(line, "with ") && strings.HasSuffix(line, ":"),
			strings.HasPrefix(line, "if __name__"):
			py += 3
		case strings.HasPrefix(line, "print(") || strings.HasPrefix(line, "return "):
			py += 2
		case (strings.HasPrefix(line, "for ") || strings.HasPrefix(line, "while ") || strings.HasPrefix(line, "if ")) && strings.HasSuffix(line, ":"):
			py += 2
		case line == "fi" || line == "done" || line == "esac" || strings.HasSuffix(line, "; then") ||
			strings.HasSuffix(line, "; do") || line == "then" || line == "do":
			sh += 3
		case strings.HasPrefix(line, "export ") || strings.HasPrefix(line, "set -") || strings.HasPrefix(line, "echo ") ||
			strings.HasPrefix(line, "cd ") || strings.HasPrefix(line, "source "):
			sh += 2
		}
		if strings.Contains(line, "$(") || strings.Contains(line, "${") || strings.Contains(line, " | ") ||
			strings.Contains(line, " && ") || strings.Contains(line, " || ") || strings.Contains(line, "2>&1") {
			sh++
		}
		if isPyAssignOrCall(line) {
			py++
		}
	}
	if py > sh {
		return "python"
	}
	return "bash"
}

// isPyAssignOrCall recognizes `name = value` with spaces around `=` (bash
// forbids them) and `name.attr(` calls, both common in Python and rare in
// shell.
func isPyAssignOrCall(line string) bool {
	if i := strings.Index(line, " = "); i > 0 && isIdentPath(line[:i]) {
		return true
	}
	if i := strings.IndexByte(line, '('); i > 0 && strings.Contains(line[:i], ".") && isIdentPath(line[:i]) {
		return true
	}
	return false
}

func isIdentPath(s string) bool {
	for i, r := range s {
		switch {
		case r == '_' || r == '.' || r == ',' || r == ' ' && i > 0,
			r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9' && i > 0:
		default:
			return false
		}
	}
	return s != ""
}
