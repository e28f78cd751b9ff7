package service_test

import (
	"context"
	"sync"
	"testing"

	"github.com/toolwarden/toolwarden/internal/scanlog"
	"github.com/toolwarden/toolwarden/internal/service"
	"github.com/toolwarden/toolwarden/sdk"
)

type recorded struct {
	mu      sync.Mutex
	entries []scanlog.Entry
}

func (r *recorded) Record(e scanlog.Entry) {
	r.mu.Lock()
	r.entries = append(r.entries, e)
	r.mu.Unlock()
}

// TestEveryScanIsRecorded: a scan (REST and MCP both call ScanFor), a
// submitted execution and a refused multi-field execution each give the
// scan log one entry with the owner, the report's scan id and the request.
func TestEveryScanIsRecorded(t *testing.T) {
	s := newService(t)
	rec := &recorded{}
	s.ScanLog = rec
	ctx := context.Background()
	req := &service.ToolRequest{Command: "rm -rf /", ToolName: "bash"}
	pieces, _ := req.Pieces()
	rep, err := s.ScanFor(ctx, req, pieces, "agent1")
	if err != nil {
		t.Fatal(err)
	}
	ex, _, err := s.Submit(ctx, &service.ToolRequest{Command: "echo hi"}, "agent2", 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.Submit(ctx, &service.ToolRequest{Command: "echo a", Code: "print(1)"}, "agent3", 0); err == nil {
		t.Fatal("multi-field execution accepted")
	}
	if len(rec.entries) != 3 {
		t.Fatalf("%d entries, want 3", len(rec.entries))
	}
	e := rec.entries[0]
	if e.OwnerKeyID != "agent1" || e.ScanID != rep.ScanID || e.Decision != sdk.Deny || e.Request.Content != "rm -rf /" || len(e.RuleIDs) == 0 {
		t.Errorf("scan entry: %+v", e)
	}
	if e := rec.entries[1]; e.OwnerKeyID != "agent2" || e.ScanID != ex.SafetyReport.ScanID || e.Decision != sdk.Allow {
		t.Errorf("execution entry: %+v", e)
	}
	if e := rec.entries[2]; e.OwnerKeyID != "agent3" {
		t.Errorf("multi-field entry: %+v", e)
	}
}
