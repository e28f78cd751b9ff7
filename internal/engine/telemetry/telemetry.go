// Package telemetry publishes every scan to the two observability systems an
// operator already runs: an OpenTelemetry span carrying the report's
// tool.safety.* attributes (so a scan shows up inside the agent's trace),
// and Prometheus metrics (scans by decision, scan latency, findings by
// rule) served on /metrics.
//
// Observability never changes a decision: Observe has no error to return
// and cannot block or fail a scan.
package telemetry

import (
	"context"
	"slices"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/toolwarden/toolwarden/sdk"
)

// TracerName is the instrumentation scope of the scan spans.
const TracerName = "github.com/toolwarden/toolwarden/internal/engine/telemetry"

// SpanName names the span of one scan.
const SpanName = "toolwarden.scan"

var (
	registry = prometheus.NewRegistry()

	scans = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "toolwarden_scans_total",
		Help: "Scans by decision and whether the call was blocked.",
	}, []string{"decision", "blocked"})

	scanSeconds = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name: "toolwarden_scan_duration_seconds",
		Help: "Time to scan one request, from analysis to report.",
		// Native analysis takes tens of microseconds; a cold Wasm pool or
		// a long script takes milliseconds; anything near a second is a
		// problem worth seeing.
		Buckets: []float64{0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1},
	}, []string{"decision"})

	findings = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "toolwarden_findings_total",
		Help: "Findings by rule ID and the finding's decision (after policy overrides).",
	}, []string{"rule_id", "decision"})

	sanitized = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "toolwarden_scans_sanitized_total",
		Help: "Scans whose report had secrets redacted from evidence.",
	})

	quarantined = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "toolwarden_rule_instances_quarantined_total",
		Help: "Instances of built-in rule packs abandoned at a call deadline while still running (the scan failed closed).",
	}, []string{"plugin"})
)

func init() {
	registry.MustRegister(scans, scanSeconds, findings, sanitized, quarantined,
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
}

// Registry returns the registry that holds toolwarden's metrics, for the
// server's /metrics handler. Other components register their own metrics
// in it so one endpoint serves them all.
func Registry() *prometheus.Registry { return registry }

// RuleInstanceQuarantined counts one quarantined rule-pack instance of
// plugin: a built-in pack, which runs without the interrupt check, overran
// its deadline; see wasmhost.Host.LoadBounded.
func RuleInstanceQuarantined(plugin string) { quarantined.WithLabelValues(plugin).Inc() }

// Observe records one scan: a span named SpanName under the span in ctx
// (if any), timed from the report's timestamp over its elapsed_ms and
// carrying its tool.safety.* attributes, and the Prometheus metrics. The
// span goes to the global OpenTelemetry tracer provider, a no-op until the
// service installs one. A nil report is ignored.
func Observe(ctx context.Context, r *sdk.SafetyReport) {
	if r == nil {
		return
	}
	if ctx == nil {
		ctx = context.Background()
	}
	elapsed := time.Duration(r.ElapsedMS * float64(time.Millisecond))
	start, err := time.Parse(time.RFC3339Nano, r.Timestamp)
	if err != nil {
		start = time.Now().Add(-elapsed)
	}
	_, span := otel.Tracer(TracerName).Start(ctx, SpanName,
		trace.WithTimestamp(start),
		trace.WithSpanKind(trace.SpanKindInternal))
	// The attributes (a sorted copy of the report's map) are built only for
	// a span that records: with no tracer provider installed, or a sampler
	// that drops the trace, a scan pays nothing for them.
	if span.IsRecording() {
		span.SetAttributes(Attributes(r)...)
	}
	span.End(trace.WithTimestamp(start.Add(elapsed)))

	blocked := "false"
	if r.Blocked {
		blocked = "true"
	}
	scans.WithLabelValues(string(r.Decision), blocked).Inc()
	scanSeconds.WithLabelValues(string(r.Decision)).Observe(elapsed.Seconds())
	for _, f := range r.Findings {
		findings.WithLabelValues(f.RuleID, string(f.Decision)).Inc()
	}
	if r.Sanitized {
		sanitized.Inc()
	}
}

// Attributes converts the report's telemetry_attributes into span
// attributes, keeping their types (bool, string, float64) and sorting them
// by key for a stable order.
func Attributes(r *sdk.SafetyReport) []attribute.KeyValue {
	keys := make([]string, 0, len(r.TelemetryAttributes))
	for k := range r.TelemetryAttributes {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	out := make([]attribute.KeyValue, 0, len(keys))
	for _, k := range keys {
		switch v := r.TelemetryAttributes[k].(type) {
		case bool:
			out = append(out, attribute.Bool(k, v))
		case string:
			out = append(out, attribute.String(k, v))
		case float64:
			out = append(out, attribute.Float64(k, v))
		case int:
			out = append(out, attribute.Int(k, v))
		case int64:
			out = append(out, attribute.Int64(k, v))
		}
	}
	return out
}
