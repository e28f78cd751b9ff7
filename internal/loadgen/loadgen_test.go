package loadgen

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestDriveSendsEveryRequestAndNamesTheFirstFailure: every one of n
// requests reaches the server exactly once, each is timed, and a non-200
// answer is the error, with its path and body.
func TestDriveSendsEveryRequestAndNamesTheFirstFailure(t *testing.T) {
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		if r.URL.Path == "/bad" {
			http.Error(w, "refused here", http.StatusTeapot)
			return
		}
		w.Write([]byte("ok"))
	}))
	defer srv.Close()
	res, err := Drive(srv.Client(), 100, 4, func(i int) *http.Request {
		req, _ := http.NewRequest("GET", srv.URL+"/ok", nil)
		return req
	})
	if err != nil || hits.Load() != 100 || res.N != 100 || len(res.lat) != 100 || res.Quantile(0.5) <= 0 || res.PerSecond() <= 0 {
		t.Fatalf("err %v, hits %d, n %d, %d latencies", err, hits.Load(), res.N, len(res.lat))
	}
	_, err = Drive(srv.Client(), 10, 2, func(i int) *http.Request {
		path := "/ok"
		if i == 7 {
			path = "/bad"
		}
		req, _ := http.NewRequest("GET", srv.URL+path, nil)
		return req
	})
	if err == nil || !strings.Contains(err.Error(), "/bad") || !strings.Contains(err.Error(), "418") || !strings.Contains(err.Error(), "refused here") {
		t.Fatalf("a failed request: %v", err)
	}
}

// TestQuantileIsNearestRank: on 1..100 ms the median is 50 ms and p99 is
// 99 ms.
func TestQuantileIsNearestRank(t *testing.T) {
	r := &Result{}
	for i := 100; i >= 1; i-- {
		r.lat = append(r.lat, timeMs(i))
	}
	if got := r.Quantile(0.5); got != timeMs(50) {
		t.Errorf("p50 %v", got)
	}
	if got := r.Quantile(0.99); got != timeMs(99) {
		t.Errorf("p99 %v", got)
	}
	if (&Result{}).Quantile(0.5) != 0 {
		t.Error("no latencies: want 0")
	}
}

func timeMs(n int) time.Duration { return time.Duration(n) * time.Millisecond }
