package report

import (
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/toolwarden/toolwarden/sdk"
)

// seedCase loads one of the three SafetyReport examples of the Safety Guard
// design (copied verbatim into testdata) and rebuilds it from its findings.
func TestBuildReproducesSeedExamples(t *testing.T) {
	for _, name := range []string{"seed_allow.json", "seed_review.json", "seed_deny.json"} {
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile("testdata/" + name)
			if err != nil {
				t.Fatal(err)
			}
			var want map[string]any
			if err := json.Unmarshal(data, &want); err != nil {
				t.Fatal(err)
			}
			var seed sdk.SafetyReport
			if err := json.Unmarshal(data, &seed); err != nil {
				t.Fatal(err)
			}
			start, err := time.Parse(time.RFC3339Nano, seed.Timestamp)
			if err != nil {
				t.Fatal(err)
			}
			// Feed the findings in reverse so that the order is Build's own.
			in := slices.Clone(seed.Findings)
			slices.Reverse(in)
			meta := Meta{
				ScanID:   seed.ScanID,
				ToolName: seed.ToolName,
				Language: seed.Language,
				Start:    start,
				Elapsed:  time.Duration(seed.ElapsedMS * float64(time.Millisecond)),
			}
			rep := Build(meta, in, &sdk.Policy{Name: "default"})

			out, err := json.Marshal(rep)
			if err != nil {
				t.Fatal(err)
			}
			var got map[string]any
			if err := json.Unmarshal(out, &got); err != nil {
				t.Fatal(err)
			}
			for key := range want {
				if !reflect.DeepEqual(got[key], want[key]) {
					t.Errorf("%s:\n got: %#v\nwant: %#v", key, got[key], want[key])
				}
			}
			for key := range got {
				if _, ok := want[key]; !ok {
					t.Errorf("extra field %q", key)
				}
			}
		})
	}
}

func col(n int) *int { return &n }

func finding(id string, d sdk.Decision, r sdk.RiskLevel, line int) sdk.Finding {
	return sdk.Finding{RuleID: id, RiskType: sdk.RiskTypeProcess, RiskLevel: r, Decision: d,
		Evidence: "ev " + id, Line: line, Message: "msg " + id}
}

func TestBuildEmptyFindingsMarshalAsLists(t *testing.T) {
	rep := Build(Meta{ToolName: "bash"}, nil, nil)
	out, _ := json.Marshal(rep)
	if !strings.Contains(string(out), `"findings":[]`) {
		t.Errorf("findings not an empty list: %s", out)
	}
	if rep.ScanID == "" || rep.Decision != sdk.Allow || rep.RiskLevel != sdk.RiskNone || rep.Summary != SummaryAllow {
		t.Errorf("empty report = %+v", rep)
	}
	rep = Build(Meta{}, []sdk.Finding{finding("A", sdk.NeedsHumanReview, sdk.RiskLow, 1)}, nil)
	out, _ = json.Marshal(rep)
	if !strings.Contains(string(out), `"metadata":{}`) || !strings.Contains(string(out), `"column":null`) {
		t.Errorf("metadata/column: %s", out)
	}
}

