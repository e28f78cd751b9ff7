package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"
)

// End-to-end benchmarks over real processes. Each reports p50-ms and
// p99-ms of one request as the client sees it; scan-and-run also reports
// its p50 as a multiple of a bare os/exec of the same command (x-bare-p50)
// and the p50 of its two big parts (scan-p50-ms from the report's
// elapsed_ms, run-p50-ms from the record's duration_ms), and the scan
// benchmark its throughput (req/s) with 16 requests in flight.
// Numbers and the machine they came from are in BENCHMARKS-e2e.md.

// latencies collects per-request durations from many goroutines.
type latencies struct {
	mu sync.Mutex
	d  []time.Duration
}

func (l *latencies) add(d time.Duration) {
	l.mu.Lock()
	l.d = append(l.d, d)
	l.mu.Unlock()
}

// quantile returns the q-quantile (0..1) by nearest rank.
func (l *latencies) quantile(q float64) time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.d) == 0 {
		return 0
	}
	s := slices.Clone(l.d)
	slices.Sort(s)
	i := int(q*float64(len(s)) + 0.5)
	if i >= len(s) {
		i = len(s) - 1
	}
	if i > 0 && q < 1 {
		i--
	}
	return s[i]
}

// report adds p50-ms and p99-ms to b.
func (l *latencies) report(b *testing.B) {
	b.ReportMetric(ms(l.quantile(0.50)), "p50-ms")
	b.ReportMetric(ms(l.quantile(0.99)), "p99-ms")
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

var (
	benchServers   = map[string]*server{}
	benchServersMu sync.Mutex
	bareOnce       sync.Once
	bareP50        time.Duration
)

// benchServer returns a serve process shared by every call of the
// benchmarks (stopped by TestMain): "embedded", "redis" (embedded executor
// on the test Redis) or "scan" (embedded store, no executor).
func benchServer(b *testing.B, kind string) *server {
	b.Helper()
	benchServersMu.Lock()
	defer benchServersMu.Unlock()
	if s, ok := benchServers[kind]; ok {
		return s
	}
	dir, err := os.MkdirTemp("", "toolwarden-e2e-bench-")
	if err != nil {
		b.Fatalf("temp dir: %v", err)
	}
	_ = os.Chmod(dir, 0o755)
	atExit(func() { _ = os.RemoveAll(dir) })
	o := serverOpts{DataDir: filepath.Join(dir, "data"), Config: "executor_concurrency: 8\n"}
	switch kind {
	case "redis":
		c, err := probeRedis()
		if err != nil {
			need(b, err.Error())
		}
		o.RedisURL, o.RedisPrefix = redisURL(), "twe2e:bench:"+randHex(6)+":"
		atExit(func() { deletePrefix(c, o.RedisPrefix) })
	case "scan":
		o.NoExecutor = true
	}
	s, err := launchServer(b, o, atExit)
	if err != nil {
		b.Fatal(err)
	}
	atExit(s.stop)
	benchServers[kind] = s
	return s
}

// bareExecP50 measures the p50 of exec.Command("echo", "hi") once.
func bareExecP50(b *testing.B) time.Duration {
	bareOnce.Do(func() {
		var l latencies
		for i := 0; i < 200; i++ {
			start := time.Now()
			if out, err := exec.Command("echo", "hi").Output(); err != nil || string(out) != "hi\n" {
				b.Fatalf("echo hi: %q %v", out, err)
			}
			l.add(time.Since(start))
		}
		bareP50 = l.quantile(0.5)
	})
	return bareP50
}

// bwrapArgs is the reference sandbox of the scan-and-run bar: bubblewrap
// with every namespace unshared, the host read-only, a private /dev,
// /proc and /tmp, running `echo hi`.
var bwrapArgs = []string{"--unshare-all", "--die-with-parent", "--ro-bind", "/", "/", "--dev", "/dev",
	"--proc", "/proc", "--tmpfs", "/tmp", "/bin/echo", "hi"}

// bwrapPath is where the reference sandbox is looked for.
const bwrapPath = "/usr/bin/bwrap"

// bwrapEcho runs the reference sandbox once and returns how long it took.
func bwrapEcho() (time.Duration, error) {
	start := time.Now()
	out, err := exec.Command(bwrapPath, bwrapArgs...).Output()
	if err != nil || string(out) != "hi\n" {
		return 0, fmt.Errorf("bwrap echo hi: %q %v", out, err)
	}
	return time.Since(start), nil
}

// BenchmarkBwrapEcho is the reference sandbox alone: bubblewrap running
// `echo hi` with the arguments of the scan-and-run bar.
func BenchmarkBwrapEcho(b *testing.B) {
	if _, err := os.Stat(bwrapPath); err != nil {
		b.Skipf("no %s: %v", bwrapPath, err)
	}
	var l latencies
	for b.Loop() {
		d, err := bwrapEcho()
		if err != nil {
			b.Fatal(err)
		}
		l.add(d)
	}
	l.report(b)
}

// BenchmarkBareExecEcho is the floor: os/exec of `echo hi` without toolwarden.
func BenchmarkBareExecEcho(b *testing.B) {
	var l latencies
	for b.Loop() {
		start := time.Now()
		if out, err := exec.Command("echo", "hi").Output(); err != nil || string(out) != "hi\n" {
			b.Fatalf("echo hi: %q %v", out, err)
		}
		l.add(time.Since(start))
	}
	l.report(b)
}

// BenchmarkScanAndRunEcho posts `echo hi` to POST /v1/executions, one at a
// time, and waits for the result in the same call: scan, record, queue,
// claim, isolated run, reduction and the bounded wait's wake-up. Each
// request follows one run of the bwrap reference (bwrapArgs), so the ratio
// x-bwrap-p50 compares p50s taken side by side under the same load.
func BenchmarkScanAndRunEcho(b *testing.B) {
	for _, kind := range []string{"embedded", "redis"} {
		b.Run(kind, func(b *testing.B) {
			s := benchServer(b, kind)
			bare := bareExecP50(b)
			_, bwrapErr := os.Stat(bwrapPath)
			if bwrapErr == nil {
				// bwrap must work here before it is interleaved below.
				_, bwrapErr = bwrapEcho()
			}
			if bwrapErr != nil {
				b.Logf("no bwrap reference: %v", bwrapErr)
			}
			var l, scan, run, bwrap latencies
			var legs [4]latencies
			for b.Loop() {
				if bwrapErr == nil {
					// The reference runs right before each request, so
					// both see the same load on a shared machine.
					d, err := bwrapEcho()
					if err != nil {
						b.Fatal(err)
					}
					bwrap.add(d)
				}
				start := time.Now()
				code, r, body, err := s.api.submit(context.Background(), "echo hi", 30)
				if err != nil || code != http.StatusOK || r.Status != "completed" || r.Result != "hi\n" {
					b.Fatalf("echo hi: HTTP %d %v status %q result %q: %.300s", code, err, r.Status, r.Result, body)
				}
				end := time.Now()
				l.add(end.Sub(start))
				var rep struct {
					ElapsedMS float64 `json:"elapsed_ms"`
				}
				_ = json.Unmarshal(r.SafetyReport, &rep)
				scan.add(time.Duration(rep.ElapsedMS * float64(time.Millisecond)))
				run.add(time.Duration(r.DurationMS) * time.Millisecond)
				// The record's own times (same clock: one host) split the
				// request into its legs.
				var at struct {
					Created time.Time  `json:"created_at"`
					Started *time.Time `json:"started_at"`
					Ended   *time.Time `json:"ended_at"`
				}
				if json.Unmarshal(body, &at) == nil && at.Started != nil && at.Ended != nil {
					legs[0].add(at.Created.Sub(start))
					legs[1].add(at.Started.Sub(at.Created))
					legs[2].add(at.Ended.Sub(*at.Started))
					legs[3].add(end.Sub(*at.Ended))
				}
			}
			l.report(b)
			b.ReportMetric(float64(l.quantile(0.5))/float64(bare), "x-bare-p50")
			if bw := bwrap.quantile(0.5); bw > 0 {
				// The bar: scan-and-run p50 ≤ 2× bwrap's, side by side.
				b.ReportMetric(ms(bw), "bwrap-p50-ms")
				b.ReportMetric(float64(l.quantile(0.5))/float64(bw), "x-bwrap-p50")
			}
			// Where the time goes: the scan as the report measures it, and
			// the run from start to end as the executor records it.
			b.ReportMetric(ms(scan.quantile(0.5)), "scan-p50-ms")
			b.ReportMetric(ms(run.quantile(0.5)), "run-p50-ms")
			// request → created_at (HTTP, auth, scan, record), created_at →
			// started_at (queue and claim), started_at → ended_at (workspace,
			// isolated run, result), ended_at → response (finish commit,
			// the waiter's wake-up, HTTP).
			for i, name := range []string{"to-created", "queued", "started-to-ended", "ended-to-response"} {
				b.ReportMetric(ms(legs[i].quantile(0.5)), name+"-p50-ms")
			}
		})
	}
}

// BenchmarkScanThroughput drives POST /v1/scan with 16 requests in flight
// (a load generator inside the test process, sharing the machine's cores
// with the server) and reports requests per second and latency quantiles.
func BenchmarkScanThroughput(b *testing.B) {
	s := benchServer(b, "scan")
	body := map[string]any{
		"tool_name": "exec",
		"command":   "cd /workspace/project && ls -la src/ && grep -rn TODO src/ | head -n 20 > todo.txt; git status --short",
	}
	// Warm the rule-plugin pools so the first round does not pay compiles.
	for i := 0; i < 16; i++ {
		if code, out, err := s.api.do(context.Background(), http.MethodPost, "/v1/scan", body); err != nil || code != http.StatusOK {
			b.Fatalf("scan: HTTP %d %v: %.300s", code, err, out)
		}
	}
	const inFlight = 16
	var l latencies
	b.ResetTimer()
	start := time.Now()
	work := make(chan struct{})
	var wg sync.WaitGroup
	var failed sync.Once
	for w := 0; w < inFlight; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range work {
				t0 := time.Now()
				code, out, err := s.api.do(context.Background(), http.MethodPost, "/v1/scan", body)
				l.add(time.Since(t0))
				var rep struct {
					Decision string `json:"decision"`
				}
				if err != nil || code != http.StatusOK || json.Unmarshal(out, &rep) != nil || rep.Decision == "" {
					failed.Do(func() { b.Errorf("scan: HTTP %d %v: %.300s", code, err, out) })
				}
			}
		}()
	}
	for i := 0; i < b.N; i++ {
		work <- struct{}{}
	}
	close(work)
	wg.Wait()
	elapsed := time.Since(start)
	b.StopTimer()
	l.report(b)
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "req/s")
}

// BenchmarkScanSequential is /v1/scan one request at a time: the latency of
// a scan without queueing behind other requests.
func BenchmarkScanSequential(b *testing.B) {
	s := benchServer(b, "scan")
	body := map[string]any{
		"tool_name": "exec",
		"command":   "cd /workspace/project && ls -la src/ && grep -rn TODO src/ | head -n 20 > todo.txt; git status --short",
	}
	var l latencies
	for b.Loop() {
		t0 := time.Now()
		code, out, err := s.api.do(context.Background(), http.MethodPost, "/v1/scan", body)
		l.add(time.Since(t0))
		if err != nil || code != http.StatusOK {
			b.Fatalf("scan: HTTP %d %v: %.300s", code, err, out)
		}
	}
	l.report(b)
}
