package isolation

import "sync/atomic"

// ShimStarts counts how the runs of this process's cgroup backends were
// started. A warm start skips the cgroup creation, the clone with its
// namespaces and the shim's start-up (warm.go), so whether runs take that
// path decides much of their latency; the counts make it visible (the
// executor exports them on /metrics, benchmarks report the warm share)
// instead of leaving it to be inferred from timings.
type ShimStarts struct {
	// Warm runs started on a prepared shim.
	Warm uint64
	// Fresh runs started on a shim cloned for them: the spec did not fit
	// a warm shim (other limits, stdin, egress, separate stdout and
	// stderr), the pool was empty, or a warm shim could not serve it.
	Fresh uint64
	// WarmRetried counts warm shims taken for a run that could not serve
	// it before anything of the run happened (the shim was gone, or could
	// not see the workspace); the run then started fresh and is counted
	// in Fresh as well.
	WarmRetried uint64
}

var warmStarts, freshStarts, warmRetried atomic.Uint64

// ShimStartCounts returns the counts since the process started.
func ShimStartCounts() ShimStarts {
	return ShimStarts{Warm: warmStarts.Load(), Fresh: freshStarts.Load(), WarmRetried: warmRetried.Load()}
}