func TestBuildAggregation(t *testing.T) {
	cases := []struct {
		name     string
		in       []sdk.Finding
		decision sdk.Decision
		risk     sdk.RiskLevel
		blocked  bool
		summary  string
	}{
		{"only allow findings", []sdk.Finding{finding("A", sdk.Allow, sdk.RiskLow, 1)},
			sdk.Allow, sdk.RiskLow, false, "Decision allow with low risk from rules: A."},
		{"review wins over allow", []sdk.Finding{finding("A", sdk.Allow, sdk.RiskHigh, 1), finding("B", sdk.NeedsHumanReview, sdk.RiskMedium, 2)},
			sdk.NeedsHumanReview, sdk.RiskHigh, false, "Decision needs_human_review with high risk from rules: B, A."},
		{"deny wins", []sdk.Finding{finding("R", sdk.NeedsHumanReview, sdk.RiskCritical, 1), finding("D", sdk.Deny, sdk.RiskHigh, 5)},
			sdk.Deny, sdk.RiskCritical, true, "Decision deny with critical risk from rules: D, R."},
		{"distinct rule ids", []sdk.Finding{finding("X", sdk.Deny, sdk.RiskHigh, 3), finding("X", sdk.Deny, sdk.RiskHigh, 1), finding("Y", sdk.Deny, sdk.RiskLow, 2)},
			sdk.Deny, sdk.RiskHigh, true, "Decision deny with high risk from rules: X, Y."},
		{"malformed decision fails closed", []sdk.Finding{finding("P", "maybe", "severe", 1)},
			sdk.Deny, sdk.RiskCritical, true, "Decision deny with critical risk from rules: P."},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rep := Build(Meta{ScanID: "s", ToolName: "t"}, tc.in, &sdk.Policy{})
			if rep.Decision != tc.decision || rep.RiskLevel != tc.risk || rep.Blocked != tc.blocked || rep.Summary != tc.summary {
				t.Errorf("got %s/%s blocked=%v %q, want %s/%s blocked=%v %q",
					rep.Decision, rep.RiskLevel, rep.Blocked, rep.Summary, tc.decision, tc.risk, tc.blocked, tc.summary)
			}
			if rep.TelemetryAttributes[AttrRuleID] != strings.Join(rep.RuleIDs(), ",") ||
				rep.TelemetryAttributes[AttrDecision] != string(tc.decision) ||
				rep.TelemetryAttributes[AttrBlocked] != tc.blocked {
				t.Errorf("telemetry = %v", rep.TelemetryAttributes)
			}
		})
	}
}

func TestBuildMalformedValuesKeptInMetadata(t *testing.T) {
	rep := Build(Meta{}, []sdk.Finding{finding("P", "maybe", "severe", 1)}, nil)
	f := rep.Findings[0]
	if f.Decision != sdk.Deny || f.RiskLevel != sdk.RiskCritical ||
		f.Metadata["original_decision"] != "maybe" || f.Metadata["original_risk_level"] != "severe" {
		t.Errorf("finding = %+v", f)
	}
}

func TestBuildOrder(t *testing.T) {
	in := []sdk.Finding{
		finding("LOW_ALLOW", sdk.Allow, sdk.RiskLow, 1),
		finding("Z_REVIEW", sdk.NeedsHumanReview, sdk.RiskLow, 2),
		finding("B_DENY", sdk.Deny, sdk.RiskHigh, 7),
		finding("A_REVIEW", sdk.NeedsHumanReview, sdk.RiskMedium, 2),
		finding("C_DENY", sdk.Deny, sdk.RiskCritical, 3),
		finding("A_DENY", sdk.Deny, sdk.RiskHigh, 7),
	}
	rep := Build(Meta{}, in, nil)
	want := []string{"C_DENY", "A_DENY", "B_DENY", "A_REVIEW", "Z_REVIEW", "LOW_ALLOW"}
	if got := rep.RuleIDs(); !slices.Equal(got, want) {
		t.Errorf("order = %v, want %v", got, want)
	}
	if in[0].RuleID != "LOW_ALLOW" {
		t.Error("Build reordered its input")
	}
}

