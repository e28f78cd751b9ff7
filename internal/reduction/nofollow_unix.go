//go:build unix

package reduction

import "syscall"

// noFollow refuses to open a spill file or a persisted file through a
// symlink, so a planted link cannot redirect writes or reads.
const noFollow = syscall.O_NOFOLLOW
