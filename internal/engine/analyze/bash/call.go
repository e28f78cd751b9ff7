package bash

import (
	"path"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/toolwarden/toolwarden/internal/engine/secrets"
	"github.com/toolwarden/toolwarden/sdk"
)

// Simple commands: walkCall expands a command's words and records it;
// emitCommand builds its Command fact and applies its semantics
// (cmd_registry.go), for the command itself and for every command a
// wrapper or runner runs.

// walkCall handles a simple command statement.
func (a *analyzer) walkCall(s *syntax.Stmt, call *syntax.CallExpr, c *ctx) {
	if len(call.Args) == 0 {
		for _, as := range call.Assigns {
			a.assign(as, "set")
		}
		a.stmtRedirects(s, "", c)
		return
	}
	a.cmdEnv = nil
	for _, as := range call.Assigns {
		// Prefix assignments only reach the command's environment.
		if as.Name == nil {
			continue
		}
		fact := sdk.Assignment{Name: as.Name.Value, Op: "set", Pos: a.pos(as.Pos())}
		if as.Value != nil {
			f := a.expandOneNoSplit(as.Value)
			if f.dyn {
				fact.Dynamic = true
			} else {
				fact.Value = f.s
				if a.cmdEnv == nil {
					a.cmdEnv = map[string]string{}
				}
				a.cmdEnv[as.Name.Value] = f.s
				a.commandVar(as, f.s)
			}
		}
		a.b.Facts.Assignments = append(a.b.Facts.Assignments, fact)
	}
	fields := a.fieldSlab.take(len(call.Args))
	for _, w := range call.Args {
		fields = a.appendWord(fields, w, true)
	}
	if len(fields) > 0 && !fields[0].dyn && !fields[0].quoted {
		if def, ok := a.aliases[fields[0].s]; ok && strings.ContainsAny(def, ";|&<>()`\n") {
			// An alias holding a command list: analyze its expansion
			// as the shell would run it.
			var sb strings.Builder
			sb.WriteString(def)
			for _, f := range fields[1:] {
				sb.WriteByte(' ')
				sb.WriteString(shellQuote(f.s))
			}
			l, col := a.lc(s.Pos())
			a.nested("bash", sb.String(), l, col, "alias", false)
			a.stmtRedirects(s, "", c)
			return
		}
	}
	fields = a.resolveAlias(fields)
	if len(fields) == 0 {
		a.stmtRedirects(s, "", c)
		return
	}
	idx := len(a.b.Facts.Commands)
	netStart := len(a.b.Facts.Network)
	a.effName = ""
	a.emitCommand(s, fields, c)
	a.markUploads(s, netStart, c)
	redirs, stdin := a.stmtRedirects(s, a.effName, c)
	if idx < len(a.b.Facts.Commands) {
		cmd := &a.b.Facts.Commands[idx]
		cmd.Redirects = redirs
		if len(stdin) > 0 {
			cmd.StdinSources = append(cmd.StdinSources, stdin...)
		}
	}
	if len(s.Redirs) > 0 {
		a.startupWrite(s, a.effName)
		a.remember(s, a.effName)
	}
}

// resolveAlias replaces a leading alias name by its definition.
func (a *analyzer) resolveAlias(fields []field) []field {
	for depth := 0; depth < 4 && len(fields) > 0 && a.aliases != nil; depth++ {
		f := fields[0]
		def, ok := a.aliases[f.s]
		if !ok || f.dyn || f.quoted {
			break
		}
		var pre []field
		k := parserPool.Get().(*parserKit)
		_ = k.p.Words(k.reader(def), func(w *syntax.Word) bool {
			pre = a.appendWord(pre, w, false)
			return true
		})
		k.put()
		if len(pre) == 0 {
			break
		}
		fields = append(pre, fields[1:]...)
		if pre[0].s == f.s {
			break
		}
	}
	return fields
}

