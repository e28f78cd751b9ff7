package isolation

import (
	"context"
	"errors"
)

// Report is what Check found out about the host; `toolwarden
// check-isolation` prints it as JSON.
type Report struct {
	Checked bool     `json:"checked"`
	Backend string   `json:"backend"`
	Mode    string   `json:"mode"`
	Layers  []string `json:"layers"`
	Limits  Limits   `json:"limits"`
	// CgroupRoot is the exclusive root the per-run cgroups live under.
	CgroupRoot string `json:"cgroup_root,omitempty"`
	// Reasons explains every layer or backend that was not available.
	Reasons []string `json:"reasons,omitempty"`
	// RequiredMet is false when Mode is required and the strong backend is
	// unavailable.
	RequiredMet bool `json:"required_met"`
}

// Open detects the host, self-tests the chosen backend, starts the watchdog
// and reaps leftovers of earlier runs.
func Open(ctx context.Context, cfg Config) (Backend, error) {
	return nil, errors.New("isolation: open: not implemented")
}

// Check inspects the host without starting a backend for real runs.
func Check(ctx context.Context, cfg Config) (Report, error) {
	return Report{}, errors.New("isolation: check: not implemented")
}
