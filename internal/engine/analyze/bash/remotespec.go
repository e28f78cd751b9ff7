package bash

import (
	"regexp"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/toolwarden/toolwarden/sdk"
)

// Remote specs: programs given a URL or a remote package spec fetch the
// code and run it in one step (`deno run https://h/x.ts`, `npx
// github:u/r`, `uvx --from git+https://… x`, `go run example.com/m@v`).
// Each such argument is a network use of the spec's host (so the
// allowlist applies) and, for a program that runs what it fetched, a
// DynamicExec of downloaded code (BASH_REMOTE_CODE_EXEC, "from any
// host"). Installers given a remote source (`cargo install --git URL`,
// `gem install --source URL`) only record the host: installing is
// DEPENDENCY_INSTALL, decided by the process pack.

// remoteRow is how one command (and subcommand) takes a remote spec.
type remoteRow struct {
	// sub is the subcommand words that select the row ("run", "tool run");
	// empty for the command itself.
	sub []string
	// specOpts are the options whose value is a spec (--spec, --from,
	// --package, -p, --import); valOpts the other options that take a
	// separate value, skipped when finding the operand.
	specOpts, valOpts []string
	// operand is set when the first operand is a spec; allOperands when
	// every operand is (installers).
	operand, allOperands bool
	// runs is set when the program runs the code it fetched.
	runs bool
	// local are the options that forbid a download (npx --no-install).
	local []string
	// goMod: a module path with @version is remote (go run m@v);
	// shorthand: owner/repo is a GitHub repository (npx u/r); registry:
	// npm:/jsr: specs come from their registries (deno run npm:x).
	goMod, shorthand, registry bool
	// opts is the table read by: specOpts and valOpts as whole words
	// (set by init).
	opts optTable
}

func init() {
	for _, rows := range remoteSpecs {
		for k := range rows {
			row := &rows[k]
			row.opts = optTable{words: true, long: vals(append(append([]string(nil), row.specOpts...), row.valOpts...)...)}
		}
	}
}

var (
	npxRow = remoteRow{specOpts: []string{"--package", "-p"}, valOpts: []string{"-c", "--call"}, operand: true,
		runs: true, local: []string{"--no-install", "--no", "--offline", "--prefer-offline"}, shorthand: true}
	denoVal = []string{"-c", "--config", "--lock", "--cert", "--location", "--seed", "--env-file", "--ext"}
	uvVal   = []string{"--python", "-p", "--directory", "--project", "--python-preference", "-C", "--config-setting"}
)

// remoteSpecs is the table: command name → the rows of its subcommands,
// the most specific first.
var remoteSpecs = map[string][]remoteRow{
	"deno": {
		{sub: []string{"run"}, specOpts: []string{"--import-map"}, valOpts: denoVal, operand: true, runs: true, registry: true},
		{sub: []string{"test"}, specOpts: []string{"--import-map"}, valOpts: denoVal, operand: true, runs: true, registry: true},
		{sub: []string{"bench"}, specOpts: []string{"--import-map"}, valOpts: denoVal, operand: true, runs: true, registry: true},
		{sub: []string{"serve"}, specOpts: []string{"--import-map"}, valOpts: denoVal, operand: true, runs: true, registry: true},
		{sub: []string{"compile"}, specOpts: []string{"--import-map"}, valOpts: append([]string{"-o", "--output"}, denoVal...), operand: true, registry: true},
		{sub: []string{"install"}, specOpts: []string{"--import-map"}, valOpts: append([]string{"-n", "--name", "--root"}, denoVal...), operand: true, registry: true},
		{sub: []string{"x"}, valOpts: denoVal, operand: true, runs: true, registry: true},
		{specOpts: []string{"--import-map"}, valOpts: denoVal, operand: true, runs: true, registry: true},
	},
	"bun": {
		{sub: []string{"run"}, valOpts: []string{"--cwd", "--config", "-c"}, operand: true, runs: true},
		{sub: []string{"x"}, specOpts: []string{"--package", "-p"}, operand: true, runs: true, shorthand: true},
		{valOpts: []string{"--cwd", "--config", "-c"}, operand: true, runs: true},
	},
	"bunx":   {npxRow},
	"npx":    {npxRow},
	"pnpx":   {npxRow},
	"npm":    {withSub(npxRow, "exec"), withSub(npxRow, "x")},
	"pnpm":   {withSub(npxRow, "dlx")},
	"yarn":   {withSub(npxRow, "dlx")},
	"node":   {{specOpts: []string{"--import", "--loader", "--experimental-loader"}, valOpts: []string{"-r", "--require"}, operand: true, runs: true}},
	"nodejs": {{specOpts: []string{"--import", "--loader", "--experimental-loader"}, valOpts: []string{"-r", "--require"}, operand: true, runs: true}},
	"pipx":   {{sub: []string{"run"}, specOpts: []string{"--spec", "--index-url", "-i"}, valOpts: []string{"--python", "--pip-args"}, operand: true, runs: true}},
	"uvx":    {{specOpts: []string{"--from", "--with", "--index-url", "-i", "--index"}, valOpts: uvVal, operand: true, runs: true}},
	"uv": {
		{sub: []string{"tool", "run"}, specOpts: []string{"--from", "--with", "--index-url", "-i", "--index"}, valOpts: uvVal, operand: true, runs: true},
		{sub: []string{"tool", "install"}, specOpts: []string{"--from", "--with", "--index-url", "-i", "--index"}, valOpts: uvVal, allOperands: true},
		{sub: []string{"run"}, specOpts: []string{"--with", "--index-url", "-i", "--index"}, valOpts: uvVal, operand: true, runs: true},
	},
	"go":    {{sub: []string{"run"}, valOpts: []string{"-C", "-exec", "-o", "-p", "-tags", "-mod", "-modfile", "-overlay", "-pgo"}, operand: true, runs: true, goMod: true}},
	"cargo": {{sub: []string{"install"}, specOpts: []string{"--git", "--index", "--registry"}, valOpts: []string{"--branch", "--tag", "--rev", "--path", "--root", "--version", "--bin", "--example", "--features", "-F", "-j", "--jobs", "--target"}}},
	"gem":   {{sub: []string{"install"}, specOpts: []string{"--source", "-s"}, valOpts: []string{"-v", "--version", "-i", "--install-dir", "-n", "--bindir", "--platform"}}},
	"pip":   {pipRow},
	"pip3":  {pipRow},
}

