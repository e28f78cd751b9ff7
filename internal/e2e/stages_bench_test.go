package e2e

import (
	"context"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/protobuf/proto"
)

// spanSink is an OTLP/HTTP trace receiver for one benchmark: it keeps the
// duration of every exported span by name.
type spanSink struct {
	mu  sync.Mutex
	by  map[string][]time.Duration
	srv *http.Server
	url string
}

// newSpanSink listens on a loopback port until the test binary exits.
func newSpanSink(b *testing.B) *spanSink {
	b.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	s := &spanSink{by: map[string][]time.Duration{}, url: "http://" + ln.Addr().String()}
	s.srv = &http.Server{Handler: http.HandlerFunc(s.serve), ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = s.srv.Serve(ln) }()
	atExit(func() { _ = s.srv.Close() })
	return s
}

func (s *spanSink) serve(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	var req coltracepb.ExportTraceServiceRequest
	if err != nil || proto.Unmarshal(body, &req) != nil {
		http.Error(w, "bad export", http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	for _, rs := range req.ResourceSpans {
		for _, ss := range rs.ScopeSpans {
			for _, sp := range ss.Spans {
				d := time.Duration(sp.EndTimeUnixNano - sp.StartTimeUnixNano)
				s.by[sp.Name] = append(s.by[sp.Name], d)
				// Stage timings a span carries as attributes (the
				// shim's isolation.shim.root_us, …) count as spans.
				for _, a := range sp.Attributes {
					if us, ok := strings.CutSuffix(a.Key, "_us"); ok {
						n := sp.Name + ":" + us
						s.by[n] = append(s.by[n], time.Duration(a.Value.GetIntValue())*time.Microsecond)
					}
				}
			}
		}
	}
	s.mu.Unlock()
	out, _ := proto.Marshal(&coltracepb.ExportTraceServiceResponse{})
	w.Header().Set("Content-Type", "application/x-protobuf")
	_, _ = w.Write(out)
}

// reset forgets the spans received so far (the server's start-up).
func (s *spanSink) reset() {
	s.mu.Lock()
	s.by = map[string][]time.Duration{}
	s.mu.Unlock()
}

// BenchmarkScanAndRunStages is BenchmarkScanAndRunEcho's request on a
// server that exports its OpenTelemetry spans to a receiver in the test,
// and reports the p50 of every span that occurred in at least half of the
// requests (metric "<span>-ms"): where a scan-and-run's time goes, stage by
// stage, inside the real `serve` process. Tracing costs some CPU itself,
// so the bar is taken from BenchmarkScanAndRunEcho, not from this one.
func BenchmarkScanAndRunStages(b *testing.B) {
	sink := newSpanSink(b)
	dir, err := os.MkdirTemp("", "toolwarden-e2e-bench-")
	if err != nil {
		b.Fatal(err)
	}
	_ = os.Chmod(dir, 0o755)
	atExit(func() { _ = os.RemoveAll(dir) })
	o := serverOpts{DataDir: filepath.Join(dir, "data"), Config: "executor_concurrency: 8\n",
		Env: []string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + sink.url, "OTEL_BSP_SCHEDULE_DELAY=200"}}
	s, err := launchServer(b, o, atExit)
	if err != nil {
		b.Fatal(err)
	}
	atExit(s.stop)
	// A few requests warm the server up (and its warm shim pool) first.
	for range 5 {
		if code, _, body, err := s.api.submit(context.Background(), "echo hi", 30); err != nil || code != http.StatusOK {
			b.Fatalf("echo hi: HTTP %d %v: %.300s", code, err, body)
		}
	}
	time.Sleep(500 * time.Millisecond)
	sink.reset()
	var l latencies
	for b.Loop() {
		start := time.Now()
		code, r, body, err := s.api.submit(context.Background(), "echo hi", 30)
		if err != nil || code != http.StatusOK || r.Status != "completed" || r.Result != "hi\n" {
			b.Fatalf("echo hi: HTTP %d %v status %q result %q: %.300s", code, err, r.Status, r.Result, body)
		}
		l.add(time.Since(start))
	}
	b.StopTimer()
	l.report(b)
	// The batcher exports every OTEL_BSP_SCHEDULE_DELAY.
	time.Sleep(time.Second)
	sink.mu.Lock()
	defer sink.mu.Unlock()
	names := make([]string, 0, len(sink.by))
	for n, d := range sink.by {
		if len(d) >= b.N/2 {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	for _, n := range names {
		var q latencies
		q.d = sink.by[n]
		unit := strings.NewReplacer("toolwarden.", "", "isolation.shim.", "", " ", "_", "/", "_").Replace(n) + "-ms"
		b.ReportMetric(ms(q.quantile(0.5)), unit)
	}
}
