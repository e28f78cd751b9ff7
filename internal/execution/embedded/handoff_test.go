package embedded

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/toolwarden/toolwarden/internal/execution"
)

// blockedClaim starts a Claim that blocks on the empty queue and waits until
// it is registered as a waiter.
func blockedClaim(t *testing.T, b *Backend, worker string) <-chan *execution.Record {
	t.Helper()
	got := make(chan *execution.Record, 1)
	go func() {
		r, err := b.Claim(context.Background(), worker, time.Minute)
		if err != nil {
			t.Errorf("Claim: %v", err)
		}
		got <- r
	}()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(time.Millisecond) {
		b.mu.Lock()
		n := len(b.waiters)
		b.mu.Unlock()
		if n > 0 {
			return got
		}
		if time.Now().After(deadline) {
			t.Fatal("Claim never blocked")
		}
	}
}

// TestCreateHandsOffToBlockedClaimer: a record created while a worker waits
// is stored already claimed by it, in one commit instead of two (queue, then
// claim); the worker gets it with its environment, the creator's copy stays
// as created, and the store has it running under that worker.
func TestCreateHandsOffToBlockedClaimer(t *testing.T) {
	b, err := Open(t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	got := blockedClaim(t, b, "w1")
	before := b.commits.Load()
	r := &execution.Record{ToolName: "exec", Content: "echo hi", Env: map[string]string{"TOKEN": "s3cret"}}
	if err := b.Create(context.Background(), r); err != nil {
		t.Fatal(err)
	}
	c := <-got
	if n := b.commits.Load() - before; n != 1 {
		t.Errorf("create + claim took %d commits, want 1", n)
	}
	if c == nil || c.ExecutionID != r.ExecutionID || c.Status != execution.StatusRunning || c.WorkerID != "w1" || c.Env["TOKEN"] != "s3cret" {
		t.Fatalf("claimed %+v", c)
	}
	if r.Status != execution.StatusQueued {
		t.Errorf("creator's copy is %s, want queued", r.Status)
	}
	stored, err := b.Get(context.Background(), r.ExecutionID)
	if err != nil || stored.Status != execution.StatusRunning || stored.WorkerID != "w1" || stored.LeaseExpiresAt == nil || len(stored.Env) != 0 {
		t.Fatalf("stored %+v %v", stored, err)
	}
	if _, err := b.Claim(context.Background(), "w2", 0); err != execution.ErrNoWork {
		t.Errorf("the handed-off record is still queued: %v", err)
	}
}

// TestHandOffIsDurableAsAClaim: after a crash (here: close and reopen) a
// handed-off record is orphaned — its run may have started — and never
// queued again, as a record claimed the usual way.
func TestHandOffIsDurableAsAClaim(t *testing.T) {
	dir := t.TempDir()
	b, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := blockedClaim(t, b, "w1")
	r := &execution.Record{ToolName: "exec", Content: "echo hi"}
	if err := b.Create(context.Background(), r); err != nil {
		t.Fatal(err)
	}
	<-got
	b.Close()
	b, err = Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	stored, err := b.Get(context.Background(), r.ExecutionID)
	if err != nil || stored.Status != execution.StatusOrphaned {
		t.Fatalf("after reopen: %+v %v, want orphaned", stored, err)
	}
	if _, err := b.Claim(context.Background(), "w2", 0); err != execution.ErrNoWork {
		t.Errorf("claim after reopen: %v, want no work", err)
	}
}

// TestRequeuedRecordsGoBeforeHandOffs: a record put back in the queue
// while a worker waits is claimed before a record created after it.
func TestRequeuedRecordsGoBeforeHandOffs(t *testing.T) {
	b, err := Open(t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	ctx := context.Background()
	held := &execution.Record{ToolName: "exec", Status: execution.StatusPendingReview}
	if err := b.Create(ctx, held); err != nil {
		t.Fatal(err)
	}
	b.mu.Lock()
	b.waiters = append(b.waiters, &claimWaiter{workerID: "w0", ch: make(chan *execution.Record, 1)})
	b.mu.Unlock()
	// Approving enqueues it: the waiters must look at the queue first.
	if err := b.Update(ctx, held.ExecutionID, func(r *execution.Record) error {
		r.Status = execution.StatusQueued
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	b.mu.Lock()
	n := len(b.waiters)
	b.mu.Unlock()
	if n != 0 {
		t.Fatalf("%d waiters still take hand-offs after an enqueue", n)
	}
	later := &execution.Record{ToolName: "exec"}
	if err := b.Create(ctx, later); err != nil {
		t.Fatal(err)
	}
	first, err := b.Claim(ctx, "w1", 0)
	if err != nil || first.ExecutionID != held.ExecutionID {
		t.Fatalf("first claim %v %v, want the requeued %s", first, err, held.ExecutionID)
	}
}

// TestWatchersDecodeWhatWasWritten: a watcher's wake-ups decode the
// document just written instead of reading the record back, and what it
// gets is what Get returns.
func TestWatchersDecodeWhatWasWritten(t *testing.T) {
	b, err := Open(t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	ctx := context.Background()
	r := &execution.Record{ToolName: "exec", Content: "echo hi"}
	if err := b.Create(ctx, r); err != nil {
		t.Fatal(err)
	}
	ch, err := b.Watch(ctx, r.ExecutionID)
	if err != nil {
		t.Fatal(err)
	}
	before := b.reads.Load()
	if _, err := b.Claim(ctx, "w1", 0); err != nil {
		t.Fatal(err)
	}
	code := 0
	if err := b.Finish(ctx, "w1", r.ExecutionID, &execution.Record{Status: execution.StatusCompleted, ExitCode: &code, Result: "hi\n"}); err != nil {
		t.Fatal(err)
	}
	var last *execution.Record
	for got := range ch {
		last = got
	}
	// Finish reads the record once to apply itself; the watcher's
	// wake-ups read nothing.
	if n := b.reads.Load() - before; n != 1 {
		t.Errorf("%d record reads for a claim, a finish and the watcher's wake-ups, want 1", n)
	}
	stored, err := b.Get(ctx, r.ExecutionID)
	if err != nil {
		t.Fatal(err)
	}
	if last == nil || last.Status != execution.StatusCompleted || !reflect.DeepEqual(last, stored) {
		t.Errorf("watcher saw %+v, store has %+v", last, stored)
	}
	b.mu.Lock()
	n := len(b.docs)
	b.mu.Unlock()
	if n != 0 {
		t.Errorf("%d documents kept after the watch ended", n)
	}
}
