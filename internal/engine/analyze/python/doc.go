// Package python analyzes Python 3 source into sdk facts: calls by
// qualified name after alias resolution, constant-folded arguments, the
// files, hosts, processes and dynamic code they reach, and the nested
// shell or Python content they carry, which goes back through the facts
// builder to the analyzer of its language ("bash" for os.system and
// subprocess commands, "python" for exec/eval/compile of constants).
//
// No Go library parses Python 3, so the package has its own tokenizer
// (lexer.go) and a recursive-descent parser for the statement and
// expression grammar (parser.go). The tree is walked once by a small
// abstract interpreter (analyze.go, call.go, dispatch.go) that tracks what
// each name is bound to: a module or function by qualified name, a folded
// constant, an instance of a known class (socket, Path, open file, HTTP
// session), or an unknown value with the data it carries (environment
// variables, file contents, downloads, os.walk roots). It judges nothing:
// rules do that on the facts.
//
// The walk follows statements in source order; both branches of an if
// (and a try's body and handlers) are walked from the same bindings, and a
// name either rebinds afterwards holds both values as alternatives. A value
// with alternatives (an if's branches, a conditional expression, an element
// of a list being iterated) reaches a call once per alternative, bounded
// (value.go maxAlts, call.go maxAltDepth). Loop bodies are walked once or
// unrolled over short sequences; function bodies are walked where they are
// defined and again, with the arguments bound, where they are called with
// constants, functions or objects; calls made on the program's behalf (map,
// filter, executors, threads, partial, methodcaller) are
// followed like direct ones. Decorators defined in the content are applied
// at the def (the name is bound to the callable they return, with the
// function itself as an alternative); what a try body raises (directly or
// from a function it calls) binds its handlers' names, an exception's
// .args and text being its arguments; converting an object of a class
// defined here to text (print, str, repr, format, f-strings) runs its
// __str__, __repr__ or __format__. Work, nesting, folded sizes and nested content are bounded
// so no input makes a scan slow; past a bound the document is marked
// Truncated. Input that does not tokenize or parse yields an
// sdk.ParseError, and the statements before the error are still analyzed.
package python
