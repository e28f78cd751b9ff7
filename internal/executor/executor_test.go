package executor

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/toolwarden/toolwarden/internal/errs"
	"github.com/toolwarden/toolwarden/internal/execution"
	"github.com/toolwarden/toolwarden/internal/isolation"
)

// fast timings keep lease-driven tests short without depending on speed.
func fastConfig() Config {
	return Config{Lease: 3 * time.Second, HeartbeatInterval: 200 * time.Millisecond,
		ReconcileInterval: 500 * time.Millisecond, ClaimBlock: 200 * time.Millisecond,
		PartialInterval: 50 * time.Millisecond}
}

func TestEchoCompletesWithCanonicalResult(t *testing.T) {
	b := newRecorder(openEmbedded(t, 3*time.Second))
	iso := openIso(t)
	ws := workspace(t)
	start(t, b, iso, fastConfig())

	r := create(t, b, "echo hi", ws)
	got := waitTerminal(t, b, r.ExecutionID)
	if got.Status != execution.StatusCompleted || got.Result != "hi\n" || got.IsError {
		t.Fatalf("got %s %q is_error=%v error=%q", got.Status, got.Result, got.IsError, got.Error)
	}
	if got.ExitCode == nil || *got.ExitCode != 0 {
		t.Fatalf("exit code %v", got.ExitCode)
	}
	fin := b.finishes(r.ExecutionID)
	if len(fin) != 1 {
		t.Fatalf("finished %d times", len(fin))
	}
	if fin[0].Result != got.Result {
		t.Fatalf("Finish sent %q, store has %q", fin[0].Result, got.Result)
	}
	if got.IsolationBackend != iso.Name() || got.Cleanup != execution.CleanupDone {
		t.Fatalf("isolation %q cleanup %q (%s)", got.IsolationBackend, got.Cleanup, got.CleanupDetail)
	}
	if got.StartedAt == nil || got.EndedAt == nil || got.WorkerID == "" || got.Attempt != 1 {
		t.Fatalf("bookkeeping: started %v ended %v worker %q attempt %d", got.StartedAt, got.EndedAt, got.WorkerID, got.Attempt)
	}
	// Wait, the API's bounded wait, sees the same bytes.
	w, done, err := execution.Wait(context.Background(), b, r.ExecutionID, time.Second)
	if err != nil || !done || w.Result != "hi\n" {
		t.Fatalf("Wait: %v done=%v %q", err, done, w.Result)
	}
}

func TestPythonRuns(t *testing.T) {
	b := openEmbedded(t, 3*time.Second)
	start(t, b, openIso(t), fastConfig())
	r := &execution.Record{ToolName: "exec", Language: "python", Content: "print(6*7)", Cwd: workspace(t)}
	if err := b.Create(context.Background(), r); err != nil {
		t.Fatal(err)
	}
	got := waitTerminal(t, b, r.ExecutionID)
	if got.Status != execution.StatusCompleted || got.Result != "42\n" {
		t.Fatalf("got %s %q (%s)", got.Status, got.Result, got.Error)
	}
}

func TestNonZeroExitFails(t *testing.T) {
	b := openEmbedded(t, 3*time.Second)
	start(t, b, openIso(t), fastConfig())
	r := create(t, b, "echo oops >&2; exit 3", workspace(t))
	got := waitTerminal(t, b, r.ExecutionID)
	if got.Status != execution.StatusFailed || got.ExitCode == nil || *got.ExitCode != 3 {
		t.Fatalf("got %s exit %v", got.Status, got.ExitCode)
	}
	if !got.IsError || got.Result != "oops\n" || !strings.Contains(got.Error, "exit code 3") {
		t.Fatalf("is_error=%v result %q error %q", got.IsError, got.Result, got.Error)
	}
}

