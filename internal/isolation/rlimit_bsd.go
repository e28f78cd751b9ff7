//go:build freebsd || dragonfly

package isolation

import (
	"math"

	"golang.org/x/sys/unix"
)

// setRlimit sets both the soft and the hard limit of r to v (the field
// type differs between Unix systems).
func setRlimit(r *unix.Rlimit, v uint64) {
	n := int64(math.MaxInt64)
	if v < math.MaxInt64 {
		n = int64(v)
	}
	r.Cur, r.Max = n, n
}
