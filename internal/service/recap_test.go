package service_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolwarden/toolwarden/internal/execution"
	"github.com/toolwarden/toolwarden/internal/reduction"
	"github.com/toolwarden/toolwarden/internal/service"
)

// storeFinished stores a completed record with result and spill path as an
// import (or a run under a larger cap) would have left it.
func storeFinished(t *testing.T, b execution.Backend, result, spill string) *execution.Record {
	t.Helper()
	ctx := context.Background()
	r := &execution.Record{ToolName: "exec", Language: "bash", Content: "echo", OwnerKeyID: "agent", ConversationID: "conv"}
	if err := b.Create(ctx, r); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Claim(ctx, "w", time.Second); err != nil {
		t.Fatal(err)
	}
	code := 0
	if err := b.Finish(ctx, "w", r.ExecutionID, &execution.Record{Status: execution.StatusCompleted, ExitCode: &code,
		Result: result, SpillPath: spill, Cleanup: execution.CleanupDone}); err != nil {
		t.Fatal(err)
	}
	return r
}

// Results stored over today's cap (reduction_max_length_for_trunc was
// lowered, or an import bypassed the writer) are re-capped on every read:
// a raw oversized result is persisted whole and shown as its
// <persisted-output> block; a block written under the larger cap is
// rebuilt from its spill file; a spill path outside the reduction root is
// never read.
func TestStoredResultsAreRecappedOnRead(t *testing.T) {
	s := newService(t)
	root := t.TempDir()
	s.MaxResultBytes, s.ReductionRoot = 2048, root
	ctx := context.Background()
	caller := service.Caller{ID: "agent"}
	full := "HEAD" + strings.Repeat("x", 9000) + "TAIL"

	// 1. A raw result of 9008 bytes, stored with no spill file.
	raw := storeFinished(t, s.Backend, full, "")
	got, err := s.Get(ctx, raw.ExecutionID, caller)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Result) > 2048 || !strings.Contains(got.Result, "<persisted-output>") || got.SpillPath == "" ||
		!strings.HasPrefix(got.SpillPath, root) || !strings.Contains(got.Result, got.SpillPath) {
		t.Fatalf("raw result not re-capped: %d bytes, spill %q: %.200s", len(got.Result), got.SpillPath, got.Result)
	}
	if b, err := os.ReadFile(got.SpillPath); err != nil || string(b) != full {
		t.Fatalf("full output not persisted: %v (%d bytes)", err, len(b))
	}
	if !strings.Contains(got.Result, "HEAD") || !strings.Contains(got.Result, "TAIL") {
		t.Fatal("the block lost the head or the tail preview")
	}
	// Every door re-caps: list, wait and cancel of a finished record too.
	recs, _, err := s.List(ctx, execution.Filter{}, caller)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		if len(r.Result) > 2048 {
			t.Fatalf("list returned %s with %d bytes", r.ExecutionID, len(r.Result))
		}
	}
	w, _, err := s.Wait(ctx, raw.ExecutionID, caller, time.Second)
	if err != nil || w.Result != got.Result {
		t.Fatalf("wait: %v, result differs from get", err)
	}
	cn, err := s.Cancel(ctx, raw.ExecutionID, caller, "", time.Second)
	if err != nil || len(cn.Record.Result) > 2048 {
		t.Fatalf("cancel of a finished record: %v", err)
	}
	// The stored record is left as it was: the cap applies on read.
	stored, _ := s.Backend.Get(ctx, raw.ExecutionID)
	if stored.Result != full {
		t.Fatal("the stored result was rewritten")
	}

	// 2. A block written under a 6000-byte cap, its spill file under root.
	spill, err := reduction.SpillPath(root, "conv", "exe_imported")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(spill), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(spill, []byte(full), 0o600); err != nil {
		t.Fatal(err)
	}
	old, err := reduction.Reduce(reduction.Config{MaxLength: 6000, Root: t.TempDir(), ExecutionID: "x"}, []byte(full))
	if err != nil || len(old) <= 2048 {
		t.Fatalf("old block: %v %d", err, len(old))
	}
	imported := storeFinished(t, s.Backend, old, spill)
	got, err = s.Get(ctx, imported.ExecutionID, caller)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Result) > 2048 || got.SpillPath != spill || !strings.Contains(got.Result, "Full output saved to: "+spill) ||
		!strings.Contains(got.Result, "Output too large (9008)") {
		t.Fatalf("old block not rebuilt from its file: %d bytes, spill %q: %.300s", len(got.Result), got.SpillPath, got.Result)
	}
	if b, _ := os.ReadFile(spill); string(b) != full {
		t.Fatal("the spill file was overwritten")
	}

	// 3. A spill path outside the reduction root is not read back.
	outside := filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(outside, []byte("SECRET"+strings.Repeat("s", 5000)), 0o600); err != nil {
		t.Fatal(err)
	}
	evil := storeFinished(t, s.Backend, old, outside)
	got, err = s.Get(ctx, evil.ExecutionID, caller)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Result) > 2048 || strings.Contains(got.Result, "SECRET") || !strings.Contains(got.Result, "could not be read back") {
		t.Fatalf("outside spill path: %d bytes: %.300s", len(got.Result), got.Result)
	}
}
