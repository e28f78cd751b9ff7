package wasmhost

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/toolwarden/toolwarden/sdk"
)

// TestKitMemoryStaysBounded runs a thousand scans on one instance, with
// recycling out of the way, and checks that the guest's memory stays far
// below the cap: a kit that leaked its pinned buffers (a missing free, a
// describe or scan result never released) would grow by the input and output
// size on every call.
func TestKitMemoryStaysBounded(t *testing.T) {
	const calls = 1000
	h := newHost(t, Options{PoolSize: 1, RecycleAfterCalls: calls * 10, RecycleAboveBytes: 1 << 31})
	p := load(t, h, "echo")
	in := input(t, strings.Repeat("echo hello; ", 100), nil)
	for i := range calls {
		if _, err := p.Scan(context.Background(), in); err != nil {
			t.Fatalf("scan %d: %v", i, err)
		}
	}
	inst, err := p.acquire(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	size := inst.mod.Memory().Size()
	p.release(inst, false)
	if s := p.Stats(); s.Instantiated != 1 || s.Recycled != 0 {
		t.Fatalf("stats = %+v, want one instance serving every call", s)
	}
	if size > 24<<20 {
		t.Errorf("guest memory grew to %d bytes after %d calls", size, calls)
	}
	t.Logf("guest memory after %d calls: %d bytes", calls, size)
}

// TestKitRejectsInputOutsideAlloc calls the kit's scan export directly with
// a pointer the host never got from alloc: the kit must answer with an
// error output instead of reading arbitrary memory.
func TestKitRejectsInputOutsideAlloc(t *testing.T) {
	h := newHost(t, Options{PoolSize: 1})
	p := load(t, h, "echo")
	inst, err := p.acquire(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer p.release(inst, false)
	res, err := inst.scan.Call(context.Background(), 8, 16)
	if err != nil {
		t.Fatalf("scan export: %v", err)
	}
	raw, err := inst.take(context.Background(), res[0])
	if err != nil {
		t.Fatal(err)
	}
	var out sdk.ScanOutput
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatalf("kit output %q: %v", raw, err)
	}
	if !strings.Contains(out.Error, "not inside a buffer returned by alloc") || len(out.Findings) != 0 {
		t.Fatalf("kit output = %+v", out)
	}
}

func TestScanWithDeadContextKeepsInstances(t *testing.T) {
	h := newHost(t, Options{PoolSize: 1})
	p := load(t, h, "echo")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := p.Scan(ctx, input(t, "x", nil)); err == nil {
		t.Fatal("scan with a cancelled context succeeded")
	}
	if s := p.Stats(); s.Discarded != 0 || s.Calls != 0 {
		t.Fatalf("stats = %+v: a dead context must not cost an instance", s)
	}
}
