package main

import (
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/toolwarden/toolwarden/sdk"
)

// reportKeys are the top-level keys of a SafetyReport on the wire.
var reportKeys = []string{"scan_id", "timestamp", "decision", "risk_level", "findings", "tool_name", "language",
	"elapsed_ms", "sanitized", "blocked", "summary", "telemetry_attributes"}

// findingKeys are the keys of one finding on the wire.
var findingKeys = []string{"rule_id", "risk_type", "risk_level", "decision", "evidence", "line", "column", "message",
	"metadata", "recommendation"}

// telemetryKeys are the eight tool.safety.* span attributes.
var telemetryKeys = []string{"tool.safety.blocked", "tool.safety.decision", "tool.safety.duration_ms",
	"tool.safety.risk_level", "tool.safety.rule_id", "tool.safety.sanitized", "tool.safety.scan_id",
	"tool.safety.tool_name"}

// riskRank orders risk levels for the aggregation check.
var riskRank = map[sdk.RiskLevel]int{"none": 0, "low": 1, "medium": 2, "high": 3, "critical": 4}

// keysOf returns the sorted keys of m.
func keysOf(m map[string]any) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// wantKeys fails unless m has exactly the keys want.
func wantKeys(t *testing.T, what string, m map[string]any, want []string) {
	t.Helper()
	w := slices.Clone(want)
	sort.Strings(w)
	if got := keysOf(m); !slices.Equal(got, w) {
		t.Errorf("%s keys = %v, want %v", what, got, w)
	}
}

// checkReport parses s as one SafetyReport, checks its wire shape and its
// internal consistency (aggregation, telemetry mirroring the report), and
// returns it.
func checkReport(t *testing.T, what, s string) sdk.SafetyReport {
	t.Helper()
	var raw map[string]any
	decodeJSON(t, what, s, &raw)
	wantKeys(t, what, raw, reportKeys)
	fs, ok := raw["findings"].([]any)
	if !ok {
		t.Fatalf("%s: findings is %T, want a JSON array (never null)", what, raw["findings"])
	}
	for i, f := range fs {
		fm, ok := f.(map[string]any)
		if !ok {
			t.Fatalf("%s: findings[%d] is %T, want an object", what, i, f)
		}
		wantKeys(t, what+" finding", fm, findingKeys)
	}
	tel, ok := raw["telemetry_attributes"].(map[string]any)
	if !ok {
		t.Fatalf("%s: telemetry_attributes is %T, want an object", what, raw["telemetry_attributes"])
	}
	wantKeys(t, what+" telemetry_attributes", tel, telemetryKeys)

	var rep sdk.SafetyReport
	decodeJSON(t, what, s, &rep)
	if rep.ScanID == "" || rep.Summary == "" {
		t.Errorf("%s: empty scan_id %q or summary %q", what, rep.ScanID, rep.Summary)
	}
	if _, err := time.Parse(time.RFC3339Nano, rep.Timestamp); err != nil {
		t.Errorf("%s: timestamp %q is not RFC 3339: %v", what, rep.Timestamp, err)
	}
	if rep.ElapsedMS < 0 {
		t.Errorf("%s: elapsed_ms %v < 0", what, rep.ElapsedMS)
	}

	// Aggregation: any deny → deny, else any review → review, else allow;
	// risk_level is the highest finding's.
	want, risk := sdk.Allow, sdk.RiskLevel("none")
	ids := map[string]bool{}
	for _, f := range rep.Findings {
		ids[f.RuleID] = true
		switch {
		case f.Decision == sdk.Deny:
			want = sdk.Deny
		case f.Decision == sdk.NeedsHumanReview && want != sdk.Deny:
			want = sdk.NeedsHumanReview
		}
		if riskRank[f.RiskLevel] > riskRank[risk] {
			risk = f.RiskLevel
		}
		// Line 0 is a finding about the request rather than the content
		// (a requested timeout, say).
		if f.RuleID == "" || f.Line < 0 || f.Message == "" {
			t.Errorf("%s: incomplete finding %+v", what, f)
		}
	}
	if rep.Decision != want {
		t.Errorf("%s: decision %q, but its findings aggregate to %q", what, rep.Decision, want)
	}
	if rep.RiskLevel != risk {
		t.Errorf("%s: risk_level %q, but the highest finding is %q", what, rep.RiskLevel, risk)
	}
	if rep.Decision == sdk.Deny && !rep.Blocked {
		t.Errorf("%s: deny but not blocked", what)
	}
	if rep.Decision == sdk.Allow && rep.Blocked {
		t.Errorf("%s: allow but blocked", what)
	}

	// Telemetry mirrors the report.
	mirror := map[string]any{
		"tool.safety.scan_id":    rep.ScanID,
		"tool.safety.decision":   string(rep.Decision),
		"tool.safety.risk_level": string(rep.RiskLevel),
		"tool.safety.blocked":    rep.Blocked,
		"tool.safety.sanitized":  rep.Sanitized,
		"tool.safety.tool_name":  rep.ToolName,
	}
	for k, v := range mirror {
		if rep.TelemetryAttributes[k] != v {
			t.Errorf("%s: telemetry %s = %v, want %v", what, k, rep.TelemetryAttributes[k], v)
		}
	}
	ruleAttr, _ := rep.TelemetryAttributes["tool.safety.rule_id"].(string)
	if len(rep.Findings) == 0 && ruleAttr != "" {
		t.Errorf("%s: telemetry rule_id %q without findings", what, ruleAttr)
	}
	if len(rep.Findings) > 0 {
		for _, id := range strings.Split(ruleAttr, ",") {
			if !ids[strings.TrimSpace(id)] {
				t.Errorf("%s: telemetry rule_id %q names no finding of %v", what, ruleAttr, keysOfBool(ids))
			}
		}
	}
	return rep
}

