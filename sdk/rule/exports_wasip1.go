//go:build wasip1

package rule

import (
	"runtime"
	"sync"
	"unsafe"

	"github.com/toolwarden/toolwarden/sdk"
)

// pinned keeps every buffer handed to the host reachable until the host
// calls free: the Go GC does not know that the host holds a pointer into
// linear memory, and would otherwise reuse the bytes under it.
var (
	pinMu  sync.Mutex
	pinned = map[uint32][]byte{}
)

// pin records b as live and returns its address in linear memory.
func pin(b []byte) uint32 {
	if len(b) == 0 {
		b = make([]byte, 1)
	}
	ptr := uint32(uintptr(unsafe.Pointer(unsafe.SliceData(b))))
	pinMu.Lock()
	pinned[ptr] = b
	pinMu.Unlock()
	return ptr
}

// packed pins b and returns ptr<<32|len, the ABI's way to return a buffer.
func packed(b []byte) uint64 {
	return uint64(pin(b))<<32 | uint64(uint32(len(b)))
}

// abiVersion reports the ABI this kit speaks, so the host can refuse a
// plugin built against an incompatible kit.
//
//go:wasmexport abi_version
func abiVersion() uint32 {
	defer runtime.Gosched()
	return sdk.ABIVersion
}

// describe returns ptr<<32|len of the sdk.PluginInfo JSON, or 0 when no
// pack is registered (the host rejects a zero result).
//
//go:wasmexport describe
func describe() uint64 {
	defer runtime.Gosched()
	b, err := Describe()
	if err != nil {
		return 0
	}
	return packed(b)
}

// alloc returns a buffer of n bytes the host may write into; it stays live
// until free.
//
//go:wasmexport alloc
func alloc(n uint32) uint32 {
	defer runtime.Gosched()
	return pin(make([]byte, n))
}

// free releases a buffer returned by alloc, describe or scan. Unknown
// pointers are ignored so a confused host cannot corrupt the heap.
//
//go:wasmexport free
func free(ptr uint32) {
	defer runtime.Gosched()
	pinMu.Lock()
	delete(pinned, ptr)
	pinMu.Unlock()
}

// scan decodes the sdk.ScanInput at ptr/len, runs the registered pack and
// returns ptr<<32|len of the sdk.ScanOutput JSON. The input must lie inside
// a buffer from alloc; anything else is answered with an error output rather
// than read.
//
//go:wasmexport scan
func scan(ptr, length uint32) uint64 {
	// runtime.Gosched lets the Go scheduler run the GC's background work
	// before control returns to the host; without it the heap grows on
	// every call until the memory cap is hit.
	defer runtime.Gosched()
	pinMu.Lock()
	buf, ok := pinned[ptr]
	pinMu.Unlock()
	if !ok || uint64(length) > uint64(len(buf)) {
		return packed([]byte(`{"findings":[],"error":"scan: input is not inside a buffer returned by alloc"}`))
	}
	return packed(Handle(buf[:length]))
}
