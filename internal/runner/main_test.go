package runner

import (
	"os"
	"testing"

	"github.com/toolwarden/toolwarden/internal/isolation"
)

// TestMain lets the test binary act as the isolation shim, supervisor and
// watchdog, as cmd/toolwarden does, so the tests can use real backends.
func TestMain(m *testing.M) {
	if isolation.IsShim() {
		isolation.ShimMain()
	}
	os.Exit(m.Run())
}
