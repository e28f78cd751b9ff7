package bash

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/toolwarden/toolwarden/sdk"
)

// The version-control topic: git, whose config keys and aliases run
// commands (core.pager, alias.x='!cmd'), whose remotes are hosts and
// whose operands are paths, revisions or refspecs.

// registerVCSCommands registers every aspect of git.
func registerVCSCommands(r *registry) {
	const topic = "vcs"
	r.runner(topic, gitConfigRunner, "git")
	r.run(topic, additive((*analyzer).gitShellAliases), "git")
	r.net(topic, (*analyzer).gitNet, "git")
	r.files(topic, (*analyzer).gitFiles, "git")
}

// gitShellAliases finds git aliases that run a shell command — `git -c
// alias.x='!cmd' x`, `git config alias.x '!cmd'` — and analyzes the
// command as the shell code git will run.
func (a *analyzer) gitShellAliases(s *syntax.Stmt, _ string, args []field, _ *ctx) {
	for i := 0; i < len(args); i++ {
		f := args[i]
		var key string
		var val field
		switch {
		case f.s == "-c" && i+1 < len(args):
			kv := args[i+1]
			k := strings.IndexByte(kv.s, '=')
			if k < 0 {
				continue
			}
			key, val = kv.s[:k], field{s: kv.s[k+1:], dyn: kv.dyn}
			i++
		case f.s == "config" && i+2 < len(args):
			j := i + 1
			for j < len(args) && strings.HasPrefix(args[j].s, "-") {
				j++
			}
			if j+1 >= len(args) {
				return
			}
			key, val = args[j].s, args[j+1]
			i = j + 1
		default:
			if !strings.HasPrefix(f.s, "-") {
				return // the subcommand: options end here
			}
			continue
		}
		if !strings.HasPrefix(strings.ToLower(key), "alias.") || !strings.HasPrefix(val.s, "!") {
			continue
		}
		code := field{s: strings.TrimPrefix(val.s, "!"), dyn: val.dyn}
		a.dynExec(s, "shell_c", "git", code, code, true)
	}
}

func (a *analyzer) gitNet(s *syntax.Stmt, _ string, args []field, c *ctx) {
	sub := ""
	i := 0
	for ; i < len(args); i++ {
		f := args[i]
		if f.s == "-c" && i+1 < len(args) {
			// git -c http.proxy=URL: the proxy is a destination
			if k, v, ok := strings.Cut(args[i+1].s, "="); ok && gitProxyKey(k) && v != "" {
				a.addNet(s, proxyField(v, args[i+1].dyn), "http", "git", nil)
			}
		}
		if f.s == "-C" || f.s == "-c" || f.s == "--git-dir" || f.s == "--work-tree" || f.s == "--namespace" {
			i++
			continue
		}
		if strings.HasPrefix(f.s, "-") {
			continue
		}
		sub = f.s
		break
	}
	if sub == "config" {
		// git config [--global] http.proxy URL: later fetches go through it
		for j := i + 1; j+1 < len(args); j++ {
			if gitProxyKey(args[j].s) && args[j+1].s != "" && !strings.HasPrefix(args[j+1].s, "-") {
				a.addNet(s, proxyField(args[j+1].s, args[j+1].dyn), "http", "git", nil)
				break
			}
		}
		return
	}
	switch sub {
	case "clone", "fetch", "pull", "push", "ls-remote", "submodule", "remote", "archive":
	default:
		return
	}
	first := true
	for j := i + 1; j < len(args); j++ {
		f := args[j]
		if strings.HasPrefix(f.s, "-") && !f.dyn {
			if !strings.Contains(f.s, "=") && contains(gitValueOpts, f.s) {
				j++
			}
			continue
		}
		if f.s == "add" && (sub == "remote" || sub == "submodule") {
			continue
		}
		isURL := strings.Contains(f.s, "://")
		host, scp := remoteSpec(f.s)
		switch {
		case isURL:
			a.addNet(s, f, "", "git", nil)
			// https://x:$TOKEN@github.com/o/r.git: the credential in the
			// URL is sent to the host.
			a.sentVars(s, f.varNames())
		case scp && host != "" && !f.dyn:
			h := host[sdk.UserinfoEnd(host):]
			a.b.Facts.Network = append(a.b.Facts.Network, sdk.NetworkUse{URL: f.s, Host: strings.ToLower(h),
				Scheme: "ssh", Via: "git", Evidence: a.evidence(s.Pos()), Pos: a.pos(s.Pos())})
		case f.dyn && (first || sub == "clone"):
			if first {
				a.addNet(s, f, "", "git", func(n *sdk.NetworkUse) { n.Dynamic = true })
			}
		}
		if sub == "clone" || sub == "fetch" || sub == "pull" || sub == "push" || sub == "ls-remote" {
			// Only the first operand names a repository: what follows is a
			// directory or refspecs (`HEAD:refs/heads/ci` is not host:path).
			// The directory a clone writes is a write destination.
			if sub == "clone" {
				for k := j + 1; k < len(args); k++ {
					if !strings.HasPrefix(args[k].s, "-") || args[k].dyn {
						a.fileAccess(s, args[k], "write", "git", c)
						break
					}
				}
			}
			return
		}
		first = false
	}
}

