package isolation

import (
	"context"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
)

// TracerName is the instrumentation scope of the run start-up spans
// (isolation.start and its stages), so an operator sees where the time of
// starting a run goes: cgroup setup, watchdog registration, the shim's
// namespace and root setup, exec. Without a tracer provider they cost
// nothing.
const TracerName = "github.com/toolwarden/toolwarden/internal/isolation"

var tracer = otel.Tracer(TracerName)

// startSpan opens one start-up stage span.
func startSpan(ctx context.Context, name string, attrs ...attribute.KeyValue) (context.Context, trace.Span) {
	return tracer.Start(ctx, name, trace.WithAttributes(attrs...))
}

// endSpan records err (if any) on span and ends it.
func endSpan(span trace.Span, err error) {
	if err != nil {
		span.RecordError(err)
		span.SetStatus(codes.Error, err.Error())
	}
	span.End()
}

// recordShimTimings puts the durations the shim measured inside the run
// (root build, confinement) on the span of ctx.
func recordShimTimings(ctx context.Context, timings map[string]int64) {
	span := trace.SpanFromContext(ctx)
	if !span.IsRecording() {
		return
	}
	for k, v := range timings {
		span.SetAttributes(attribute.Int64("isolation.shim."+k+"_us", v))
	}
}

// stageClock times consecutive stages for span attributes
// ("isolation.<stage>_us"); free when tracing is off but for the clock reads.
type stageClock struct {
	last   time.Time
	stages []attribute.KeyValue
}

// lap ends the stage called name, which began at the previous lap (or
// where the clock was set).
func (c *stageClock) lap(name string) {
	now := time.Now()
	c.stages = append(c.stages, attribute.Int64("isolation."+name+"_us", now.Sub(c.last).Microseconds()))
	c.last = now
}

// record puts the stages on span when it records.
func (c *stageClock) record(span trace.Span) {
	if span.IsRecording() {
		span.SetAttributes(c.stages...)
	}
}