func TestBuildAppliesOverrides(t *testing.T) {
	pol := &sdk.Policy{Rules: map[string]sdk.RuleOverride{
		"BASH_SHELL_FEATURE_REVIEW":  {Disabled: true},
		"NETWORK_DYNAMIC_URL_REVIEW": {Decision: sdk.Deny, RiskLevel: sdk.RiskHigh},
		"BASH_COMMAND_REVIEW":        {Decision: sdk.Allow},
	}}
	in := []sdk.Finding{
		finding("BASH_SHELL_FEATURE_REVIEW", sdk.NeedsHumanReview, sdk.RiskLow, 1),
		finding("NETWORK_DYNAMIC_URL_REVIEW", sdk.NeedsHumanReview, sdk.RiskMedium, 2),
		finding("BASH_COMMAND_REVIEW", sdk.NeedsHumanReview, sdk.RiskMedium, 3),
	}
	rep := Build(Meta{}, in, pol)
	if got := rep.RuleIDs(); !slices.Equal(got, []string{"NETWORK_DYNAMIC_URL_REVIEW", "BASH_COMMAND_REVIEW"}) {
		t.Fatalf("rules = %v (disabled rule must be dropped)", got)
	}
	if f := rep.Findings[0]; f.Decision != sdk.Deny || f.RiskLevel != sdk.RiskHigh {
		t.Errorf("override not applied: %+v", f)
	}
	if f := rep.Findings[1]; f.Decision != sdk.Allow || f.RiskLevel != sdk.RiskMedium {
		t.Errorf("decision-only override changed risk or was not applied: %+v", f)
	}
	if rep.Decision != sdk.Deny || !rep.Blocked || rep.RiskLevel != sdk.RiskHigh {
		t.Errorf("report = %s/%s blocked=%v", rep.Decision, rep.RiskLevel, rep.Blocked)
	}
	if in[1].Decision != sdk.NeedsHumanReview {
		t.Error("Build modified its input findings")
	}

	// Disabling every finding leaves an allow report with the allow summary.
	all := Build(Meta{}, in[:1], pol)
	if all.Decision != sdk.Allow || len(all.Findings) != 0 || all.Summary != SummaryAllow {
		t.Errorf("all disabled: %+v", all)
	}
}

func TestBuildBlockOnReview(t *testing.T) {
	in := []sdk.Finding{finding("PY_PROCESS_EXECUTION_REVIEW", sdk.NeedsHumanReview, sdk.RiskMedium, 3)}
	if rep := Build(Meta{}, in, &sdk.Policy{}); rep.Blocked {
		t.Error("review blocked without block_on_review")
	}
	rep := Build(Meta{}, in, &sdk.Policy{BlockOnReview: true})
	if !rep.Blocked || rep.TelemetryAttributes[AttrBlocked] != true || rep.Decision != sdk.NeedsHumanReview {
		t.Errorf("block_on_review: %+v", rep)
	}
	allow := []sdk.Finding{finding("A", sdk.Allow, sdk.RiskLow, 1)}
	if rep := Build(Meta{}, allow, &sdk.Policy{BlockOnReview: true}); rep.Blocked {
		t.Error("allow blocked under block_on_review")
	}
}

func TestBuildRedactsSecrets(t *testing.T) {
	token := "ghp_" + strings.Repeat("A1b2C3d4E5", 4)[:36]
	f := finding("SENSITIVE_OUTPUT", sdk.Deny, sdk.RiskHigh, 1)
	f.Evidence = "curl -H 'Authorization: token x' https://" + token + "@github.com/o/r"
	f.Message = "Token " + token + " is sent out."
	f.Metadata = map[string]any{"value": "GITHUB_TOKEN=" + token, "count": 2}
	rep := Build(Meta{}, []sdk.Finding{f}, nil)
	out, _ := json.Marshal(rep)
	if strings.Contains(string(out), token) || strings.Contains(string(out), token[4:]) {
		t.Fatalf("report leaks the token: %s", out)
	}
	g := rep.Findings[0]
	if !rep.Sanitized || rep.TelemetryAttributes[AttrSanitized] != true {
		t.Error("sanitized not set")
	}
	if g.Evidence != "curl -H 'Authorization: token x' https://[REDACTED:github_token]@github.com/o/r" ||
		g.Message != "Token [REDACTED:github_token] is sent out." ||
		g.Metadata["value"] != "GITHUB_TOKEN=[REDACTED:github_token]" || g.Metadata["count"] != 2 {
		t.Errorf("redacted finding = %+v", g)
	}
	if f.Metadata["value"] == g.Metadata["value"] {
		t.Error("Build redacted the caller's metadata map in place")
	}
	clean := Build(Meta{}, []sdk.Finding{finding("A", sdk.Deny, sdk.RiskHigh, 1)}, nil)
	if clean.Sanitized {
		t.Error("sanitized set without secrets")
	}
}

