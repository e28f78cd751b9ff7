package resources

import (
	"fmt"
	"strings"

	"github.com/toolwarden/toolwarden/sdk"

	"github.com/toolwarden/toolwarden/rules-wasm/packs/internal/catalog"
)

// Whole-environment dumps filtered for secrets: `env | grep -i token`,
// `printenv | grep -iE 'secret|key'`. The filter prints exactly the secret
// values (RULES.md SENSITIVE_OUTPUT).
var (
	kindEnvDump = catalog.NamesKind("env", "printenv", "export", "declare", "typeset", "set", "compgen", "jq", "gojq",
		"ps")
	kindFilter = catalog.NamesKind("grep", "egrep", "fgrep", "rg", "ag", "awk", "gawk", "sed", "findstr")
)

// secretWords are the parts of a filter pattern that select secrets.
var secretWords = []string{"token", "secret", "pass", "key", "cred", "auth", "aws", "api", "private", "session",
	"cookie", "bearer", "jwt", "npm_", "gh_", "github"}

// isDump reports an environment-dumping command: env or printenv without
// operands, or export -p / declare -x / set with no arguments.
func isDump(name string, args []string) bool {
	switch name {
	case "env", "printenv":
		for _, a := range args {
			if !strings.HasPrefix(a, "-") {
				return false
			}
		}
		return true
	case "export":
		return len(args) == 0 || len(args) == 1 && (args[0] == "-p" || args[0] == "-x" || args[0] == "-px")
	case "declare", "typeset":
		return len(args) == 1 && (args[0] == "-p" || args[0] == "-x" || args[0] == "-px")
	case "set":
		return len(args) == 0
	case "compgen":
		return len(args) == 1 && (args[0] == "-v" || args[0] == "-e")
	case "jq", "gojq":
		return jqDumpsEnv(args)
	case "ps":
		return psShowsEnv(args)
	}
	return false
}

// jqValueOpts are jq's options that take words after them (--arg NAME
// VALUE takes two).
var jqValueOpts = map[string]int{"--arg": 2, "--argjson": 2, "--slurpfile": 2, "--rawfile": 2, "-f": 1,
	"--from-file": 1, "-L": 1, "--indent": 1}

// jqDumpsEnv reports a jq program that outputs the whole environment: its
// `env` builtin or `$ENV` as a whole value (`jq -n env`, `jq -n '$ENV'`),
// not one member of it (`env.HOME`, `$ENV["LANG"]`).
func jqDumpsEnv(args []string) bool {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if n, ok := jqValueOpts[a]; ok {
			if a == "-f" || a == "--from-file" {
				return false // the program is in a file
			}
			i += n
			continue
		}
		if strings.HasPrefix(a, "-") {
			continue
		}
		return wholeEnvIn(a, "$ENV") || wholeEnvIn(a, "env")
	}
	return false
}

// wholeEnvIn reports name in the jq program prog as a whole value: not part
// of a longer name, not followed by a member access or an index, and (for
// the builtin env) not a field or variable itself (`.env`, `$env`).
func wholeEnvIn(prog, name string) bool {
	for off := 0; off < len(prog); {
		k := strings.Index(prog[off:], name)
		if k < 0 {
			return false
		}
		start, end := off+k, off+k+len(name)
		off = end
		if start > 0 {
			if b := prog[start-1]; isIdentByte(b) || b == '$' && name == "env" {
				continue
			}
		}
		rest := strings.TrimLeft(prog[end:], " ")
		if end < len(prog) && isIdentByte(prog[end]) || strings.HasPrefix(rest, ".") || strings.HasPrefix(rest, "[") {
			continue
		}
		return true
	}
	return false
}

// psValueOpts are the single-letter ps options whose next word is their
// value (a format, a pid list, a command name), so it is not read as BSD
// options.
const psValueOpts = "oOpCuUgGtqsk"

// psShowsEnv reports ps with the BSD option e (`ps e`, `ps eww $$`, `ps
// auxe`): each process's environment is printed after its command line.
// "-e" (every process) is the other syntax and shows none.
func psShowsEnv(args []string) bool {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if strings.HasPrefix(a, "-") {
			if len(a) == 2 && strings.IndexByte(psValueOpts, a[1]) >= 0 {
				i++
			}
			continue
		}
		letters := a != ""
		for j := 0; j < len(a); j++ {
			letters = letters && (a[j] >= 'a' && a[j] <= 'z' || a[j] >= 'A' && a[j] <= 'Z')
		}
		if letters && strings.IndexByte(a, 'e') >= 0 {
			return true
		}
	}
	return false
}