func TestStartFailureIsRecordedAsFailed(t *testing.T) {
	b := openEmbedded(t, 3*time.Second)
	start(t, b, openIso(t), fastConfig())
	missing := workspace(t) + "/does-not-exist"
	r := create(t, b, "echo never", missing)
	bad := &execution.Record{ToolName: "exec", Language: "cobol", Content: "DISPLAY 'X'", Cwd: workspace(t)}
	if err := b.Create(context.Background(), bad); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{r.ExecutionID, bad.ExecutionID} {
		got := waitTerminal(t, b, id)
		if got.Status != execution.StatusFailed || !got.IsError || !strings.HasPrefix(got.Error, "could not start: ") {
			t.Fatalf("%s: got %s is_error=%v error %q", id, got.Status, got.IsError, got.Error)
		}
	}
}

func TestCancelRequestKillsTheRun(t *testing.T) {
	b := openEmbedded(t, 3*time.Second)
	start(t, b, openIso(t), fastConfig())
	marker := sleepMarker(120)
	r := create(t, b, "echo started; sleep "+marker, workspace(t))
	waitUntil(t, b, r.ExecutionID, "partial output", func(r *execution.Record) bool {
		return r.Status == execution.StatusRunning && r.PartialOutput == "started\n"
	})
	waitProcess(t, marker, true)

	if _, err := b.RequestCancel(context.Background(), r.ExecutionID, "user pressed stop"); err != nil {
		t.Fatal(err)
	}
	got := waitTerminal(t, b, r.ExecutionID)
	if got.Status != execution.StatusCancelled || got.StatusReason != "user pressed stop" || !got.IsError {
		t.Fatalf("got %s reason %q is_error=%v", got.Status, got.StatusReason, got.IsError)
	}
	if got.Result != "started\n" {
		t.Fatalf("result %q", got.Result)
	}
	// The record is written after the whole tree is gone.
	if processWith(marker) {
		t.Fatal("sleep still runs after the record says cancelled")
	}
}

func TestHardTimeout(t *testing.T) {
	b := openEmbedded(t, 3*time.Second)
	start(t, b, openIso(t), fastConfig())
	marker := sleepMarker(60)
	r := &execution.Record{ToolName: "exec", Language: "bash", Content: "sleep " + marker, Cwd: workspace(t), TimeoutMS: 300}
	if err := b.Create(context.Background(), r); err != nil {
		t.Fatal(err)
	}
	got := waitTerminal(t, b, r.ExecutionID)
	if got.Status != execution.StatusHardTimeout || !got.IsError || got.StatusReason != "hard timeout of 300ms" {
		t.Fatalf("got %s reason %q error %q", got.Status, got.StatusReason, got.Error)
	}
	if processWith(marker) {
		t.Fatal("sleep still runs after hard_timeout")
	}
}

func TestNoOutputTimeout(t *testing.T) {
	b := openEmbedded(t, 3*time.Second)
	cfg := fastConfig()
	cfg.NoOutputTimeout = 300 * time.Millisecond
	start(t, b, openIso(t), cfg)
	r := create(t, b, "echo one; sleep "+sleepMarker(60), workspace(t))
	got := waitTerminal(t, b, r.ExecutionID)
	if got.Status != execution.StatusHardTimeout || got.StatusReason != "no output for 300ms" || got.Result != "one\n" {
		t.Fatalf("got %s reason %q result %q", got.Status, got.StatusReason, got.Result)
	}
}

func TestLargeOutputIsReducedAndSpilled(t *testing.T) {
	b := openEmbedded(t, 3*time.Second)
	cfg := fastConfig()
	cfg.ReductionRoot = t.TempDir()
	start(t, b, openIso(t), cfg)
	r := create(t, b, "head -c 200000 /dev/zero | tr '\\0' a; echo", workspace(t))
	got := waitTerminal(t, b, r.ExecutionID)
	if got.Status != execution.StatusCompleted {
		t.Fatalf("got %s (%s)", got.Status, got.Error)
	}
	if len(got.Result) > 50000 || !strings.Contains(got.Result, "<persisted-output>") {
		t.Fatalf("result is %d bytes, persisted block: %v", len(got.Result), strings.Contains(got.Result, "<persisted-output>"))
	}
	if got.SpillPath == "" || !strings.HasPrefix(got.SpillPath, cfg.ReductionRoot) || !strings.Contains(got.Result, got.SpillPath) {
		t.Fatalf("spill path %q (root %s)", got.SpillPath, cfg.ReductionRoot)
	}
	full, err := os.ReadFile(got.SpillPath)
	if err != nil {
		t.Fatal(err)
	}
	if want := strings.Repeat("a", 200000) + "\n"; string(full) != want {
		t.Fatalf("spill file has %d bytes, want %d", len(full), len(want))
	}
}

