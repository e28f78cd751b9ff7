package catalog

import (
	"strings"
	"testing"

	"github.com/toolwarden/toolwarden/sdk"
)

func TestAddFillsAndDeduplicates(t *testing.T) {
	e, err := NewEnv(&sdk.ScanInput{Facts: &sdk.Facts{Language: "bash"}})
	if err != nil {
		t.Fatal(err)
	}
	pos := sdk.Pos{Line: 2, Col: 0, Depth: 1, Via: "bash -c", Encoded: true}
	e.Add(Finding{Rule: "FILE_SECRET_PATH_ACCESS", Pos: pos, Key: ".env", Message: "m", Evidence: "cat .env\nmore"})
	e.Add(Finding{Rule: "FILE_SECRET_PATH_ACCESS", Pos: pos, Key: ".env", Message: "again"})
	e.Add(Finding{Rule: "DEPENDENCY_INSTALL", Decision: Switch(false), Pos: sdk.Pos{Line: 1, Col: 4}, Message: "x"})
	fs := e.Findings()
	if len(fs) != 2 {
		t.Fatalf("got %d findings, want 2 (duplicate dropped): %+v", len(fs), fs)
	}
	dep, sec := fs[0], fs[1] // sorted by line
	if dep.RuleID != "DEPENDENCY_INSTALL" || dep.Decision != sdk.NeedsHumanReview || dep.RiskLevel != sdk.RiskHigh ||
		dep.Column == nil || *dep.Column != 4 || dep.Recommendation == "" {
		t.Errorf("switched finding: %+v", dep)
	}
	if sec.Decision != sdk.Deny || sec.RiskType != sdk.RiskTypeFile || sec.Column != nil || sec.Evidence != "cat .env …" ||
		sec.Metadata["via"] != "bash -c" || sec.Metadata["encoded"] != true || sec.Metadata["language"] != "bash" {
		t.Errorf("filled finding: %+v", sec)
	}
}

func TestFactLang(t *testing.T) {
	py, _ := NewEnv(&sdk.ScanInput{Facts: &sdk.Facts{Language: "python"}})
	sh, _ := NewEnv(&sdk.ScanInput{Facts: &sdk.Facts{Language: "bash"}})
	cases := []struct {
		e    *Env
		via  string
		want string
	}{
		{py, "", "python"}, {sh, "", "bash"}, {py, "os.system", "bash"}, {sh, "python3 -c", "python"},
		{sh, "heredoc:python3", "python"}, {py, "subprocess.run>bash -c", "bash"}, {sh, "eval", "bash"},
		{py, "exec", "python"}, {sh, "base64>sh", "bash"},
	}
	for _, c := range cases {
		depth := 0
		if c.via != "" {
			depth = 1
		}
		if got := c.e.FactLang(sdk.Pos{Depth: depth, Via: c.via}); got != c.want {
			t.Errorf("%s FactLang(%q) = %s, want %s", c.e.Lang, c.via, got, c.want)
		}
	}
}

func TestCompileReusesPolicy(t *testing.T) {
	p := &sdk.Policy{AllowedDomains: []string{"github.com"}}
	if Compile(p) != Compile(p) {
		t.Error("the same policy pointer must reuse its matchers")
	}
	if q := (&sdk.Policy{}); Compile(q) == Compile(p) {
		t.Error("another policy must get its own matchers")
	}
}

func TestCompileKeysOnListContent(t *testing.T) {
	p := &sdk.Policy{AllowedDomains: []string{"github.com"}, DeniedPaths: []string{"~/.ssh"}, AllowedCommands: []string{"ls"}}
	m := Compile(p)
	// A decoded copy of the same policy (what every Wasm call sees).
	q := &sdk.Policy{AllowedDomains: []string{"github.com"}, DeniedPaths: []string{"~/.ssh"}, AllowedCommands: []string{"ls"}}
	if Compile(q) != m {
		t.Error("a policy with the same lists must reuse the compiled matchers")
	}
	// Edited in place after compiling: must not answer from the old lists.
	p.DeniedPaths[0] = "~/.aws"
	m2 := Compile(p)
	if m2 == m {
		t.Fatal("a policy edited in place must be compiled again")
	}
	if _, ok := m2.Paths.Match("~/.ssh/id_rsa", false); ok {
		t.Error("stale matcher: ~/.ssh is no longer denied")
	}
	if _, ok := m2.Paths.Match("~/.aws/credentials", false); !ok {
		t.Error("~/.aws is denied now")
	}
	p.AllowedCommands = append(p.AllowedCommands, "cat")
	if m3 := Compile(p); m3 == m2 || !m3.Commands["cat"] {
		t.Error("a new allowed command must be compiled in")
	}
}

func TestNewEnvMatchersFollowThePolicy(t *testing.T) {
	f := &sdk.Facts{Language: "bash"}
	in := &sdk.ScanInput{Facts: f, Policy: &sdk.Policy{AllowedDomains: []string{"github.com"}}}
	a, err := NewEnv(in)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := NewEnv(in)
	if a.M != b.M || !b.M.Domains.Allowed("api.github.com") {
		t.Error("the packs of one scan must share the compiled policy")
	}
	in.Policy = &sdk.Policy{AllowedDomains: []string{"pypi.org"}}
	c, _ := NewEnv(in)
	if c.M.Domains.Allowed("github.com") || !c.M.Domains.Allowed("pypi.org") {
		t.Error("a replaced policy must be compiled, not taken from the previous pack")
	}
}

func TestFindingsSortedStably(t *testing.T) {
	e, _ := NewEnv(&sdk.ScanInput{Facts: &sdk.Facts{Language: "bash"}})
	e.Add(Finding{Rule: "PERSISTENCE", Pos: sdk.Pos{Line: 3}, Message: "b"})
	e.Add(Finding{Rule: "DEPENDENCY_INSTALL", Pos: sdk.Pos{Line: 3}, Message: "a"})
	e.Add(Finding{Rule: "PERSISTENCE", Pos: sdk.Pos{Line: 1}, Message: "c"})
	e.Add(Finding{Rule: "PERSISTENCE", Pos: sdk.Pos{Line: 3}, Message: "d"})
	var got []string
	for _, f := range e.Findings() {
		got = append(got, f.Message)
	}
	if want := "c a b d"; strings.Join(got, " ") != want {
		t.Errorf("order %v, want %s (line, then rule, then insertion)", got, want)
	}
}