func keysOfBool(m map[string]bool) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// hasRule reports whether rep has a finding of rule id.
func hasRule(rep sdk.SafetyReport, id string) bool {
	return slices.Contains(rep.RuleIDs(), id)
}

func TestScanAllowExitsZero(t *testing.T) {
	dir := t.TempDir()
	file := writeFile(t, dir, "list.sh", "ls -la\n")
	r := tw(t, "scan", file)
	wantCode(t, r, 0)
	rep := checkReport(t, "scan report", r.stdout)
	if rep.Decision != sdk.Allow || rep.RiskLevel != "none" || len(rep.Findings) != 0 || rep.Blocked {
		t.Errorf("ls -la: decision %s risk %s findings %v blocked %v, want a clean allow",
			rep.Decision, rep.RiskLevel, rep.RuleIDs(), rep.Blocked)
	}
	if rep.ToolName != file || rep.Language != "bash" {
		t.Errorf("tool_name %q language %q, want %q and bash", rep.ToolName, rep.Language, file)
	}
	if r.stderr != "" {
		t.Errorf("an allowed scan wrote to stderr: %s", r.stderr)
	}
}

func TestScanReviewExitsOne(t *testing.T) {
	file := writeFile(t, t.TempDir(), "count.sh", "ls | wc -l\n")
	r := tw(t, "scan", file)
	wantCode(t, r, 1)
	rep := checkReport(t, "scan report", r.stdout)
	if rep.Decision != sdk.NeedsHumanReview || rep.Blocked {
		t.Errorf("decision %s blocked %v, want needs_human_review not blocked (default policy)", rep.Decision, rep.Blocked)
	}
	if !hasRule(rep, "BASH_SHELL_FEATURE_REVIEW") {
		t.Errorf("rules %v, want BASH_SHELL_FEATURE_REVIEW for a pipe", rep.RuleIDs())
	}
}

