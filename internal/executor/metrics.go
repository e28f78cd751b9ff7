package executor

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/toolwarden/toolwarden/internal/engine/telemetry"
	"github.com/toolwarden/toolwarden/internal/isolation"
)

// Executions finished by this process, by final status and isolation
// backend, and their run times. They live in the shared telemetry registry,
// so `toolwarden serve` exports its embedded executor's on /metrics.
var (
	finishedTotal = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "toolwarden_executions_finished_total",
		Help: "Executions finished by this executor, by final status and isolation backend.",
	}, []string{"status", "isolation"})
	runSeconds = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "toolwarden_execution_duration_seconds",
		Help:    "Run time of finished executions, by final status.",
		Buckets: []float64{.01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60, 300, 1800, 3600},
	}, []string{"status"})
)

// shimStartsTotal exports isolation.ShimStartCounts: how many runs started
// on a warm shim and how many on a fresh one (and how many warm shims were
// given up for a fresh start), so a deployment — and the scan-and-run
// benchmark — can see which path its runs take.
var shimStartsTotal = []prometheus.Collector{
	shimStartCounter("warm", func(c isolation.ShimStarts) uint64 { return c.Warm }),
	shimStartCounter("fresh", func(c isolation.ShimStarts) uint64 { return c.Fresh }),
	shimStartCounter("warm_retried", func(c isolation.ShimStarts) uint64 { return c.WarmRetried }),
}

// shimStartCounter is one series of toolwarden_isolation_shim_starts_total.
func shimStartCounter(shim string, get func(isolation.ShimStarts) uint64) prometheus.Collector {
	return prometheus.NewCounterFunc(prometheus.CounterOpts{
		Name:        "toolwarden_isolation_shim_starts_total",
		Help:        "Runs started by this process's cgroup isolation backend, by shim path (warm, fresh, warm_retried).",
		ConstLabels: prometheus.Labels{"shim": shim},
	}, func() float64 { return float64(get(isolation.ShimStartCounts())) })
}

func init() {
	telemetry.Registry().MustRegister(finishedTotal, runSeconds)
	telemetry.Registry().MustRegister(shimStartsTotal...)
}
