package service

// TracerName is the instrumentation scope of the service's spans.
const TracerName = "github.com/toolwarden/toolwarden/internal/service"

// Span names of a scan-and-run on the request side: the whole Submit (the
// engine's toolwarden.scan span and the stages below are its children), the
// record's first write (queue enqueue included) and the bounded wait for
// the result (the executor's work plus the store's wake-up of the waiter).
// Each carries toolwarden.execution.id, which joins them with the
// executor's spans of the same execution.
const (
	SpanSubmit      = "toolwarden.submit"
	SpanStoreCreate = "toolwarden.store.create"
	SpanWait        = "toolwarden.wait"
)
