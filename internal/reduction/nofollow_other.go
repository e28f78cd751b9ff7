//go:build !unix

package reduction

// noFollow is not available here; the path checks in ReadPersisted still
// apply.
const noFollow = 0
