package bash

import (
	"encoding/json"
	"path"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Files a tool loads on its own: a script that writes a git hook, a
// conftest.py, a package.json with scripts or an .envrc and then runs the
// tool that loads it runs what it wrote (RULES.md principle 6: config
// hooks). When the script wrote such a file with known text earlier in the
// same content, that text is judged as the code it is, when the tool that
// loads it runs. (Files already in the workspace are the staged scan's
// business: internal/engine/staged/startup.go.)

// loaders maps a command to what it loads from files the script wrote.
// (Filled in init: the loaders analyze nested code, which reaches this
// table again.)
var loaders map[string]func(a *analyzer, s *syntax.Stmt, name string, args []field)

func init() {
	loaders = map[string]func(a *analyzer, s *syntax.Stmt, name string, args []field){
		"git":     loadGitHooks,
		"pytest":  loadConftest,
		"py.test": loadConftest,
		"npm":     loadPackageScripts,
		"yarn":    loadPackageScripts,
		"pnpm":    loadPackageScripts,
		"bun":     loadPackageScripts,
		"direnv":  loadEnvrc,
	}
}

// loadWritten judges what name loads from files this script wrote.
func (a *analyzer) loadWritten(s *syntax.Stmt, name string, args []field) {
	if a.written == nil {
		return
	}
	if l := loaders[name]; l != nil {
		l(a, s, name, args)
		return
	}
	// python -m pytest
	if isPython(name) {
		for i := 0; i+1 < len(args); i++ {
			if args[i].s == "-m" && (args[i+1].s == "pytest" || args[i+1].s == "py.test") {
				loadConftest(a, s, "pytest", args[i+2:])
				return
			}
		}
	}
}

// runWritten judges the text the script wrote to p, in the language its
// shebang names (bash when it names none), as code name runs.
func (a *analyzer) runWritten(s *syntax.Stmt, name, p, lang string) bool {
	text, ok := a.writtenText(normPath(p))
	if !ok {
		return false
	}
	interp := name
	if lang == "python" || (lang == "" && shebangIsPython(text)) {
		interp = "python3"
	}
	a.dynExec(s, "source", interp, field{s: text}, field{}, true)
	return true
}

func shebangIsPython(text string) bool {
	first, _, _ := strings.Cut(text, "\n")
	return strings.HasPrefix(first, "#!") && strings.Contains(first, "python")
}

// gitHooks are the hooks each git subcommand runs.
var gitHooks = map[string][]string{
	"commit":      {"pre-commit", "prepare-commit-msg", "commit-msg", "post-commit"},
	"push":        {"pre-push", "reference-transaction"},
	"merge":       {"pre-merge-commit", "post-merge", "commit-msg"},
	"pull":        {"pre-merge-commit", "post-merge", "post-checkout", "post-rewrite"},
	"checkout":    {"post-checkout"},
	"switch":      {"post-checkout"},
	"clone":       {"post-checkout"},
	"rebase":      {"pre-rebase", "post-rewrite", "post-checkout"},
	"am":          {"applypatch-msg", "pre-applypatch", "post-applypatch"},
	"gc":          {"pre-auto-gc"},
	"cherry-pick": {"pre-commit", "prepare-commit-msg", "commit-msg", "post-commit"},
	"revert":      {"pre-commit", "prepare-commit-msg", "commit-msg", "post-commit"},
}

// loadGitHooks judges the hooks of .git/hooks the script wrote that the
// git subcommand runs.
func loadGitHooks(a *analyzer, s *syntax.Stmt, name string, args []field) {
	sub := ""
	for i := 0; i < len(args); i++ {
		f := args[i].s
		if f == "-C" || f == "-c" || f == "--git-dir" || f == "--work-tree" {
			i++
			continue
		}
		if !strings.HasPrefix(f, "-") {
			sub = f
			break
		}
	}
	for _, h := range gitHooks[sub] {
		a.runWritten(s, "git", ".git/hooks/"+h, "")
	}
}

// loadConftest judges the conftest.py files the script wrote in the
// working directory or below it: pytest imports them while collecting.
func loadConftest(a *analyzer, s *syntax.Stmt, name string, _ []field) {
	for p := range a.written {
		if path.Base(p) == "conftest.py" && !strings.HasPrefix(p, "/") && !strings.HasPrefix(p, "../") {
			a.runWritten(s, name, p, "python")
		}
	}
}

// loadPackageScripts judges the package.json scripts the command runs
// (`npm test`, `npm run x`, `npm install`'s lifecycle scripts, `yarn x`).
func loadPackageScripts(a *analyzer, s *syntax.Stmt, name string, args []field) {
	text, ok := a.writtenText(normPath("package.json"))
	if !ok {
		return
	}
	var pkg struct {
		Scripts map[string]string `json:"scripts"`
	}
	if json.Unmarshal([]byte(text), &pkg) != nil || len(pkg.Scripts) == 0 {
		return
	}
	var words []string
	for _, f := range args {
		if !strings.HasPrefix(f.s, "-") {
			words = append(words, f.s)
		}
	}
	var run []string
	switch {
	case len(words) == 0 && name == "yarn", len(words) > 0 && (words[0] == "install" || words[0] == "i" || words[0] == "ci" || words[0] == "add"):
		run = []string{"preinstall", "install", "postinstall", "prepare"}
	case len(words) > 1 && (words[0] == "run" || words[0] == "run-script" || words[0] == "exec"):
		run = []string{"pre" + words[1], words[1], "post" + words[1]}
	case len(words) > 0 && (words[0] == "test" || words[0] == "t" || words[0] == "start" || words[0] == "stop" || words[0] == "restart"):
		w := words[0]
		if w == "t" {
			w = "test"
		}
		run = []string{"pre" + w, w, "post" + w}
	case len(words) > 0 && (name == "yarn" || name == "pnpm" || name == "bun"):
		// yarn x, pnpm x: a script of that name
		run = []string{"pre" + words[0], words[0], "post" + words[0]}
	}
	for _, k := range run {
		if code, ok := pkg.Scripts[k]; ok && code != "" {
			a.dynExec(s, "shell_c", name, field{s: code}, field{}, true)
		}
	}
}

// loadEnvrc judges an .envrc the script wrote when direnv loads it.
func loadEnvrc(a *analyzer, s *syntax.Stmt, name string, args []field) {
	if len(args) > 0 && (args[0].s == "allow" || args[0].s == "exec" || args[0].s == "reload") {
		a.runWritten(s, "direnv", ".envrc", "bash")
	}
}
