//go:build unix

package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/toolwarden/toolwarden/internal/loadgen"
)

// serveLoadConns is the load generator's number of keep-alive connections
// (and requests in flight), as in the HTTP bar of the scan-speed issue.
const serveLoadConns = 16

// BenchmarkServeScanLoad is e2e's BenchmarkScanVsHealthz in one process:
// `toolwarden serve --no-executor` (embedded store, scan log, audit log,
// web panel, MCP mount: the real wiring) runs in the test binary, so
// -cpuprofile, -mutexprofile and -blockprofile see the server's side of
// the load. b.N requests of GET /healthz, then b.N of POST /v1/scan of
// unique short commands, each from serveLoadConns connections; reported
// like the e2e benchmark (throughputs, their ratio, quantiles).
func BenchmarkServeScanLoad(b *testing.B) {
	dir := b.TempDir()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	cfgPath := filepath.Join(dir, "serve.yaml")
	if err := os.WriteFile(cfgPath, []byte("rate_per_second: 1000000\nrate_burst: 1000000\n"), 0o600); err != nil {
		b.Fatal(err)
	}
	key := "tw_bench_0123456789abcdef0123456789abcdef"
	b.Setenv("TOOLWARDEN_ADMIN_KEY", key)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		root := newRoot()
		root.SetArgs([]string{"serve", "--no-executor", "--listen", addr, "--data-dir", filepath.Join(dir, "data"), "--config", cfgPath})
		root.SetOut(io.Discard)
		done <- root.ExecuteContext(ctx)
	}()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			b.Errorf("serve: %v", err)
		}
	}()
	base := "http://" + addr
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = serveLoadConns
	tr.MaxConnsPerHost = serveLoadConns
	hc := &http.Client{Timeout: time.Minute, Transport: tr}
	for start := time.Now(); ; time.Sleep(20 * time.Millisecond) {
		resp, err := hc.Get(base + "/readyz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				break
			}
		}
		select {
		case err := <-done:
			b.Fatalf("serve exited: %v", err)
		default:
		}
		if time.Since(start) > 2*time.Minute {
			b.Fatalf("serve not ready: %v", err)
		}
	}
	healthz := func(int) *http.Request {
		req, _ := http.NewRequest(http.MethodGet, base+"/healthz", nil)
		return req
	}
	var round atomic.Int64
	scan := func(i int) *http.Request {
		body := fmt.Sprintf(`{"tool_name":"exec","command":"cd /workspace/p%d && ls -la src/ && grep -rn TODO%d src/ | head -n 20"}`,
			round.Load(), i)
		req, _ := http.NewRequest(http.MethodPost, base+"/v1/scan", bytes.NewReader([]byte(body)))
		req.Header.Set("Authorization", "Bearer "+key)
		req.Header.Set("Content-Type", "application/json")
		return req
	}
	round.Store(-1)
	serveLoad(b, hc, 4*serveLoadConns, scan)
	serveLoad(b, hc, 4*serveLoadConns, healthz)
	round.Store(int64(b.N))
	b.ResetTimer()
	c0 := processCPU(b)
	h := serveLoad(b, hc, b.N, healthz)
	c1 := processCPU(b)
	sc := serveLoad(b, hc, b.N, scan)
	c2 := processCPU(b)
	b.StopTimer()
	// CPU time per request (server and client, as with wrk on the same
	// host) depends far less on other jobs than wall time does: its ratio
	// is the throughput ratio two otherwise idle cores would give.
	b.ReportMetric(float64((c1-c0).Microseconds())/float64(b.N), "healthz-cpu-us")
	b.ReportMetric(float64((c2-c1).Microseconds())/float64(b.N), "scan-cpu-us")
	b.ReportMetric(float64(c1-c0)/float64(c2-c1), "cpu-scan-x-healthz")
	b.ReportMetric(h.PerSecond(), "healthz-req/s")
	b.ReportMetric(sc.PerSecond(), "scan-req/s")
	b.ReportMetric(sc.PerSecond()/h.PerSecond(), "scan-x-healthz")
	b.ReportMetric(msOf(h.Quantile(0.50)), "healthz-p50-ms")
	b.ReportMetric(msOf(h.Quantile(0.99)), "healthz-p99-ms")
	b.ReportMetric(msOf(sc.Quantile(0.50)), "scan-p50-ms")
	b.ReportMetric(msOf(sc.Quantile(0.99)), "scan-p99-ms")
	b.ReportMetric(float64(sc.Quantile(0.99))/float64(sc.Quantile(0.50)), "scan-p99-x-p50")
	b.ReportMetric(scanLogDropped(b, hc, base, key), "scanlog-dropped")
	// The shape of the tail, for both routes: a /healthz tail as long
	// as the scan's (relative to its p50) points at the machine, not
	// the scan path.
	for _, r := range []struct {
		name string
		res  *loadgen.Result
	}{{"healthz", h}, {"scan", sc}} {
		b.Logf("%s latency: p50 %v p90 %v p95 %v p99 %v p99.9 %v max %v", r.name, r.res.Quantile(0.5), r.res.Quantile(0.9),
			r.res.Quantile(0.95), r.res.Quantile(0.99), r.res.Quantile(0.999), r.res.Quantile(1))
	}
}

// scanLogDropped sums toolwarden_scanlog_dropped_total from /metrics: scan
// log entries the server could not store while the load ran.
func scanLogDropped(b *testing.B, hc *http.Client, base, key string) float64 {
	req, _ := http.NewRequest(http.MethodGet, base+"/metrics", nil)
	req.Header.Set("Authorization", "Bearer "+key)
	resp, err := hc.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	total := 0.0
	for _, line := range strings.Split(string(body), "\n") {
		if rest, ok := strings.CutPrefix(line, "toolwarden_scanlog_dropped_total{"); ok {
			if _, v, ok := strings.Cut(rest, "} "); ok {
				f, _ := strconv.ParseFloat(v, 64)
				total += f
			}
		}
	}
	return total
}

// processCPU is the user and system CPU time this process has used.
func processCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func msOf(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// serveLoad sends n requests made by mk over serveLoadConns connections
// (loadgen.Drive); a request that did not answer 200 fails the benchmark.
func serveLoad(b *testing.B, hc *http.Client, n int, mk func(int) *http.Request) *loadgen.Result {
	b.Helper()
	res, err := loadgen.Drive(hc, n, serveLoadConns, mk)
	if err != nil {
		b.Error(err)
	}
	return res
}
