//go:build linux || darwin || freebsd || netbsd || openbsd

package wasmhost

import (
	"context"
	"runtime"
	"sync"
	"syscall"

	"github.com/tetratelabs/wazero/experimental"
)

// withGuestMemory makes the instances created under ctx keep their linear
// memory in an anonymous mapping reserved at its maximum size (the memory
// cap) instead of a Go slice. wazero grows a slice-backed memory by
// appending, which copies the whole memory to a new, larger slice each time
// the guest's heap outgrows it — on a serving engine, whose guests grow
// towards Options.RecycleAboveBytes as inputs vary, that was a copy of
// several MiB (and as much garbage for the host's GC) on the request path.
// A reservation grows in place: pages the guest never touches are never
// backed, and the mapping is released once the closed instance is
// unreachable. The
// guest's view is unchanged: wazero checks every access against the
// memory's current length, never the reservation.
func withGuestMemory(ctx context.Context) context.Context {
	return experimental.WithMemoryAllocator(ctx, experimental.MemoryAllocatorFunc(newMappedMemory))
}

// mappedMemory is one instance's reserved linear memory.
type mappedMemory struct {
	mu sync.Mutex
	// mapped is the whole reservation (nil when none could be made or
	// once freed); heap is the fallback when there is none: a Go slice
	// grown by copying, as wazero does without an allocator.
	mapped []byte
	heap   []byte
	max    uint64
}

// newMappedMemory reserves max bytes. When the reservation fails (an
// address-space limit), the memory falls back to a Go slice.
//
// The reservation is released by a cleanup once the memory is unreachable,
// not by Free: wazero frees a module's memory when the module closes, and
// an instance of a bounded plugin can be closed (Host.Close) while a call
// stuck past its deadline still runs in it, or be written to by whoever
// still holds it. Unmapping then would fault the process; a Go slice in its
// place would simply stay alive. Whatever can still touch the memory holds
// the module's memory instance, which holds this value, so the mapping
// outlives every such access.
func newMappedMemory(_, max uint64) experimental.LinearMemory {
	m := &mappedMemory{max: max}
	if max > 0 && max <= uint64(int(^uint(0)>>1)) {
		b, err := syscall.Mmap(-1, 0, int(max), syscall.PROT_READ|syscall.PROT_WRITE,
			syscall.MAP_PRIVATE|syscall.MAP_ANON|mapNoReserve)
		if err == nil {
			m.mapped = b
			runtime.AddCleanup(m, func(b []byte) { _ = syscall.Munmap(b) }, b)
		}
	}
	return m
}

// Reallocate returns the memory at size bytes (nil past the maximum, which
// the guest sees as a failed memory.grow). Anonymous pages start zeroed and
// the memory never shrinks, so the bytes a growth adds are zero, as Wasm
// requires.
func (m *mappedMemory) Reallocate(size uint64) []byte {
	m.mu.Lock()
	defer m.mu.Unlock()
	if size > m.max {
		return nil
	}
	if m.mapped != nil {
		return m.mapped[:size:size]
	}
	if n := uint64(len(m.heap)); size > n {
		m.heap = append(m.heap, make([]byte, size-n)...)
	}
	return m.heap[:size:size]
}

// Free is called when the module closes; the reservation is released by
// the cleanup newMappedMemory registered (see there for why not here).
func (m *mappedMemory) Free() {}
