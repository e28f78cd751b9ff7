package executor

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/toolwarden/toolwarden/internal/engine/telemetry"
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

func init() { telemetry.Registry().MustRegister(finishedTotal, runSeconds) }
