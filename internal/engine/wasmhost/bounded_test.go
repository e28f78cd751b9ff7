package wasmhost

import (
	"context"
	"errors"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// gateAt is the address the gated plugin polls: its scan of an input
// longer than gatedMinInput spins until the word there is non-zero, which
// only the test writes (a fresh instance has it zero), or until its
// iteration counter at spinAt reaches spinLimit (2³⁰ iterations, about a
// second idle): a guest without the interrupt check also holds up the Go
// runtime's stop-the-world phases (GC) while it runs (see RATIONALE.md), so
// a test must never leave one spinning forever.
const (
	gateAt        = 1024
	spinAt        = 1028
	gatedMinInput = 1000
	spinLimit     = 1 << 30
)

// gatedPlugin is the hand-assembled ABI v1 module whose scan of a long input
// does not return until the test opens its gate (or the failsafe ends it),
// and which answers a short input at once with the constant finding.
func gatedPlugin() []byte {
	load := []byte{0x28, 0x02, 0x00} // i32.load align=2 offset=0
	var body []byte
	body = append(body, 0x20, 0x01) // local.get 1 (len)
	body = append(body, i32const(gatedMinInput)...)
	body = append(body, 0x4b, 0x04, 0x40) // i32.gt_u; if
	body = append(body, 0x03, 0x40)       // loop
	// mem[spinAt]++
	body = append(body, i32const(spinAt)...)
	body = append(body, i32const(spinAt)...)
	body = append(body, load...)
	body = append(body, i32const(1)...)
	body = append(body, 0x6a, 0x36, 0x02, 0x00) // i32.add; i32.store
	// continue while mem[gateAt] == 0 && mem[spinAt] < spinLimit
	body = append(body, i32const(gateAt)...)
	body = append(body, load...)
	body = append(body, 0x45) // i32.eqz
	body = append(body, i32const(spinAt)...)
	body = append(body, load...)
	body = append(body, i32const(spinLimit)...)
	body = append(body, 0x49, 0x71, 0x0d, 0x00) // i32.lt_u; i32.and; br_if 0
	body = append(body, 0x0b, 0x0b)             // end loop; end if
	body = append(body, packedConst(constScanAt, uint32(len(constScan)))...)
	return constPlugin{abiVersion: 1, describe: constDescribe, scan: constScan, scanBody: body}.wasm()
}

func longInput(t testing.TB) []byte { return input(t, strings.Repeat("x", 2*gatedMinInput), nil) }

// catchAbandoned records the instances the host abandons, so the test can
// open their gates; it restores the hook when the test ends.
//
// It also turns the garbage collector off for the test: a GC cycle would
// wait for the spinning guest (stop-the-world cannot preempt code compiled
// without the check), stalling the test until the failsafe ends the spin.
// Each stuck guest holds a scheduler processor, so the test also runs
// with two processors more than it lets get stuck; and whatever happens,
// every gate is opened when the test ends.
func catchAbandoned(t *testing.T) func() []*instance {
	old := debug.SetGCPercent(-1)
	procs := runtime.GOMAXPROCS(runtime.GOMAXPROCS(0) + 2)
	var mu sync.Mutex
	var got []*instance
	testHookAbandoned = func(i *instance) {
		mu.Lock()
		got = append(got, i)
		mu.Unlock()
	}
	list := func() []*instance {
		mu.Lock()
		defer mu.Unlock()
		return append([]*instance(nil), got...)
	}
	t.Cleanup(func() {
		testHookAbandoned = nil
		openGates(t, list())
		runtime.GOMAXPROCS(procs)
		debug.SetGCPercent(old)
	})
	return list
}

func openGates(t *testing.T, insts []*instance) {
	t.Helper()
	for _, i := range insts {
		if !i.mod.Memory().WriteUint32Le(gateAt, 1) {
			t.Fatal("gate outside memory")
		}
	}
}

// TestBoundedOverrunFailsClosedAndQuarantines: a bounded plugin's call past
// its deadline answers the caller with ErrCallTimeout at the deadline while
// the instance keeps running; it is quarantined (counted, never pooled),
// the pool serves the next scans with fresh instances, MaxStuckInstances
// stuck instances make bounded plugins refuse work, and once the stuck
// calls return the plugin is healthy again.
func TestBoundedOverrunFailsClosedAndQuarantines(t *testing.T) {
	abandoned := catchAbandoned(t)
	var counted atomic.Int64
	var countedName atomic.Value
	h := newHost(t, Options{PoolSize: 3, MaxStuckInstances: 2, CallTimeout: 50 * time.Millisecond, OnQuarantine: func(name string) {
		counted.Add(1)
		countedName.Store(name)
	}})
	p, err := h.LoadBounded(context.Background(), "gated", gatedPlugin())
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	short := input(t, "ls", nil)

	_, err = p.Scan(ctx, longInput(t))
	if !errors.Is(err, ErrCallTimeout) {
		t.Fatalf("overrun: err = %v, want ErrCallTimeout", err)
	}
	if s := p.Stats(); !s.Bounded || s.Quarantined != 1 || s.Stuck != 1 || s.Discarded != 0 {
		t.Fatalf("after one overrun stats = %+v, want bounded, 1 quarantined, 1 stuck", s)
	}
	if counted.Load() != 1 || countedName.Load() != "gated" {
		t.Fatalf("OnQuarantine called %d times (%v), want once for gated", counted.Load(), countedName.Load())
	}
	if fs, err := p.Scan(ctx, short); err != nil || len(fs) != 1 || fs[0].RuleID != "CONST_RULE" {
		t.Fatalf("short scan beside a stuck instance = %+v, %v", fs, err)
	}

	if _, err := p.Scan(ctx, longInput(t)); !errors.Is(err, ErrCallTimeout) {
		t.Fatalf("second overrun: err = %v, want ErrCallTimeout", err)
	}
	for _, in := range [][]byte{short, longInput(t)} {
		if _, err := p.Scan(ctx, in); !errors.Is(err, ErrQuarantineFull) {
			t.Fatalf("scan with MaxStuckInstances stuck: err = %v, want ErrQuarantineFull", err)
		}
	}
	if s := p.Stats(); s.Stuck != 2 || s.Quarantined != 2 || counted.Load() != 2 {
		t.Fatalf("after the refused scans stats = %+v, OnQuarantine %d", s, counted.Load())
	}

	stuck := abandoned()
	if len(stuck) != 2 {
		t.Fatalf("%d instances abandoned, want 2", len(stuck))
	}
	openGates(t, stuck)
	waitFor(t, func() bool { return p.Stats().Stuck == 0 })
	for _, i := range stuck {
		if !i.mod.IsClosed() {
			t.Error("a quarantined instance was not closed when its call returned")
		}
	}
	if fs, err := p.Scan(ctx, short); err != nil || len(fs) != 1 {
		t.Fatalf("scan after the stuck calls returned = %+v, %v", fs, err)
	}
	if s := p.Stats(); s.Quarantined != 2 || s.Stuck != 0 || h.stuck.Load() != 0 {
		t.Fatalf("final stats = %+v, want 2 quarantined, none stuck", s)
	}
}

// TestBoundedCallerCancel: the caller's own cancellation also answers at
// once, without being reported as a deadline overrun.
func TestBoundedCallerCancel(t *testing.T) {
	abandoned := catchAbandoned(t)
	h := newHost(t, Options{PoolSize: 1, CallTimeout: time.Hour})
	p, err := h.LoadBounded(context.Background(), "gated", gatedPlugin())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := p.Scan(ctx, longInput(t))
		done <- err
	}()
	waitFor(t, func() bool { return p.Stats().Calls == 1 })
	cancel()
	err = <-done
	if err == nil || errors.Is(err, ErrCallTimeout) || !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled and not ErrCallTimeout", err)
	}
	openGates(t, abandoned())
	waitFor(t, func() bool { return p.Stats().Stuck == 0 })
}

