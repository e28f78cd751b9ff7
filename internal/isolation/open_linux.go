//go:build linux

package isolation

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// Reasons implements Reasoner.
func (b *cgroupBackend) Reasons() []string { return nil }

// Reasons implements Reasoner.
func (b *pgBackend) Reasons() []string { return append([]string(nil), b.reasons...) }

// Open detects the host, builds the backend the mode asks for, self-tests
// it (/bin/true in a fresh unit must exit 0), starts the watchdog and
// reaps leftovers of earlier runs. Mode "auto" falls back to process_group
// only with the reasons recorded (see Reasoner); "required" returns an
// error that says why the cgroup backend is unavailable.
func Open(ctx context.Context, cfg Config) (Backend, error) {
	cfg, err := normalize(cfg)
	if err != nil {
		return nil, err
	}
	if cfg.Mode == ModeProcessGroup {
		return openPG(ctx, cfg, nil)
	}
	b, err := openCgroup(ctx, cfg)
	if err == nil {
		return b, nil
	}
	if errors.Is(err, errBadRoot) {
		// A misconfigured or shared root is an operator error, not a host
		// limit: never answer it with weaker isolation.
		return nil, fmt.Errorf("isolation: %w", err)
	}
	if cfg.Mode == ModeRequired {
		return nil, fmt.Errorf("isolation: mode required: cgroup backend unavailable: %w", err)
	}
	return openPG(ctx, cfg, []string{"cgroup backend unavailable: " + err.Error()})
}

// normalize validates cfg and fills defaults.
func normalize(cfg Config) (Config, error) {
	switch cfg.Mode {
	case "":
		cfg.Mode = ModeAuto
	case ModeAuto, ModeRequired, ModeProcessGroup:
	default:
		return cfg, fmt.Errorf("isolation: unknown mode %q (want auto, required or process_group)", cfg.Mode)
	}
	if cfg.CgroupRoot == "" {
		cfg.CgroupRoot = "auto"
	}
	if cfg.CgroupRoot != "auto" && !filepath.IsAbs(cfg.CgroupRoot) && !validAutoName(cfg.CgroupRoot) {
		return cfg, fmt.Errorf("isolation: cgroup_root %q must be \"auto\", \"auto:NAME\" or an absolute path", cfg.CgroupRoot)
	}
	lim, err := effectiveLimits(cfg.Limits)
	if err != nil {
		return cfg, err
	}
	cfg.Limits = lim
	if cfg.WatchdogPath == "" {
		exe, err := os.Executable()
		if err != nil {
			return cfg, fmt.Errorf("isolation: find own binary for the shim and watchdog: %w", err)
		}
		cfg.WatchdogPath = exe
	}
	return cfg, nil
}

func openPG(ctx context.Context, cfg Config, reasons []string) (Backend, error) {
	b := &pgBackend{cfg: cfg, shim: shimPath(cfg), reasons: reasons}
	if os.Geteuid() != 0 {
		if err := probeUserNS(); err != nil {
			b.usernsReason = err.Error()
			b.reasons = append(b.reasons, err.Error())
		} else {
			b.userns = true
		}
	}
	if err := selfTest(ctx, b); err != nil {
		return nil, fmt.Errorf("isolation: process_group self-test: %w", err)
	}
	return b, nil
}

// errBadRoot marks a cgroup_root that can never work on this host.
var errBadRoot = errors.New("invalid cgroup_root")

// detect is detectLayout; tests replace it to simulate other hosts.
var detect = detectLayout

// resolveRoot returns the exclusive v2 root for cfg.CgroupRoot.
func resolveRoot(l hostLayout, cgroupRoot string) (string, error) {
	if cgroupRoot == "auto" {
		return filepath.Join(l.V2Mount, l.V2Self, "toolwarden"), nil
	}
	if validAutoName(cgroupRoot) {
		// A sibling of the auto root, for short-lived processes such as
		// `toolwarden run` that must not contend for the daemon's root.
		return filepath.Join(l.V2Mount, l.V2Self, "toolwarden-"+strings.TrimPrefix(cgroupRoot, "auto:")), nil
	}
	root := filepath.Clean(cgroupRoot)
	rel, err := filepath.Rel(l.V2Mount, root)
	if err != nil || rel == "." || strings.HasPrefix(rel, "..") {
		return "", fmt.Errorf("%w: %s must be a directory strictly below the cgroup2 mount %s", errBadRoot, root, l.V2Mount)
	}
	return root, nil
}