func TestConcurrencyLimit(t *testing.T) {
	b := openEmbedded(t, 3*time.Second)
	cfg := fastConfig()
	cfg.Concurrency = 2
	dr := start(t, b, openIso(t), cfg)
	ws := workspace(t)
	var ids []string
	for i := 0; i < 3; i++ {
		ids = append(ids, create(t, b, "sleep "+sleepMarker(120), ws).ExecutionID)
	}
	running := func() (n int, queued []string) {
		for _, id := range ids {
			r, err := b.Get(context.Background(), id)
			if err != nil {
				t.Fatal(err)
			}
			switch r.Status {
			case execution.StatusRunning:
				n++
			case execution.StatusQueued:
				queued = append(queued, id)
			}
		}
		return n, queued
	}
	deadline := time.Now().Add(waitFor)
	for n, _ := running(); n < 2; n, _ = running() {
		if time.Now().After(deadline) {
			t.Fatal("two runs never started")
		}
		time.Sleep(20 * time.Millisecond)
	}
	// Over many claim cycles the third stays queued: the slots are full.
	for i := 0; i < 10; i++ {
		time.Sleep(cfg.ClaimBlock)
		n, queued := running()
		if n != 2 || len(queued) != 1 {
			t.Fatalf("running %d, queued %v; want 2 and 1", n, queued)
		}
		if live := dr.d.Live(); len(live) != 2 {
			t.Fatalf("Live() = %v", live)
		}
	}
	// Freeing a slot lets the third one in.
	_, queued := running()
	for _, id := range ids {
		if id != queued[0] {
			if _, err := b.RequestCancel(context.Background(), id, "make room"); err != nil {
				t.Fatal(err)
			}
			break
		}
	}
	waitUntil(t, b, queued[0], "third run", func(r *execution.Record) bool { return r.Status == execution.StatusRunning })
}

