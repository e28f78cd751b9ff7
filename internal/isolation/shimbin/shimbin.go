// Package shimbin carries the small helper binary that the isolation
// backends execute for every run (cmd/toolwarden-shim, built by
// `go tool task shim`), inside the toolwarden binary.
//
// Why a second binary: the workload shim and the process-group supervisor
// are started once per run, and a Go program runs every package's init
// before main. The toolwarden binary links the engine, the API, the stores
// and their libraries, whose initialisation costs tens of milliseconds on
// this machine type (JSON schema compilers, regexp tables, metric
// registries); the shim links only the isolation package and starts in about
// a millisecond. The binary is embedded rather than installed beside
// toolwarden so that one file still is the whole product, and it is run from
// a sealed memfd (isolation.UseShimBinary), so nothing on disk can be
// swapped under it.
package shimbin

import (
	"embed"
)

//go:embed bin
var files embed.FS

// Binary returns the embedded shim, or nil when this build has none (built
// without `go tool task shim`; the backends then re-execute the host binary).
func Binary() []byte {
	b, err := files.ReadFile("bin/toolwarden-shim")
	if err != nil || len(b) == 0 {
		return nil
	}
	return b
}
