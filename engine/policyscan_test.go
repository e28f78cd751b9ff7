package engine_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolwarden/toolwarden/engine"
	"github.com/toolwarden/toolwarden/internal/policies"
	"github.com/toolwarden/toolwarden/sdk"
)

// TestScanWithPolicyIsolated: a scan under a candidate policy sees the
// candidate, leaves the policy in force alone and writes no audit line.
func TestScanWithPolicyIsolated(t *testing.T) {
	ctx := context.Background()
	audit := filepath.Join(t.TempDir(), "audit.jsonl")
	eng, err := engine.New(ctx, engine.Options{Policy: policies.Default(), Packs: engine.NativePacks(), AuditLogPath: audit})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close(ctx)
	cand, err := policies.LoadBytes("candidate.yaml", []byte("rules:\n  BASH_LONG_SLEEP:\n    decision: deny\n"))
	if err != nil {
		t.Fatal(err)
	}
	req := engine.Request{Language: "bash", Content: "sleep 3600"}
	rep, err := eng.ScanWithPolicy(ctx, req, cand)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Decision != sdk.Deny {
		t.Fatalf("under the candidate: %s, want deny", rep.Decision)
	}
	data, _ := os.ReadFile(audit)
	if strings.Contains(string(data), rep.ScanID) {
		t.Fatalf("the candidate scan was audited:\n%s", data)
	}
	live, err := eng.Scan(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if live.Decision != sdk.NeedsHumanReview {
		t.Fatalf("live scan after a candidate scan: %s, want needs_human_review", live.Decision)
	}
	// The audit log is written in the background: wait for the live line
	// (bounded), then check the candidate's never came.
	var data2 []byte
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if data2, _ = os.ReadFile(audit); strings.Contains(string(data2), live.ScanID) {
			break
		}
	}
	if !strings.Contains(string(data2), live.ScanID) {
		t.Fatalf("the live scan was not audited:\n%s", data2)
	}
	if strings.Contains(string(data2), rep.ScanID) {
		t.Fatalf("the candidate scan was audited:\n%s", data2)
	}
	if _, err := eng.ScanWithPolicy(ctx, req, nil); err == nil {
		t.Fatal("a nil candidate policy was accepted")
	}
}
