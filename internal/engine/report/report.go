// Package report aggregates the findings of one scan into an
// sdk.SafetyReport, in exactly the shape of the Tool Script Safety Guard's
// report so that its consumers (agents, the panel, audit readers) need no
// change.
//
// Build is where policy meets findings: per-rule overrides are applied, the
// decision is aggregated conservatively (any deny → deny; else any review →
// needs_human_review; else allow), blocked follows block_on_review, and
// every string a rule quoted from the content is redacted so that a report
// never repeats a credential it caught.
package report

import (
	"cmp"
	"math"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/toolwarden/toolwarden/internal/engine/secrets"
	"github.com/toolwarden/toolwarden/sdk"
)

// MaxEvidenceBytes caps a finding's evidence. Evidence is a quote for a
// human reviewer, not a copy of the content; an unbounded quote would let a
// single long line bloat every report and audit line.
const MaxEvidenceBytes = 512

// SummaryAllow is the summary of a scan without findings.
const SummaryAllow = "No safety rules matched; execution is allowed by the current static policy."

// Telemetry attribute keys, as reserved by the Safety Guard design for
// OpenTelemetry.
const (
	AttrScanID     = "tool.safety.scan_id"
	AttrDecision   = "tool.safety.decision"
	AttrRiskLevel  = "tool.safety.risk_level"
	AttrRuleID     = "tool.safety.rule_id"
	AttrBlocked    = "tool.safety.blocked"
	AttrSanitized  = "tool.safety.sanitized"
	AttrToolName   = "tool.safety.tool_name"
	AttrDurationMS = "tool.safety.duration_ms"
)

// Meta is what the caller knows about the scan besides its findings.
type Meta struct {
	// ScanID identifies the scan; a random UUID is used when empty.
	ScanID string
	// ToolName and Language are reported as given.
	ToolName string
	Language string
	// Start is when the scan began (the report's timestamp); the current
	// time is used when zero.
	Start time.Time
	// Elapsed is the scan's duration (elapsed_ms).
	Elapsed time.Duration
}

// Build aggregates findings into a report under policy. The findings are
// not modified; the report holds redacted copies, sorted by decision
// severity (deny first), then line, then rule ID, so that equal inputs give
// byte-equal reports.
//
// A nil policy applies no overrides and does not block reviews. A finding
// with a decision or risk level outside the known values is treated as deny
// / critical — a malformed plugin answer never weakens a scan — and keeps
// the original value in its metadata.
func Build(meta Meta, findings []sdk.Finding, policy *sdk.Policy) *sdk.SafetyReport {
	out := make([]sdk.Finding, 0, len(findings))
	sanitized := false
	for _, f := range findings {
		var o sdk.RuleOverride
		if policy != nil {
			o = policy.Rules[f.RuleID]
		}
		if o.Disabled {
			continue
		}
		g, redacted := clean(f, o)
		sanitized = sanitized || redacted
		out = append(out, g)
	}
	slices.SortStableFunc(out, compareFindings)

	decision, risk := sdk.Allow, sdk.RiskNone
	for _, f := range out {
		if f.Decision.Severity() > decision.Severity() {
			decision = f.Decision
		}
		if f.RiskLevel.Rank() > risk.Rank() {
			risk = f.RiskLevel
		}
	}
	blocked := decision == sdk.Deny ||
		(decision == sdk.NeedsHumanReview && policy != nil && policy.BlockOnReview)

	start := meta.Start
	if start.IsZero() {
		start = time.Now()
	}
	scanID := meta.ScanID
	if scanID == "" {
		scanID = uuid.NewString()
	}
	elapsed := ElapsedMS(meta.Elapsed)
	r := &sdk.SafetyReport{
		ScanID:    scanID,
		Timestamp: Timestamp(start),
		Decision:  decision,
		RiskLevel: risk,
		Findings:  out,
		ToolName:  meta.ToolName,
		Language:  meta.Language,
		ElapsedMS: elapsed,
		Sanitized: sanitized,
		Blocked:   blocked,
	}
	// The rule IDs in order of first appearance (SafetyReport.RuleIDs),
	// gathered on the stack: they are only joined below. Past a few
	// distinct IDs, RuleIDs (with its set) does it.
	var idBuf [8]string
	ids := idBuf[:0]
	for _, f := range out {
		if len(ids) == len(idBuf) {
			ids = r.RuleIDs()
			break
		}
		if !slices.Contains(ids, f.RuleID) {
			ids = append(ids, f.RuleID)
		}
	}
	if len(out) == 0 {
		r.Summary = SummaryAllow
	} else {
		r.Summary = "Decision " + string(decision) + " with " + string(risk) + " risk from rules: " + strings.Join(ids, ", ") + "."
	}
	r.TelemetryAttributes = map[string]any{
		AttrBlocked:    blocked,
		AttrDecision:   boxed(string(decision)),
		AttrDurationMS: elapsed,
		AttrRiskLevel:  boxed(string(risk)),
		AttrRuleID:     strings.Join(ids, ","),
		AttrSanitized:  sanitized,
		AttrScanID:     scanID,
		AttrToolName:   meta.ToolName,
	}
	return r
}

