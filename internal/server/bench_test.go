package server_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/toolwarden/toolwarden/engine"
	"github.com/toolwarden/toolwarden/internal/auth"
	"github.com/toolwarden/toolwarden/internal/execution/embedded"
	"github.com/toolwarden/toolwarden/internal/policies"
	"github.com/toolwarden/toolwarden/internal/server"
)

// BenchmarkScanHTTP is POST /v1/scan of unique short commands through the
// whole in-process HTTP stack (echo, authentication, JSON, the engine with
// the built-in packs in Wasm, audit log, metrics) from parallel clients:
// the path between the socket and the engine, in one process so it can be
// profiled (-cpuprofile). The load test against a real server is
// e2e's BenchmarkScanVsHealthz.
func BenchmarkScanHTTP(b *testing.B) {
	dir := b.TempDir()
	eng, err := engine.New(context.Background(), engine.Options{Policy: policies.Default(),
		AuditLogPath: filepath.Join(dir, "audit.jsonl")})
	if err != nil {
		b.Fatal(err)
	}
	defer eng.Close(context.Background())
	be, err := embedded.Open(dir, embedded.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer be.Close()
	keys, err := auth.Open(filepath.Join(dir, "keys.json"))
	if err != nil {
		b.Fatal(err)
	}
	token, _, _ := keys.Create("agent", auth.RoleAgent)
	srv := httptest.NewServer(server.New(server.Config{RatePerSecond: -1}, eng, be, keys).Handler())
	defer srv.Close()
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = 64
	hc := &http.Client{Transport: tr}
	var n atomic.Int64
	b.SetParallelism(8)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			i := n.Add(1)
			body := fmt.Sprintf(`{"tool_name":"exec","command":"cd /workspace/p%d && ls -la src/ && grep -rn TODO src/ | head -n 20"}`, i)
			req, _ := http.NewRequest(http.MethodPost, srv.URL+"/v1/scan", strings.NewReader(body))
			req.Header.Set("Authorization", "Bearer "+token)
			req.Header.Set("Content-Type", "application/json")
			resp, err := hc.Do(req)
			if err != nil {
				b.Fatal(err)
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				b.Fatalf("HTTP %d", resp.StatusCode)
			}
		}
	})
}
