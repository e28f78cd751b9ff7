// Package loadgen is the HTTP load generator of toolwarden's load
// benchmarks: a fixed number of keep-alive connections, each sending the
// next of n requests as soon as its previous one answered, as wrk does. It
// lives in the test process, so the benchmarks that use it (e2e's
// BenchmarkScanVsHealthz against a serve process, cmd/toolwarden's
// BenchmarkServeScanLoad against serve in-process, for profiles) measure two
// routes of one server side by side with the same client.
package loadgen

import (
	"fmt"
	"io"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// Result is one phase of load: how many requests, how long they took in
// all, and the latency of each.
type Result struct {
	// N is the number of requests sent.
	N int
	// Elapsed is the wall time from the first request to the last answer.
	Elapsed time.Duration

	mu  sync.Mutex
	lat []time.Duration
}

// PerSecond is the throughput of the phase.
func (r *Result) PerSecond() float64 { return float64(r.N) / r.Elapsed.Seconds() }

// Quantile is the nearest-rank q-quantile (0..1) of the latencies; 0 when
// there are none.
func (r *Result) Quantile(q float64) time.Duration {
	r.mu.Lock()
	s := slices.Clone(r.lat)
	r.mu.Unlock()
	if len(s) == 0 {
		return 0
	}
	slices.Sort(s)
	i := int(q*float64(len(s))+0.5) - 1
	return s[max(0, min(i, len(s)-1))]
}

// Drive sends n requests, made by mk(i) for i in [0, n), over conns
// connections of hc with conns requests in flight, and reads every answer
// whole. Every request is sent and timed even when some fail; the error
// names the first one that did not answer 200 (its method, path, status and
// the start of its body), so a benchmark never reports the speed of
// failures as if they were answers.
func Drive(hc *http.Client, n, conns int, mk func(i int) *http.Request) (*Result, error) {
	res := &Result{N: n, lat: make([]time.Duration, 0, n)}
	var (
		next  atomic.Int64
		wg    sync.WaitGroup
		once  sync.Once
		first error
	)
	start := time.Now()
	for w := 0; w < conns; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1)) - 1
				if i >= n {
					return
				}
				req := mk(i)
				t0 := time.Now()
				resp, err := hc.Do(req)
				var body []byte
				if err == nil {
					body, err = io.ReadAll(resp.Body)
					resp.Body.Close()
				}
				d := time.Since(t0)
				res.mu.Lock()
				res.lat = append(res.lat, d)
				res.mu.Unlock()
				if err != nil || resp.StatusCode != http.StatusOK {
					code := 0
					if resp != nil {
						code = resp.StatusCode
					}
					once.Do(func() {
						first = fmt.Errorf("loadgen: %s %s: HTTP %d %v: %.300s", req.Method, req.URL.Path, code, err, body)
					})
				}
			}
		}()
	}
	wg.Wait()
	res.Elapsed = time.Since(start)
	return res, first
}
