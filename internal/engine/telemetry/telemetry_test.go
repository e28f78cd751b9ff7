package telemetry

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/toolwarden/toolwarden/internal/engine/report"
	"github.com/toolwarden/toolwarden/sdk"
)

func denyReport(id string) *sdk.SafetyReport {
	return report.Build(report.Meta{ScanID: id, ToolName: "example_bash_tool", Language: "bash",
		Start: time.Date(2026, 7, 2, 7, 7, 8, 956049000, time.UTC), Elapsed: 1054 * time.Microsecond},
		[]sdk.Finding{
			{RuleID: "FILE_SECRET_PATH_ACCESS", RiskLevel: sdk.RiskCritical, Decision: sdk.Deny, Line: 1},
			{RuleID: "BASH_SHELL_FEATURE_REVIEW", RiskLevel: sdk.RiskLow, Decision: sdk.NeedsHumanReview, Line: 1},
		}, nil)
}

func TestObserveSpan(t *testing.T) {
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	prev := otel.GetTracerProvider()
	otel.SetTracerProvider(tp)
	t.Cleanup(func() { otel.SetTracerProvider(prev) })

	ctx, parent := tp.Tracer("test").Start(context.Background(), "agent.tool_call")
	r := denyReport("scan-span")
	Observe(ctx, r)
	parent.End()

	var span sdktrace.ReadOnlySpan
	for _, s := range rec.Ended() {
		if s.Name() == SpanName {
			span = s
		}
	}
	if span == nil {
		t.Fatalf("no %s span among %d", SpanName, len(rec.Ended()))
	}
	if span.Parent().SpanID() != parent.SpanContext().SpanID() {
		t.Error("scan span is not a child of the span in ctx")
	}
	if d := span.EndTime().Sub(span.StartTime()); d != 1054*time.Microsecond {
		t.Errorf("span duration = %v, want 1.054ms", d)
	}
	if !span.StartTime().Equal(time.Date(2026, 7, 2, 7, 7, 8, 956049000, time.UTC)) {
		t.Errorf("span start = %v", span.StartTime())
	}
	got := map[attribute.Key]attribute.Value{}
	for _, kv := range span.Attributes() {
		got[kv.Key] = kv.Value
	}
	want := map[string]any{
		"tool.safety.scan_id":     "scan-span",
		"tool.safety.decision":    "deny",
		"tool.safety.risk_level":  "critical",
		"tool.safety.rule_id":     "FILE_SECRET_PATH_ACCESS,BASH_SHELL_FEATURE_REVIEW",
		"tool.safety.blocked":     true,
		"tool.safety.sanitized":   false,
		"tool.safety.tool_name":   "example_bash_tool",
		"tool.safety.duration_ms": 1.054,
	}
	if len(got) != len(want) {
		t.Errorf("span has %d attributes, want %d: %v", len(got), len(want), got)
	}
	for k, v := range want {
		if g, ok := got[attribute.Key(k)]; !ok || g.AsInterface() != v {
			t.Errorf("attribute %s = %v, want %v", k, g.AsInterface(), v)
		}
	}
}

func TestObserveMetrics(t *testing.T) {
	denyBefore := testutil.ToFloat64(scans.WithLabelValues("deny", "true"))
	ruleBefore := testutil.ToFloat64(findings.WithLabelValues("FILE_SECRET_PATH_ACCESS", "deny"))
	allowBefore := testutil.ToFloat64(scans.WithLabelValues("allow", "false"))

	Observe(context.Background(), denyReport("m1"))
	Observe(context.Background(), denyReport("m2"))
	Observe(context.Background(), report.Build(report.Meta{ScanID: "m3"}, nil, nil))
	Observe(context.Background(), nil)

	if d := testutil.ToFloat64(scans.WithLabelValues("deny", "true")) - denyBefore; d != 2 {
		t.Errorf("deny scans grew by %v, want 2", d)
	}
	if d := testutil.ToFloat64(scans.WithLabelValues("allow", "false")) - allowBefore; d != 1 {
		t.Errorf("allow scans grew by %v, want 1", d)
	}
	if d := testutil.ToFloat64(findings.WithLabelValues("FILE_SECRET_PATH_ACCESS", "deny")) - ruleBefore; d != 2 {
		t.Errorf("rule findings grew by %v, want 2", d)
	}
	n, err := testutil.GatherAndCount(Registry(), "toolwarden_scan_duration_seconds")
	if err != nil || n < 2 {
		t.Errorf("latency histogram series = %d, %v", n, err)
	}
	const exposition = `
# HELP toolwarden_findings_total Findings by rule ID and the finding's decision (after policy overrides).
# TYPE toolwarden_findings_total counter
`
	if err := testutil.GatherAndCompare(Registry(), strings.NewReader(exposition+
		"toolwarden_findings_total{decision=\"deny\",rule_id=\"FILE_SECRET_PATH_ACCESS\"} "+ftoa(ruleBefore+2)+"\n"+
		"toolwarden_findings_total{decision=\"needs_human_review\",rule_id=\"BASH_SHELL_FEATURE_REVIEW\"} "+
		ftoa(testutil.ToFloat64(findings.WithLabelValues("BASH_SHELL_FEATURE_REVIEW", "needs_human_review")))+"\n"),
		"toolwarden_findings_total"); err != nil {
		t.Error(err)
	}
}

func ftoa(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }
