// Command panic is a rule plugin without the guest kit whose scan panics,
// unrecovered, when the content contains "panic": the Go runtime prints the
// panic and exits the module, which the host sees as a trap.
package main

import (
	"bytes"

	"github.com/toolwarden/toolwarden/rules-wasm/testplugins/internal/rawabi"
)

//go:wasmexport scan
func scan(ptr, length uint32) uint64 {
	if bytes.Contains(rawabi.Input(ptr, length), []byte("panic")) {
		panic("raw plugin panics without recover")
	}
	return rawabi.Return([]byte(`{"findings":[]}`))
}

func main() {}
