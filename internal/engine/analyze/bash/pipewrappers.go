package bash

import "strings"

// Wrappers that run their command as shell code (`sg GROUP -c CODE`,
// `flock LOCK -c CODE`, `runuser -l USER -c CODE`, `su -c CODE`): the code
// is run by a shell that inherits the wrapper's standard input, so
// `curl … | sg docker -c sh` runs what curl fetched. The table names, per
// wrapper, the reader of its code word; pipeInterpreter looks through the
// wrapper when the code is a plain command (a program and words), as it
// looks through the wrappers whose inner command is words.
var codeRunners = map[string]func(args []field) (field, bool){
	"sg":      sgCode,
	"flock":   flockCode,
	"runuser": runuserCodeWord,
	"su":      suCode,
}

// pipedCode returns the command words a code-running wrapper fs runs when
// its code is a plain command; ok is false for other commands and code.
func pipedCode(fs []field) ([]field, bool) {
	if len(fs) == 0 || fs[0].dyn {
		return nil, false
	}
	read := codeRunners[baseName(fs[0].s)]
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

// baseName is the last element of a command path.
func baseName(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 && i+1 < len(p) {
		return p[i+1:]
	}
	return p
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

// flockCode returns the code of flock … -c/--command CODE.
func flockCode(args []field) (field, bool) {
	if i := flockCommandOpt(args); i >= 0 && i+1 < len(args) {
		return args[i+1], true
	}
	return field{}, false
}

// flockCommandOpt is the index of flock's -c/--command option, -1 when
// it is not given (with it no inner command runs).
func flockCommandOpt(args []field) int {
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

// suCode returns the code of su … -c/--command CODE.
func suCode(args []field) (field, bool) {
	for i, f := range args {
		if (f.s == "-c" || f.s == "--command") && i+1 < len(args) {
			return args[i+1], true
		}
	}
	return field{}, false
}