// openCgroup builds the cgroup2 or hybrid backend and self-tests it.
func openCgroup(ctx context.Context, cfg Config) (_ *cgroupBackend, err error) {
	if os.Geteuid() != 0 {
		return nil, errors.New("not running as root: cannot create cgroups or run workloads as an unprivileged uid")
	}
	l, err := detect()
	if err != nil {
		return nil, err
	}
	if l.V2Mount == "" {
		return nil, errors.New("no cgroup2 hierarchy is mounted")
	}
	root, err := resolveRoot(l, cfg.CgroupRoot)
	if err != nil {
		return nil, err
	}
	b := &cgroupBackend{cfg: cfg, shim: shimPath(cfg), root: root, live: map[string]*cgProcess{},
		pending: map[string]pendingRun{}, stop: make(chan struct{}), lockFD: -1}
	if err := os.MkdirAll(root, 0o755); err != nil {
		return nil, fmt.Errorf("create cgroup root %s: %w", root, err)
	}
	if _, err := os.Stat(filepath.Join(root, "cgroup.kill")); err != nil {
		return nil, fmt.Errorf("cgroup root %s has no cgroup.kill (needs Linux 5.14+): %w", root, err)
	}
	fd, err := unix.Open(root, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("open cgroup root %s: %w", root, err)
	}
	if err := unix.Flock(fd, unix.LOCK_EX|unix.LOCK_NB); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("%w: %s is in use by another toolwarden (it must be exclusive; give each instance its own data_dir or set security.process_isolation.cgroup_root): %v", errBadRoot, root, err)
	}
	b.lockFD = fd
	defer func() {
		if err != nil {
			if b.wd != nil {
				_ = b.wd.close()
			}
			unix.Close(fd)
		}
	}()
	if l.pureV2() {
		b.name = "cgroup2"
		if err := enableControllers(l, root); err != nil {
			return nil, err
		}
	} else {
		b.name, b.hybrid = "hybrid", true
		b.v1Roots = map[string]string{}
		var missing []string
		for _, c := range v1Controllers {
			m, ok := l.V1Mounts[c]
			if !ok {
				missing = append(missing, c)
				continue
			}
			dir := filepath.Join(m, l.V1Self[c], filepath.Base(root))
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return nil, fmt.Errorf("create v1 %s root %s: %w", c, dir, err)
			}
			b.v1Roots[c] = dir
		}
		if len(missing) > 0 {
			return nil, fmt.Errorf("cgroup2 lacks pids/memory/cpu and no v1 hierarchy for %s is mounted", strings.Join(missing, ", "))
		}
	}
	if err := b.reapLeftovers(); err != nil {
		return nil, err
	}
	wd, err := newWatchdog(cfg.WatchdogPath)
	if err != nil {
		return nil, err
	}
	b.wd = wd
	if err := selfTest(ctx, b); err != nil {
		return nil, fmt.Errorf("%s self-test: %w", b.name, err)
	}
	b.mu.Lock()
	b.warmOn = true
	b.mu.Unlock()
	b.refill()
	go b.patrol()
	return b, nil
}

// enableControllers delegates pids, memory and cpu down to the run
// cgroups on a pure v2 host. A process may not sit in a cgroup whose
// subtree_control enables controllers, so when the parent holds this
// daemon it moves the daemon into a leaf ("toolwarden.daemon") first.
func enableControllers(l hostLayout, root string) error {
	const ctrls = "+pids +memory +cpu"
	parent := filepath.Dir(root)
	if parent != l.V2Mount {
		err := writeFile(filepath.Join(parent, "cgroup.subtree_control"), ctrls)
		if errors.Is(err, unix.EBUSY) {
			leaf := filepath.Join(parent, "toolwarden.daemon")
			if err := os.MkdirAll(leaf, 0o755); err != nil {
				return fmt.Errorf("create daemon leaf cgroup %s: %w", leaf, err)
			}
			if err := writeFile(filepath.Join(leaf, "cgroup.procs"), fmt.Sprint(os.Getpid())); err != nil {
				return fmt.Errorf("move daemon into %s: %w", leaf, err)
			}
			err = writeFile(filepath.Join(parent, "cgroup.subtree_control"), ctrls)
		}
		if err != nil {
			return fmt.Errorf("enable %s in %s (is the service delegated: Delegate=cpu memory pids?): %w", ctrls, parent, err)
		}
	}
	if err := writeFile(filepath.Join(root, "cgroup.subtree_control"), ctrls); err != nil {
		return fmt.Errorf("enable %s in %s: %w", ctrls, root, err)
	}
	return nil
}

// reapLeftovers kills and removes run cgroups an earlier daemon left under
// the exclusive root. It goes by directory only, never by remembered PIDs.
func (b *cgroupBackend) reapLeftovers() error {
	ents, err := os.ReadDir(b.root)
	if err != nil {
		return fmt.Errorf("list cgroup root %s: %w", b.root, err)
	}
	var errs []error
	for _, e := range ents {
		if !e.IsDir() || !strings.HasPrefix(e.Name(), "run-") {
			continue
		}
		var v1 []string
		for _, r := range b.v1Roots {
			v1 = append(v1, filepath.Join(r, e.Name()))
		}
		if err := reapRun(filepath.Join(b.root, e.Name()), v1); err != nil {
			errs = append(errs, err)
		}
	}
	// v1 directories whose v2 twin is already gone.
	for _, r := range b.v1Roots {
		ents, err := os.ReadDir(r)
		if err != nil {
			continue
		}
		for _, e := range ents {
			if e.IsDir() && strings.HasPrefix(e.Name(), "run-") {
				if err := rmdirRetry(filepath.Join(r, e.Name()), rmdirBound); err != nil {
					errs = append(errs, err)
				}
			}
		}
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("reap leftover runs: %w", err)
	}
	return nil
}