// compareFindings orders findings by decision severity (deny first), then
// line, then rule ID.
func compareFindings(a, b sdk.Finding) int {
	if sa, sb := a.Decision.Severity(), b.Decision.Severity(); sa != sb {
		return cmp.Compare(sb, sa)
	}
	if a.Line != b.Line {
		return cmp.Compare(a.Line, b.Line)
	}
	return strings.Compare(a.RuleID, b.RuleID)
}

// boxedValues holds the decision and risk-level strings already converted
// to interface values: storing a string in a map[string]any allocates its
// header on every scan, and these few values are in every report.
var boxedValues = func() map[string]any {
	m := map[string]any{}
	for _, d := range []sdk.Decision{sdk.Allow, sdk.NeedsHumanReview, sdk.Deny} {
		m[string(d)] = string(d)
	}
	for _, l := range []sdk.RiskLevel{sdk.RiskNone, sdk.RiskLow, sdk.RiskMedium, sdk.RiskHigh, sdk.RiskCritical} {
		m[string(l)] = string(l)
	}
	return m
}()

// boxed returns s as an interface value, shared for the known decisions
// and risk levels (see boxedValues).
func boxed(s string) any {
	if v, ok := boxedValues[s]; ok {
		return v
	}
	return s
}

// clean returns a copy of f with the override applied, malformed values
// made fail-closed, every quoted string redacted and evidence capped.
func clean(f sdk.Finding, o sdk.RuleOverride) (sdk.Finding, bool) {
	meta := make(map[string]any, len(f.Metadata))
	redacted := false
	for k, v := range f.Metadata {
		if rv, r := redactValue(v, 0); r {
			v, redacted = rv, true
		}
		meta[k] = v
	}
	if o.Decision != "" {
		f.Decision = o.Decision
	}
	if o.RiskLevel != "" {
		f.RiskLevel = o.RiskLevel
	}
	if !f.Decision.Valid() {
		meta["original_decision"] = string(f.Decision)
		f.Decision = sdk.Deny
	}
	if f.RiskLevel.Rank() < 0 {
		meta["original_risk_level"] = string(f.RiskLevel)
		f.RiskLevel = sdk.RiskCritical
	}
	f.Metadata = meta
	if f.Column != nil {
		c := *f.Column
		f.Column = &c
	}
	var r1, r2, r3 bool
	f.Evidence, r1 = secrets.Redact(f.Evidence)
	f.Message, r2 = redactText(f.Message)
	f.Recommendation, r3 = redactText(f.Recommendation)
	f.Evidence = Truncate(f.Evidence, MaxEvidenceBytes)
	return f, redacted || r1 || r2 || r3
}

// maxMetaDepth bounds how deep redactValue follows nested metadata; a
// container deeper than that is replaced whole (fail closed: a secret
// cannot hide below the bound).
const maxMetaDepth = 8

// redactValue redacts the secrets in a metadata value: a string, and the
// strings inside lists and objects at any depth (a plugin's metadata is
// JSON; native packs may use []string and map[string]string). It returns
// the value unchanged, and false, when nothing needed redacting, so a clean
// value is neither copied nor boxed again.
func redactValue(v any, depth int) (any, bool) {
	switch x := v.(type) {
	case string:
		if rs, r := secrets.Redact(x); r {
			return rs, true
		}
		return v, false
	case []any, map[string]any, []string, map[string]string:
		if depth >= maxMetaDepth {
			return "[REDACTED:nested_metadata]", true
		}
	default:
		return v, false
	}
	switch x := v.(type) {
	case []any:
		var out []any
		for i, e := range x {
			if re, r := redactValue(e, depth+1); r {
				if out == nil {
					out = append([]any(nil), x...)
				}
				out[i] = re
			}
		}
		if out != nil {
			return out, true
		}
	case []string:
		var out []string
		for i, e := range x {
			if re, r := secrets.Redact(e); r {
				if out == nil {
					out = append([]string(nil), x...)
				}
				out[i] = re
			}
		}
		if out != nil {
			return out, true
		}
	case map[string]any:
		var out map[string]any
		for k, e := range x {
			if re, r := redactValue(e, depth+1); r {
				if out == nil {
					out = make(map[string]any, len(x))
					for k2, e2 := range x {
						out[k2] = e2
					}
				}
				out[k] = re
			}
		}
		if out != nil {
			return out, true
		}
	case map[string]string:
		var out map[string]string
		for k, e := range x {
			if re, r := secrets.Redact(e); r {
				if out == nil {
					out = make(map[string]string, len(x))
					for k2, e2 := range x {
						out[k2] = e2
					}
				}
				out[k] = re
			}
		}
		if out != nil {
			return out, true
		}
	}
	return v, false
}

