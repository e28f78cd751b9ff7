package webui_test

import (
	"os"
	"testing"

	"github.com/toolwarden/toolwarden/internal/isolation"
)

// TestMain lets the test binary serve as the isolation shim when the
// embedded executor starts a run through it.
func TestMain(m *testing.M) {
	if isolation.IsShim() {
		isolation.ShimMain()
	}
	os.Exit(m.Run())
}