// TestBuildRedactsNestedMetadata: a secret inside a metadata list or object
// (a plugin's JSON metadata, a native pack's []string) is redacted as a
// top-level string is; the caller's values are not changed in place, and a
// container nested past the bound is replaced whole.
func TestBuildRedactsNestedMetadata(t *testing.T) {
	token := "ghp_" + strings.Repeat("A1b2C3d4E5", 4)[:36]
	f := finding("PLUGIN_RULE", sdk.Deny, sdk.RiskHigh, 1)
	list := []any{"ok", "GITHUB_TOKEN=" + token}
	obj := map[string]any{"headers": map[string]any{"Authorization": "token " + token}, "n": 1}
	strs := []string{"x", "k=" + token}
	deep := any("GITHUB_TOKEN=" + token)
	for range maxMetaDepth + 2 {
		deep = []any{deep}
	}
	f.Metadata = map[string]any{"list": list, "obj": obj, "strs": strs, "deep": deep, "plain": []any{"a", 1.0}}
	rep := Build(Meta{}, []sdk.Finding{f}, nil)
	out, _ := json.Marshal(rep)
	if strings.Contains(string(out), token) || strings.Contains(string(out), token[4:]) {
		t.Fatalf("report leaks the token: %s", out)
	}
	if !rep.Sanitized {
		t.Error("sanitized not set")
	}
	if list[1] != "GITHUB_TOKEN="+token || strs[1] != "k="+token {
		t.Error("Build redacted the caller's metadata in place")
	}
	if got := rep.Findings[0].Metadata["plain"].([]any); got[0] != "a" {
		t.Errorf("clean list changed: %v", got)
	}
}

func TestBuildCapsEvidence(t *testing.T) {
	f := finding("A", sdk.Deny, sdk.RiskHigh, 1)
	f.Evidence = strings.Repeat("é", 400) // 800 bytes
	g := Build(Meta{}, []sdk.Finding{f}, nil).Findings[0]
	if len(g.Evidence) > MaxEvidenceBytes || !utf8.ValidString(g.Evidence) || !strings.HasSuffix(g.Evidence, "…") {
		t.Errorf("evidence %d bytes, valid=%v", len(g.Evidence), utf8.ValidString(g.Evidence))
	}
}

func TestTruncate(t *testing.T) {
	if got := Truncate("short", 10); got != "short" {
		t.Errorf("Truncate(short) = %q", got)
	}
	s := strings.Repeat("a", 20) + "[REDACTED:github_token]" + strings.Repeat("b", 20)
	if got := Truncate(s, 30); got != strings.Repeat("a", 20)+"…" {
		t.Errorf("Truncate split a marker: %q", got)
	}
	if got := Truncate("日本語テキスト", 8); got != "日…" {
		t.Errorf("Truncate(utf8) = %q", got)
	}
}

func TestTimestampAndElapsed(t *testing.T) {
	if got := Timestamp(time.Unix(0, 0)); got != "1970-01-01T00:00:00+00:00" {
		t.Errorf("Timestamp(0) = %q", got)
	}
	ts := time.Date(2026, 7, 2, 9, 7, 8, 956049123, time.FixedZone("CEST", 2*3600))
	if got := Timestamp(ts); got != "2026-07-02T07:07:08.956049+00:00" {
		t.Errorf("Timestamp = %q", got)
	}
	if got := ElapsedMS(1054 * time.Microsecond); got != 1.054 {
		t.Errorf("ElapsedMS = %v", got)
	}
	if got := ElapsedMS(1054*time.Microsecond + 400*time.Nanosecond); got != 1.054 {
		t.Errorf("ElapsedMS rounding = %v", got)
	}
}

