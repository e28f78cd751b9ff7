package execution

import (
	"testing"
	"time"
)

// TestEnvLeavesRecordWhenTerminal: environment values may be secrets, so
// every way a record becomes terminal drops them, and Public never shows
// them.
func TestEnvLeavesRecordWhenTerminal(t *testing.T) {
	now := time.Now()
	fresh := func(st Status) *Record {
		return &Record{ExecutionID: "exe_1", Status: st, CreatedAt: now, Env: map[string]string{"TOKEN": "s3cret"}}
	}
	if p := fresh(StatusQueued).Public(); p.Env != nil {
		t.Fatal("Public shows env values")
	}
	r := fresh(StatusQueued)
	if _, err := ApplyCancel(r, "stop", now); err != nil || r.Env != nil {
		t.Fatalf("cancel queued: err %v env %v", err, r.Env)
	}
	r = fresh(StatusQueued)
	if err := ApplyClaim(r, "w", now, time.Minute); err != nil {
		t.Fatal(err)
	}
	if r.Env == nil {
		t.Fatal("claim dropped env before the run")
	}
	if err := ApplyFinish(r, "w", &Record{Status: StatusCompleted}, now); err != nil || r.Env != nil {
		t.Fatalf("finish: err %v env %v", err, r.Env)
	}
	r = fresh(StatusQueued)
	_ = ApplyClaim(r, "w", now, time.Minute)
	if err := ApplyOrphan(r, "worker gone", now); err != nil || r.Env != nil {
		t.Fatalf("orphan: err %v env %v", err, r.Env)
	}
	r = fresh(StatusPendingReview)
	next, _, err := ApplyUpdate(r, func(c *Record) error { c.Status = StatusBlocked; return nil }, now)
	if err != nil || next.Env != nil {
		t.Fatalf("reject: err %v env %v", err, next.Env)
	}
	c := fresh(StatusQueued).Clone()
	c.Env["X"] = "y"
	if orig := fresh(StatusQueued); len(orig.Env) != 1 {
		t.Fatal("clone shares env")
	}
}
