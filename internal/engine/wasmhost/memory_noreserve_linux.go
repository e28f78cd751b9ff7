package wasmhost

import "syscall"

// mapNoReserve keeps a guest memory's reservation from counting against
// the machine's commit limit until its pages are touched.
const mapNoReserve = syscall.MAP_NORESERVE
