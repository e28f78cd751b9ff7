package bash

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/toolwarden/toolwarden/internal/engine/facts"
	"github.com/toolwarden/toolwarden/sdk"
)

// Nested code: content a command carries (sh -c, eval, python -c, a
// heredoc fed to an interpreter) is recorded as a DynamicExec and, when
// static, analyzed again by the analyzer of its language.

// nestedShell analyzes f, a shell command string run by interp (flock -c,
// env -S), as nested bash.
func (a *analyzer) nestedShell(s *syntax.Stmt, interp string, f field) {
	a.dynExec(s, "shell_c", interp, f, f, true)
}

// dynExec records a DynamicExec for content f and analyzes it nested when
// static. src carries substitution provenance (encoded, downloaded).
func (a *analyzer) dynExec(s *syntax.Stmt, kind, interp string, content, src field, analyze bool) {
	d := sdk.DynamicExec{
		Kind:        kind,
		Interpreter: interp,
		Encoded:     src.enc || content.enc,
		Decoders:    dedup(append(append([]string(nil), src.decoderList()...), content.decoderList()...)),
		Downloaded:  src.downloaded || content.downloaded,
		Evidence:    a.evidence(s.Pos()),
		Pos:         a.pos(s.Pos()),
	}
	if d.Downloaded {
		d.Encoded = d.Encoded || len(d.Decoders) > 0
	}
	lang := "bash"
	via := kind
	switch kind {
	case "shell_c":
		via = interp + " -c"
		if f := inlineFlag[interp]; f != "" {
			via = interp + " " + f
		}
	case "python_c":
		lang, via = "python", interp+" -c"
	case "perl_e":
		via = "perl -e"
	case "awk_system":
		via = "awk system"
	case "heredoc_interpreter":
		via = "heredoc:" + interp
		if isPython(interp) {
			lang = "python"
		}
	case "pipe_interpreter":
		via = strings.Join(append(append([]string(nil), d.Decoders...), interp), ">")
		if interp == "at" || interp == "batch" {
			lang = "bash"
		}
		if isPython(interp) {
			lang = "python"
		}
	case "source":
		via = "source"
		if isPython(interp) {
			lang = "python"
		}
	}
	if l := interpByName[interp]; l != nil && !l.awkIO && (kind == "pipe_interpreter" || kind == "heredoc_interpreter") {
		// Code of a registered interpreter fed on standard input is
		// that language, not bash: its API calls are scanned (interp.go).
		if analyze && !content.dyn && !d.Downloaded {
			d.Static = true
			d.Content = capContent(content.s)
		}
		a.b.Facts.DynamicExec = append(a.b.Facts.DynamicExec, d)
		if d.Static {
			a.codeListeners(s, interp, content.s)
			a.interpCode(s, interp, l, content, &ctx{})
		}
		return
	}
	idx := len(a.b.Facts.DynamicExec)
	if analyze && !content.dyn && !d.Downloaded {
		d.Static = true
		d.Content = capContent(content.s)
	}
	a.b.Facts.DynamicExec = append(a.b.Facts.DynamicExec, d)
	if d.Static {
		l, col := a.lc(s.Pos())
		if !a.nested(lang, content.s, l, col, via, d.Encoded) {
			a.b.Facts.DynamicExec[idx].Static = false
		}
	}
}

// maxContent caps DynamicExec.Content.
const maxContent = 4096

func capContent(s string) string {
	if len(s) > maxContent {
		return s[:maxContent]
	}
	return s
}

// runFile handles the execution of a file (bash F, . F, ./F, crontab F)
// whose content this script produced: downloaded earlier (remote code
// execution) or written with known text (analyzed nested).
func (a *analyzer) runFile(s *syntax.Stmt, interp string, f field) {
	if f.dyn || (a.fetched == nil && a.written == nil && a.fetchedDirs == nil) {
		return
	}
	p := normPath(f.s)
	if a.fetched[p] || a.inDownloadedTree(p) {
		a.dynExec(s, "source", interp, field{dyn: true}, field{downloaded: true}, false)
		return
	}
	if text, ok := a.writtenText(p); ok {
		if l := interpByName[interp]; l != nil {
			a.interpScript(s, interp, l, text)
			return
		}
		a.dynExec(s, "source", interp, field{s: text}, field{}, true)
	}
}

// interpScript analyzes a script file the content wrote, run by a
// registered interpreter (`cat > x.rb <<EOF … EOF; ruby x.rb`): the file's
// text is that language's code, scanned with its registry row as inline
// code is, not bash.
func (a *analyzer) interpScript(s *syntax.Stmt, interp string, l *interpLang, text string) {
	a.b.Facts.DynamicExec = append(a.b.Facts.DynamicExec, sdk.DynamicExec{Kind: "source", Interpreter: interp,
		Static: true, Content: capContent(text), Evidence: a.evidence(s.Pos()), Pos: a.pos(s.Pos())})
	if l.awkIO {
		a.awk(s, interp, []field{{s: text}}, &ctx{})
	} else {
		a.codeListeners(s, interp, text)
	}
	a.interpCode(s, interp, l, field{s: text}, &ctx{})
}

// nestMargin is what an analysis may re-analyze beyond its own length.
const nestMargin = 64 << 10

// nested analyzes content carried by the construct at line/col. Bash
// content with known positional parameters (a.positional) is analyzed
// here directly so that $0, $1 … resolve; everything else goes through the
// Builder, which routes by language.
func (a *analyzer) nested(lang, src string, line, col int, via string, encoded bool) bool {
	if len(src) > a.nestBudget {
		// Re-analyzing more than the content itself (plus a margin)
		// would let a short script amplify into a long scan.
		a.b.Facts.Truncated = true
		a.positional, a.posTargets = nil, nil
		return false
	}
	a.nestBudget -= len(src)
	if lang != "bash" || a.positional == nil {
		if lang == "python" && a.nestedArgv != nil {
			return a.b.NestedArgs(lang, src, a.at, line, col, via, encoded, a.nestedArgv)
		}
		return a.b.Nested(lang, src, a.at, line, col, via, encoded)
	}
	max := a.b.MaxDepth
	if max == 0 {
		max = facts.DefaultMaxDepth
	}
	if a.at.Depth+1 > max {
		a.b.Facts.Truncated = true
		return false
	}
	pos, targets := a.positional, a.posTargets
	a.positional, a.posTargets = nil, nil
	analyze(a.b, src, a.at.Child(line, col, via, encoded), pos, targets)
	return true
}