// Messages and recommendations are mostly the rules' fixed texts, the same
// on every scan that raises the rule; redacting them means scanning them
// for secrets each time. cleanTexts remembers texts Redact left unchanged
// (Redact is a pure function of its input), up to maxCleanTexts of at most
// maxCleanTextBytes each; past that, texts are scanned as before.
var (
	cleanTextsMu sync.RWMutex
	cleanTexts   = map[string]struct{}{}
)

const (
	maxCleanTexts     = 4096
	maxCleanTextBytes = 1024
)

// redactText is secrets.Redact for a message or recommendation, with the
// texts known to hold no secret skipped (see cleanTexts).
func redactText(s string) (string, bool) {
	if s == "" {
		return s, false
	}
	cleanTextsMu.RLock()
	_, clean := cleanTexts[s]
	full := len(cleanTexts) >= maxCleanTexts
	cleanTextsMu.RUnlock()
	if clean {
		return s, false
	}
	r, changed := secrets.Redact(s)
	if !changed && !full && len(s) <= maxCleanTextBytes {
		cleanTextsMu.Lock()
		if len(cleanTexts) < maxCleanTexts {
			// A copy: s may share a plugin's output buffer.
			cleanTexts[strings.Clone(s)] = struct{}{}
		}
		cleanTextsMu.Unlock()
	}
	return r, changed
}

// Truncate caps s at max bytes without splitting a UTF-8 sequence or a
// redaction marker, ending a shortened string with "…".
func Truncate(s string, max int) string {
	if len(s) <= max {
		return s
	}
	const ellipsis = "…"
	cut := max - len(ellipsis)
	if cut < 0 {
		cut = 0
	}
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	// Do not leave half a "[REDACTED:kind]" marker behind.
	if open := strings.LastIndexByte(s[:cut], '['); open >= 0 && strings.HasPrefix(s[open:], "[REDACTED:") &&
		!strings.Contains(s[open:cut], "]") {
		cut = open
	}
	return s[:cut] + ellipsis
}

// Timestamp formats t in UTC the way the Safety Guard's reports do
// (Python's isoformat): "2026-07-02T07:07:08.956049+00:00", with the
// fraction left out when it is zero ("1970-01-01T00:00:00+00:00").
func Timestamp(t time.Time) string {
	t = t.UTC()
	year, month, day := t.Date()
	if year < 0 || year > 9999 {
		if t.Nanosecond()/1000 == 0 {
			return t.Format("2006-01-02T15:04:05+00:00")
		}
		return t.Format("2006-01-02T15:04:05.000000+00:00")
	}
	// Written digit by digit: time.Format interprets its layout on every
	// call, and every report has a timestamp.
	hour, minute, sec := t.Clock()
	var b [32]byte
	n := 0
	put := func(v, digits int) {
		for i := digits - 1; i >= 0; i-- {
			b[n+i] = byte('0' + v%10)
			v /= 10
		}
		n += digits
	}
	sep := func(c byte) { b[n] = c; n++ }
	put(year, 4)
	sep('-')
	put(int(month), 2)
	sep('-')
	put(day, 2)
	sep('T')
	put(hour, 2)
	sep(':')
	put(minute, 2)
	sep(':')
	put(sec, 2)
	if us := t.Nanosecond() / 1000; us != 0 {
		sep('.')
		put(us, 6)
	}
	n += copy(b[n:], "+00:00")
	return string(b[:n])
}

// ElapsedMS converts a duration to milliseconds rounded to microseconds,
// the precision of elapsed_ms and tool.safety.duration_ms.
func ElapsedMS(d time.Duration) float64 {
	return math.Round(float64(d)/float64(time.Microsecond)) / 1000
}
