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
	"reflect"
	"slices"
	"sync"
	"sync/atomic"
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

// cachedTracer is the scan tracer of one tracer provider.
type cachedTracer struct {
	tp trace.TracerProvider
	t  trace.Tracer
}

var tracerCache atomic.Pointer[cachedTracer]

// scanTracer returns the tracer of the current global provider. Looking it
// up through otel.Tracer on every scan takes the provider's lock and a map
// lookup; the tracer is kept instead and looked up again whenever the
// global provider is replaced (a test's recorder, the service's exporter).
// Only providers held by pointer are cached, so comparing them can never
// panic on a non-comparable value.
func scanTracer() trace.Tracer {
	tp := otel.GetTracerProvider()
	if c := tracerCache.Load(); c != nil && c.tp == tp {
		return c.t
	}
	t := tp.Tracer(TracerName)
	if reflect.TypeOf(tp).Kind() == reflect.Pointer {
		tracerCache.Store(&cachedTracer{tp: tp, t: t})
	}
	return t
}

// spanKindInternal is the scan span's kind option, made once: converting
// it to an option interface allocates.
var spanKindInternal = trace.WithSpanKind(trace.SpanKindInternal)

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
	_, span := scanTracer().Start(ctx, SpanName, trace.WithTimestamp(start), spanKindInternal)
	// The attributes (a sorted copy of the report's map) are built only for
	// a span that records: with no tracer provider installed, or a sampler
	// that drops the trace, a scan pays nothing for them.
	if span.IsRecording() {
		span.SetAttributes(Attributes(r)...)
	}
	span.End(trace.WithTimestamp(start.Add(elapsed)))

	m := decisionMetricsFor(r.Decision)
	if r.Blocked {
		m.blocked.Inc()
	} else {
		m.passed.Inc()
	}
	m.seconds.Observe(elapsed.Seconds())
	for _, f := range r.Findings {
		findingCounter(f.RuleID, f.Decision).Inc()
	}
	if r.Sanitized {
		sanitized.Inc()
	}
}

// decisionMetrics are the children of scans and scanSeconds for one
// decision, looked up once: WithLabelValues hashes its labels and takes the
// vector's lock on every call, and every scan records these.
type decisionMetrics struct {
	blocked, passed prometheus.Counter
	seconds         prometheus.Observer
}

func newDecisionMetrics(d sdk.Decision) *decisionMetrics {
	return &decisionMetrics{
		blocked: scans.WithLabelValues(string(d), "true"),
		passed:  scans.WithLabelValues(string(d), "false"),
		seconds: scanSeconds.WithLabelValues(string(d)),
	}
}

var knownDecisionMetrics = [...]*decisionMetrics{
	newDecisionMetrics(sdk.Allow), newDecisionMetrics(sdk.NeedsHumanReview), newDecisionMetrics(sdk.Deny),
}

// decisionMetricsFor returns the metrics of decision d: the cached ones for
// the three decisions, a fresh lookup for anything else (report.Build never
// emits another, but Observe takes any report).
func decisionMetricsFor(d sdk.Decision) *decisionMetrics {
	switch d {
	case sdk.Allow:
		return knownDecisionMetrics[0]
	case sdk.NeedsHumanReview:
		return knownDecisionMetrics[1]
	case sdk.Deny:
		return knownDecisionMetrics[2]
	}
	return newDecisionMetrics(d)
}

// findingKey names one child of findings.
type findingKey struct {
	rule     string
	decision sdk.Decision
}

// findingCounters caches the children of findings by rule and decision, up
// to maxFindingCounters entries (the rules of the loaded packs make far
// fewer); past that, lookups go to the vector as before.
var (
	findingCounters     sync.Map // findingKey → prometheus.Counter
	findingCounterCount atomic.Int64
)

const maxFindingCounters = 4096

func findingCounter(rule string, d sdk.Decision) prometheus.Counter {
	k := findingKey{rule, d}
	if c, ok := findingCounters.Load(k); ok {
		return c.(prometheus.Counter)
	}
	c := findings.WithLabelValues(rule, string(d))
	if findingCounterCount.Load() < maxFindingCounters {
		if _, loaded := findingCounters.LoadOrStore(k, c); !loaded {
			findingCounterCount.Add(1)
		}
	}
	return c
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
