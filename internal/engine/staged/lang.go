package staged

import (
	"bytes"
	"path"
	"strings"
)

// FileLanguage decides how a file found for ref is scanned: "python",
// "bash", "make", or "" when the scan cannot judge it (a binary, an
// interpreter without an analyzer such as node or perl). The shebang
// decides for KindExec; a text file without one is run by the shell
// (execve's ENOEXEC fallback).
func FileLanguage(ref Ref, content []byte) string {
	if bytes.IndexByte(content, 0) >= 0 {
		return "" // a binary (ELF, .pyc): nothing the analyzers read
	}
	if ref.Language != LangShebang {
		return ref.Language
	}
	if !bytes.HasPrefix(content, []byte("#!")) {
		return LangBash
	}
	line := string(content[2:])
	if i := strings.IndexByte(line, '\n'); i >= 0 {
		line = line[:i]
	}
	fields := strings.Fields(line)
	if len(fields) == 0 {
		return LangBash
	}
	interp := path.Base(fields[0])
	if interp == "env" {
		interp = ""
		for _, f := range fields[1:] {
			if strings.HasPrefix(f, "-") || strings.Contains(f, "=") {
				continue
			}
			interp = path.Base(f)
			break
		}
	}
	switch {
	case pythonName.MatchString(interp):
		return LangPython
	case isShell(interp):
		return LangBash
	}
	return ""
}