// gitValueOpts are git options (global and of common subcommands) whose
// value is a message, pattern, revision or number — never a path access.
var gitValueOpts = []string{"-m", "-S", "-G", "-L", "-n", "-c", "-b", "-B", "-X", "-e", "-j", "-U",
	"--message", "--author", "--committer", "--since", "--until", "--after", "--before", "--format", "--pretty",
	"--grep", "--branch", "--depth", "--origin", "--template", "--reference", "--config", "--jobs", "--date",
	"--max-count", "--skip", "--abbrev", "--upload-pack", "--exec", "--receive-pack", "--shallow-since", "--sort"}

func (a *analyzer) gitFiles(s *syntax.Stmt, _ string, args []field, c *ctx) {
	sub := ""
	for i := 0; i < len(args); i++ {
		f := args[i]
		if strings.HasPrefix(f.s, "-") && !f.dyn {
			if !strings.Contains(f.s, "=") && (contains(gitValueOpts, f.s) || f.s == "-C") {
				i++
			}
			continue
		}
		if f.s == "--" {
			continue
		}
		if sub == "" {
			sub = f.s
			if !gitReadOnly[sub] && !f.dyn && a.cwd != "" {
				// The subcommand changes the work tree or the repository
				// in a working directory outside the workspace (`git -C
				// /etc init`); in the workspace it is the work itself.
				a.addFile(s, field{s: "."}, "write", "git", c, fileFlags{})
			}
			continue
		}
		if sub == "init" && !f.dyn || sub == "worktree" {
			if looksLikePath(f.s) || sub == "init" {
				// git init DIR, git worktree add DIR: directories it writes.
				a.addFile(s, f, "write", "git", c, fileFlags{})
				continue
			}
		}
		if p, ok := revPath(sub, f); ok {
			// git show REV:PATH prints the file as committed: a read
			a.addFile(s, p, "read", "git", c, fileFlags{})
			continue
		}
		if looksLikePath(f.s) && !strings.Contains(f.s, "@") && !strings.ContainsAny(f.s, ":") {
			a.addFile(s, f, "ref", "git", c, fileFlags{})
		}
	}
}

// gitReadOnly are the git subcommands that change nothing in the working
// directory's files (they print, list or compare); the others write there.
var gitReadOnly = map[string]bool{"status": true, "log": true, "show": true, "diff": true, "grep": true,
	"blame": true, "annotate": true, "ls-files": true, "ls-tree": true, "ls-remote": true, "rev-parse": true,
	"rev-list": true, "describe": true, "shortlog": true, "cat-file": true, "help": true, "version": true,
	"whatchanged": true, "name-rev": true, "for-each-ref": true, "show-ref": true, "count-objects": true,
	"fsck": true, "check-ignore": true, "check-attr": true, "var": true, "diff-tree": true, "diff-index": true,
	"diff-files": true, "show-branch": true, "cherry": true, "verify-commit": true, "verify-tag": true,
	"range-diff": true, "difftool": true, "push": true, "archive": true}

