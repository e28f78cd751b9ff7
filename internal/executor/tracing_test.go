package executor

import (
	"context"
	"testing"
	"time"

	"go.opentelemetry.io/otel"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/toolwarden/toolwarden/internal/execution"
)

// TestIsolationSpansJoinTheRunTrace: the isolation backend's start and reap
// spans are children of the executor's runner.start span (one trace per
// run), so an operator sees the shim's and the reap's stages under the run
// they belong to.
func TestIsolationSpansJoinTheRunTrace(t *testing.T) {
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	prev := otel.GetTracerProvider()
	otel.SetTracerProvider(tp)
	defer otel.SetTracerProvider(prev)

	store := openEmbedded(t, 3*time.Second)
	cfg := fastConfig()
	cfg.Logger = discardLogger()
	start(t, store, openIso(t), cfg)
	r := &execution.Record{ToolName: "exec", ConversationID: "conv-trace", Language: "bash", Content: "echo hi", Cwd: workspace(t)}
	if err := store.Create(context.Background(), r); err != nil {
		t.Fatal(err)
	}
	got, done, err := execution.Wait(context.Background(), store, r.ExecutionID, 30*time.Second)
	if err != nil || !done || got.Status != execution.StatusCompleted {
		t.Fatalf("echo hi: done=%v %v %+v", done, err, got)
	}
	_ = tp.ForceFlush(context.Background())
	var runnerStart, isoStart, reap sdktrace.ReadOnlySpan
	for _, s := range rec.Ended() {
		switch s.Name() {
		case SpanRunnerStart:
			runnerStart = s
		case "isolation.start":
			isoStart = s
		case "isolation.reap":
			reap = s
		}
	}
	if runnerStart == nil || isoStart == nil || reap == nil {
		t.Fatalf("spans: runner.start %v, isolation.start %v, isolation.reap %v", runnerStart != nil, isoStart != nil, reap != nil)
	}
	for _, s := range []sdktrace.ReadOnlySpan{isoStart, reap} {
		if s.Parent().SpanID() != runnerStart.SpanContext().SpanID() || s.SpanContext().TraceID() != runnerStart.SpanContext().TraceID() {
			t.Fatalf("%s (trace %s, parent %s) is not a child of runner.start (trace %s, span %s)", s.Name(),
				s.SpanContext().TraceID(), s.Parent().SpanID(), runnerStart.SpanContext().TraceID(), runnerStart.SpanContext().SpanID())
		}
	}
}