func TestScanDenyExitsTwo(t *testing.T) {
	file := writeFile(t, t.TempDir(), "wipe.sh", "cd /tmp\nrm -rf /\n")
	r := tw(t, "scan", "--tool-name", "bash_tool", file)
	wantCode(t, r, 2)
	rep := checkReport(t, "scan report", r.stdout)
	if rep.Decision != sdk.Deny || rep.RiskLevel != "critical" || !rep.Blocked {
		t.Errorf("decision %s risk %s blocked %v, want a blocked critical deny", rep.Decision, rep.RiskLevel, rep.Blocked)
	}
	if rep.ToolName != "bash_tool" {
		t.Errorf("tool_name %q, want the --tool-name bash_tool", rep.ToolName)
	}
	var found bool
	for _, f := range rep.Findings {
		if f.RuleID == "BASH_RECURSIVE_DELETE" {
			found = true
			if f.Line != 2 || !strings.Contains(f.Evidence, "rm -rf /") {
				t.Errorf("finding at line %d evidence %q, want line 2 quoting rm -rf /", f.Line, f.Evidence)
			}
		}
	}
	if !found {
		t.Errorf("rules %v, want BASH_RECURSIVE_DELETE", rep.RuleIDs())
	}
}

func TestScanReadsStandardInput(t *testing.T) {
	r := invocation{stdin: strings.NewReader("rm -rf ~\n")}.run(t, "scan", "-")
	wantCode(t, r, 2)
	rep := checkReport(t, "scan - report", r.stdout)
	if !hasRule(rep, "BASH_RECURSIVE_DELETE") {
		t.Errorf("rules %v, want BASH_RECURSIVE_DELETE for rm -rf ~ read from stdin", rep.RuleIDs())
	}
	if rep.ToolName != "" {
		t.Errorf("tool_name %q, want empty for stdin without --tool-name", rep.ToolName)
	}

	// Empty standard input is content too: nothing to judge, so allow.
	r = invocation{stdin: strings.NewReader("")}.run(t, "scan", "-")
	wantCode(t, r, 0)
	checkReport(t, "empty stdin report", r.stdout)
}

func TestScanScanIDsAreUnique(t *testing.T) {
	file := writeFile(t, t.TempDir(), "pwd.sh", "pwd\n")
	a := checkReport(t, "first", tw(t, "scan", file).stdout)
	b := checkReport(t, "second", tw(t, "scan", file).stdout)
	if a.ScanID == b.ScanID {
		t.Errorf("two scans share scan_id %s", a.ScanID)
	}
}

func TestScanLanguageAutoDetection(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		name, content, lang, rule string
		code                      int
	}{
		{"plain.txt", "ls -la\n", "bash", "", 0},
		{"proc.txt", "import os\nos.system(\"ls\")\n", "python", "PY_PROCESS_EXECUTION_REVIEW", 1},
	}
	for _, c := range cases {
		r := tw(t, "scan", writeFile(t, dir, c.name, c.content))
		wantCode(t, r, c.code)
		rep := checkReport(t, c.name, r.stdout)
		if rep.Language != c.lang {
			t.Errorf("%s: auto-detected %q, want %q", c.name, rep.Language, c.lang)
		}
		if c.rule != "" && !hasRule(rep, c.rule) {
			t.Errorf("%s: rules %v, want %s", c.name, rep.RuleIDs(), c.rule)
		}
	}
}

func TestScanLanguageFlagOverridesDetection(t *testing.T) {
	// One line of Python that reads a denied path. Whatever auto detection
	// makes of it, --language python must judge it as Python: a read of .env
	// is a deny.
	file := writeFile(t, t.TempDir(), "snippet", "print(open(\".env\").read())\n")
	r := tw(t, "scan", "--language", "python", file)
	wantCode(t, r, 2)
	rep := checkReport(t, "--language python", r.stdout)
	if rep.Language != "python" || !hasRule(rep, "FILE_SECRET_PATH_ACCESS") {
		t.Errorf("language %q rules %v, want python with FILE_SECRET_PATH_ACCESS", rep.Language, rep.RuleIDs())
	}

	r = tw(t, "scan", "--language", "bash", file)
	rep = checkReport(t, "--language bash", r.stdout)
	if rep.Language != "bash" {
		t.Errorf("--language bash reported language %q", rep.Language)
	}
	if hasRule(rep, "FILE_SECRET_PATH_ACCESS") || hasRule(rep, "PY_PROCESS_EXECUTION_REVIEW") {
		t.Errorf("--language bash still applied python facts: %v", rep.RuleIDs())
	}
}

