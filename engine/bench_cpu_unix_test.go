//go:build unix

package engine_test

import (
	"syscall"
	"time"
)

// processCPU is the user plus system CPU time this process has used so far,
// every thread included (the analyzers, wazero's compiled code, the GC).
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