// TestBoundedInputCap: a bounded plugin refuses input over the cap before
// any guest code runs.
func TestBoundedInputCap(t *testing.T) {
	h := newHost(t, Options{PoolSize: 1, MaxBoundedInputBytes: 512})
	p, err := h.LoadBounded(context.Background(), "gated", gatedPlugin())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Scan(context.Background(), longInput(t)); !errors.Is(err, ErrInputTooLarge) {
		t.Fatalf("err = %v, want ErrInputTooLarge", err)
	}
	if s := p.Stats(); s.Calls != 0 {
		t.Fatalf("stats = %+v, want no call made", s)
	}
	if _, err := p.Scan(context.Background(), input(t, "ls", nil)); err != nil {
		t.Fatalf("input under the cap: %v", err)
	}
	// The checked runtime has no such cap.
	pc, err := h.Load(context.Background(), "handmade", constPlugin{abiVersion: 1, describe: constDescribe, scan: constScan}.wasm())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := pc.Scan(context.Background(), longInput(t)); err != nil {
		t.Fatalf("checked plugin, long input: %v", err)
	}
}

// TestCheckedRuntimeNeverGetsUncheckedCode: the same module bytes loaded
// bounded first (populating the in-memory and the on-disk compilation
// cache) and then with Load must still be stoppable at the deadline under
// Load. wazero keys compiled code by the module's hash only, so a shared
// cache would hand the checked runtime code compiled without the check.
func TestCheckedRuntimeNeverGetsUncheckedCode(t *testing.T) {
	abandoned := catchAbandoned(t)
	dir := t.TempDir()
	wasm := gatedPlugin()
	h1 := newHost(t, Options{PoolSize: 1, CacheDir: dir, CallTimeout: 20 * time.Millisecond})
	if _, err := h1.LoadBounded(context.Background(), "gated", wasm); err != nil {
		t.Fatal(err)
	}
	h2 := newHost(t, Options{PoolSize: 1, CacheDir: dir, CallTimeout: 20 * time.Millisecond})
	for name, h := range map[string]*Host{"same host": h1, "new host, same cache dir": h2} {
		p, err := h.Load(context.Background(), "gated-checked", wasm)
		if err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() {
			_, err := p.Scan(context.Background(), longInput(t))
			done <- err
		}()
		select {
		case err := <-done:
			if !errors.Is(err, ErrCallTimeout) {
				t.Errorf("%s: err = %v, want ErrCallTimeout", name, err)
			}
		case <-time.After(time.Minute):
			// Fail-safe only: the checked call would never return.
			t.Errorf("%s: a checked call ran on past its deadline: it got code compiled without the check", name)
		}
		if s := p.Stats(); s.Discarded != 1 || s.Stuck != 0 || s.Bounded {
			t.Errorf("%s: stats = %+v, want the instance stopped and discarded", name, s)
		}
	}
	if n := len(abandoned()); n != 0 {
		t.Errorf("%d checked instances abandoned, want none", n)
	}
}
