//go:build linux

package isolation

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/landlock-lsm/go-landlock/landlock"
	llsyscall "github.com/landlock-lsm/go-landlock/landlock/syscall"
)

// hiddenTopLevel are the top-level directories a workload may not read at
// all: users' homes hold credentials (ssh keys, cloud configs, tokens).
var hiddenTopLevel = map[string]bool{"root": true, "home": true}

// landlockABI returns the kernel's Landlock ABI version, 0 when Landlock
// is unavailable.
func landlockABI() int {
	v, err := llsyscall.LandlockGetABIVersion()
	if err != nil {
		return 0
	}
	return v
}

// landlockRuleset builds (without enforcing) the filesystem policy: every
// top-level directory except the homes is read-only (and executable), the
// workspace and a private /tmp are read-write, the usual character devices
// are usable. It returns fd -1 when Landlock is unavailable on this kernel.
func landlockRuleset(cfg shimConfig) (int, uint32, error) {
	if landlockABI() < 1 {
		return -1, 0, nil
	}
	entries, err := os.ReadDir("/")
	if err != nil {
		return -1, 0, fmt.Errorf("landlock: list /: %w", err)
	}
	var ro []string
	for _, e := range entries {
		if hiddenTopLevel[e.Name()] {
			continue
		}
		if e.Name() == "tmp" && cfg.MountNS {
			continue
		}
		p := filepath.Join("/", e.Name())
		if e.IsDir() {
			ro = append(ro, p)
		} else if e.Type()&os.ModeSymlink != 0 {
			// /bin -> usr/bin style links: the target is covered by its
			// own top-level entry; allow the link itself to resolve.
			if st, err := os.Stat(p); err == nil && st.IsDir() {
				ro = append(ro, p)
			}
		}
	}
	rules := []landlock.Rule{
		landlock.RODirs(ro...).IgnoreIfMissing(),
		landlock.RWFiles("/dev/null", "/dev/zero", "/dev/full", "/dev/tty", "/dev/pts").IgnoreIfMissing(),
	}
	var rw []string
	if cfg.Workspace != "" {
		rw = append(rw, cfg.Workspace)
	}
	if cfg.MountNS {
		rw = append(rw, "/tmp", "/dev/shm")
	}
	if len(rw) > 0 {
		rules = append(rules, landlock.RWDirs(rw...).WithRefer())
	}
	// Filesystem rights, plus (ABI 6) the IPC scopes: no connecting to
	// abstract unix sockets and no signals beyond the run's own domain.
	// Network rights stay unhandled: the run's namespace already confines
	// TCP, and its loopback must work.
	llcfg, err := landlock.NewConfig(landlock.V6.HandledAccessFS, landlock.V6.Scoped)
	if err != nil {
		return -1, 0, fmt.Errorf("landlock: config: %w", err)
	}
	fd, flags, err := llcfg.BestEffort().NewRulesetFD(rules...)
	if err != nil {
		return -1, 0, fmt.Errorf("landlock: build ruleset: %w", err)
	}
	return fd, flags, nil
}

// landlockScoped reports whether the kernel scopes abstract unix sockets
// and signals (Landlock ABI 6).
func landlockScoped() bool { return landlockABI() >= 6 }

// landlockRestrict enforces the ruleset on the calling thread, which then
// executes the workload; no_new_privs must already be set.
func landlockRestrict(fd int, flags uint32) error {
	defer func() { _ = closeFD(fd) }()
	if err := llsyscall.LandlockRestrictSelf(fd, flags); err != nil {
		return fmt.Errorf("landlock: restrict self: %w", err)
	}
	return nil
}
