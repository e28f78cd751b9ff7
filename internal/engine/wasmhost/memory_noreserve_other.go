//go:build darwin || freebsd || netbsd || openbsd

package wasmhost

// mapNoReserve is 0 where the flag does not exist (anonymous mappings are
// not committed until touched there anyway).
const mapNoReserve = 0
