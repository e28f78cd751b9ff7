package embedded_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/toolwarden/toolwarden/execution"
	"github.com/toolwarden/toolwarden/execution/embedded"
)

func TestKeepAliveReportsLostLease(t *testing.T) {
	b, err := embedded.Open(t.TempDir(), embedded.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	r := &execution.Record{ToolName: "exec"}
	if err := b.Create(ctx, r); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Claim(ctx, "w1", 0); err != nil {
		t.Fatal(err)
	}
	before, _ := b.Get(ctx, r.ExecutionID)
	lost := execution.KeepAlive(ctx, b, "w1", r.ExecutionID, time.Millisecond)

	// Wait until at least one heartbeat landed.
	ch, err := b.Watch(ctx, r.ExecutionID)
	if err != nil {
		t.Fatal(err)
	}
	for got := range ch {
		if got.HeartbeatAt != nil && got.Revision > before.Revision {
			break
		}
	}
	if _, err := b.Reconcile(ctx, []string{"someone-else"}); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-lost:
		if !errors.Is(err, execution.ErrLeaseLost) {
			t.Fatalf("lost lease error: %v", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("KeepAlive did not report the lost lease")
	}
	if _, ok := <-lost; ok {
		t.Fatal("KeepAlive channel not closed after reporting")
	}
}
