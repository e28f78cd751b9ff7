//go:build linux

package isolation

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// buildShim builds cmd/toolwarden-shim from this source tree, so the test
// never runs a stale embedded copy.
func buildShim(t testing.TB) []byte {
	t.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("CI=true but no go toolchain to build the shim")
		}
		t.Skip("no go toolchain to build the shim")
	}
	out := filepath.Join(t.TempDir(), "toolwarden-shim")
	cmd := exec.Command("go", "build", "-trimpath", "-o", out, "github.com/toolwarden/toolwarden/cmd/toolwarden-shim")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build shim: %v\n%s", err, b)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestUseShimBinaryRunsFromSealedMemfd: with the small shim handed over,
// both backends start runs through it (a memfd path, not the test binary),
// the run is confined as before, and the memfd cannot be written.
func TestUseShimBinaryRunsFromSealedMemfd(t *testing.T) {
	l := needCgroups(t)
	bin := buildShim(t)
	useShimForTest(t, bin)
	if !strings.HasPrefix(shimOverride, "/proc/") {
		t.Fatalf("shim path %q, want a /proc/PID/fd path", shimOverride)
	}
	if _, err := shimFile.Write([]byte("x")); err == nil {
		t.Fatal("the sealed shim memfd accepted a write")
	}
	for _, mode := range []string{ModeRequired, ModeProcessGroup} {
		cfg := testConfig(t, l)
		cfg.Mode = mode
		b := openTest(t, cfg)
		switch bb := b.(type) {
		case *cgroupBackend:
			if bb.shim != shimOverride {
				t.Fatalf("%s backend executes %q, want the memfd shim %q", b.Name(), bb.shim, shimOverride)
			}
		case *pgBackend:
			if bb.shim != shimOverride {
				t.Fatalf("%s backend executes %q, want the memfd shim %q", b.Name(), bb.shim, shimOverride)
			}
		}
		out, ex := runOutput(t, b, Spec{Path: "/bin/sh", Args: []string{"sh", "-c", "echo hi; id -u; cat /proc/1/cmdline | tr '\\0' ' '"},
			Hardening: DefaultHardening()})
		if ex.Code != 0 || !strings.HasPrefix(out, "hi\n65534\n") {
			t.Fatalf("%s: run through the small shim: exit %+v output %q", b.Name(), ex, out)
		}
	}
}

// useShimForTest hands bin to UseShimBinary for the rest of the test and
// restores the previous shim at cleanup.
func useShimForTest(t testing.TB, bin []byte) {
	t.Helper()
	shimMu.Lock()
	savedPath, savedFile := shimOverride, shimFile
	shimOverride, shimFile = "", nil
	shimMu.Unlock()
	t.Cleanup(func() {
		shimMu.Lock()
		if shimFile != nil {
			shimFile.Close()
		}
		shimOverride, shimFile = savedPath, savedFile
		shimMu.Unlock()
	})
	if err := UseShimBinary(bin); err != nil {
		t.Fatal(err)
	}
}
