package bash

import "strings"

// Tcl's syntax is commands of words, not calls: `exec rm -rf /`,
// `set f [open /etc/shadow]`, `socket host 80`. tclCalls rewrites such a
// program into the call syntax the generic scanner (interpscan.go) reads,
// `exec("rm", "-rf", "/"); f = open("/etc/shadow");`, so the Tcl row of
// the registry lists its APIs like every other language.

// tclCalls rewrites Tcl code into calls: each command (ended by a newline
// or ";", or by a brace, whose body is read as more commands) becomes
// name(word, …); `set v value` becomes an assignment; a `[…]`
// substitution is its own call, the word it stands in is unknown; `$v`
// is the variable v; bare words are strings. Leading option words
// (-force, -async) are dropped except where the words are an argv
// (exec). `file delete p` is the call file.delete(p).
func tclCalls(code string) string {
	var out strings.Builder
	type cmd struct{ words []string }
	stack := []*cmd{{}}
	var word strings.Builder
	inWord := false
	endWord := func() {
		if inWord {
			top := stack[len(stack)-1]
			top.words = append(top.words, word.String())
			word.Reset()
			inWord = false
		}
	}
	emit := func(c *cmd) {
		if len(c.words) > 0 {
			out.WriteString(tclCall(c.words))
			out.WriteString(";\n")
		}
		c.words = nil
	}
	for i := 0; i < len(code); i++ {
		ch := code[i]
		switch {
		case ch == '\\' && i+1 < len(code):
			word.WriteByte(ch)
			word.WriteByte(code[i+1])
			inWord = true
			i++
		case ch == '"' && !inWord:
			// A quoted word, kept as a literal up to its closing quote.
			j := i + 1
			for j < len(code) && code[j] != '"' {
				if code[j] == '\\' {
					j++
				}
				j++
			}
			if j > len(code) {
				j = len(code)
			}
			word.WriteString(code[i:min(j+1, len(code))])
			inWord = true
			i = j
		case ch == ' ' || ch == '\t' || ch == '\r':
			endWord()
		case ch == '\n' || ch == ';' || ch == '{' || ch == '}':
			endWord()
			emit(stack[len(stack)-1])
		case ch == '[':
			endWord()
			top := stack[len(stack)-1]
			top.words = append(top.words, "\x01")
			stack = append(stack, &cmd{})
		case ch == ']' && len(stack) > 1:
			endWord()
			inner := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			emit(inner)
			// `set f [open …]`: the call stands in f's value too.
		default:
			word.WriteByte(ch)
			inWord = true
		}
	}
	endWord()
	for k := len(stack) - 1; k >= 0; k-- {
		emit(stack[k])
	}
	return out.String()
}

// tclCall renders one Tcl command's words as a call.
func tclCall(words []string) string {
	name := words[0]
	args := words[1:]
	if name == "file" && len(args) > 0 {
		name, args = "file."+args[0], args[1:]
	}
	if name == "set" && len(args) == 2 && isIdent(args[0]) {
		return args[0] + " = " + tclWord(args[1])
	}
	if name != "exec" {
		for len(args) > 0 && strings.HasPrefix(args[0], "-") && len(args[0]) > 1 {
			args = args[1:]
		}
	}
	q := make([]string, len(args))
	for k, w := range args {
		q[k] = tclWord(w)
	}
	if !isIdent(strings.ReplaceAll(strings.ReplaceAll(name, ":", "_"), ".", "_")) {
		name = "_"
	}
	return name + "(" + strings.Join(q, ", ") + ")"
}

// tclWord renders one word: a quoted word as it is (computed when it
// substitutes a variable or a command), $v as the variable, a
// substitution as an unknown value, anything else as a string (with the
// variables inside it concatenated).
func tclWord(w string) string {
	switch {
	case w == "\x01":
		return "__subst"
	case strings.HasPrefix(w, `"`) && strings.ContainsAny(w, "$["):
		// "exec $c": Tcl substitutes inside quotes, a computed string.
		return "__subst"
	case strings.HasPrefix(w, `"`):
		return w
	case strings.HasPrefix(w, "$") && isIdent(strings.Trim(w[1:], "{}")):
		return strings.Trim(w[1:], "{}")
	case w != "" && strings.Trim(w, "0123456789") == "":
		return w // a number (a port)
	case strings.Contains(w, "$"):
		// dir/$f: a computed string.
		return "__subst"
	}
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(w) + `"`
}
