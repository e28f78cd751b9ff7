//go:build wasip1 && !rule_v2only

package rule

import "runtime"

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
	buf, ok := lookup(ptr)
	if !ok || uint64(length) > uint64(len(buf)) {
		return packed([]byte(`{"findings":[],"error":"scan: input is not inside a buffer returned by alloc"}`), true)
	}
	pinMu.Lock()
	dst := spareOut
	spareOut = nil
	pinMu.Unlock()
	return packed(handleInto(dst, buf[:length]), true)
}
