package bash

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// The clients topic: interactive programs with a command language of their
// own that has a shell escape — database shells (`sqlite3 db ".shell CMD"`,
// `psql -c '\! CMD'`, `mysql -e 'system CMD'`), debuggers (`gdb -ex 'shell
// CMD'`, `lldb -o 'platform shell CMD'`), expect's spawn/exec, file-transfer
// clients (`ftp`/`lftp` "!CMD"). Each is a row of clientShells: which
// arguments carry client commands and which prefixes of a client command run
// the rest of its line through the shell. What follows an escape is judged
// as the shell code it is (RULES.md principle 6: command runners).

// clientShell describes one client program's command language.
type clientShell struct {
	// opts are the options whose value is client commands ("-c" takes the
	// next argument; "--command=" carries it in the same word).
	opts []string
	// positional: arguments that are not options (after the first, when
	// skipFirst: sqlite3's database file) are client commands too.
	positional, skipFirst bool
	// valued are options that take a value that is not client commands
	// (skipped with their value when finding positional arguments).
	valued []string
	// escapes are the prefixes of a client command (after leading space)
	// that run the rest of the line as a shell command line.
	escapes []string
	// stdin: a heredoc, a here-string, the text piped in or a file
	// redirected in (`< setup.sql`) holds client commands.
	stdin bool
	// files are the options whose value is a file of client commands
	// (psql -f FILE); its text is judged when the script wrote it.
	files []string
	// includes are the client commands that read a file of client
	// commands (sqlite3 `.read FILE`, psql `\i FILE`, mysql `source FILE`).
	includes []string
}

var clientShells = map[string]*clientShell{
	"sqlite3": {opts: []string{"-cmd"}, positional: true, skipFirst: true, stdin: true, files: []string{"-init"},
		includes: []string{".read "},
		valued:   []string{"-separator", "-newline", "-nullvalue", "-vfs", "-mmap", "-pagecache", "-lookaside", "-heap", "-maxsize"},
		escapes:  []string{".shell ", ".system ", ".once |", ".output |", ".once '|", ".output '|", ".once \"|", ".output \"|"}},
	"psql": {opts: []string{"-c", "--command"}, stdin: true, files: []string{"-f", "--file"},
		includes: []string{`\i `, `\ir `, `\include `, `\include_relative `},
		escapes:  []string{`\!`, `\o |`, `\g |`}},
	"mysql": {opts: []string{"-e", "--execute"}, stdin: true, includes: []string{"source ", `\. `},
		escapes: []string{`\!`, "system ", "pager "}},
	"gdb": {opts: []string{"-ex", "--ex", "-eval-command", "--eval-command", "-iex", "--init-eval-command"}, stdin: true,
		files: []string{"-x", "--command", "-ix", "--init-command"}, includes: []string{"source "},
		escapes: []string{"!", "shell ", "pipe "}},
	"lldb": {opts: []string{"-o", "--one-line", "-O", "--one-line-before-file", "-k", "--one-line-on-crash"},
		files: []string{"-s", "--source", "-S", "--source-before-file"}, includes: []string{"command source "},
		escapes: []string{"platform shell ", "shell "}},
	"expect": {opts: []string{"-c"}, stdin: true,
		escapes: []string{"spawn ", "exec ", "system "}},
	"ftp":  {stdin: true, escapes: []string{"!"}},
	"sftp": {stdin: true, escapes: []string{"!"}},
	"lftp": {opts: []string{"-c", "-e"}, stdin: true, files: []string{"-f"}, includes: []string{"source "}, escapes: []string{"!", "shell "}},
}

// clientAliases share a row with another name.
var clientAliases = map[string]string{
	"mariadb": "mysql", "sqlite": "sqlite3", "gdb-multiarch": "gdb", "cgdb": "gdb",
	"tftp": "ftp", "lldb-15": "lldb", "lldb-16": "lldb", "lldb-17": "lldb", "lldb-18": "lldb", "lldb-19": "lldb",
}

// registerClientCommands registers the client shells' runner aspect.
func registerClientCommands(r *registry) {
	const topic = "clients"
	names := make([]string, 0, len(clientShells)+len(clientAliases))
	for n := range clientShells {
		names = append(names, n)
	}
	for n := range clientAliases {
		names = append(names, n)
	}
	r.runner(topic, clientRunner, names...)
}

