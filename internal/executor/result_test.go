package executor

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/toolwarden/toolwarden/internal/execution"
	"github.com/toolwarden/toolwarden/internal/runner"
)

func TestCleanupOutcome(t *testing.T) {
	for in, want := range map[string]execution.Cleanup{
		"":                                    execution.CleanupDone,
		"cleanup_failed":                      execution.CleanupFailed,
		"cleanup_unconfirmed":                 execution.CleanupUnconfirmed,
		"cleanup_unconfirmed; cleanup_failed": execution.CleanupFailed,
		"kill (cancel): no such process":      execution.CleanupFailed,
		"remove script: permission denied":    execution.CleanupFailed,
	} {
		got, detail := cleanupOutcome(in)
		if got != want || detail != in {
			t.Errorf("cleanupOutcome(%q) = %q, %q; want %q", in, got, detail, want)
		}
	}
}

func TestFinalRecord(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	opts := runner.Options{Timeout: time.Minute, NoOutputTimeout: 20 * time.Second}
	base := func(status string) *runner.Result {
		return &runner.Result{Status: status, ExitCode: -1, Output: "out", Backend: "hybrid", Started: t0, Ended: t0.Add(1500 * time.Millisecond)}
	}

	ok := base(runner.StatusCompleted)
	ok.ExitCode = 0
	f := finalRecord(ok, stopNone, "", opts)
	if f.Status != execution.StatusCompleted || f.IsError || f.Error != "" || f.Result != "out" || f.DurationMS != 1500 ||
		*f.ExitCode != 0 || f.IsolationBackend != "hybrid" || f.Cleanup != execution.CleanupDone || !f.EndedAt.Equal(t0.Add(1500*time.Millisecond)) {
		t.Fatalf("completed: %+v", f)
	}

	sig := base(runner.StatusFailed)
	sig.Signal, sig.OOMKilled, sig.SpillError = "SIGKILL", true, "disk full"
	f = finalRecord(sig, stopNone, "", opts)
	if !f.IsError || f.Error != "killed by signal SIGKILL; memory limit reached (OOM kill); full output not persisted: disk full" {
		t.Fatalf("failed: %q", f.Error)
	}

	idle := base(runner.StatusHardTimeout)
	idle.NoOutputTimeout = true
	if f = finalRecord(idle, stopNone, "", opts); f.StatusReason != "no output for 20s" {
		t.Fatalf("no-output: %q", f.StatusReason)
	}
	if f = finalRecord(base(runner.StatusHardTimeout), stopNone, "", opts); f.StatusReason != "hard timeout of 1m0s" {
		t.Fatalf("hard: %q", f.StatusReason)
	}
	if f = finalRecord(base(runner.StatusCancelled), stopShutdown, ReasonShutdown, opts); f.StatusReason != ReasonShutdown ||
		f.Error != "cancelled: "+ReasonShutdown {
		t.Fatalf("shutdown: %q %q", f.StatusReason, f.Error)
	}
	// A status the store does not know is recorded as a failure that says so.
	if f = finalRecord(base("exploded"), stopNone, "", opts); f.Status != execution.StatusFailed || !strings.Contains(f.Error, `"exploded"`) {
		t.Fatalf("unknown: %s %q", f.Status, f.Error)
	}
}

// A record stopped between its claim and its start is finished as
// cancelled without running anything.
func TestStoppedBeforeStartIsCancelledWithoutRunning(t *testing.T) {
	b := newRecorder(openEmbedded(t, 3*time.Second))
	cfg := fastConfig()
	cfg.Logger = testLogger(t)
	d, err := New(b, openIso(t), cfg)
	if err != nil {
		t.Fatal(err)
	}
	ws := workspace(t)
	create(t, b, "touch "+ws+"/ran", ws)
	rec, err := b.Claim(context.Background(), d.WorkerID(), time.Second)
	if err != nil {
		t.Fatal(err)
	}
	r := d.track(rec)
	d.stopAll(stopShutdown, ReasonShutdown)
	d.execute(r)
	d.untrack(r)

	got, _ := b.Get(context.Background(), rec.ExecutionID)
	if got.Status != execution.StatusCancelled || got.StatusReason != ReasonShutdown || len(b.finishes(rec.ExecutionID)) != 1 {
		t.Fatalf("%s %q finishes %d", got.Status, got.StatusReason, len(b.finishes(rec.ExecutionID)))
	}
	if _, err := os.Stat(ws + "/ran"); err == nil {
		t.Fatal("the workload ran although it was stopped before start")
	}
}
