package main

import (
	"slices"
	"strings"

	"github.com/toolwarden/toolwarden/sdk"
)

// Rule ids this plugin reports.
const (
	// RuleForcePushProtected: git push --force (or a +refspec) naming a
	// protected branch rewrites history others build on.
	RuleForcePushProtected = "GIT_FORCE_PUSH_PROTECTED"
	// RuleForcePush: a force push that names no branch pushes whatever
	// the upstream is, which may be a protected one.
	RuleForcePush = "GIT_FORCE_PUSH"
)

// protected lists the branches held by default; the plugin's settings
// (ScanInput.Config "protected") replace the list.
var protected = []string{"main", "master", "release", "production"}

// Info declares the plugin's rules.
func Info() sdk.PluginInfo {
	return sdk.PluginInfo{
		Name:    "go-git-guard",
		Version: "1.0.0",
		Rules: []sdk.RuleInfo{
			{ID: RuleForcePushProtected, RiskType: sdk.RiskTypeProcess, Risk: sdk.RiskHigh, Decision: sdk.NeedsHumanReview,
				Description: "force-pushes to a protected branch"},
			{ID: RuleForcePush, RiskType: sdk.RiskTypeProcess, Risk: sdk.RiskMedium, Decision: sdk.NeedsHumanReview,
				Description: "force-pushes without naming the branch"},
		},
	}
}

// Scan judges every git command the analyzers found, wherever it is
// reached from (a pipeline, sh -c, a Python subprocess call).
func Scan(in *sdk.ScanInput) ([]sdk.Finding, error) {
	if in.Facts == nil {
		return nil, nil
	}
	branches := protected
	if list, ok := in.Config["protected"].([]any); ok {
		branches = nil
		for _, v := range list {
			if s, ok := v.(string); ok {
				branches = append(branches, s)
			}
		}
	}
	var out []sdk.Finding
	for _, c := range in.Facts.Commands {
		if c.Name != "git" {
			continue
		}
		if f, ok := judgePush(c, branches); ok {
			out = append(out, f)
		}
	}
	return out, nil
}

// judgePush reports a force push of git command c.
func judgePush(c sdk.Command, branches []string) (sdk.Finding, bool) {
	args := c.Args
	// Skip global options (git -C dir push …).
	for len(args) > 0 && strings.HasPrefix(args[0], "-") {
		if args[0] == "-C" || args[0] == "-c" {
			args = args[1:]
		}
		if len(args) > 0 {
			args = args[1:]
		}
	}
	if len(args) == 0 || args[0] != "push" {
		return sdk.Finding{}, false
	}
	force := false
	var refs []string
	for _, a := range args[1:] {
		switch {
		case a == "-f" || a == "--force" || strings.HasPrefix(a, "--force-with-lease") || a == "--force-if-includes":
			force = true
		case strings.HasPrefix(a, "-"):
		case strings.HasPrefix(a, "+"):
			force = true
			refs = append(refs, a[1:])
		default:
			refs = append(refs, a)
		}
	}
	if !force {
		return sdk.Finding{}, false
	}
	col := c.Pos.Col
	f := sdk.Finding{Evidence: c.Evidence, Line: c.Pos.Line, Column: &col,
		Recommendation: "Open a pull request, or push to a new branch; a reviewer can approve this push."}
	// refs[0] is the remote; the words after it name branches.
	named := len(refs) > 1
	if named {
		refs = refs[1:]
	}
	for _, r := range refs {
		dst := r
		if i := strings.LastIndexByte(r, ':'); i >= 0 {
			dst = r[i+1:]
		}
		dst = strings.TrimPrefix(dst, "refs/heads/")
		if slices.Contains(branches, dst) {
			f.RuleID = RuleForcePushProtected
			f.Message = "Force-pushes to the protected branch " + dst + "."
			f.Metadata = map[string]any{"branch": dst}
			return f, true
		}
	}
	if !named {
		// No branch named (only a remote, or nothing): the upstream.
		f.RuleID = RuleForcePush
		f.Message = "Force-pushes the current branch's upstream, which may be protected."
		return f, true
	}
	return sdk.Finding{}, false
}