// selfTest runs /bin/true with the backend's default hardening; anything
// but a clean exit 0 means runs would not work as configured.
func selfTest(ctx context.Context, b Backend) error {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	var stderr bytes.Buffer
	p, err := b.Start(ctx, Spec{Path: "/bin/true", Args: []string{"true"}, Dir: "/", Stderr: &stderr})
	if err != nil {
		return err
	}
	ex, err := p.Wait()
	if err != nil {
		return err
	}
	if ex.Code != 0 || ex.Signal != "" {
		return fmt.Errorf("/bin/true ended with code %d signal %q: %s", ex.Code, ex.Signal, strings.TrimSpace(stderr.String()))
	}
	if c := p.Cleanup(); c != "" {
		return fmt.Errorf("/bin/true run: %s", c)
	}
	return nil
}

// Check reports which backend and layers runs would get, by opening the
// backend against a sibling root ("<root>.check", so a running daemon's
// exclusive root is untouched) and probing one run. It returns an error
// only for an invalid configuration; an unusable host is a Report with
// Reasons and RequiredMet false.
func Check(ctx context.Context, cfg Config) (Report, error) {
	cfg, err := normalize(cfg)
	if err != nil {
		return Report{}, err
	}
	rep := Report{Checked: true, Mode: cfg.Mode, Limits: cfg.Limits, RequiredMet: true}
	var uts unix.Utsname
	if unix.Uname(&uts) == nil {
		rep.Kernel = unix.ByteSliceToString(uts.Release[:])
	}
	if cfg.Mode != ModeProcessGroup {
		if l, err := detect(); err == nil && l.V2Mount != "" {
			root, err := resolveRoot(l, cfg.CgroupRoot)
			if err != nil {
				return rep, fmt.Errorf("isolation: check: %w", err)
			}
			rep.CgroupRoot = root
			rep.CgroupRootInUse = rootInUse(root)
			if rep.CgroupRootInUse {
				rep.Reasons = append(rep.Reasons, fmt.Sprintf("cgroup_root %s: in use by another toolwarden (a daemon with this configuration is running, or another instance shares it: give each its own data_dir or security.process_isolation.cgroup_root)", root))
			}
			cfg.CgroupRoot = root + ".check"
		}
	}
	if landlockABI() < 1 {
		rep.Reasons = append(rep.Reasons, "landlock: not supported by this kernel")
	}
	if auditArch == 0 {
		rep.Reasons = append(rep.Reasons, "seccomp: no filter for this architecture")
	}
	b, err := Open(ctx, cfg)
	if err != nil {
		rep.Reasons = append(rep.Reasons, err.Error())
		rep.RequiredMet = cfg.Mode != ModeRequired
		return rep, nil
	}
	defer b.Close()
	rep.Backend = b.Name()
	if r, ok := b.(Reasoner); ok {
		rep.Reasons = append(rep.Reasons, r.Reasons()...)
	}
	p, err := b.Start(ctx, Spec{Path: "/bin/true", Args: []string{"true"}, Dir: "/"})
	if err != nil {
		rep.Reasons = append(rep.Reasons, "probe: "+err.Error())
		rep.RequiredMet = cfg.Mode != ModeRequired
		return rep, nil
	}
	if _, err := p.Wait(); err != nil {
		rep.Reasons = append(rep.Reasons, "probe: "+err.Error())
	}
	rep.Layers = p.Layers()
	for _, need := range []string{"netns", "pidns", "root"} {
		if !slices.Contains(rep.Layers, need) {
			rep.Reasons = append(rep.Reasons, fmt.Sprintf("%s: absent (%s backend as uid %d): runs share the host's %s", need, b.Name(), os.Geteuid(), sharedBy[need]))
		}
	}
	return rep, nil
}

// sharedBy says what a run shares with the host without a layer.
var sharedBy = map[string]string{"netns": "network (loopback services included)", "pidns": "process table", "root": "filesystem view"}

// rootInUse reports whether another process holds the exclusive lock of
// the cgroup root (false when the root does not exist yet: it is free).
func rootInUse(root string) bool {
	fd, err := unix.Open(root, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return false
	}
	defer unix.Close(fd)
	if err := unix.Flock(fd, unix.LOCK_EX|unix.LOCK_NB); err != nil {
		return true
	}
	_ = unix.Flock(fd, unix.LOCK_UN)
	return false
}

// validAutoName reports whether root is "auto:NAME" with NAME made of
// lower-case letters, digits and dashes: an exclusive root of its own next
// to the shared auto root.
func validAutoName(root string) bool {
	name, ok := strings.CutPrefix(root, "auto:")
	if !ok || name == "" || len(name) > 64 {
		return false
	}
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-') {
			return false
		}
	}
	return true
}
