//go:build windows

package isolation

import (
	"context"
	"fmt"
	"runtime"
)

// Open opens the job object backend, the only one on Windows. Mode
// required refuses (no cgroups); auto and process_group refuse unless
// Config.AllowSharedHost accepts that runs share the host's network and
// filesystem, and for an elevated daemon (see jobBackend).
func Open(ctx context.Context, cfg Config) (Backend, error) {
	cfg, err := normalizePortable(cfg)
	if err != nil {
		return nil, err
	}
	b, err := newJobBackend(winJobs{}, cfg, runtime.NumCPU())
	if err != nil {
		return nil, fmt.Errorf("%w (on %s)", err, runtime.GOOS)
	}
	return b, nil
}

// Check reports what Open would give on this host, probing one run.
func Check(ctx context.Context, cfg Config) (Report, error) {
	return checkPortable(ctx, cfg, Spec{Path: "cmd.exe", Args: []string{"cmd.exe", "/c", "exit 0"}})
}

// IsShim is false on Windows: the job backend starts no helper process.
func IsShim() bool { return false }

// ShimMain is never reached on Windows.
func ShimMain() { panic("isolation: no helper processes on windows") }