// passThrough are commands that hand their input on whole (reordered,
// re-encoded, split into lines or fields): an environment dump piped
// through them still prints every value.
var passThrough = map[string]bool{"sort": true, "uniq": true, "cat": true, "tr": true, "tee": true, "head": true,
	"tail": true, "column": true, "nl": true, "less": true, "more": true, "base64": true, "base32": true, "xxd": true,
	"od": true, "hexdump": true, "strings": true, "cut": true, "paste": true, "fold": true, "rev": true, "fmt": true,
	"expand": true, "iconv": true, "gzip": true, "xz": true, "bzip2": true, "zstd": true}

// fileRedirect reports a redirection of stdout to a file (not to another
// descriptor or the terminal).
func fileRedirect(r sdk.Redirect) bool {
	switch r.Op {
	case ">", ">>", "&>", ">|":
	default:
		return false
	}
	if r.Fd != -1 && r.Fd != 1 {
		return false
	}
	switch r.Target {
	case "&1", "&2", "/dev/stdout", "/dev/stderr", "/dev/tty":
		return false
	}
	return true
}

// checkIndirectOverDump reports values printed through indirect expansion
// in content that lists the environment's names (`for n in $(compgen -e);
// do echo "$n=${!n}"; done`, `env | cut -d= -f1 | while read n; do …`):
// ${!n} over every name is every value.
func checkIndirectOverDump(e *catalog.Env) {
	f := e.Facts
	for _, i := range e.Commands(kindEcho) {
		c := &f.Commands[i]
		for _, k := range c.DynamicArgs {
			if k < len(c.Args) && strings.Contains(c.Args[k], "${!") {
				e.Add(catalog.Finding{Rule: "SENSITIVE_OUTPUT", Evidence: c.Evidence, Pos: c.Pos, Key: "envdump",
					Message:        "Content prints variables by indirect expansion over the environment's names, secret values included.",
					Recommendation: "Print only the variables you need, by name, and never secrets.",
					Metadata:       map[string]any{"dump": "indirect", "sink": "stdout"}})
				return
			}
		}
	}
}

// dumpSources are the commands that write the whole environment to their
// stdout: env/printenv/export -p/declare -x/set/compgen without operands,
// and any command reading a process's environ file (`cat
// /proc/self/environ`, `tr '\0' '\n' < /proc/1/environ`, `strings
// /proc/$$/environ`).
func dumpSources(e *catalog.Env) (dumps, fileFilters map[int]string) {
	f := e.Facts
	dumps = map[int]string{}
	var files []string
	for _, i := range e.Commands(kindEnvDump) {
		c := &f.Commands[i]
		if isDump(c.Name, c.Args) {
			dumps[c.ID] = c.Name
			for _, r := range c.Redirects {
				if fileRedirect(r) {
					files = append(files, r.Target)
				}
			}
		}
	}
	filters := dumpFileReaders(e, dumps, files)
	for i := range f.Commands {
		c := &f.Commands[i]
		for _, a := range c.Args {
			if procEnviron(a) {
				dumps[c.ID] = a
			}
		}
		for _, r := range c.Redirects {
			if r.Op == "<" && procEnviron(r.Target) {
				dumps[c.ID] = r.Target
			}
		}
	}
	return dumps, filters
}

// dumpFileReaders adds to dumps the commands that print a file an
// environment dump was written to (`env > /tmp/e; cat /tmp/e`): reading it
// whole is reading the dump. A filter reading the file is judged as a
// filter over the dump (checkEnvDumps), by its pattern.
func dumpFileReaders(e *catalog.Env, dumps map[int]string, files []string) (filters map[int]string) {
	if len(files) == 0 {
		return nil
	}
	f := e.Facts
	for i := range f.Commands {
		c := &f.Commands[i]
		filter := e.Of(int32(i), kindFilter)
		if _, ok := dumps[c.ID]; ok || !(c.Name == "cat" || passThrough[c.Name] || filter) {
			continue
		}
		for _, file := range files {
			reads := false
			for _, a := range c.Args {
				reads = reads || a == file
			}
			for _, r := range c.Redirects {
				reads = reads || r.Op == "<" && r.Target == file
			}
			switch {
			case reads && filter:
				if filters == nil {
					filters = map[int]string{}
				}
				filters[c.ID] = file
			case reads:
				dumps[c.ID] = file
			}
		}
	}
	return filters
}

