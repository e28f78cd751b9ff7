package mcp_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/toolwarden/toolwarden/internal/execution"
	"github.com/toolwarden/toolwarden/internal/execution/embedded"
	"github.com/toolwarden/toolwarden/internal/mcp/gateway"
)

// The upstream calls run on the executor's duties; these tests check the
// duties the gateway used to do (or not do) on its own.

// dutyStore wraps the gateway's store: it counts Finish attempts per
// record and can break Watch (every open watch ends, new ones fail).
type dutyStore struct {
	execution.Backend
	mu       sync.Mutex
	finishes map[string]int
	broken   bool
	brk      chan struct{}
}

func newDutyStore(b execution.Backend) *dutyStore {
	return &dutyStore{Backend: b, finishes: map[string]int{}, brk: make(chan struct{})}
}

func (d *dutyStore) Finish(ctx context.Context, workerID, id string, final *execution.Record) error {
	d.mu.Lock()
	d.finishes[id]++
	d.mu.Unlock()
	return d.Backend.Finish(ctx, workerID, id, final)
}

func (d *dutyStore) finishCount(id string) int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.finishes[id]
}

// breakWatch ends every open watch and makes new ones fail.
func (d *dutyStore) breakWatch() {
	d.mu.Lock()
	defer d.mu.Unlock()
	if !d.broken {
		d.broken = true
		close(d.brk)
	}
}

// mendWatch lets watches work again.
func (d *dutyStore) mendWatch() {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.broken {
		d.broken = false
		d.brk = make(chan struct{})
	}
}

func (d *dutyStore) Watch(ctx context.Context, id string) (<-chan *execution.Record, error) {
	d.mu.Lock()
	broken, brk := d.broken, d.brk
	d.mu.Unlock()
	if broken {
		return nil, errors.New("watch: test: the store's notifications are down")
	}
	wctx, cancel := context.WithCancel(ctx)
	in, err := d.Backend.Watch(wctx, id)
	if err != nil {
		cancel()
		return nil, err
	}
	out := make(chan *execution.Record)
	go func() {
		defer close(out)
		defer cancel()
		for {
			select {
			case r, ok := <-in:
				if !ok {
					return
				}
				select {
				case out <- r:
				case <-brk:
					return
				case <-ctx.Done():
					return
				}
			case <-brk:
				return
			}
		}
	}()
	return out, nil
}

func openStoreLease(t *testing.T, lease time.Duration) execution.Backend {
	t.Helper()
	b, err := embedded.Open(t.TempDir(), embedded.Options{LeaseTTL: lease})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	return b
}

