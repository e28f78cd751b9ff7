package bash

import (
	"path"
	"strings"
)

// Wrappers that run their command as shell code (`sg GROUP -c CODE`,
// `flock LOCK -c CODE`, `runuser -l USER -c CODE`, `su -c CODE`): the code
// is run by a shell that inherits the wrapper's standard input, so
// `curl … | sg docker -c sh` runs what curl fetched. The table names, per
// wrapper, the reader of its code word; pipeInterpreter looks through the
// wrapper when the code is a plain command (a program and words), as it
// looks through the wrappers whose inner command is words.
var codeRunners = map[string]func(args []field) (field, bool){
	"sg":      sgCode,
	"flock":   commandOptCode,
	"runuser": runuserCodeWord,
	"su":      commandOptCode,
}

// pipedCode returns the command words a code-running wrapper fs runs when
// its code is a plain command; ok is false for other commands and code.
func pipedCode(fs []field) ([]field, bool) {
	if len(fs) == 0 || fs[0].dyn {
		return nil, false
	}
	read := codeRunners[path.Base(fs[0].s)]
	if read == nil {
		return nil, false
	}
	code, ok := read(fs[1:])
	if !ok || code.dyn || !plainCommand(code.s) {
		return nil, false
	}
	words := strings.Fields(code.s)
	out := make([]field, len(words))
	for i, w := range words {
		out[i] = field{s: w}
	}
	return out, true
}

// sgCode returns the command of sg [-] GROUP [-c] CMD, which sg runs
// through /bin/sh -c.
func sgCode(args []field) (field, bool) {
	i := 0
	if i < len(args) && args[i].s == "-" {
		i++
	}
	i++ // the group
	if i < len(args) && args[i].s == "-c" {
		i++
	}
	if i < len(args) {
		return args[i], true
	}
	return field{}, false
}

// commandOptCode returns the code word of a wrapper's -c/--command CODE
// option (flock, su).
func commandOptCode(args []field) (field, bool) {
	if i := commandOpt(args); i >= 0 && i+1 < len(args) {
		return args[i+1], true
	}
	return field{}, false
}

// commandOpt is the index of a wrapper's -c/--command option, -1 when it
// is not given (flock: with it no inner command runs).
func commandOpt(args []field) int {
	for i, f := range args {
		if f.s == "-c" || f.s == "--command" {
			return i
		}
	}
	return -1
}

// runuserCodeWord returns the code of runuser … -c/--command CODE.
func runuserCodeWord(args []field) (field, bool) {
	if i, code := runuserCode(args); code != nil && i >= 0 {
		return *code, true
	}
	return field{}, false
}
