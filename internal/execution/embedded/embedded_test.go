package embedded_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/toolwarden/toolwarden/internal/execution"
	"github.com/toolwarden/toolwarden/internal/execution/conformance"
	"github.com/toolwarden/toolwarden/internal/execution/embedded"
)

// opener returns backends on one data directory per test, so a second open
// in the same test reopens the same store (the conformance durability check).
func opener(opts embedded.Options) func(t *testing.T) execution.Backend {
	var mu sync.Mutex
	dirs := map[*testing.T]string{}
	return func(t *testing.T) execution.Backend {
		mu.Lock()
		dir, ok := dirs[t]
		if !ok {
			dir = t.TempDir()
			dirs[t] = dir
		}
		mu.Unlock()
		b, err := embedded.Open(dir, opts)
		if err != nil {
			t.Fatalf("Open: %v", err)
		}
		t.Cleanup(func() { b.Close() })
		return b
	}
}

func TestConformance(t *testing.T) {
	conformance.Run(t, opener(embedded.Options{}))
}

// fakeClock is a settable clock so lease expiry is tested without sleeping.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) Now() time.Time      { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *fakeClock) Add(d time.Duration) { c.mu.Lock(); c.t = c.t.Add(d); c.mu.Unlock() }

func TestLeaseExpiry(t *testing.T) {
	clock := &fakeClock{t: time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)}
	b, err := embedded.Open(t.TempDir(), embedded.Options{LeaseTTL: 10 * time.Second, Now: clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	ctx := context.Background()
	r := &execution.Record{ToolName: "exec", Content: "sleep 100"}
	if err := b.Create(ctx, r); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Claim(ctx, "w1", 0); err != nil {
		t.Fatal(err)
	}
	clock.Add(9 * time.Second)
	if err := b.Heartbeat(ctx, "w1", r.ExecutionID); err != nil {
		t.Fatalf("heartbeat within the lease: %v", err)
	}
	clock.Add(9 * time.Second) // 18s after claim, 9s after the heartbeat: still held
	if ids, err := b.Reconcile(ctx, nil); err != nil || len(ids) != 0 {
		t.Fatalf("Reconcile of a heartbeating worker: %v %v", ids, err)
	}
	clock.Add(2 * time.Second) // lease expired
	if err := b.Heartbeat(ctx, "w1", r.ExecutionID); !errors.Is(err, execution.ErrLeaseLost) {
		t.Fatalf("heartbeat after expiry: %v, want ErrLeaseLost", err)
	}
	if err := b.Finish(ctx, "w1", r.ExecutionID, &execution.Record{Status: execution.StatusCompleted}); !errors.Is(err, execution.ErrLeaseLost) {
		t.Fatalf("finish after expiry: %v, want ErrLeaseLost", err)
	}
	ids, err := b.Reconcile(ctx, nil)
	if err != nil || len(ids) != 1 || ids[0] != r.ExecutionID {
		t.Fatalf("Reconcile after expiry: %v %v", ids, err)
	}
	got, _ := b.Get(ctx, r.ExecutionID)
	if got.Status != execution.StatusOrphaned || got.DurationMS != 20000 {
		t.Fatalf("orphaned record: status %s duration %d", got.Status, got.DurationMS)
	}
}

func TestOpenOrphansRunningFromPreviousProcess(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	b, err := embedded.Open(dir, embedded.Options{})
	if err != nil {
		t.Fatal(err)
	}
	run := &execution.Record{ToolName: "exec"}
	queued := &execution.Record{ToolName: "exec"}
	for _, r := range []*execution.Record{run, queued} {
		if err := b.Create(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := b.Claim(ctx, "w-old", 0); err != nil {
		t.Fatal(err)
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}

	b2, err := embedded.Open(dir, embedded.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer b2.Close()
	got, err := b2.Get(ctx, run.ExecutionID)
	if err != nil || got.Status != execution.StatusOrphaned || got.Cleanup != execution.CleanupUnconfirmed || got.StatusReason == "" {
		t.Fatalf("running record after restart: %v %+v", err, got)
	}
	if err := b2.Finish(ctx, "w-old", run.ExecutionID, &execution.Record{Status: execution.StatusCompleted}); !errors.Is(err, execution.ErrLeaseLost) {
		t.Fatalf("Finish by the dead worker: %v, want ErrLeaseLost", err)
	}
	c, err := b2.Claim(ctx, "w-new", 0)
	if err != nil || c.ExecutionID != queued.ExecutionID {
		t.Fatalf("queued record after restart: %v %+v", err, c)
	}
}

func TestSecondProcessIsLockedOut(t *testing.T) {
	dir := t.TempDir()
	b, err := embedded.Open(dir, embedded.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if b2, err := embedded.Open(dir, embedded.Options{}); !errors.Is(err, embedded.ErrLocked) {
		if b2 != nil {
			b2.Close()
		}
		t.Fatalf("second Open of a directory in use: %v, want ErrLocked", err)
	}
}

func TestClosedBackend(t *testing.T) {
	b, err := embedded.Open(t.TempDir(), embedded.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	r := &execution.Record{ToolName: "exec"}
	if err := b.Create(ctx, r); err != nil {
		t.Fatal(err)
	}
	ch, err := b.Watch(ctx, r.ExecutionID)
	if err != nil {
		t.Fatal(err)
	}
	<-ch
	done := make(chan error, 1)
	go func() { _, err := b.Claim(ctx, "w", time.Hour); done <- err }()
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	for range ch {
	}
	// The blocked claim either took the record before Close or ends with ErrClosed.
	if err := <-done; err != nil && !errors.Is(err, execution.ErrClosed) {
		t.Fatalf("claim across Close: %v", err)
	}
	if err := b.Create(ctx, &execution.Record{}); !errors.Is(err, execution.ErrClosed) {
		t.Fatalf("Create after Close: %v", err)
	}
}
