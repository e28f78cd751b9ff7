// Package rawabi implements the Wasm rule ABI's bookkeeping exports
// (abi_version, describe, alloc, free) without the guest kit's safety nets,
// for test plugins whose hostility the kit would otherwise absorb (a panic
// that is not recovered, a result pointer that is a lie). Each plugin's main
// package adds its own scan export.
package rawabi

import (
	"unsafe"
)

var live = map[uint32][]byte{}

func keep(b []byte) uint32 {
	if len(b) == 0 {
		b = make([]byte, 1)
	}
	p := uint32(uintptr(unsafe.Pointer(unsafe.SliceData(b))))
	live[p] = b
	return p
}

// Describe is the JSON the describe export returns; a plugin sets it in init.
var Describe = []byte(`{"name":"raw","version":"0","rules":[{"id":"RAW","risk_type":"unknown","risk":"low","decision":"allow","description":"raw"}]}`)

// Input returns the bytes the host wrote at ptr/len into a buffer from
// alloc, or nil when ptr/len is not such a buffer.
func Input(ptr, length uint32) []byte {
	b, ok := live[ptr]
	if !ok || int(length) > len(b) {
		return nil
	}
	return b[:length]
}

// Return keeps b alive and packs its address and length as ptr<<32|len.
func Return(b []byte) uint64 {
	return uint64(keep(b))<<32 | uint64(len(b))
}

//go:wasmexport abi_version
func abiVersion() uint32 { return 1 }

//go:wasmexport describe
func describe() uint64 { return Return(Describe) }

//go:wasmexport alloc
func alloc(n uint32) uint32 { return keep(make([]byte, n)) }

//go:wasmexport free
func free(ptr uint32) { delete(live, ptr) }
