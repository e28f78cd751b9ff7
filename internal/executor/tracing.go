package executor

import (
	"context"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"
)

// TracerName is the instrumentation scope of the executor's spans.
const TracerName = "github.com/toolwarden/toolwarden/internal/executor"

// Span names of one execution's stages on the executor side, so a trace
// shows where the time between queue and result goes. The run span is the
// root of a run's spans (the claim happens outside any request); it carries
// the execution id to join it with the server's spans.
const (
	SpanRun          = "toolwarden.execution.run"
	SpanQueued       = "toolwarden.queue.wait"
	SpanRunnerStart  = "toolwarden.runner.start"
	SpanRunnerWait   = "toolwarden.runner.wait"
	SpanPartialClose = "toolwarden.partial.close"
	SpanResult       = "toolwarden.runner.result"
	SpanFinish       = "toolwarden.store.finish"
)

// startSpan starts a span of the executor's tracer; a no-op until the
// process installs an OpenTelemetry tracer provider.
func startSpan(ctx context.Context, name string, attrs ...attribute.KeyValue) (context.Context, trace.Span) {
	return otel.Tracer(TracerName).Start(ctx, name, trace.WithAttributes(attrs...))
}
