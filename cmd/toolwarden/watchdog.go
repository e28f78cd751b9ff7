package main

import "github.com/toolwarden/toolwarden/internal/isolation"

// The isolation backends re-execute this binary as hidden helpers —
// `toolwarden __watchdog` (kills every registered run's cgroup when the
// daemon dies), `__isolation_shim` (confines a workload, then execve) and
// `__isolation_supervisor` (the process_group backend's per-run
// subreaper). They are dispatched here, before cobra sees the arguments,
// so a helper never runs CLI code.
func init() {
	if isolation.IsShim() {
		isolation.ShimMain()
	}
}