func TestScanStrictPolicyBlocksReview(t *testing.T) {
	file := writeFile(t, t.TempDir(), "count.sh", "ls | wc -l\n")
	for _, pol := range []string{"strict", filepath.Join("testdata", "policies", "block_on_review.yaml")} {
		r := tw(t, "scan", "--policy", pol, file)
		// The exit code is the decision; blocked is the policy's verdict on it.
		wantCode(t, r, 1)
		rep := checkReport(t, "--policy "+pol, r.stdout)
		if rep.Decision != sdk.NeedsHumanReview || !rep.Blocked {
			t.Errorf("--policy %s: decision %s blocked %v, want needs_human_review blocked", pol, rep.Decision, rep.Blocked)
		}
	}
	r := tw(t, "scan", "--policy", "default", file)
	if rep := checkReport(t, "--policy default", r.stdout); rep.Blocked {
		t.Errorf("default policy blocked a review")
	}
}

func TestScanMissingFileIsUsageError(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "no-such-script.sh")
	r := tw(t, "scan", missing)
	wantCode(t, r, 3)
	wantContains(t, "stderr", r.stderr, missing, "no such file")
	if r.stdout != "" {
		t.Errorf("a failed scan printed a report: %s", r.stdout)
	}
}

func TestScanInvalidPolicyIsUsageError(t *testing.T) {
	file := writeFile(t, t.TempDir(), "list.sh", "ls\n")
	cases := map[string]string{
		"unknown_key.yaml":    `"allowed_domain"`,
		"wrong_type.yaml":     `"max_timeout_seconds"`,
		"negative_limit.yaml": `"max_output_bytes"`,
	}
	for name, field := range cases {
		pol := filepath.Join("testdata", "policies", name)
		r := tw(t, "scan", "--policy", pol, file)
		wantCode(t, r, 3)
		wantContains(t, "stderr", r.stderr, pol, field)
		if r.stdout != "" {
			t.Errorf("--policy %s: a scan under an invalid policy printed a report: %s", name, r.stdout)
		}
	}
	r := tw(t, "scan", "--policy", filepath.Join(t.TempDir(), "absent.yaml"), file)
	wantCode(t, r, 3)
	wantContains(t, "stderr", r.stderr, "absent.yaml")
}

func TestScanUsageErrors(t *testing.T) {
	for _, args := range [][]string{{"scan"}, {"scan", "a", "b"}, {"scan", "--no-such-flag", "x"}} {
		r := tw(t, args...)
		wantCode(t, r, 3)
		if r.stdout != "" && strings.Contains(r.stdout, "scan_id") {
			t.Errorf("%v printed a report", args)
		}
	}
}

func TestScanNeverPrintsSecrets(t *testing.T) {
	// Built at run time so that the test source holds no credential-shaped
	// literal of its own.
	token := "ghp_" + strings.Repeat("Zq7x", 9)
	keyBody := strings.Repeat("MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6", 6)
	pem := "-----BEGIN " + "RSA PRIVATE KEY-----\n" + keyBody + "\n-----END " + "RSA PRIVATE KEY-----\n"
	content := "export GITHUB_TOKEN=" + token + "\ncat > deploy_key <<'EOF'\n" + pem + "EOF\n"
	file := writeFile(t, t.TempDir(), "leak.sh", content)

	r := tw(t, "scan", file)
	wantCode(t, r, 2)
	rep := checkReport(t, "scan report", r.stdout)
	if !hasRule(rep, "SENSITIVE_PRIVATE_KEY_LITERAL") {
		t.Errorf("rules %v, want SENSITIVE_PRIVATE_KEY_LITERAL", rep.RuleIDs())
	}
	for what, secret := range map[string]string{"token": token, "key body": keyBody[:40]} {
		if strings.Contains(r.stdout, secret) || strings.Contains(r.stderr, secret) {
			t.Errorf("the %s appears in the scan's output:\n%s", what, r)
		}
	}
}

