//go:build unix && !freebsd && !dragonfly

package isolation

import "golang.org/x/sys/unix"

// setRlimit sets both the soft and the hard limit of r to v (the field
// type differs between Unix systems).
func setRlimit(r *unix.Rlimit, v uint64) { r.Cur, r.Max = v, v }
