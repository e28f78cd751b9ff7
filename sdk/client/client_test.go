package client_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/toolwarden/toolwarden/sdk/client"
)

func fastRetry() client.Option {
	return client.WithRetry(client.RetryPolicy{MaxAttempts: 3, BaseDelay: time.Millisecond, MaxDelay: 2 * time.Second})
}

func TestRetries429HonouringRetryAfter(t *testing.T) {
	var n atomic.Int32
	var first time.Time
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1) == 1 {
			first = time.Now()
			w.Header().Set("Retry-After", "1")
			w.WriteHeader(http.StatusTooManyRequests)
			_, _ = w.Write([]byte(`{"error":{"code":"rate_limited","message":"slow down"}}`))
			return
		}
		if time.Since(first) < 900*time.Millisecond {
			t.Errorf("retried after %s, before the 1s Retry-After", time.Since(first))
		}
		_, _ = w.Write([]byte(`{"execution_id":"e1","status":"queued"}`))
	}))
	defer srv.Close()
	c, _ := client.New(srv.URL, "k", fastRetry())
	e, err := c.Submit(context.Background(), client.ToolRequest{Command: "echo hi"})
	if err != nil || e.ExecutionID != "e1" || n.Load() != 2 {
		t.Fatalf("exec %+v, err %v, %d calls", e, err, n.Load())
	}
}

func TestSubmitNotRetriedOn503ButGetIs(t *testing.T) {
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		w.WriteHeader(http.StatusServiceUnavailable)
		_, _ = w.Write([]byte(`{"error":{"code":"store_unavailable","message":"retry later"}}`))
	}))
	defer srv.Close()
	c, _ := client.New(srv.URL, "k", fastRetry())
	_, err := c.Submit(context.Background(), client.ToolRequest{Command: "echo hi"})
	var ae *client.APIError
	if !errors.As(err, &ae) || ae.StatusCode != 503 || ae.Code != "store_unavailable" || n.Load() != 1 {
		t.Fatalf("err %v, %d calls; want one 503 try", err, n.Load())
	}
	n.Store(0)
	_, err = c.Get(context.Background(), "x")
	if !errors.As(err, &ae) || n.Load() != 3 {
		t.Fatalf("err %v, %d calls; want 3 tries", err, n.Load())
	}
}

func TestErrorCarriesFieldAndStopsOnContext(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer k" {
			t.Errorf("authorization %q", r.Header.Get("Authorization"))
		}
		if r.URL.Path == "/v1/scan" {
			w.WriteHeader(http.StatusBadRequest)
			_, _ = w.Write([]byte(`{"error":{"code":"invalid_request","message":"must be a number","field":"timeout_seconds"}}`))
			return
		}
		w.Header().Set("Retry-After", "30")
		w.WriteHeader(http.StatusTooManyRequests)
	}))
	defer srv.Close()
	c, _ := client.New(srv.URL, "k", fastRetry())
	_, err := c.Scan(context.Background(), client.ToolRequest{Command: "ls"})
	var ae *client.APIError
	if !errors.As(err, &ae) || ae.Field != "timeout_seconds" || ae.StatusCode != 400 {
		t.Fatalf("err %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	began := time.Now()
	_, err = c.Get(ctx, "x")
	if err == nil || !errors.Is(err, context.DeadlineExceeded) || time.Since(began) > 10*time.Second {
		t.Fatalf("err %v after %s; want the context's deadline", err, time.Since(began))
	}
}

func TestNewRejectsBadURL(t *testing.T) {
	if _, err := client.New("ftp://x", "k"); err == nil {
		t.Fatal("ftp URL accepted")
	}
}

func TestSubmitForbiddenRoleIsAnError(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusForbidden)
		_, _ = w.Write([]byte(`{"error":{"code":"forbidden","message":"this API key's role (reviewer) may not do this; it needs agent"}}`))
	}))
	defer srv.Close()
	c, _ := client.New(srv.URL, "k", fastRetry())
	_, err := c.Submit(context.Background(), client.ToolRequest{Command: "ls"})
	var ae *client.APIError
	if !errors.As(err, &ae) || ae.StatusCode != 403 || ae.Message == "" || ae.Message[:4] != "this" {
		t.Fatalf("err %v", err)
	}
}
