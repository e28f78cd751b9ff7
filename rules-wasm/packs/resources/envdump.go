package resources

import (
	"fmt"
	"strings"

	"github.com/toolwarden/toolwarden/rules-wasm/packs/internal/catalog"
)

// Whole-environment dumps filtered for secrets: `env | grep -i token`,
// `printenv | grep -iE 'secret|key'`. The filter prints exactly the secret
// values (RULES.md SENSITIVE_OUTPUT).
var (
	kindEnvDump = catalog.NamesKind("env", "printenv", "export", "declare", "typeset", "set", "compgen")
	kindFilter  = catalog.NamesKind("grep", "egrep", "fgrep", "rg", "ag", "awk", "gawk", "sed", "findstr")
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
	case "export", "declare", "typeset":
		return len(args) == 1 && (args[0] == "-p" || args[0] == "-x" || args[0] == "-px")
	case "set":
		return len(args) == 0
	case "compgen":
		return len(args) == 1 && (args[0] == "-v" || args[0] == "-e")
	}
	return false
}

// checkEnvDumps reports a secret filter over an environment dump.
func checkEnvDumps(e *catalog.Env) {
	f := e.Facts
	dumps := map[int]string{}
	for _, i := range e.Commands(kindEnvDump) {
		c := &f.Commands[i]
		if isDump(c.Name, c.Args) {
			dumps[c.ID] = c.Name
		}
	}
	if len(dumps) == 0 {
		return
	}
	for _, i := range e.Commands(kindFilter) {
		c := &f.Commands[i]
		from := ""
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
