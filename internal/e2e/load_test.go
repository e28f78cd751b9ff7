package e2e

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/toolwarden/toolwarden/internal/loadgen"
)

// loadConns is the number of client connections (and requests in flight)
// of the load generator, as in the throughput bar.
const loadConns = 16

// drive sends n requests made by mk(i) over loadConns keep-alive
// connections (loadgen.Drive); a request that did not answer 200 fails the
// benchmark.
func drive(b *testing.B, hc *http.Client, n int, mk func(i int) *http.Request) *loadgen.Result {
	b.Helper()
	res, err := loadgen.Drive(hc, n, loadConns, mk)
	if err != nil {
		b.Error(err)
	}
	return res
}

// BenchmarkScanVsHealthz is the load test of the HTTP path: b.N requests
// of GET /healthz, then b.N of POST /v1/scan of unique short commands
// (every body differs, so nothing can be served from a cache), both from
// loadConns connections against the same server in one run. It reports both
// throughputs, their ratio (scan-x-healthz; the bar is ≥ 0.5) and the
// latency quantiles of each (the bars: scan p99 ≤ 20 ms, and not 10× its p50).
// The generator runs in the test process and shares the cores with the
// server, as wrk on the same host would.
func BenchmarkScanVsHealthz(b *testing.B) {
	s := benchServer(b, "scan")
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = loadConns
	tr.MaxConnsPerHost = loadConns
	hc := &http.Client{Timeout: time.Minute, Transport: tr}
	auth := "Bearer " + s.api.key
	healthz := func(int) *http.Request {
		req, _ := http.NewRequestWithContext(context.Background(), http.MethodGet, s.api.base+"/healthz", nil)
		return req
	}
	var round atomic.Int64
	scan := func(i int) *http.Request {
		// A short agent command (≤ 100 bytes), unique per request and round.
		body := fmt.Sprintf(`{"tool_name":"exec","command":"cd /workspace/p%d && ls -la src/ && grep -rn TODO%d src/ | head -n 20"}`,
			round.Load(), i)
		req, _ := http.NewRequestWithContext(context.Background(), http.MethodPost, s.api.base+"/v1/scan", bytes.NewReader([]byte(body)))
		req.Header.Set("Authorization", auth)
		req.Header.Set("Content-Type", "application/json")
		return req
	}
	// Warm the connections and the rule-plugin pools.
	round.Store(-1)
	drive(b, hc, 4*loadConns, scan)
	drive(b, hc, 4*loadConns, healthz)
	round.Store(int64(b.N))
	b.ResetTimer()
	h := drive(b, hc, b.N, healthz)
	sc := drive(b, hc, b.N, scan)
	b.StopTimer()
	b.ReportMetric(h.PerSecond(), "healthz-req/s")
	b.ReportMetric(sc.PerSecond(), "scan-req/s")
	b.ReportMetric(sc.PerSecond()/h.PerSecond(), "scan-x-healthz")
	b.ReportMetric(ms(h.Quantile(0.50)), "healthz-p50-ms")
	b.ReportMetric(ms(h.Quantile(0.99)), "healthz-p99-ms")
	b.ReportMetric(ms(sc.Quantile(0.50)), "scan-p50-ms")
	b.ReportMetric(ms(sc.Quantile(0.99)), "scan-p99-ms")
	b.ReportMetric(float64(sc.Quantile(0.99))/float64(sc.Quantile(0.50)), "scan-p99-x-p50")
}