// revPath returns the PATH of a REV:PATH object name given to a git
// subcommand that prints or compares blobs (show, cat-file, diff, grep).
// A remote ("git@host:repo", "host:path") or URL is not one.
func revPath(sub string, f field) (field, bool) {
	switch sub {
	case "show", "cat-file", "diff", "grep", "difftool":
	default:
		return field{}, false
	}
	rev, p, ok := strings.Cut(f.s, ":")
	if !ok || p == "" || strings.Contains(f.s, "://") || strings.Contains(p, ":") {
		return field{}, false
	}
	if strings.Contains(rev, "@") && !strings.Contains(rev, "@{") {
		return field{}, false
	}
	return field{s: p, dyn: f.dyn, glob: f.glob}, true
}

// gitCommandKeys are git configuration keys whose value is a command git
// runs through the shell (aliases are handled by gitShellAliases).
var gitCommandKeys = []string{"core.pager", "core.editor", "core.sshcommand", "core.fsmonitor", "core.askpass",
	"sequence.editor", "diff.external", "gpg.program", "gpg.ssh.program", "pager.",
	"difftool.", "mergetool.", "filter.", "diff.", "merge.", "uploadpack.packobjectshook", "core.hookspath"}

// IsGitCommandKey reports whether git runs the value of the configuration
// key (lower case, sectioned: core.pager, pager.log, filter.x.clean) as a
// shell command, so a git config file in the workspace can be scanned for
// the code it makes git run. Aliases (alias.*) are the caller's business;
// core.hooksPath, which redirects hooks rather than naming a command, is
// not one.
func IsGitCommandKey(key string) bool {
	if key == "core.hookspath" {
		return false
	}
	for _, ck := range gitCommandKeys {
		if key == ck || strings.HasSuffix(ck, ".") && strings.HasPrefix(key, ck) && commandSubkey(key) {
			return true
		}
	}
	return false
}

// gitConfigRunner analyzes `git -c KEY=CMD …` for keys whose value git
// runs as a command.
func gitConfigRunner(a *analyzer, s *syntax.Stmt, name string, args []field, c *ctx) {
	for i := 0; i+1 < len(args); i++ {
		f := args[i]
		if f.s != "-c" {
			if f.s == "config" {
				// git config [--global] KEY CMD: every later git
				// command runs it (persisted where -c is not).
				j := i + 1
				for j < len(args) && strings.HasPrefix(args[j].s, "-") {
					j++
				}
				if j+1 < len(args) && !args[j].dyn && !args[j+1].dyn {
					a.gitCommandKey(s, strings.ToLower(args[j].s), args[j+1].s)
				}
				return
			}
			if !strings.HasPrefix(f.s, "-") {
				return // the subcommand
			}
			continue
		}
		kv := args[i+1]
		i++
		k := strings.IndexByte(kv.s, '=')
		if k < 0 || kv.dyn {
			continue
		}
		a.gitCommandKey(s, strings.ToLower(kv.s[:k]), kv.s[k+1:])
	}
}

// gitCommandKey analyzes the value of a gitCommandKeys key as the shell
// code git runs.
func (a *analyzer) gitCommandKey(s *syntax.Stmt, key, val string) {
	if val == "" || key == "core.hookspath" {
		return
	}
	for _, ck := range gitCommandKeys {
		if key == ck || strings.HasSuffix(ck, ".") && strings.HasPrefix(key, ck) && commandSubkey(key) {
			code := strings.TrimPrefix(val, "!")
			a.dynExec(s, "shell_c", "git", field{s: code}, field{}, true)
			return
		}
	}
}

// commandSubkey reports whether a sectioned git key names a command
// (pager.log, difftool.x.cmd, filter.x.clean, diff.x.textconv).
func commandSubkey(key string) bool {
	if strings.HasPrefix(key, "pager.") {
		return true
	}
	for _, suf := range []string{".cmd", ".clean", ".smudge", ".process", ".textconv", ".command", ".driver"} {
		if strings.HasSuffix(key, suf) {
			return true
		}
	}
	return false
}
