//go:build unix && !linux

package isolation

import (
	"context"
	"fmt"
	"os"
	"runtime"
)

// Open opens the lite process-group backend, the only one on this OS
// (no cgroups, no namespaces). Mode required refuses; auto and
// process_group refuse too unless Config.AllowSharedHost accepts that
// runs share the host's network and filesystem (see liteBackend).
func Open(ctx context.Context, cfg Config) (Backend, error) {
	cfg, err := normalizePortable(cfg)
	if err != nil {
		return nil, err
	}
	if cfg.Mode == ModeRequired {
		return nil, fmt.Errorf("isolation: mode required: no cgroup backend on %s (cgroups exist only on Linux); runs are refused", runtime.GOOS)
	}
	b, err := openLite(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("%w (on %s)", err, runtime.GOOS)
	}
	return b, nil
}

// Check reports what Open would give on this host, probing one run when
// it opens.
func Check(ctx context.Context, cfg Config) (Report, error) {
	return checkPortable(ctx, cfg, Spec{Path: "/bin/sh", Args: []string{"sh", "-c", "true"}})
}

// IsShim reports whether this process is one of the lite backend's helper
// processes (see the Linux build for the contract).
func IsShim() bool {
	return len(os.Args) >= 2 && (os.Args[1] == liteShimArg || os.Args[1] == liteWatchdogArg)
}

// ShimMain runs the helper process selected by os.Args[1] and never
// returns.
func ShimMain() {
	var err error
	switch os.Args[1] {
	case liteShimArg:
		err = runLiteShim()
	case liteWatchdogArg:
		err = runLiteWatchdog(os.Stdin, os.Stdout)
	default:
		err = fmt.Errorf("unknown helper %q", os.Args[1])
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "toolwarden %s: %v\n", os.Args[1], err)
		os.Exit(127)
	}
	os.Exit(0)
}
