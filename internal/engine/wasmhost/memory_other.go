//go:build !(linux || darwin || freebsd || netbsd || openbsd)

package wasmhost

import "context"

// withGuestMemory leaves wazero's slice-backed memory where no anonymous
// mapping is at hand (see memory_unix.go).
func withGuestMemory(ctx context.Context) context.Context { return ctx }
