package engine_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolwarden/toolwarden/engine"
	"github.com/toolwarden/toolwarden/policies"
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
	if data, _ := os.ReadFile(audit); !strings.Contains(string(data), live.ScanID) {
		t.Fatalf("the live scan was not audited:\n%s", data)
	}
	if _, err := eng.ScanWithPolicy(ctx, req, nil); err == nil {
		t.Fatal("a nil candidate policy was accepted")
	}
}
