package egress

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/toolwarden/toolwarden/internal/engine/telemetry"
)

// Egress connections of all runs, by outcome, and the bytes they moved.
// They live in the shared telemetry registry, exported on /metrics.
var (
	connectionsTotal = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "toolwarden_egress_connections_total",
		Help: "Connections runs asked the egress proxy for, by outcome (allowed or refused) and refusal class.",
	}, []string{"outcome", "class"})
	bytesTotal = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "toolwarden_egress_bytes_total",
		Help: "Bytes moved through the egress proxy, by direction (up: run to destination, down: back).",
	}, []string{"direction"})
)

func init() { telemetry.Registry().MustRegister(connectionsTotal, bytesTotal) }

// Refusal classes: a bounded label set for the metrics (the log has the
// full reason).
const (
	classNone     = ""
	classDomain   = "domain"
	classPort     = "port"
	classAddress  = "address"
	classSNI      = "sni"
	classProtocol = "protocol"
	classLimit    = "limit"
	classUpstream = "upstream"
)
