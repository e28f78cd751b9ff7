// Command badptr is a rule plugin without the guest kit whose scan returns a
// result pointer or length that lies outside its linear memory: "badptr" in
// the content gives a pointer near 4 GiB, "badlen" a real pointer with a
// length far beyond the memory's end.
package main

import (
	"bytes"

	"github.com/toolwarden/toolwarden/rules-wasm/testplugins/internal/rawabi"
)

//go:wasmexport scan
func scan(ptr, length uint32) uint64 {
	in := rawabi.Input(ptr, length)
	switch {
	case bytes.Contains(in, []byte("badptr")):
		return uint64(0xFFFF_FF00)<<32 | 64
	case bytes.Contains(in, []byte("badlen")):
		return rawabi.Return([]byte(`{"findings":[]}`)) | 0x7FFF_FFFF
	}
	return rawabi.Return([]byte(`{"findings":[]}`))
}

func main() {}