// awaitTerminal polls the store with Get (never Watch) until id ends.
func awaitTerminal(t *testing.T, b execution.Backend, id string, within time.Duration) *execution.Record {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		r, err := b.Get(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		if r.Status.Terminal() {
			return r
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s still %s after %s", id, r.Status, within)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// startSlow starts a slow upstream call whose wait ends while it runs and
// returns its execution id.
func startSlow(t *testing.T, g *gateway.Gateway) string {
	t.Helper()
	res, err := g.CallServer(context.Background(), "demo", "slow", map[string]any{"seconds": 120}, "tester")
	if err != nil || res.IsError {
		t.Fatalf("slow call: %v %s", err, text(res))
	}
	m := object(t, res)
	if m["status"] != "running" || m["wait_timed_out"] != true {
		t.Fatalf("slow call did not run past its wait: %v", m)
	}
	return m["execution_id"].(string)
}

// A cancel requested while the store's Watch is down still stops the
// call: the executor's cancel watch falls back to polling the record, and
// the upstream gets MCP cancellation (it cannot confirm, so the record
// ends orphaned with the caller's reason).
func TestGatewayCancelWhileWatchFailsIsPolled(t *testing.T) {
	svc := newService(t)
	store := newDutyStore(openStore(t))
	g := newGateway(t, svc, gateway.Config{Servers: []gateway.ServerConfig{upstreamConfig("demo")}},
		gateway.Options{Store: store, Wait: 300 * time.Millisecond, Heartbeat: 100 * time.Millisecond})
	id := startSlow(t, g)

	store.breakWatch()
	if _, err := store.Backend.RequestCancel(context.Background(), id, "cancelled while watch is down"); err != nil {
		t.Fatal(err)
	}
	got := awaitTerminal(t, store.Backend, id, 20*time.Second)
	if got.Status != execution.StatusOrphaned || got.Cleanup != execution.CleanupUnconfirmed ||
		got.StatusReason != "cancelled while watch is down" {
		t.Fatalf("record: %s %s %q", got.Status, got.Cleanup, got.StatusReason)
	}
	store.mendWatch()
	deadline := time.Now().Add(waitFor)
	for stats(t, g, "demo").Cancelled != 1 {
		if time.Now().After(deadline) {
			t.Fatal("the upstream never saw notifications/cancelled")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// When the gateway loses a call's lease (here: it is orphaned by another
// party's reconciliation) it stops the upstream call and writes nothing:
// the orphaned record is not overwritten by a second outcome.
func TestGatewayLeaseLossStopsTheCallAndWritesNothing(t *testing.T) {
	svc := newService(t)
	store := newDutyStore(openStoreLease(t, 2*time.Second))
	g := newGateway(t, svc, gateway.Config{Servers: []gateway.ServerConfig{upstreamConfig("demo")}},
		gateway.Options{Store: store, Wait: 300 * time.Millisecond, Lease: 2 * time.Second, Heartbeat: 100 * time.Millisecond})
	id := startSlow(t, g)

	orphaned, err := store.Backend.Reconcile(context.Background(), []string{"another-worker"})
	if err != nil || len(orphaned) != 1 || orphaned[0] != id {
		t.Fatalf("reconcile: %v %v", orphaned, err)
	}
	before := awaitTerminal(t, store.Backend, id, time.Second)
	deadline := time.Now().Add(waitFor)
	for stats(t, g, "demo").Cancelled != 1 {
		if time.Now().After(deadline) {
			t.Fatal("the upstream call went on after the lease was lost")
		}
		time.Sleep(20 * time.Millisecond)
	}
	// Past several heartbeats: still nothing written by the gateway.
	time.Sleep(500 * time.Millisecond)
	after, err := store.Backend.Get(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	if n := store.finishCount(id); n != 0 {
		t.Fatalf("the gateway tried to finish a record it no longer owns (%d Finish calls)", n)
	}
	if after.Status != execution.StatusOrphaned || after.Revision != before.Revision || after.StatusReason != before.StatusReason {
		t.Fatalf("record changed after the lease was lost: %s %q rev %d→%d", after.Status, after.StatusReason, before.Revision, after.Revision)
	}
}

// A gateway process that died leaves a call running under its worker id
// and one queued but never forwarded. The next gateway on that store
// marks the first orphaned (its upstream state is unknown) and finishes
// the second as failed, never sent — it has no arguments to send.
func TestGatewayMarksCallsOfADeadGatewayOrphaned(t *testing.T) {
	svc := newService(t)
	store := openStore(t)
	ctx := context.Background()
	running := &execution.Record{ToolName: "demo_slow", Language: gateway.Language, Content: `{"seconds":120}`, OwnerKeyID: "tester"}
	if err := store.Create(ctx, running); err != nil {
		t.Fatal(err)
	}
	if got, err := store.Claim(ctx, "mcp-gateway-dead-1", time.Second); err != nil || got.ExecutionID != running.ExecutionID {
		t.Fatalf("claim: %v %v", got, err)
	}
	queued := &execution.Record{ToolName: "demo_slow", Language: gateway.Language, Content: `{"seconds":1}`, OwnerKeyID: "tester"}
	if err := store.Create(ctx, queued); err != nil {
		t.Fatal(err)
	}

	newGateway(t, svc, gateway.Config{Servers: []gateway.ServerConfig{upstreamConfig("demo")}},
		gateway.Options{Store: store, Wait: waitFor, Exclusive: true})

	o := awaitTerminal(t, store, running.ExecutionID, 20*time.Second)
	if o.Status != execution.StatusOrphaned || !strings.Contains(o.StatusReason, "mcp-gateway-dead-1") {
		t.Fatalf("call of the dead gateway: %s %q", o.Status, o.StatusReason)
	}
	q := awaitTerminal(t, store, queued.ExecutionID, 20*time.Second)
	if q.Status != execution.StatusFailed || !strings.Contains(q.Error, "never sent upstream") {
		t.Fatalf("queued call of the dead gateway: %s %q", q.Status, q.Error)
	}
}
