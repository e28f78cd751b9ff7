package engine_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/toolwarden/toolwarden/engine"
	"github.com/toolwarden/toolwarden/internal/engine/audit"
	"github.com/toolwarden/toolwarden/internal/policies"
)

// TestAuditBurstThenClose: a burst of concurrent scans, larger than the
// audit queue, then Close (what the server does on shutdown): the log
// holds exactly one line per scan, none lost to the asynchronous writer.
func TestAuditBurstThenClose(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	e, err := engine.New(context.Background(), engine.Options{Policy: policies.Default(), Packs: engine.NativePacks(), AuditLogPath: path})
	if err != nil {
		t.Fatal(err)
	}
	const goroutines = 8
	per := audit.QueueSize/goroutines + 50
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range per {
				if _, err := e.Scan(context.Background(), engine.Request{ScanID: fmt.Sprintf("g%d-%d", g, i), Language: "bash", Content: "ls -la"}); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	if err := e.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) != goroutines*per {
		t.Fatalf("audit log has %d lines after %d scans and Close", len(lines), goroutines*per)
	}
}
