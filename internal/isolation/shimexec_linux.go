//go:build linux

package isolation

import (
	"fmt"
	"os"
	"sync"

	"golang.org/x/sys/unix"
)

// shimOverride is the path of the helper binary set by UseShimBinary ("" =
// the host binary itself).
var (
	shimMu       sync.Mutex
	shimOverride string
	shimFile     *os.File // keeps the memfd open for the life of the process
)

// UseShimBinary makes every backend opened afterwards execute bin (an
// isolation-only build of the shim, see package shimbin) as the workload shim
// and the process-group supervisor instead of re-executing the host binary,
// whose package initialisation would otherwise be paid on every run. The
// watchdog, started once per backend, stays the host binary.
//
// bin is copied into a memfd that is sealed against any change and kept open
// for the life of the process; children execute it through
// /proc/<pid>/fd/<n>, which only root (the daemon) can open. An empty bin
// keeps the default. Calling it again replaces the binary for backends opened
// later.
func UseShimBinary(bin []byte) error {
	if len(bin) == 0 {
		return nil
	}
	fd, err := unix.MemfdCreate("toolwarden-shim", unix.MFD_CLOEXEC|unix.MFD_ALLOW_SEALING)
	if err != nil {
		return fmt.Errorf("isolation: memfd for the shim: %w", err)
	}
	f := os.NewFile(uintptr(fd), "toolwarden-shim")
	if _, err := f.Write(bin); err != nil {
		f.Close()
		return fmt.Errorf("isolation: write the shim: %w", err)
	}
	seals := unix.F_SEAL_SEAL | unix.F_SEAL_SHRINK | unix.F_SEAL_GROW | unix.F_SEAL_WRITE
	if _, err := unix.FcntlInt(f.Fd(), unix.F_ADD_SEALS, seals); err != nil {
		f.Close()
		return fmt.Errorf("isolation: seal the shim: %w", err)
	}
	if err := unix.Fchmod(int(f.Fd()), 0o500); err != nil {
		f.Close()
		return fmt.Errorf("isolation: chmod the shim: %w", err)
	}
	shimMu.Lock()
	defer shimMu.Unlock()
	if shimFile != nil {
		shimFile.Close()
	}
	shimFile = f
	shimOverride = fmt.Sprintf("/proc/%d/fd/%d", os.Getpid(), f.Fd())
	return nil
}

// shimPath is the binary a backend executes as its per-run helper: the
// configured ShimPath, else the memfd of UseShimBinary, else the host binary
// (WatchdogPath).
func shimPath(cfg Config) string {
	if cfg.ShimPath != "" {
		return cfg.ShimPath
	}
	shimMu.Lock()
	defer shimMu.Unlock()
	if shimOverride != "" {
		return shimOverride
	}
	return cfg.WatchdogPath
}
