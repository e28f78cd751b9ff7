package executor

import (
	"context"
	"slices"
	"testing"
	"time"

	"go.opentelemetry.io/otel"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/toolwarden/toolwarden/internal/execution"
)

// BenchmarkStagesEcho runs `echo hi` from Create to the waiter's wake-up on
// the embedded store with the real isolation backend, with an OpenTelemetry
// span recorder installed, and reports the p50 of every stage span (ms):
// the executor's run, queue wait (create → claim), runner start (isolation
// Start: cgroup, shim, namespaces, exec), runner wait (the workload and
// its cleanup), store finish, and — measured here — store create and the
// waiter's wake-up after finish. This is the per-stage breakdown of the
// scan-and-run figures in BENCHMARKS-e2e.md (the scan and HTTP parts are
// measured there).
func BenchmarkStagesEcho(b *testing.B) {
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	prev := otel.GetTracerProvider()
	otel.SetTracerProvider(tp)
	defer otel.SetTracerProvider(prev)

	store := openEmbedded(b, 3*time.Second)
	cfg := fastConfig()
	cfg.Concurrency = 1
	cfg.Logger = discardLogger()
	start(b, store, openIso(b), cfg)
	ws := workspace(b)
	var create, wake, total []time.Duration
	var woken []time.Time // when each Wait returned, in run order
	for b.Loop() {
		t0 := time.Now()
		r := &execution.Record{ToolName: "exec", ConversationID: "conv-bench", Language: "bash", Content: "echo hi", Cwd: ws}
		if err := store.Create(context.Background(), r); err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		got, done, err := execution.Wait(context.Background(), store, r.ExecutionID, 30*time.Second)
		t2 := time.Now()
		if err != nil || !done || got.Status != execution.StatusCompleted || got.Result != "hi\n" {
			b.Fatalf("echo hi: done=%v %v %+v", done, err, got)
		}
		create = append(create, t1.Sub(t0))
		total = append(total, t2.Sub(t0))
		woken = append(woken, t2)
	}
	b.StopTimer()
	_ = tp.ForceFlush(context.Background())
	by := map[string][]time.Duration{}
	var finishes []time.Time
	for _, s := range rec.Ended() {
		by[s.Name()] = append(by[s.Name()], s.EndTime().Sub(s.StartTime()))
		if s.Name() == SpanFinish {
			finishes = append(finishes, s.EndTime())
		}
	}
	// Runs are one at a time, so the i-th finish belongs to the i-th wait.
	slices.SortFunc(finishes, func(a, b time.Time) int { return a.Compare(b) })
	if len(finishes) == len(woken) {
		for i := range woken {
			wake = append(wake, woken[i].Sub(finishes[i]))
		}
	}
	report := func(unit string, d []time.Duration) {
		if len(d) == 0 {
			return
		}
		slices.Sort(d)
		b.ReportMetric(float64(d[len(d)/2])/float64(time.Millisecond), unit)
	}
	report("total-ms", total)
	report("create-ms", create)
	report("wake-after-finish-ms", wake)
	for name, unit := range map[string]string{
		SpanQueued: "queue-wait-ms", SpanRunnerStart: "runner-start-ms", SpanRunnerWait: "runner-wait-ms",
		SpanFinish: "finish-ms", SpanRun: "run-span-ms", SpanPartialClose: "partial-close-ms", SpanResult: "result-ms",
	} {
		report(unit, by[name])
	}
}