func TestShutdownCancelsAndRecordsRuns(t *testing.T) {
	b := openEmbedded(t, 3*time.Second)
	dr := start(t, b, openIso(t), fastConfig())
	ws := workspace(t)
	m1, m2 := sleepMarker(120), sleepMarker(120)
	r1 := create(t, b, "sleep "+m1, ws)
	r2 := create(t, b, "echo x; sleep "+m2, ws)
	for _, id := range []string{r1.ExecutionID, r2.ExecutionID} {
		waitUntil(t, b, id, "running", func(r *execution.Record) bool { return r.Status == execution.StatusRunning })
	}
	waitProcess(t, m1, true)
	waitProcess(t, m2, true)

	dr.stop(t)
	for _, id := range []string{r1.ExecutionID, r2.ExecutionID} {
		got, err := b.Get(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		if got.Status != execution.StatusCancelled || got.StatusReason != ReasonShutdown {
			t.Fatalf("%s: %s reason %q", id, got.Status, got.StatusReason)
		}
	}
	if processWith(m1) || processWith(m2) {
		t.Fatal("a workload outlived its executor's shutdown")
	}
	if live := dr.d.Live(); len(live) != 0 {
		t.Fatalf("Live() after shutdown = %v", live)
	}
}

// A worker that loses its lease — rejected outright, or unprovable because
// the store stays unreachable for a whole lease — kills the workload and
// writes nothing; reconciliation then orphans the record.
func TestLostLeaseKillsTheRunWithoutFinish(t *testing.T) {
	for name, hbErr := range map[string]error{
		"rejected":    fmt.Errorf("heartbeat: test: %w", execution.ErrLeaseLost),
		"unreachable": fmt.Errorf("heartbeat: test: %w", execution.ErrUnavailable),
	} {
		t.Run(name, func(t *testing.T) {
			b := newRecorder(openEmbedded(t, 3*time.Second))
			start(t, b, openIso(t), fastConfig())
			marker := sleepMarker(120)
			r := create(t, b, "sleep "+marker, workspace(t))
			waitUntil(t, b, r.ExecutionID, "running", func(r *execution.Record) bool { return r.Status == execution.StatusRunning })
			waitProcess(t, marker, true)

			b.mu.Lock()
			b.failHeartbeat = hbErr
			b.mu.Unlock()
			waitProcess(t, marker, false)

			got, err := b.Get(context.Background(), r.ExecutionID)
			if err != nil {
				t.Fatal(err)
			}
			if got.Status != execution.StatusRunning && got.Status != execution.StatusOrphaned {
				t.Fatalf("status %s after a lost lease; want it left for reconciliation", got.Status)
			}
			got = waitTerminal(t, b, r.ExecutionID)
			if got.Status != execution.StatusOrphaned {
				t.Fatalf("status %s, want orphaned", got.Status)
			}
			if n := len(b.finishes(r.ExecutionID)); n != 0 {
				t.Fatalf("finished %d times after losing the lease", n)
			}
		})
	}
}

func TestFinishIsRetriedWhileTheStoreIsUnavailable(t *testing.T) {
	b := newRecorder(openEmbedded(t, 3*time.Second))
	b.failFinishes = 2
	start(t, b, openIso(t), fastConfig())
	r := create(t, b, "echo retried", workspace(t))
	got := waitTerminal(t, b, r.ExecutionID)
	if got.Status != execution.StatusCompleted || got.Result != "retried\n" {
		t.Fatalf("got %s %q", got.Status, got.Result)
	}
	b.mu.Lock()
	rejected := len(b.rejected[r.ExecutionID])
	b.mu.Unlock()
	if rejected != 2 || len(b.finishes(r.ExecutionID)) != 1 {
		t.Fatalf("rejected %d, finished %d; want 2 and 1", rejected, len(b.finishes(r.ExecutionID)))
	}
}

func TestOrphanedRecordKillsItsRun(t *testing.T) {
	b := newRecorder(openEmbedded(t, 3*time.Second))
	dr := start(t, b, openIso(t), fastConfig())
	marker := sleepMarker(120)
	r := create(t, b, "sleep "+marker, workspace(t))
	waitUntil(t, b, r.ExecutionID, "running", func(r *execution.Record) bool { return r.Status == execution.StatusRunning })
	waitProcess(t, marker, true)

	// Another party decides the worker is gone (as a server restart would).
	ids, err := b.Reconcile(context.Background(), []string{"someone-else"})
	if err != nil || len(ids) != 1 {
		t.Fatalf("reconcile: %v %v", ids, err)
	}
	waitProcess(t, marker, false)
	deadline := time.Now().Add(waitFor)
	for len(dr.d.Live()) != 0 {
		if time.Now().After(deadline) {
			t.Fatal("run still live")
		}
		time.Sleep(20 * time.Millisecond)
	}
	got, _ := b.Get(context.Background(), r.ExecutionID)
	if got.Status != execution.StatusOrphaned || len(b.finishes(r.ExecutionID)) != 0 {
		t.Fatalf("status %s, finishes %d", got.Status, len(b.finishes(r.ExecutionID)))
	}
}

func TestExclusiveReconcileOrphansForeignRecords(t *testing.T) {
	b := openEmbedded(t, 3*time.Second)
	ctx := context.Background()
	r := create(t, b, "echo never", workspace(t))
	if _, err := b.Claim(ctx, "dead-worker", time.Second); err != nil {
		t.Fatal(err)
	}
	cfg := fastConfig()
	cfg.Exclusive = true
	cfg.Logger = testLogger(t)
	d, err := New(b, openIso(t), cfg)
	if err != nil {
		t.Fatal(err)
	}
	ids, err := d.Reconcile(ctx)
	if err != nil || len(ids) != 1 || ids[0] != r.ExecutionID {
		t.Fatalf("Reconcile = %v, %v", ids, err)
	}
	got, _ := b.Get(ctx, r.ExecutionID)
	if got.Status != execution.StatusOrphaned || !strings.Contains(got.StatusReason, "dead-worker") {
		t.Fatalf("%s %q", got.Status, got.StatusReason)
	}
}

func TestNewRejectsBadConfig(t *testing.T) {
	b := openEmbedded(t, 3*time.Second)
	iso := openIso(t)
	for name, cfg := range map[string]Config{
		"heartbeat not below lease": {Lease: time.Second, HeartbeatInterval: time.Second},
		"negative concurrency":      {Concurrency: -1},
		"tiny result cap":           {MaxResultBytes: 10},
	} {
		if _, err := New(b, iso, cfg); err == nil {
			t.Errorf("%s: New accepted %+v", name, cfg)
		}
	}
	if _, err := New(nil, iso, Config{}); err == nil {
		t.Error("New accepted a nil execution backend")
	}
	d, err := New(b, iso, Config{})
	if err != nil {
		t.Fatal(err)
	}
	if d.WorkerID() == "" || !strings.Contains(d.WorkerID(), fmt.Sprint(os.Getpid())) {
		t.Fatalf("default worker id %q", d.WorkerID())
	}
}

func TestClosedBackendStopsRun(t *testing.T) {
	b := openEmbedded(t, 3*time.Second)
	cfg := fastConfig()
	cfg.Logger = testLogger(t)
	d, err := New(b, openIso(t), cfg)
	if err != nil {
		t.Fatal(err)
	}
	b.Close()
	err = d.Run(context.Background())
	if !errors.Is(err, execution.ErrClosed) {
		t.Fatalf("Run on a closed backend = %v", err)
	}
}

// brokenIsolation refuses every start, as a backend whose cgroup root
// vanished would.
type brokenIsolation struct{}

func (brokenIsolation) Name() string { return "broken" }
func (brokenIsolation) Start(context.Context, isolation.Spec) (isolation.Process, error) {
	return nil, errors.New("cgroup root is gone")
}
func (brokenIsolation) Close() error { return nil }

// A failing isolation backend fails the records it was given, with the
// reason, and makes the daemon pause its claims instead of draining the
// queue at full speed.
func TestBrokenIsolationFailsClosedAndPausesClaims(t *testing.T) {
	b := openEmbedded(t, 3*time.Second)
	cfg := fastConfig()
	cfg.Concurrency = 1
	dr := start(t, b, brokenIsolation{}, cfg)
	ws := workspace(t)
	first := create(t, b, "echo never", ws)
	got := waitTerminal(t, b, first.ExecutionID)
	if got.Status != execution.StatusFailed || !strings.Contains(got.Error, "cgroup root is gone") {
		t.Fatalf("got %s %q", got.Status, got.Error)
	}
	if n := dr.d.isoFailures.Load(); n < 1 {
		t.Fatalf("isolation failures counted %d", n)
	}
	// A request error (missing cwd) is not held against the backend.
	d2, err := New(b, openIso(t), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if d2.isolationRefused(errors.New("runner: working directory: stat /nope: no such file or directory")) {
		t.Fatal("a request error was counted as an isolation failure")
	}
	// The contract is the error's code, not its text.
	if d2.isolationRefused(fmt.Errorf("runner: start bash under %s: looks like a backend error", d2.iso.Name())) {
		t.Fatal("an untyped error was counted as an isolation failure by its wording")
	}
	if !d2.isolationRefused(fmt.Errorf("start: %w", errs.New(errs.IsolationRefused, "runner", errors.New("cgroup root is gone")))) {
		t.Fatal("a typed isolation refusal was not recognised")
	}
}

// Content longer than one argv string may be (128 KiB on Linux) runs from
// a script file instead of `-c`.
func TestLongContentRunsAsScript(t *testing.T) {
	b := openEmbedded(t, 3*time.Second)
	start(t, b, openIso(t), fastConfig())
	content := "# " + strings.Repeat("x", 200<<10) + "\necho long script\n"
	r := create(t, b, content, workspace(t))
	got := waitTerminal(t, b, r.ExecutionID)
	if got.Status != execution.StatusCompleted || got.Result != "long script\n" {
		t.Fatalf("got %s %q (%s)", got.Status, got.Result, got.Error)
	}
}