func TestScanUnknownLanguageIsUsageError(t *testing.T) {
	r := invocation{stdin: strings.NewReader("ls\n")}.run(t, "scan", "--language", "ruby", "-")
	wantCode(t, r, 3)
	wantContains(t, "stderr", r.stderr, "ruby")
	if r.stdout != "" {
		t.Errorf("a scan in an unknown language printed a report: %s", r.stdout)
	}
}

// TestScanEnvOverridesBuiltinPolicy checks TOOLWARDEN_* overrides apply to
// the built-in policy as they do to a file: with
// TOOLWARDEN_BLOCK_ON_REVIEW=true a review finding is blocked.
func TestScanEnvOverridesBuiltinPolicy(t *testing.T) {
	file := writeFile(t, t.TempDir(), "count.sh", "ls | wc -l\n")
	for _, args := range [][]string{{"scan", file}, {"scan", "--policy", "default", file}} {
		r := invocation{env: []string{"TOOLWARDEN_BLOCK_ON_REVIEW=true"}}.run(t, args...)
		wantCode(t, r, 1)
		rep := checkReport(t, "scan report", r.stdout)
		if rep.Decision != sdk.NeedsHumanReview || !rep.Blocked {
			t.Errorf("%v: decision %s blocked %v, want a blocked review", args, rep.Decision, rep.Blocked)
		}
	}
}

// TestScanUnknownRuleOverride checks a policy whose rules override names an
// unknown rule id is a load error that suggests the closest id.
func TestScanUnknownRuleOverride(t *testing.T) {
	dir := t.TempDir()
	pol := writeFile(t, dir, "p.yaml", "rules:\n  BASH_LONG_SLEPE:\n    decision: deny\n")
	file := writeFile(t, dir, "s.sh", "ls\n")
	r := tw(t, "scan", "--policy", pol, file)
	wantCode(t, r, 3)
	if !strings.Contains(r.stderr, "BASH_LONG_SLEPE") || !strings.Contains(r.stderr, "did you mean BASH_LONG_SLEEP") {
		t.Errorf("stderr %q, want the unknown id and a suggestion", r.stderr)
	}
}

// TestScanJudgesWhatTheAPIJudges checks the request-context flags and
// --request: the CLI decides as POST /v1/scan would.
func TestScanJudgesWhatTheAPIJudges(t *testing.T) {
	dir := t.TempDir()
	run := writeFile(t, dir, "run.sh", "\"$@\"\n")
	r := tw(t, "scan", "--language", "bash", "--command-args", "rm,-rf,/", run)
	wantCode(t, r, 2)
	ls := writeFile(t, dir, "ls.sh", "ls\n")
	r = tw(t, "scan", "--cwd", "/root/.ssh", ls)
	wantCode(t, r, 2)
	if rep := checkReport(t, "cwd", r.stdout); !hasRule(rep, "EXECUTION_DENIED_CWD") {
		t.Errorf("--cwd in a denied path: %v, want EXECUTION_DENIED_CWD", rep.RuleIDs())
	}
	r = tw(t, "scan", "--timeout", "100000", "--max-output-bytes", "99999999999", ls)
	wantCode(t, r, 1)
	rep := checkReport(t, "limits", r.stdout)
	if !hasRule(rep, "RESOURCE_TIMEOUT_LIMIT_EXCEEDED") || !hasRule(rep, "RESOURCE_OUTPUT_LIMIT_EXCEEDED") {
		t.Errorf("limits: %v, want both limit findings", rep.RuleIDs())
	}
	req := writeFile(t, dir, "req.json", `{"tool_name": "t", "script": "echo hi", "command": "rm -rf ~"}`)
	r = tw(t, "scan", "--request", req)
	wantCode(t, r, 2)
	if rep := checkReport(t, "request", r.stdout); rep.ToolName != "t" || !hasRule(rep, "BASH_RECURSIVE_DELETE") {
		t.Errorf("--request: tool %q rules %v, want t and BASH_RECURSIVE_DELETE", rep.ToolName, rep.RuleIDs())
	}
	bad := writeFile(t, dir, "bad.json", `{"comand": "ls"}`)
	wantCode(t, tw(t, "scan", "--request", bad), 3)
}
