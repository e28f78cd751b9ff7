package server_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/toolwarden/toolwarden/internal/execution"
	"github.com/toolwarden/toolwarden/internal/policies"
	"github.com/toolwarden/toolwarden/internal/server"
)

func TestReadyzFailsOnStaleQueue(t *testing.T) {
	f := newFixture(t, policies.Default(), server.Config{QueueStaleAfter: time.Minute})
	code, body := f.do("GET", "/readyz", "", nil)
	checks, _ := body["checks"].(map[string]any)
	if code != 200 || !strings.HasPrefix(checks["queue"].(string), "ok") {
		t.Fatalf("empty queue: %d %v", code, body)
	}
	// Fresh queued work (an executor may just not have claimed it yet).
	fresh := &execution.Record{ExecutionID: "fresh", Status: execution.StatusQueued, CreatedAt: time.Now().UTC(), Content: "ls", Language: "bash"}
	if err := f.backend.Create(context.Background(), fresh); err != nil {
		t.Fatal(err)
	}
	if code, body := f.do("GET", "/readyz", "", nil); code != 200 {
		t.Fatalf("fresh queued work: %d %v", code, body)
	}
	// Work queued for longer than the threshold: nobody takes work.
	old := &execution.Record{ExecutionID: "old", Status: execution.StatusQueued, CreatedAt: time.Now().UTC().Add(-5 * time.Minute), Content: "ls", Language: "bash"}
	if err := f.backend.Create(context.Background(), old); err != nil {
		t.Fatal(err)
	}
	code, body = f.do("GET", "/readyz", "", nil)
	checks, _ = body["checks"].(map[string]any)
	if code != 503 || body["status"] != "not_ready" || !strings.Contains(checks["queue"].(string), "no executor") {
		t.Fatalf("stale queue: %d %v, want 503 naming the queue", code, body)
	}
	// Once an executor takes it, ready again.
	if _, err := f.backend.Claim(context.Background(), "w", time.Second); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 2; i++ {
		f.backend.Claim(context.Background(), "w", 10*time.Millisecond)
	}
	if code, body := f.do("GET", "/readyz", "", nil); code != 200 {
		t.Fatalf("after claims: %d %v", code, body)
	}
}

func TestReadyzQueueCheckCanBeDisabled(t *testing.T) {
	f := newFixture(t, policies.Default(), server.Config{QueueStaleAfter: -1})
	old := &execution.Record{ExecutionID: "old", Status: execution.StatusQueued, CreatedAt: time.Now().UTC().Add(-time.Hour), Content: "ls", Language: "bash"}
	if err := f.backend.Create(context.Background(), old); err != nil {
		t.Fatal(err)
	}
	if code, body := f.do("GET", "/readyz", "", nil); code != 200 {
		t.Fatalf("disabled check: %d %v", code, body)
	}
}
