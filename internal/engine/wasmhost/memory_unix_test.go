//go:build linux || darwin || freebsd || netbsd || openbsd

package wasmhost

import (
	"context"
	"strings"
	"testing"
	"unsafe"
)

// TestGuestMemoryGrowsInPlace scans ever larger inputs so the guest's
// memory grows, and checks that it grows inside its reservation (its base
// address never moves, so nothing was copied) while every scan still sees
// its whole input.
func TestGuestMemoryGrowsInPlace(t *testing.T) {
	h := newHost(t, Options{PoolSize: 1})
	for _, bounded := range []bool{false, true} {
		load := h.Load
		if bounded {
			load = h.LoadBounded
		}
		p, err := load(context.Background(), "echo", pluginWasm["echo"])
		if err != nil {
			t.Fatal(err)
		}
		inst, err := p.acquire(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		base := func() uintptr {
			b, ok := inst.mod.Memory().Read(0, 1)
			if !ok {
				t.Fatal("memory has no first byte")
			}
			return uintptr(unsafe.Pointer(&b[0]))
		}
		first, size := base(), inst.mod.Memory().Size()
		p.release(inst, false)
		for _, n := range []int{1 << 10, 1 << 20, 2 << 20, 6 << 20} {
			content := strings.Repeat("x", n)
			fs, err := p.Scan(context.Background(), input(t, content, nil))
			if err != nil {
				t.Fatalf("bounded=%v: scan of %d bytes: %v", bounded, n, err)
			}
			if len(fs) != 1 || fs[0].Evidence != content {
				t.Fatalf("bounded=%v: scan of %d bytes lost its input", bounded, n)
			}
		}
		inst, err = p.acquire(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if grown := inst.mod.Memory().Size(); grown <= size {
			t.Fatalf("bounded=%v: memory did not grow (%d bytes)", bounded, grown)
		}
		if got := base(); got != first {
			t.Fatalf("bounded=%v: memory moved from %#x to %#x while growing", bounded, first, got)
		}
		p.release(inst, false)
	}
}