func ExampleBuild() {
	findings := []sdk.Finding{{
		RuleID:         "PY_PROCESS_EXECUTION_REVIEW",
		RiskType:       sdk.RiskTypeProcess,
		RiskLevel:      sdk.RiskMedium,
		Decision:       sdk.NeedsHumanReview,
		Evidence:       `subprocess.run(["python3", "--version"], check=True)`,
		Line:           3,
		Column:         new(int),
		Message:        "Python process execution via subprocess.run requires review.",
		Recommendation: "Review subprocess/os.system usage and prefer a constrained wrapper.",
	}}
	rep := Build(Meta{ScanID: "manifest:036", ToolName: "subprocess_call.py", Language: "python",
		Start: time.Unix(0, 0)}, findings, &sdk.Policy{BlockOnReview: true})
	fmt.Println(rep.Timestamp, rep.Decision, rep.RiskLevel, rep.Blocked)
	fmt.Println(rep.Summary)
	fmt.Println(rep.TelemetryAttributes[AttrRuleID])
	// Output:
	// 1970-01-01T00:00:00+00:00 needs_human_review medium true
	// Decision needs_human_review with medium risk from rules: PY_PROCESS_EXECUTION_REVIEW.
	// PY_PROCESS_EXECUTION_REVIEW
}

// TestSummaryRuleIDsManyRules checks the summary and the rule-ID attribute
// list every rule once, in report order, past the few Build gathers on
// the stack.
func TestSummaryRuleIDsManyRules(t *testing.T) {
	var fs []sdk.Finding
	for i := range 40 {
		fs = append(fs, sdk.Finding{RuleID: fmt.Sprintf("RULE_%02d", (i*7)%20), Decision: sdk.NeedsHumanReview, RiskLevel: sdk.RiskLow, Line: i})
	}
	r := Build(Meta{ScanID: "x"}, fs, nil)
	ids := r.RuleIDs()
	if len(ids) != 20 {
		t.Fatalf("RuleIDs = %v, want 20", ids)
	}
	if want := "Decision needs_human_review with low risk from rules: " + strings.Join(ids, ", ") + "."; r.Summary != want {
		t.Errorf("Summary = %q, want %q", r.Summary, want)
	}
	if got := r.TelemetryAttributes[AttrRuleID]; got != strings.Join(ids, ",") {
		t.Errorf("%s = %v", AttrRuleID, got)
	}
}

// TestTimestampMatchesFormat checks the hand-written Timestamp against
// time.Format's rendering of the same layout over many instants.
func TestTimestampMatchesFormat(t *testing.T) {
	want := func(ts time.Time) string {
		ts = ts.UTC()
		if ts.Nanosecond()/1000 == 0 {
			return ts.Format("2006-01-02T15:04:05+00:00")
		}
		return ts.Format("2006-01-02T15:04:05.000000+00:00")
	}
	ts := []time.Time{time.Unix(0, 0), time.Unix(0, 999), time.Unix(0, 1000), time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.UTC), time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(-5, 3, 1, 0, 0, 0, 5000, time.UTC), time.Date(2026, 7, 2, 9, 7, 8, 956049123, time.FixedZone("x", 7200))}
	for i := int64(0); i < 5000; i++ {
		ts = append(ts, time.Unix(i*7919*86413, i*104729%1e9))
	}
	for _, x := range ts {
		if got, w := Timestamp(x), want(x); got != w {
			t.Fatalf("Timestamp(%v) = %q, want %q", x, got, w)
		}
	}
}

// TestRedactTextCache checks that remembering clean messages never lets a
// secret through: the same text is left alone each time, a text with a
// secret is redacted every time, also after its clean neighbours are
// remembered.
func TestRedactTextCache(t *testing.T) {
	token := "ghp_" + strings.Repeat("A1b2C3d4E5", 4)[:36]
	for range 3 {
		if got, r := redactText("Review the command before running it."); r || got != "Review the command before running it." {
			t.Fatalf("clean text = %q, %v", got, r)
		}
		if got, r := redactText("Token " + token + " is sent out."); !r || got != "Token [REDACTED:github_token] is sent out." {
			t.Fatalf("secret text = %q, %v", got, r)
		}
	}
}
