// Package packtest holds what the packs' table tests share: the policy the
// labelled corpus assumes, a runner and assertions on findings. It is only
// imported by tests.
package packtest

import (
	"strings"
	"testing"

	"github.com/toolwarden/toolwarden/sdk"
)

// Policy returns a fresh copy of the evaluation policy (corpus/eval_policy.yaml).
func Policy() *sdk.Policy {
	return &sdk.Policy{
		Name:           "eval",
		AllowedDomains: []string{"github.com", "pypi.org", "files.pythonhosted.org"},
		AllowedCommands: []string{"pwd", "ls", "cat", "echo", "printf", "head", "tail", "wc", "sort", "uniq", "diff",
			"cut", "grep", "find", "git", "go", "gofmt", "python3", "pytest", "make", "mkdir", "touch", "cp", "stat",
			"file", "du", "date", "which", "basename", "realpath", "cmp", "sha256sum", "tar", "nproc", "uname", "test",
			"env", "cd"},
		DeniedPaths: []string{"~/.ssh", "~/.aws", "~/.config/gcloud", "~/.kube", "~/.docker", "~/.netrc",
			"~/.git-credentials", ".env", "*/.env", "*.pem", "*.key", "id_rsa*", "/etc/passwd", "/etc/shadow",
			"/etc/sudoers", "/root", "credentials", "credentials.*"},
		MaxTimeoutSeconds: 300, MaxOutputBytes: 1048576, DenyDependencyInstall: true, DenyPrivilegeEscalation: true,
		ReviewUnknownNetwork: true, ReviewProcessExecution: true, ReviewShellFeatures: true, LongSleepSeconds: 300,
	}
}

// Case is one table row: facts (and optionally context and a policy edit)
// and what one rule must decide; Want "" means the rule must not fire.
type Case struct {
	Name   string
	Lang   string
	Facts  sdk.Facts
	Ctx    sdk.RequestContext
	Policy func(*sdk.Policy)
	Rule   string
	Want   sdk.Decision
}

// Scan is a pack's scan function.
type Scan func(*sdk.ScanInput) ([]sdk.Finding, error)

// Run executes the table against scan.
func Run(t *testing.T, scan Scan, cases []Case) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			p := Policy()
			if c.Policy != nil {
				c.Policy(p)
			}
			f := c.Facts
			if f.Language == "" {
				f.Language = c.Lang
			}
			if f.Language == "" {
				f.Language = "bash"
			}
			fs, err := scan(&sdk.ScanInput{Facts: &f, Language: f.Language, Context: c.Ctx, Policy: p})
			if err != nil {
				t.Fatalf("scan: %v", err)
			}
			CheckShape(t, fs)
			got := Find(fs, c.Rule)
			switch {
			case c.Want == "" && got != nil:
				t.Fatalf("%s fired (%s): %s", c.Rule, got.Decision, got.Message)
			case c.Want != "" && got == nil:
				t.Fatalf("%s did not fire; findings: %s", c.Rule, IDs(fs))
			case c.Want != "" && got.Decision != c.Want:
				t.Fatalf("%s decided %s, want %s (%s)", c.Rule, got.Decision, c.Want, got.Message)
			}
		})
	}
}

// Find returns the first finding of rule, or nil.
func Find(fs []sdk.Finding, rule string) *sdk.Finding {
	for i := range fs {
		if fs[i].RuleID == rule {
			return &fs[i]
		}
	}
	return nil
}

// IDs lists the rule ids of fs for failure messages.
func IDs(fs []sdk.Finding) string {
	var ids []string
	for _, f := range fs {
		ids = append(ids, f.RuleID+"/"+string(f.Decision))
	}
	return "[" + strings.Join(ids, " ") + "]"
}

// CheckShape asserts that every finding carries what the report needs.
func CheckShape(t *testing.T, fs []sdk.Finding) {
	t.Helper()
	for _, f := range fs {
		if f.RuleID == "" || f.RiskType == "" || f.RiskLevel.Rank() < 0 || !f.Decision.Valid() ||
			f.Message == "" || f.Recommendation == "" || f.Metadata == nil {
			t.Errorf("incomplete finding: %+v", f)
		}
		if f.Column != nil && *f.Column <= 0 {
			t.Errorf("column pointer must be nil when unknown: %+v", f)
		}
	}
}

// Cmd builds a command fact at line 1.
func Cmd(id int, name string, args ...string) sdk.Command {
	return sdk.Command{ID: id, Name: name, Args: args, Evidence: strings.TrimSpace(name + " " + strings.Join(args, " ")),
		Pos: sdk.Pos{Line: 1, Col: 1}}
}

// Str is a constant Python string argument.
func Str(s string) sdk.Value { return sdk.Value{Kind: "str", Const: true, Str: s} }

// Name is an unresolved Python variable argument.
func Name(s string) sdk.Value { return sdk.Value{Kind: "name", Str: s} }

// List is a constant Python list of strings.
func List(items ...string) sdk.Value {
	v := sdk.Value{Kind: "list", Const: true}
	for _, s := range items {
		v.Items = append(v.Items, Str(s))
	}
	return v
}
