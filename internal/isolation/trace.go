package isolation

import (
	"context"

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