// emitCommand records one Command built from fields and applies the
// semantics of its name (files, network, wrappers, nested code). It returns
// the command's ID.
func (a *analyzer) emitCommand(s *syntax.Stmt, fields []field, c *ctx) int {
	if isLoginShellWord(fields[0]) {
		// `$SHELL -c …`: the user's shell runs the code; any shell
		// judges it alike.
		fields[0] = field{s: "sh"}
	}
	f0 := fields[0]
	// The command is built in place: sdk.Command is large, and building
	// it aside then appending copied it. cmd is only used before anything
	// else appends to Commands (semantics below may).
	a.b.Facts.Commands = append(a.b.Facts.Commands, sdk.Command{})
	cmd := &a.b.Facts.Commands[len(a.b.Facts.Commands)-1]
	cmd.ID = a.b.NextID()
	cmd.Reach = c.reach // interned, never mutated (see with)
	cmd.Pipeline = c.pipe
	cmd.Stage = c.stage
	cmd.StdinSources = a.intSlab.copyOf(c.stdin)
	cmd.Evidence = a.evidence(s.Pos())
	cmd.Pos = a.pos(s.Pos())
	if c.pipe == 0 {
		cmd.Stage = 0
	}
	name := ""
	if f0.dyn {
		cmd.Dynamic = true
		cmd.Path = f0.s
	} else {
		name = path.Base(f0.s)
		if f0.s == "" {
			name = ""
		}
		if strings.Contains(f0.s, "/") || f0.glob {
			cmd.Path = f0.s
		}
		if f0.glob {
			cmd.Candidates = globCandidates(name)
			if len(cmd.Candidates) == 1 {
				name = cmd.Candidates[0]
			}
		}
		cmd.Name = name
	}
	if len(fields) > 1 {
		cmd.Args = a.strSlab.take(len(fields) - 1)
	}
	nSources, nDyn := 0, 0
	for i, f := range fields {
		nSources += len(f.substIDs())
		if f.dyn && i > 0 {
			nDyn++
		}
	}
	cmd.ArgSources = a.intSlab.take(nSources)
	cmd.DynamicArgs = a.intSlab.take(nDyn)
	for i, f := range fields {
		if f.enc && i == 0 {
			// The command word was decoded from encoded content: the
			// decoded text is executed. (Decoded arguments are only
			// data unless an interpreter runs them, which DynamicExec
			// records.)
			cmd.Pos.Encoded = true
		}
		if nSources > 0 {
			cmd.ArgSources = append(cmd.ArgSources, f.substIDs()...)
		}
		if i == 0 {
			continue
		}
		cmd.Args = append(cmd.Args, f.s)
		if f.dyn {
			cmd.DynamicArgs = append(cmd.DynamicArgs, i-1)
		}
	}
	a.foldedKey(cmd.Args, cmd.Pos)
	id, candidates := cmd.ID, cmd.Candidates
	if c.collect {
		a.idStack = append(a.idStack, id)
	}
	a.effName = name
	if fi, ok := a.funcs[name]; ok && name != "" {
		fn := &a.b.Facts.Functions[fi]
		if c.inFunc == name {
			fn.Recursive = true
			if c.pipe != 0 {
				fn.SelfPipe = true
			}
			if c.bg {
				fn.Background = true
			}
		} else {
			fn.CalledAtTop = true
			if len(fields) > 1 {
				a.callFunc(name, fields[1:], c)
			}
		}
		if specs[name] == nil && !isKnownCommand(name) {
			// A call of the script's own function: its body was walked;
			// its arguments are data for it, not paths or hosts.
			return id
		}
	}
	if f0.dyn {
		if f0.downloaded || f0.enc {
			a.dynExec(s, "eval", "", field{}, f0, false)
		}
		return id
	}
	if strings.HasPrefix(f0.s, "./") || strings.HasPrefix(f0.s, "../") || strings.HasPrefix(f0.s, "~") {
		// A program run from the workspace or a home directory.
		a.addFile(s, f0, "exec", "exec", c, fileFlags{})
	}
	if strings.Contains(f0.s, "/") {
		a.runFile(s, "sh", f0)
	}
	a.semantics(s, name, fields[1:], c)
	if len(candidates) > 1 {
		// A pattern matching several programs: record what each could
		// do to files and hosts, without unwrapping or nesting (which
		// could multiply without bound).
		for i, cand := range candidates {
			if i == maxCandidateSemantics {
				break
			}
			e := commandsTab.lookup(cand)
			a.netAspect(s, cand, e, fields[1:], c)
			a.fileAspect(s, cand, e, fields[1:], c)
		}
	}
	return id
}

// maxCandidateSemantics bounds how many candidates of a glob command word
// get their file and network semantics applied.
const maxCandidateSemantics = 16

// isLoginShellWord reports a command word that is only the SHELL
// variable ("$SHELL", "${SHELL}", "${SHELL:-/bin/sh}").
// shellVars hold the path of a shell: the user's login shell, the running
// bash, zsh's own name.
var shellVars = map[string]bool{"SHELL": true, "BASH": true, "ZSH_NAME": true}

func isLoginShellWord(f field) bool {
	if !f.dyn {
		return false
	}
	vars := f.varNames()
	if len(vars) != 1 || !shellVars[vars[0]] {
		return false
	}
	v := vars[0]
	t := strings.Trim(f.s, `"`)
	return t == "$"+v || t == "${"+v+"}" || strings.HasPrefix(t, "${"+v+":-") || strings.HasPrefix(t, "${"+v+"-")
}

// foldedKey records a private key that exists only once the command's
// words are expanded (`h='-----BEGIN RSA PRIV'; t='ATE KEY-----'; echo
// "$h$t"`, `printf '%s%s' "$a" "$b"`): RULES.md, the header is enough,
// however it is assembled. The arguments are read joined as printf (no
// separator) and echo (spaces) would join them. The literal text itself is
// scanned separately (secrets.Find).
func (a *analyzer) foldedKey(args []string, at sdk.Pos) {
	found := false
	for _, w := range args {
		if strings.Contains(w, "PRIVATE") || strings.Contains(w, "KEY-----") {
			found = true
			break
		}
	}
	if !found || a.keyLines[at.Line] {
		return
	}
	for _, joined := range []string{strings.Join(args, ""), strings.Join(args, " ")} {
		for _, sec := range secrets.Find(joined) {
			if sec.Kind != secrets.KindPrivateKey {
				continue
			}
			if a.keyLines == nil {
				a.keyLines = map[int]bool{}
			}
			a.keyLines[at.Line] = true
			a.b.Facts.Secrets = append(a.b.Facts.Secrets, sdk.Secret{Kind: sec.Kind, Redacted: sec.Redacted, Pos: at})
			return
		}
	}
}

// commandVar analyzes the value assigned to a variable programs run as a
// command line (sdk.IsCommandEnvName: GIT_PAGER, PAGER, EDITOR,
// GIT_SSH_COMMAND …; LESSOPEN's leading "|" marks a pipe) as the shell code
// the program will run: `GIT_PAGER='cat ~/.netrc' git log`. PROMPT_COMMAND
// is the shell's own (analyze.go).
func (a *analyzer) commandVar(as *syntax.Assign, val string) {
	if as.Name == nil || !sdk.IsCommandEnvName(as.Name.Value) {
		return
	}
	val = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(val), "|"))
	if val == "" {
		return
	}
	l, col := a.lc(as.Pos())
	a.nested("bash", val, l, col, "env:"+as.Name.Value, false)
}
