package main

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/trace/noop"
)

// TestTracingExportsOverOTLP: with the standard OTLP variables set, a span
// ended in the process reaches an OTLP/HTTP receiver at /v1/traces when the
// provider shuts down; without them nothing is installed.
func TestTracingExportsOverOTLP(t *testing.T) {
	var posts, bytes atomic.Int64
	rx := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v1/traces" && r.Method == http.MethodPost {
			b, _ := io.ReadAll(r.Body)
			posts.Add(1)
			bytes.Add(int64(len(b)))
		}
		w.WriteHeader(http.StatusOK)
	}))
	defer rx.Close()
	defer otel.SetTracerProvider(noop.NewTracerProvider())

	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "")
	t.Setenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "")
	shutdown, err := startTracing(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	_, sp := otel.Tracer("test").Start(context.Background(), "not exported")
	sp.End()
	if err := shutdown(context.Background()); err != nil || posts.Load() != 0 {
		t.Fatalf("without OTLP variables: err %v, %d posts", err, posts.Load())
	}

	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", rx.URL)
	shutdown, err = startTracing(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	_, sp = otel.Tracer("test").Start(context.Background(), "toolwarden.scan")
	sp.End()
	if err := shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	if posts.Load() == 0 || bytes.Load() == 0 {
		t.Fatalf("the receiver got %d posts (%d bytes), want the span", posts.Load(), bytes.Load())
	}

	t.Setenv("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc")
	if _, err := startTracing(context.Background()); err == nil {
		t.Fatal("grpc protocol accepted; only http/protobuf is exported")
	}
}
