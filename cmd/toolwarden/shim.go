package main

import (
	"context"
	"log/slog"
	"sync"

	"github.com/toolwarden/toolwarden/internal/isolation"
	"github.com/toolwarden/toolwarden/internal/isolation/shimbin"
)

// useEmbeddedShim hands the embedded per-run shim (package shimbin) to the
// isolation package once, before the first backend opens. A build without
// it (no `go tool task shim`) keeps re-executing this binary for every run:
// correct, only slower to start, and logged once so an operator knows.
var useEmbeddedShim = sync.OnceFunc(func() {
	bin := shimbin.Binary()
	if bin == nil {
		slog.Warn("this build has no embedded isolation shim (built without `go tool task shim`): every run re-executes the whole toolwarden binary and starts slower")
		return
	}
	if err := isolation.UseShimBinary(bin); err != nil {
		slog.Warn("embedded isolation shim unusable; runs re-execute the toolwarden binary", "err", err)
	}
})

// openIsolation opens the isolation backend of cfg with the embedded shim.
func openIsolation(ctx context.Context, cfg isolation.Config) (isolation.Backend, error) {
	useEmbeddedShim()
	return isolation.Open(ctx, cfg)
}

// checkIsolationWithShim is isolation.Check with the embedded shim, so that the
// report describes the backend a daemon of this build would get.
func checkIsolationWithShim(ctx context.Context, cfg isolation.Config) (isolation.Report, error) {
	useEmbeddedShim()
	return isolation.Check(ctx, cfg)
}
