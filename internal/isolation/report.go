package isolation

// Report is what Check found out about the host; `toolwarden
// check-isolation` prints it as JSON so operators see exactly which
// backend and layers runs will get before deploying.
type Report struct {
	// Checked is true once a probe run was attempted.
	Checked bool `json:"checked"`
	// Backend is the backend Open would pick: cgroup2, hybrid or
	// process_group ("" when none could start).
	Backend string `json:"backend"`
	// Mode is the configured mode.
	Mode string `json:"mode"`
	// Layers are the layers the probe run actually got.
	Layers []string `json:"layers"`
	// Limits are the default limits runs get.
	Limits Limits `json:"limits"`
	// CgroupRoot is the exclusive v2 root the per-run cgroups live under.
	CgroupRoot string `json:"cgroup_root,omitempty"`
	// CgroupRootInUse is true when another toolwarden holds CgroupRoot's
	// exclusive lock: a daemon with the same configuration runs, or a
	// second instance would fail to start on it.
	CgroupRootInUse bool `json:"cgroup_root_in_use"`
	// Kernel is the running kernel release.
	Kernel string `json:"kernel,omitempty"`
	// Reasons explains every backend or layer that was not available.
	Reasons []string `json:"reasons,omitempty"`
	// RequiredMet is false when Mode is required and no cgroup backend
	// works; the command then exits non-zero.
	RequiredMet bool `json:"required_met"`
}
