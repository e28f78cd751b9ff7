//go:build wasip1

package rule

import (
	"runtime"
	"runtime/debug"
	"strconv"
	"sync"
	"unsafe"

	"github.com/toolwarden/toolwarden/sdk"
)

// pinned keeps every buffer handed to the host reachable until the host
// calls free: the Go GC does not know that the host holds a pointer into
// linear memory, and would otherwise reuse the bytes under it. A host holds
// two or three buffers at a time, so a short list searched in order is
// cheaper than a map (whose hashing, inside Wasm, costs microseconds).
var (
	pinMu  sync.Mutex
	pinned []pinnedBuf
	// spareOut is the last scan output the host freed, reused for the
	// next output so that a scan allocates no output buffer.
	spareOut []byte
)

type pinnedBuf struct {
	ptr    uint32
	buf    []byte
	output bool
}

// pin records b as live and returns its address in linear memory.
func pin(b []byte, output bool) uint32 {
	if len(b) == 0 {
		b = make([]byte, 1)
	}
	ptr := uint32(uintptr(unsafe.Pointer(unsafe.SliceData(b))))
	pinMu.Lock()
	pinned = append(pinned, pinnedBuf{ptr: ptr, buf: b, output: output})
	pinMu.Unlock()
	return ptr
}

// lookup returns the pinned buffer at ptr.
func lookup(ptr uint32) ([]byte, bool) {
	pinMu.Lock()
	defer pinMu.Unlock()
	for _, p := range pinned {
		if p.ptr == ptr {
			return p.buf, true
		}
	}
	return nil, false
}

// packed pins b and returns ptr<<32|len, the ABI's way to return a buffer.
func packed(b []byte, output bool) uint64 {
	return uint64(pin(b, output))<<32 | uint64(uint32(len(b)))
}

// gcPercent, when set at link time (-ldflags "-X
// github.com/toolwarden/toolwarden/sdk/rule.gcPercent=400"), replaces the
// guest's GOGC (WASI gives it no environment), so the GC's placement can
// be measured against the default; see BENCHMARKS.md.
var gcPercent string

// goschedEvery, when set at link time like gcPercent, makes scan_v2 yield
// to the Go scheduler (runtime.Gosched, which lets the GC's background
// work run) only every n-th call instead of on every call ("0": never —
// for measurement only; the heap then grows until the memory cap).
var goschedEvery string

// yieldEvery is goschedEvery parsed (1 by default) and scans counts the
// scan_v2 calls.
var yieldEvery, scans = 1, 0

func init() {
	if n, err := strconv.Atoi(gcPercent); err == nil {
		debug.SetGCPercent(n)
	}
	if n, err := strconv.Atoi(goschedEvery); err == nil && n >= 0 {
		yieldEvery = n
	}
}

// maybeGosched is scan_v2's runtime.Gosched, every yieldEvery-th call.
func maybeGosched() {
	scans++
	if yieldEvery > 0 && scans%yieldEvery == 0 {
		runtime.Gosched()
	}
}

// maxSpareOut bounds the output buffer kept for reuse: one huge output
// must not pin its memory for the life of the instance.
const maxSpareOut = 1 << 20

// abiVersion reports the ABI this kit speaks, so the host can refuse a
// plugin built against an incompatible kit.
//
//go:wasmexport abi_version
func abiVersion() uint32 {
	defer runtime.Gosched()
	// Version 2, with v1's JSON scan export kept beside scan_v2 (unless
	// built with the rule_v2only tag), so the same module serves a host of
	// either generation.
	return sdk.ABIVersion2
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
	return packed(b, false)
}

// alloc returns a buffer of n bytes the host may write into; it stays live
// until free.
//
//go:wasmexport alloc
func alloc(n uint32) uint32 {
	defer runtime.Gosched()
	return pin(make([]byte, n), false)
}

// free releases a buffer returned by alloc, describe or scan. Unknown
// pointers are ignored so a confused host cannot corrupt the heap.
//
//go:wasmexport free
func free(ptr uint32) {
	defer runtime.Gosched()
	pinMu.Lock()
	defer pinMu.Unlock()
	for i, p := range pinned {
		if p.ptr != ptr {
			continue
		}
		if p.output && cap(p.buf) <= maxSpareOut {
			spareOut = p.buf[:0]
		}
		last := len(pinned) - 1
		pinned[i] = pinned[last]
		pinned[last] = pinnedBuf{}
		pinned = pinned[:last]
		return
	}
}

// configure installs the policy and settings JSON at ptr/len (ABI v2). It
// returns 0, or ptr<<32|len of an error message the host frees.
//
//go:wasmexport configure
func configure(ptr, length uint32) uint64 {
	defer runtime.Gosched()
	buf, ok := lookup(ptr)
	if !ok || uint64(length) > uint64(len(buf)) {
		return packed([]byte("configure: input is not inside a buffer returned by alloc"), false)
	}
	if err := Configure(buf[:length]); err != nil {
		return packed([]byte(err.Error()), false)
	}
	return 0
}

// v2Out is scan_v2's output buffer: it stays the guest's, valid until the
// next call, so the host copies it out without a free call (one Wasm call
// fewer per scan) and the next scan writes over it.
var v2Out []byte

// scanV2 reads the ABI v2 layout at ptr/len in place, runs the registered
// pack and returns ptr<<32|len of the output layout in v2Out.
//
//go:wasmexport scan_v2
func scanV2(ptr, length uint32) uint64 {
	defer maybeGosched()
	if cap(v2Out) > maxSpareOut {
		// The previous output was huge: the host has copied it by now
		// (it is valid until this call), so let it go.
		v2Out = nil
	}
	buf, ok := lookup(ptr)
	if !ok || uint64(length) > uint64(len(buf)) {
		v2Out = HandleV2Error(v2Out[:0], "scan: input is not inside a buffer returned by alloc")
	} else {
		v2Out = HandleV2(v2Out[:0], buf[:length])
	}
	if len(v2Out) == 0 {
		return 0
	}
	return uint64(uint32(uintptr(unsafe.Pointer(unsafe.SliceData(v2Out)))))<<32 | uint64(uint32(len(v2Out)))
}
