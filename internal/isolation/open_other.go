//go:build !unix && !windows

package isolation

import (
	"context"
	"fmt"
	"runtime"
)

// unsupported says why no run can start on this OS, in the terms of the
// configured mode. Every mode refuses (fail closed): the process-group
// backend's kill-on-daemon-death watchdog and the cgroup backend are
// Linux-only, and a run that could outlive its daemon or escape its limits
// is worse than no run. Scanning (`toolwarden scan`, the API's /v1/scan)
// works on every OS.
func unsupported(mode string) error {
	switch mode {
	case ModeRequired:
		return fmt.Errorf("isolation: mode required: no cgroup backend on %s (cgroups exist only on Linux); runs are refused", runtime.GOOS)
	default:
		return fmt.Errorf("isolation: mode %s: no isolation backend on %s yet (the process-group watchdog and cgroup backends are Linux-only); runs are refused, scanning works", modeName(mode), runtime.GOOS)
	}
}

// Open refuses off Linux, saying why (see unsupported).
func Open(ctx context.Context, cfg Config) (Backend, error) { return nil, unsupported(cfg.Mode) }

// Check reports that no backend can start a run here.
func Check(ctx context.Context, cfg Config) (Report, error) {
	return Report{Checked: true, Mode: modeName(cfg.Mode), Reasons: []string{unsupported(cfg.Mode).Error()}, RequiredMet: cfg.Mode != ModeRequired}, nil
}

// IsShim is always false off Linux.
func IsShim() bool { return false }

// ShimMain is never reached off Linux.
func ShimMain() { panic(unsupported(ModeAuto)) }
