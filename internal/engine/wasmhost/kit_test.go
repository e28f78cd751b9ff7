package wasmhost

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/toolwarden/toolwarden/sdk"
)

// TestKitFreesBuffers allocates and frees 1 MiB through the kit's exports
// a hundred times: the guest's memory must stay far below the cap. A kit
// that kept buffers pinned after free would need 100 MiB and trap.
func TestKitFreesBuffers(t *testing.T) {
	h := newHost(t, Options{PoolSize: 1})
	p := load(t, h, "echo")
	inst, err := p.acquire(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer p.release(inst, false)
	ctx := context.Background()
	for i := range 100 {
		res, err := inst.alloc.Call(ctx, 1<<20)
		if err != nil {
			t.Fatalf("alloc %d: %v", i, err)
		}
		if _, err := inst.free.Call(ctx, res[0]); err != nil {
			t.Fatalf("free %d: %v", i, err)
		}
	}
	if size := inst.mod.Memory().Size(); size > 24<<20 {
		t.Errorf("guest memory grew to %d bytes", size)
	}
	// And whole scans, results included, are released too.
	in := input(t, strings.Repeat("echo hello; ", 100), nil)
	for i := range 100 {
		out, err := p.call(ctx, inst, in)
		if err != nil {
			t.Fatalf("scan %d: %v", i, err)
		}
		if _, err := p.checkOutput(out); err != nil {
			t.Fatalf("scan %d: %v", i, err)
		}
	}
	if size := inst.mod.Memory().Size(); size > 24<<20 {
		t.Errorf("guest memory grew to %d bytes", size)
	}
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
