package executor

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/toolwarden/toolwarden/internal/execution"
)

// A Runner's executions get the daemon's duties: a cancel reaches the
// runner as StopCancel with the caller's reason, and its outcome is the
// record's; a daemon with runners only refuses process records.
func TestRunnerExecutionsUseTheDaemonsDuties(t *testing.T) {
	b := newRecorder(openEmbedded(t, fastConfig().Lease))
	started := make(chan string, 4)
	cfg := fastConfig()
	cfg.Runners = map[string]Runner{"test": RunnerFunc(func(ctx context.Context, rec *execution.Record, stopped func() Stop) *execution.Record {
		started <- rec.ExecutionID
		if rec.Content == "quick" {
			return &execution.Record{Status: execution.StatusCompleted, Result: "done: " + rec.Content, Cleanup: execution.CleanupDone}
		}
		<-ctx.Done()
		st := stopped()
		if st.Cause != StopCancel {
			return &execution.Record{Status: execution.StatusFailed, IsError: true, Error: "unexpected stop", Cleanup: execution.CleanupDone}
		}
		return &execution.Record{Status: execution.StatusCancelled, IsError: true, StatusReason: st.Reason, Cleanup: execution.CleanupDone}
	})}
	start(t, b, nil, cfg)
	ctx := context.Background()

	quick := &execution.Record{ToolName: "t", Language: "test", Content: "quick"}
	if err := b.Create(ctx, quick); err != nil {
		t.Fatal(err)
	}
	if got := waitTerminal(t, b, quick.ExecutionID); got.Status != execution.StatusCompleted || got.Result != "done: quick" ||
		got.EndedAt == nil {
		t.Fatalf("quick: %s %q", got.Status, got.Result)
	}

	slow := &execution.Record{ToolName: "t", Language: "test", Content: "slow"}
	if err := b.Create(ctx, slow); err != nil {
		t.Fatal(err)
	}
	for id := <-started; id != slow.ExecutionID; id = <-started {
	}
	if _, err := b.RequestCancel(ctx, slow.ExecutionID, "no longer needed"); err != nil {
		t.Fatal(err)
	}
	if got := waitTerminal(t, b, slow.ExecutionID); got.Status != execution.StatusCancelled || got.StatusReason != "no longer needed" {
		t.Fatalf("slow: %s %q", got.Status, got.StatusReason)
	}
	// The recorder notes a Finish once the store returned it.
	n := len(b.finishes(slow.ExecutionID))
	for end := time.Now().Add(5 * time.Second); n == 0 && time.Now().Before(end); n = len(b.finishes(slow.ExecutionID)) {
		time.Sleep(10 * time.Millisecond)
	}
	if n != 1 {
		t.Fatalf("%d finishes", n)
	}

	proc := create(t, b, "echo hi", t.TempDir())
	got := waitTerminal(t, b, proc.ExecutionID)
	if got.Status != execution.StatusFailed || !strings.Contains(got.Error, "runs only test executions") {
		t.Fatalf("process record on a runner-only daemon: %s %q", got.Status, got.Error)
	}
}

func TestNewRefusesADaemonWithNeitherIsolationNorRunners(t *testing.T) {
	if _, err := New(openEmbedded(t, fastConfig().Lease), nil, fastConfig()); err == nil {
		t.Fatal("a daemon that can run nothing was built")
	}
}
