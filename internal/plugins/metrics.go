package plugins

import (
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/toolwarden/toolwarden/internal/engine/telemetry"
	"github.com/toolwarden/toolwarden/sdk"
)

// Per-plugin Prometheus series, in the telemetry registry that /metrics
// serves: calls, findings by rule, errors, timeouts and call latency (its
// histogram gives p50/p99 with histogram_quantile).
var (
	metricsOnce   sync.Once
	pluginCalls   *prometheus.CounterVec
	pluginErrors  *prometheus.CounterVec
	pluginTimeout *prometheus.CounterVec
	pluginFinds   *prometheus.CounterVec
	pluginSeconds *prometheus.HistogramVec
	activations   *prometheus.CounterVec
)

func registerMetrics() {
	metricsOnce.Do(func() {
		pluginCalls = prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "toolwarden_plugin_calls_total", Help: "Scan calls of an uploaded rule plugin.",
		}, []string{"plugin"})
		pluginErrors = prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "toolwarden_plugin_errors_total", Help: "Failed scan calls (error, trap, timeout) of an uploaded rule plugin.",
		}, []string{"plugin"})
		pluginTimeout = prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "toolwarden_plugin_timeouts_total", Help: "Scan calls of an uploaded rule plugin stopped at its deadline.",
		}, []string{"plugin"})
		pluginFinds = prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "toolwarden_plugin_findings_total", Help: "Findings of an uploaded rule plugin by rule id.",
		}, []string{"plugin", "rule_id"})
		pluginSeconds = prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "toolwarden_plugin_call_duration_seconds",
			Help:    "Duration of one scan call of an uploaded rule plugin.",
			Buckets: []float64{0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1},
		}, []string{"plugin"})
		activations = prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "toolwarden_plugin_set_loads_total", Help: "Attempts of this server to load the active plugin set, by result (ok, failed).",
		}, []string{"result"})
		telemetry.Registry().MustRegister(pluginCalls, pluginErrors, pluginTimeout, pluginFinds, pluginSeconds, activations)
	})
}

func observeMetrics(name string, d time.Duration, fs []sdk.Finding, err error, timeout bool) {
	registerMetrics()
	pluginCalls.WithLabelValues(name).Inc()
	pluginSeconds.WithLabelValues(name).Observe(d.Seconds())
	if err != nil {
		pluginErrors.WithLabelValues(name).Inc()
		if timeout {
			pluginTimeout.WithLabelValues(name).Inc()
		}
	}
	for _, f := range fs {
		pluginFinds.WithLabelValues(name, f.RuleID).Inc()
	}
}

func observeLoad(ok bool) {
	registerMetrics()
	if ok {
		activations.WithLabelValues("ok").Inc()
	} else {
		activations.WithLabelValues("failed").Inc()
	}
}
