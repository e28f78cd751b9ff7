package main

import (
	"context"
	"fmt"
	"os"
	"strings"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.26.0"

	"github.com/toolwarden/toolwarden/internal/version"
)

// startTracing installs an OpenTelemetry tracer provider that exports over
// OTLP/HTTP when the standard variables ask for it
// (OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT), so
// the spans toolwarden already makes — request, scan with its
// tool.safety.* attributes, store, queue, run, isolation stages — reach the
// operator's collector. The exporter reads the rest of the standard
// variables itself (headers, timeout, TLS, compression). Without them
// nothing is installed and spans stay no-ops, at no cost.
//
// shutdown flushes the queued spans; call it before the process exits.
func startTracing(ctx context.Context) (shutdown func(context.Context) error, err error) {
	none := func(context.Context) error { return nil }
	if os.Getenv("OTEL_EXPORTER_OTLP_ENDPOINT") == "" && os.Getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") == "" {
		return none, nil
	}
	if v := strings.TrimSpace(os.Getenv("OTEL_TRACES_EXPORTER")); v == "none" {
		return none, nil
	}
	proto := os.Getenv("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL")
	if proto == "" {
		proto = os.Getenv("OTEL_EXPORTER_OTLP_PROTOCOL")
	}
	if proto != "" && proto != "http/protobuf" {
		return none, fmt.Errorf("OTEL_EXPORTER_OTLP_PROTOCOL=%q: toolwarden exports traces over http/protobuf only", proto)
	}
	exp, err := otlptracehttp.New(ctx)
	if err != nil {
		return none, fmt.Errorf("OpenTelemetry OTLP exporter: %w", err)
	}
	name := os.Getenv("OTEL_SERVICE_NAME")
	if name == "" {
		name = "toolwarden"
	}
	res, err := resource.Merge(resource.Default(), resource.NewSchemaless(
		semconv.ServiceName(name), semconv.ServiceVersion(version.Get().String())))
	if err != nil {
		res = resource.Default()
	}
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(res))
	otel.SetTracerProvider(tp)
	return tp.Shutdown, nil
}
