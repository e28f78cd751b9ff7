package server

import (
	"context"
	"net/http"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/toolwarden/toolwarden/internal/engine/telemetry"
	"github.com/toolwarden/toolwarden/internal/execution"
)

// executionProbe is the cheapest List the readiness check and the queue
// gauge issue.
var executionProbe = execution.Filter{Limit: 1}

// metrics are the server's Prometheus series, registered in the telemetry
// registry beside the scan metrics so one /metrics serves all.
type metrics struct {
	requests *prometheus.HistogramVec
	created  *prometheus.CounterVec
}

var serverMetrics *metrics

func newMetrics(b execution.Backend) *metrics {
	if serverMetrics != nil {
		return serverMetrics
	}
	m := &metrics{
		requests: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "toolwarden_http_request_duration_seconds",
			Help:    "HTTP request latency by route and status code.",
			Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60},
		}, []string{"method", "route", "code"}),
		created: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "toolwarden_executions_created_total",
			Help: "Executions created, by initial status (queued, pending_review, blocked).",
		}, []string{"status"}),
	}
	telemetry.Registry().MustRegister(m.requests, m.created)
	serverMetrics = m
	return m
}

// queueGauge reports queued and running executions at scrape time.
type queueGauge struct {
	b    execution.Backend
	desc *prometheus.Desc
}

func (q queueGauge) Describe(ch chan<- *prometheus.Desc) { ch <- q.desc }

func (q queueGauge) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	for _, st := range []execution.Status{execution.StatusQueued, execution.StatusRunning, execution.StatusPendingReview} {
		n := 0
		f := execution.Filter{Status: st, Limit: execution.MaxListLimit}
		recs, _, err := q.b.List(ctx, f)
		if err != nil {
			continue
		}
		n = len(recs)
		ch <- prometheus.MustNewConstMetric(q.desc, prometheus.GaugeValue, float64(n), string(st))
	}
}

func (m *metrics) execCreated(st execution.Status) { m.created.WithLabelValues(string(st)).Inc() }

func (m *metrics) middleware(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		start := time.Now()
		err := next(c)
		code := c.Response().Status
		if err != nil {
			if ae, ok := err.(*apiErr); ok {
				code = ae.Status
			} else if he, ok := err.(*echo.HTTPError); ok {
				code = he.Code
			}
		}
		m.requests.WithLabelValues(c.Request().Method, c.Path(), strconv.Itoa(code)).Observe(time.Since(start).Seconds())
		return err
	}
}

func (m *metrics) handler() http.Handler {
	return promhttp.HandlerFor(telemetry.Registry(), promhttp.HandlerOpts{})
}

// RegisterQueueGauge exports queue depth (queued, running, pending_review,
// counted up to 1000 each) for b. Call it once per process.
func RegisterQueueGauge(b execution.Backend) error {
	return telemetry.Registry().Register(queueGauge{b: b, desc: prometheus.NewDesc(
		"toolwarden_executions", "Executions by unfinished status (queue depth), counted up to 1000.", []string{"status"}, nil)})
}
