package bash

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Files the script writes or downloads: their known text is remembered so
// that running, sourcing or installing them later is analyzed as that code.

// maxWritten bounds the script content remembered per file.
const maxWritten = 1 << 16

// remember records static text the script writes into a file (echo,
// printf or cat of a heredoc redirected there), so running that file later
// is analyzed as the code it holds.
func (a *analyzer) remember(s *syntax.Stmt, name string) {
	if name != "echo" && name != "printf" && name != "cat" {
		return
	}
	for _, r := range s.Redirs {
		if r.Op != syntax.AppOut && r.Op != syntax.RdrOut && r.Op != syntax.ClbOut {
			continue
		}
		t, ok := a.staticWord(r.Word)
		if !ok || t == "" || ignoredDevice(t) || r.N != nil && r.N.Value != "1" {
			continue
		}
		text := ""
		if name == "cat" {
			for _, h := range s.Redirs {
				switch h.Op {
				case syntax.Hdoc, syntax.DashHdoc:
					text = a.heredocBody(h, false).s
				case syntax.WordHdoc:
					text = a.expandOne(h.Word, false).s + "\n"
				}
			}
		} else {
			text = a.producedText(&syntax.Stmt{Cmd: s.Cmd, Position: s.Position})
		}
		if a.written == nil {
			a.written = map[string]*strings.Builder{}
			a.overflow = map[string]bool{}
		}
		p := normPath(t)
		sb := a.written[p]
		if r.Op != syntax.AppOut || sb == nil {
			// A rewrite, or an append to content not known: what this
			// script adds is what it controls.
			sb = &strings.Builder{}
			a.written[p] = sb
			delete(a.overflow, p)
		}
		if a.overflow[p] || sb.Len()+len(text) > maxWritten {
			a.overflow[p] = true
			sb.Reset()
		} else {
			sb.WriteString(text)
		}
		delete(a.fetched, p)
	}
}

// fetchedTo records that a download was saved to path.
func (a *analyzer) fetchedTo(p string) {
	if p == "" || p == "-" {
		return
	}
	if a.fetched == nil {
		a.fetched = map[string]bool{}
	}
	p = normPath(p)
	a.fetched[p] = true
	delete(a.written, p)
}

// writtenText returns the known content the script wrote to p.
func (a *analyzer) writtenText(p string) (string, bool) {
	sb, ok := a.written[p]
	if !ok || a.overflow[p] {
		return "", false
	}
	return sb.String(), true
}