// checkEnvPrinted reports an environment dump whose output reaches the
// terminal: not consumed, or consumed only by commands that pass it on
// whole (`env`, `env | sort`, `cat /proc/self/environ | tr '\0' '\n'`).
// A dump fed to a filter is judged by the filter (checkEnvDumps); one
// redirected to a file or substituted into a word is not printed.
func checkEnvPrinted(e *catalog.Env, dumps map[int]string) {
	f := e.Facts
	byID := map[int]*sdk.Command{}
	consumers := map[int][]*sdk.Command{}
	for i := range f.Commands {
		c := &f.Commands[i]
		byID[c.ID] = c
		for _, s := range c.StdinSources {
			consumers[s] = append(consumers[s], c)
		}
	}
	var prints func(c *sdk.Command, depth int) bool
	prints = func(c *sdk.Command, depth int) bool {
		if depth > 8 {
			return false
		}
		for _, r := range c.Redirects {
			if fileRedirect(r) {
				return c.Name == "tee"
			}
		}
		for _, reach := range c.Reach {
			if reach == "substitution" || reach == "process_substitution" {
				return false
			}
		}
		next := consumers[c.ID]
		if len(next) == 0 {
			return true
		}
		for _, n := range next {
			if passThrough[n.Name] && prints(n, depth+1) {
				return true
			}
		}
		return false
	}
	for id, from := range dumps {
		c := byID[id]
		if c == nil || c.Name == "compgen" || !prints(c, 0) {
			continue // compgen lists names only
		}
		e.Add(catalog.Finding{Rule: "SENSITIVE_OUTPUT", Evidence: c.Evidence, Pos: c.Pos, Key: "envdump",
			Message:        fmt.Sprintf("Content prints the whole environment (%s), secret values included.", from),
			Recommendation: "Print only the variables you need, by name, and never secrets.",
			Metadata:       map[string]any{"dump": from, "sink": "stdout"}})
	}
}

// checkEnvDumps reports a secret filter over an environment dump, and a
// dump printed whole.
func checkEnvDumps(e *catalog.Env) {
	f := e.Facts
	dumps, fileFilters := dumpSources(e)
	if len(dumps) == 0 && len(fileFilters) == 0 {
		return
	}
	checkEnvPrinted(e, dumps)
	checkIndirectOverDump(e)
	for _, i := range e.Commands(kindFilter) {
		c := &f.Commands[i]
		from := fileFilters[c.ID]
		for _, s := range c.StdinSources {
			if n, ok := dumps[s]; ok {
				from = n
			}
		}
		if from == "" {
			continue
		}
		pattern := strings.ToLower(strings.Join(c.Args, " "))
		for _, w := range secretWords {
			if strings.Contains(pattern, w) {
				e.Add(catalog.Finding{Rule: "SENSITIVE_OUTPUT", Evidence: c.Evidence, Pos: c.Pos, Key: "envdump",
					Message:  fmt.Sprintf("Content filters the whole environment (%s) for secret values (%s).", from, w),
					Metadata: map[string]any{"dump": from, "filter": c.Name, "sink": "stdout"}})
				break
			}
		}
	}
}

// checkEnvFilterOutputs reports output of the environment filtered by a
// secret-looking name (`print({k: v for k, v in os.environ.items() if
// 'TOKEN' in k})`): the analyzer records the whole environment ("*") as the
// output's source; the filter in the same expression selects secrets.
func checkEnvFilterOutputs(e *catalog.Env) {
	for _, o := range e.Facts.Outputs {
		whole := false
		for _, v := range o.Vars {
			whole = whole || v == "*"
		}
		ev := strings.ToLower(o.Evidence)
		if !whole || !strings.Contains(ev, "environ") || !strings.Contains(ev, " if ") {
			continue
		}
		for _, w := range secretWords {
			if strings.Contains(ev, "'"+w) || strings.Contains(ev, "\""+w) || strings.Contains(ev, "_"+w) {
				e.Add(catalog.Finding{Rule: "SENSITIVE_OUTPUT", Evidence: o.Evidence, Pos: o.Pos, Key: "envfilter",
					Message:  fmt.Sprintf("Content writes environment values selected by a secret-looking name (%s) to %s.", w, o.Sink),
					Metadata: map[string]any{"filter": w, "sink": o.Sink}})
				break
			}
		}
	}
}

// checkEnvDumpOutputs reports the whole environment written to stdout
// (`print(os.environ)`, `print(dict(os.environ))`, `for k in os.environ:
// print(k, os.environ[k])`): every secret-named variable's value is in it
// (RULES.md SENSITIVE_OUTPUT, env dumps). The analyzer records the whole
// environment as the output's source variable "*"; the names alone (keys)
// and single variables of unknown name ("?") are not dumps.
func checkEnvDumpOutputs(e *catalog.Env) {
	for _, o := range e.Facts.Outputs {
		if o.Sink != "stdout" || strings.Contains(o.Evidence, " if ") {
			// a filtered selection is judged by its filter
			// (checkEnvFilterOutputs)
			continue
		}
		for _, v := range o.Vars {
			if v == "*" {
				e.Add(catalog.Finding{Rule: "SENSITIVE_OUTPUT", Evidence: o.Evidence, Pos: o.Pos, Key: "envdump",
					Message:        "Content prints the whole environment, secret values included.",
					Recommendation: "Print only the variables you need, by name, and never secrets.",
					Metadata:       map[string]any{"dump": "environment", "sink": o.Sink}})
				break
			}
		}
	}
}