var pipRow = remoteRow{sub: []string{"install"}, specOpts: []string{"-i", "--index-url", "--extra-index-url", "-f", "--find-links"},
	valOpts: []string{"-r", "--requirement", "-c", "--constraint", "-t", "--target", "--prefix", "--root", "--python-version",
		"--platform", "--src", "-e", "--editable"}, allOperands: true}

// withSub is row selected by subcommand sub.
func withSub(row remoteRow, sub ...string) remoteRow {
	row.sub = sub
	return row
}

// remoteSpecArgs records the remote specs of the command name args.
func (a *analyzer) remoteSpecArgs(s *syntax.Stmt, name string, args []field) {
	rows := remoteSpecs[name]
	if rows == nil {
		return
	}
	for _, row := range rows {
		rest, ok := afterSub(args, row.sub)
		if !ok {
			continue
		}
		a.remoteRowArgs(s, name, row, rest)
		return
	}
}

// afterSub returns args after the subcommand words sub (options before
// them skipped); ok is false when args do not start with sub.
func afterSub(args []field, sub []string) ([]field, bool) {
	i := 0
	for _, w := range sub {
		for i < len(args) && strings.HasPrefix(args[i].s, "-") && !args[i].dyn {
			i++
		}
		if i >= len(args) || args[i].dyn || args[i].s != w {
			return nil, false
		}
		i++
	}
	return args[i:], true
}

// remoteRowArgs walks args by row: the values of spec options and the
// spec operands.
func (a *analyzer) remoteRowArgs(s *syntax.Stmt, name string, row remoteRow, args []field) {
	local := false
	for _, f := range args {
		if contains(row.local, f.s) {
			local = true
		}
	}
	r := row.opts.read(args)
	for {
		it, ok := r.next()
		switch {
		case !ok:
			return
		case it.end:
			if it.idx+1 < len(args) && (row.operand || row.allOperands) && !local {
				a.remoteSpec(s, name, row, args[it.idx+1], false)
			}
			return
		case it.name != "":
			if it.hasVal && contains(row.specOpts, it.name) {
				a.remoteSpec(s, name, row, it.val, true)
			}
		case row.allOperands:
			a.remoteSpec(s, name, row, it.word, false)
		case row.operand:
			if !local {
				a.remoteSpec(s, name, row, it.word, false)
			}
			return
		default:
			return
		}
	}
}

