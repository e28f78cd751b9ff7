//go:build !unix

package engine_test

import "time"

// processCPU is unknown off unix; the benchmarks then omit cpu-µs/op.
func processCPU() time.Duration { return 0 }