// clientRunner finds the client commands of one invocation and judges
// what their shell escapes run.
func clientRunner(a *analyzer, s *syntax.Stmt, name string, args []field, c *ctx) {
	row := clientShells[name]
	if alias, ok := clientAliases[name]; ok {
		row = clientShells[alias]
	}
	if row == nil {
		return
	}
	var scripts []field
	seenFirst := false
	for i := 0; i < len(args); i++ {
		f := args[i]
		if val, attached, ok := clientOption(row.files, f.s); ok {
			if !attached && i+1 < len(args) {
				i++
				val = args[i].s
				attached = !args[i].dyn
			}
			if attached {
				if text, known := a.writtenText(normPath(val)); known {
					scripts = append(scripts, field{s: text})
				}
			}
			continue
		}
		if val, attached, ok := clientOption(row.opts, f.s); ok {
			if attached {
				scripts = append(scripts, field{s: val, dyn: f.dyn})
			} else if i+1 < len(args) {
				scripts = append(scripts, args[i+1])
				i++
			}
			continue
		}
		if strings.HasPrefix(f.s, "-") && len(f.s) > 1 {
			for _, v := range row.valued {
				if f.s == v {
					i++
					break
				}
			}
			continue
		}
		if !row.positional {
			continue
		}
		if row.skipFirst && !seenFirst {
			seenFirst = true
			continue
		}
		scripts = append(scripts, f)
	}
	if row.stdin {
		for _, r := range s.Redirs {
			switch r.Op {
			case syntax.Hdoc, syntax.DashHdoc:
				scripts = append(scripts, a.heredocBody(r, false))
			case syntax.WordHdoc:
				scripts = append(scripts, a.expandOne(r.Word, false))
			case syntax.RdrIn:
				if p, static := a.staticWord(r.Word); static {
					if text, known := a.writtenText(normPath(p)); known {
						scripts = append(scripts, field{s: text})
					}
				}
			}
		}
	}
	var piped *foldResult
	if row.stdin && len(c.earlier) > 0 && c.stdin != nil {
		// `echo '.shell id' | sqlite3 x.db`: the text piped in, folded as
		// pipeInterpreter folds it, is client commands.
		r := a.foldStages(c.earlier)
		if r.static {
			piped = &r
			scripts = append(scripts, field{s: r.content})
		}
	}
	n, reads := 0, 0
	for k := 0; k < len(scripts); k++ {
		sc := scripts[k]
		if sc.dyn {
			continue
		}
		for _, line := range strings.Split(sc.s, "\n") {
			if p, ok := clientInclude(row.includes, line); ok && reads < maxClientIncludes {
				// A file of client commands this script wrote, read by
				// the client: its commands are judged too.
				reads++
				if text, known := a.writtenText(normPath(p)); known {
					scripts = append(scripts, field{s: text})
				}
			}
			for _, at := range clientCommandStarts(line) {
				code, ok := clientEscape(row.escapes, line[at:])
				if !ok || code == "" {
					continue
				}
				cf := field{s: code}
				if piped != nil && sc.s == piped.content && piped.encoded {
					// decoded text run: encoding plus execution
					cf.enc = true
					cf.setDecoders(piped.decoders)
				}
				a.dynExec(s, "shell_c", name, cf, field{}, true)
				if n++; n == maxRunnerExpansions {
					return
				}
			}
		}
	}
}

// maxClientIncludes bounds the files of client commands one invocation
// reads through its include commands (a file that reads itself).
const maxClientIncludes = 8

// clientInclude returns the file a client command line reads client
// commands from (`.read setup.sql`), quotes and a trailing ';' removed.
func clientInclude(includes []string, line string) (string, bool) {
	line = strings.TrimSpace(line)
	for _, inc := range includes {
		if rest, ok := strings.CutPrefix(line, inc); ok {
			rest = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), ";"))
			if len(rest) >= 2 && (rest[0] == '"' || rest[0] == '\'') && rest[len(rest)-1] == rest[0] {
				rest = rest[1 : len(rest)-1]
			}
			return rest, rest != ""
		}
	}
	return "", false
}

// clientOption reports whether word is one of opts, alone ("-c": the value
// is the next argument) or with its value attached ("--command=X", or "-cX"
// for a two-letter option).
func clientOption(opts []string, word string) (val string, attached, ok bool) {
	for _, o := range opts {
		if val, attached, ok := optWord(o, word); ok {
			return val, attached, true
		}
	}
	return "", false, false
}

// clientCommandStarts returns where the client commands of a line start:
// at its beginning and after each ';' outside quotes (SQL statements and
// meta-commands share lines). A shell escape runs to the end of the line,
// ';' included, so each command is read from its start to the line's end.
func clientCommandStarts(line string) []int {
	starts := []int{0}
	var quote byte
	for i := 0; i < len(line); i++ {
		switch ch := line[i]; {
		case quote != 0:
			if ch == quote {
				quote = 0
			}
		case ch == '\'' || ch == '"':
			quote = ch
		case ch == ';':
			starts = append(starts, i+1)
		}
	}
	return starts
}

// clientEscape returns the shell command a client command runs, when it
// starts with one of escapes.
func clientEscape(escapes []string, cmd string) (string, bool) {
	cmd = strings.TrimLeft(cmd, " \t")
	for _, e := range escapes {
		if rest, ok := strings.CutPrefix(cmd, e); ok {
			return clientCode(e, rest), true
		}
	}
	return "", false
}

// clientCode is the shell text after an escape: quotes around the whole
// command ('.shell "id"', expect's {…}) are removed; a pipe escape's
// command runs with its output.
func clientCode(escape, rest string) string {
	rest = strings.TrimSpace(rest)
	if len(rest) >= 2 && (rest[0] == '{' && rest[len(rest)-1] == '}') {
		rest = rest[1 : len(rest)-1]
	}
	if len(rest) >= 2 && (rest[0] == '"' || rest[0] == '\'') && rest[len(rest)-1] == rest[0] {
		rest = rest[1 : len(rest)-1]
	}
	if strings.HasSuffix(escape, "|") {
		rest = strings.TrimRight(rest, `'"`)
	}
	return strings.TrimSpace(rest)
}