// remoteSpec records f when it is a remote spec: a network use of its
// host and, when the program runs it, downloaded code executed. A
// dynamic option value is a destination not known statically.
func (a *analyzer) remoteSpec(s *syntax.Stmt, name string, row remoteRow, f field, isOpt bool) {
	if f.dyn {
		// A spec option's value, or the operand of a program that runs
		// what it fetches (`deno run $U`, `go run $PKG`), may name a
		// remote spec: a destination not known statically, reviewed.
		if isOpt || row.runs || strings.Contains(f.s, "://") {
			a.addNet(s, field{s: "$spec", dyn: true}, "https", name, nil)
		}
		return
	}
	u := remoteURL(f.s, row)
	if u == "" {
		return
	}
	a.addNet(s, field{s: u}, "", name, nil)
	if row.runs {
		a.b.Facts.DynamicExec = append(a.b.Facts.DynamicExec, sdk.DynamicExec{Kind: "remote_spec", Interpreter: name,
			Downloaded: true, Evidence: a.evidence(s.Pos()), Pos: a.pos(s.Pos())})
	}
}

var (
	ownerRepo = regexp.MustCompile(`^[A-Za-z0-9][\w.-]*/[\w.-]+(#.*)?$`)
	scpGit    = regexp.MustCompile(`^[\w.-]+@([\w.-]+):(.+)$`)
)

// hostedGit are the npm shorthand prefixes of hosted repositories.
var hostedGit = map[string]string{"github:": "github.com", "gist:": "gist.github.com", "gitlab:": "gitlab.com",
	"bitbucket:": "bitbucket.org"}

// remoteURL returns the URL a spec fetches, "" for a local or registry
// name spec.
func remoteURL(spec string, row remoteRow) string {
	v := strings.TrimPrefix(spec, "git+")
	if _, pkg, ok := strings.Cut(v, "@"); ok && strings.Contains(pkg, "://") && !strings.Contains(v[:strings.Index(v, "@")], "/") {
		v = strings.TrimPrefix(strings.TrimSpace(pkg), "git+") // pip: name @ git+https://…
	}
	if k := strings.Index(v, "://"); k > 0 && isScheme(v[:k]) {
		if strings.EqualFold(v[:k], "file") {
			return ""
		}
		return v
	}
	if m := scpGit.FindStringSubmatch(v); m != nil && strings.Contains(m[1], ".") {
		return "ssh://" + m[1] + "/" + m[2]
	}
	for p, h := range hostedGit {
		if strings.HasPrefix(v, p) {
			return "https://" + h + "/" + strings.TrimPrefix(v, p)
		}
	}
	if row.registry {
		switch {
		case strings.HasPrefix(v, "npm:"):
			return "https://registry.npmjs.org/" + strings.TrimPrefix(v, "npm:")
		case strings.HasPrefix(v, "jsr:"):
			return "https://jsr.io/" + strings.TrimPrefix(v, "jsr:")
		}
	}
	if row.goMod && !strings.HasPrefix(v, ".") && !strings.HasPrefix(v, "/") {
		if mod, _, ok := strings.Cut(v, "@"); ok {
			if first, _, _ := strings.Cut(mod, "/"); strings.Contains(first, ".") {
				return "https://" + mod
			}
		}
	}
	if row.shorthand && ownerRepo.MatchString(v) && !strings.HasPrefix(v, ".") {
		return "https://github.com/" + strings.SplitN(v, "#", 2)[0]
	}
	return ""
}

// containerRunners are the container engines whose run, create and pull
// subcommands download an image: code from a registry that RULES.md
// names under no rule. The registry an image comes from depends on the
// engine's configuration and local cache (mirrors, an image already
// pulled), so the pull is a destination not known statically: a review,
// never a silent allow. `--pull=never` downloads nothing.
var containerRunners = map[string]bool{"docker": true, "podman": true, "nerdctl": true}

// containerPull records the image download of docker/podman run, create
// and pull.
func (a *analyzer) containerPull(s *syntax.Stmt, name string, args []field) {
	if !containerRunners[name] {
		return
	}
	sub := ""
	for _, f := range args {
		if !strings.HasPrefix(f.s, "-") {
			sub = f.s
			break
		}
	}
	if sub == "container" || sub == "image" {
		rest, _ := afterSub(args, []string{sub})
		sub = ""
		for _, f := range rest {
			if !strings.HasPrefix(f.s, "-") {
				sub = f.s
				break
			}
		}
	}
	if sub != "run" && sub != "create" && sub != "pull" {
		return
	}
	for _, f := range args {
		if f.s == "--pull=never" {
			return
		}
	}
	a.addNet(s, field{s: "$image", dyn: true}, "https", name+" "+sub, nil)
}
