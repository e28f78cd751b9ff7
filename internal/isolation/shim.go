//go:build linux

package isolation

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Hidden subcommands of the host binary. The daemon re-executes its own
// binary with one of these as argv[1]; ShimMain dispatches on it.
const (
	shimArg       = "__isolation_shim"
	supervisorArg = "__isolation_supervisor"
	watchdogArg   = "__watchdog"
)

// File descriptors the shim inherits (ExtraFiles start at 3).
const (
	fdConfig = 3 // read: JSON shimConfig, then EOF
	fdStatus = 4 // write: JSON lines {layers}|{error}; close-on-exec, so EOF means execve succeeded
	fdExit   = 5 // supervisor only, write: JSON exit report of the main child
	fdCtl    = 6 // supervisor only, read: EOF means "kill the tree"
)

// shimConfig is everything the shim needs to confine and execute one
// workload. It travels over a pipe, never argv or env, because Env may
// hold secrets and argv is world-readable in /proc.
type shimConfig struct {
	Path      string   `json:"path"`
	Args      []string `json:"args"`
	Env       []string `json:"env"`
	Dir       string   `json:"dir"`
	Workspace string   `json:"workspace"`
	// V1Procs are v1 cgroup.procs files the shim joins before execve, so the
	// workload starts inside its v1 limits with no window.
	V1Procs []string `json:"v1_procs,omitempty"`
	UID     int      `json:"uid"`
	// KeepUID runs the workload as the (non-root) daemon's uid, for the
	// process_group backend of an unprivileged daemon that cannot switch.
	KeepUID bool `json:"keep_uid,omitempty"`
	GID     int  `json:"gid"`
	// UserNS is true when the run lives in a user namespace of its own
	// (the process_group backend of an unprivileged daemon): the shim is
	// root only inside that namespace, mapped to the daemon's uid outside,
	// and instead of switching uid it gives up every capability for good
	// (dropCapabilities) before execve.
	UserNS bool `json:"user_ns,omitempty"`
	// NetNS is true when the shim was cloned into a new network namespace;
	// the shim brings its loopback up so local servers and clients work.
	NetNS bool `json:"net_ns"`
	// MountNS is true when the shim was cloned into new mount and PID
	// namespaces: it then builds the run's own root (buildRoot).
	MountNS bool `json:"mount_ns"`
	// TmpfsBytes caps the run's /tmp and /dev/shm each (0: no cap).
	TmpfsBytes int64 `json:"tmpfs_bytes,omitempty"`
	Landlock   bool  `json:"landlock"`
	Seccomp    bool  `json:"seccomp"`
	Rlimits    bool  `json:"rlimits"`
	// NProc (RLIMIT_NPROC) and AddressSpace (RLIMIT_DATA: private writable
	// memory) are the process_group backend's stand-ins for cgroup limits
	// (0 = unset).
	NProc        uint64 `json:"nproc,omitempty"`
	AddressSpace uint64 `json:"address_space,omitempty"`
	// Cloneflags is used by the supervisor when it starts the shim.
	Cloneflags uintptr `json:"cloneflags,omitempty"`
	// Warm makes this the first of two configs: the shim joins its v1
	// cgroups, brings up its loopback and prepares the run's root, says
	// Ready, and waits for the second config — the run — on the same pipe
	// (see warmShim). Only the run fields of the second are used.
	Warm bool `json:"warm,omitempty"`
	// SentNS is when the daemon sent a warm shim its run (Unix ns; the
	// shim shares the host's clock): the shim reports the hand-off's
	// latency as its "handoff" timing.
	SentNS int64 `json:"sent_ns,omitempty"`
}

// withRun returns the warm config c with the run fields of r: what it
// prepared (cgroups, namespaces, the root's tmpfs caps) stays c's.
func (c shimConfig) withRun(r shimConfig) shimConfig {
	c.Path, c.Args, c.Env, c.Dir, c.Workspace = r.Path, r.Args, r.Env, r.Dir, r.Workspace
	c.UID, c.GID, c.KeepUID = r.UID, r.GID, r.KeepUID
	c.Landlock, c.Seccomp, c.Rlimits = r.Landlock, r.Seccomp, r.Rlimits
	c.NProc, c.AddressSpace = r.NProc, r.AddressSpace
	c.Warm = false
	return c
}

// statusMsg is one line on the status pipe.
type statusMsg struct {
	Layers []string `json:"layers,omitempty"`
	// Pid is the workload's pid, sent by the process_group supervisor.
	Pid   int    `json:"pid,omitempty"`
	Error string `json:"error,omitempty"`
	// Ready is a warm shim's word that it is prepared and waits for its run.
	Ready bool `json:"ready,omitempty"`
	// Stale, with Error, says a warm shim could not open the run's
	// workspace from its mount namespace: nothing of the run has happened,
	// and a fresh shim may succeed.
	Stale bool `json:"stale,omitempty"`
	// Timings are durations in µs the shim measured (root, confine), for
	// the start-up span.
	Timings map[string]int64 `json:"timings,omitempty"`
}

func init() {
	// The shim applies per-thread state (no_new_privs, Landlock, seccomp)
	// and must execve from that same thread.
	if IsShim() {
		runtime.LockOSThread()
	}
}

// IsShim reports whether this process was started as one of the isolation
// helper processes (workload shim, process-group supervisor or watchdog).
// Binaries that use this package call it first thing in main (or TestMain)
// and then ShimMain, so that Backend.Start can re-execute them.
func IsShim() bool {
	if len(os.Args) < 2 {
		return false
	}
	switch os.Args[1] {
	case shimArg, supervisorArg, watchdogArg, liteShimArg, liteWatchdogArg:
		return true
	}
	return false
}

// ShimMain runs the helper process selected by os.Args[1] and never
// returns: the workload shim ends in execve, the supervisor and the
// watchdog exit when their work is done.
func ShimMain() {
	var err error
	switch os.Args[1] {
	case shimArg:
		err = runShim()
		var we *workspaceError
		reportStatus(statusMsg{Error: err.Error(), Stale: errors.As(err, &we) && warmRun})
		os.Exit(127)
	case supervisorArg:
		err = runSupervisor()
	case watchdogArg:
		err = runWatchdog(os.Stdin, os.Stdout)
	case liteShimArg:
		err = runLiteShim()
	case liteWatchdogArg:
		err = runLiteWatchdog(os.Stdin, os.Stdout)
	default:
		err = fmt.Errorf("unknown helper %q", os.Args[1])
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "toolwarden %s: %v\n", os.Args[1], err)
		os.Exit(1)
	}
	os.Exit(0)
}

// statusFile is the one *os.File for fdStatus; a second one would close
// the descriptor again from its finalizer, possibly after reuse.
var statusFile = sync.OnceValue(func() *os.File { return os.NewFile(fdStatus, "status") })

func reportStatus(m statusMsg) {
	b, _ := json.Marshal(m)
	_, _ = statusFile().Write(append(b, '\n'))
}

func readShimConfig() (shimConfig, error) {
	var cfg shimConfig
	f := os.NewFile(fdConfig, "config")
	if f == nil {
		return cfg, errors.New("read shim config: fd 3 missing")
	}
	defer f.Close()
	if err := json.NewDecoder(f).Decode(&cfg); err != nil {
		return cfg, fmt.Errorf("read shim config: %w", err)
	}
	return cfg, nil
}

// warmRun is set in a warm shim once its run's config has arrived.
var warmRun bool

// runShim confines the current process and executes the workload. It only
// returns on error; every error aborts the run (fail closed).
func runShim() error {
	f := os.NewFile(fdConfig, "config")
	if f == nil {
		return errors.New("read shim config: fd 3 missing")
	}
	defer f.Close()
	dec := json.NewDecoder(f)
	var cfg shimConfig
	if err := dec.Decode(&cfg); err != nil {
		return fmt.Errorf("read shim config: %w", err)
	}
	// The status pipe must close on execve so the daemon sees EOF exactly
	// when the workload image replaced the shim.
	if _, err := unix.FcntlInt(fdStatus, unix.F_SETFD, unix.FD_CLOEXEC); err != nil {
		return fmt.Errorf("set close-on-exec on status pipe: %w", err)
	}
	var layers []string
	pid := os.Getpid()
	for _, procs := range cfg.V1Procs {
		if err := writeFile(procs, fmt.Sprint(pid)); err != nil {
			return fmt.Errorf("join v1 cgroup %s: %w", procs, err)
		}
	}
	if cfg.NetNS {
		if err := loopbackUp(); err != nil {
			return err
		}
	}
	timings := map[string]int64{}
	if cfg.Warm {
		hostTmp := -1
		if cfg.MountNS {
			var err error
			if hostTmp, err = prepareRoot(cfg.TmpfsBytes); err != nil {
				return err
			}
		}
		reportStatus(statusMsg{Ready: true})
		var run shimConfig
		if err := dec.Decode(&run); err != nil {
			return fmt.Errorf("read run config: %w", err)
		}
		if run.SentNS > 0 {
			timings["handoff"] = (time.Now().UnixNano() - run.SentNS) / 1e3
		}
		warmRun = true
		cfg = cfg.withRun(run)
		if cfg.MountNS {
			t0 := time.Now()
			if err := finishRoot(cfg, hostTmp); err != nil {
				return err
			}
			unix.Close(hostTmp)
			timings["root"] = time.Since(t0).Microseconds()
			layers = append(layers, "root", "private-tmp")
		}
	} else if cfg.MountNS {
		t0 := time.Now()
		if err := buildRoot(cfg); err != nil {
			return err
		}
		timings["root"] = time.Since(t0).Microseconds()
		layers = append(layers, "root", "private-tmp")
	}
	tConfine := time.Now()
	if cfg.Rlimits {
		if err := applyRlimits(cfg); err != nil {
			return err
		}
		layers = append(layers, "rlimits")
	}
	path, err := lookPath(cfg.Path, cfg.Env)
	if err != nil {
		return err
	}
	llFD := -1
	var llFlags uint32
	if cfg.Landlock {
		llFD, llFlags, err = landlockRuleset(cfg)
		if err != nil {
			return err
		}
	}
	if cfg.UserNS {
		// Root of a user namespace that maps only the daemon's own uid:
		// no capability survives, in this thread or across execve.
		if err := dropCapabilities(); err != nil {
			return err
		}
		layers = append(layers, "userns", "no-caps")
	} else if cfg.KeepUID {
		// Unprivileged daemon: the workload keeps its (non-root) uid.
		if os.Geteuid() == 0 || os.Getuid() == 0 {
			return errors.New("keep uid requested but running as root (workloads never run as root)")
		}
	} else {
		if err := dropPrivileges(cfg.UID, cfg.GID); err != nil {
			return err
		}
		layers = append(layers, "uid")
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("set no_new_privs: %w", err)
	}
	if llFD >= 0 {
		if err := landlockRestrict(llFD, llFlags); err != nil {
			return err
		}
		layers = append(layers, "landlock")
		if landlockScoped() {
			layers = append(layers, "landlock-scoped")
		}
	}
	if cfg.Seccomp {
		ok, err := installSeccomp()
		if err != nil {
			return err
		}
		if ok {
			layers = append(layers, "seccomp")
		}
	}
	timings["confine"] = time.Since(tConfine).Microseconds()
	reportStatus(statusMsg{Layers: layers, Timings: timings})
	argv := cfg.Args
	if len(argv) == 0 {
		argv = []string{cfg.Path}
	}
	return execFinal(path, argv, cfg.Env, lateRlimits(cfg))
}

// lateRlimit is a limit that would break the shim's own Go runtime (thread
// creation, heap growth), so it is set by execFinal just before execve.
type lateRlimit struct {
	res int
	lim unix.Rlimit
}

func lateRlimits(cfg shimConfig) []lateRlimit {
	var out []lateRlimit
	if !cfg.Rlimits {
		return nil
	}
	if cfg.NProc > 0 {
		out = append(out, lateRlimit{unix.RLIMIT_NPROC, unix.Rlimit{Cur: cfg.NProc, Max: cfg.NProc}})
	}
	if cfg.AddressSpace > 0 {
		out = append(out, lateRlimit{unix.RLIMIT_DATA, unix.Rlimit{Cur: cfg.AddressSpace, Max: cfg.AddressSpace}})
	}
	return out
}

// execFinal sets the late rlimits and executes the workload using only
// raw system calls on pre-built buffers, so no allocation or thread
// creation can happen after the limits apply.
func execFinal(path string, argv, env []string, late []lateRlimit) error {
	p0, err := unix.BytePtrFromString(path)
	if err != nil {
		return fmt.Errorf("execve %s: %w", path, err)
	}
	av, err := syscall.SlicePtrFromStrings(argv)
	if err != nil {
		return fmt.Errorf("execve %s: argv: %w", path, err)
	}
	ev, err := syscall.SlicePtrFromStrings(env)
	if err != nil {
		return fmt.Errorf("execve %s: env: %w", path, err)
	}
	if err := closeOnExecFrom3(); err != nil {
		return err
	}
	for i := range late {
		_, _, e := unix.RawSyscall6(unix.SYS_PRLIMIT64, 0, uintptr(late[i].res), uintptr(unsafe.Pointer(&late[i].lim)), 0, 0, 0)
		if e != 0 {
			return fmt.Errorf("set rlimit %d: %w", late[i].res, e)
		}
	}
	_, _, e := unix.RawSyscall(unix.SYS_EXECVE, uintptr(unsafe.Pointer(p0)), uintptr(unsafe.Pointer(&av[0])), uintptr(unsafe.Pointer(&ev[0])))
	return fmt.Errorf("execve %s: %w", path, e)
}

// closeOnExecFrom3 marks every descriptor above stderr close-on-exec, so
// the workload starts with stdin, stdout and stderr only. Without it a run
// would inherit whatever the daemon holds without close-on-exec (what its
// launcher passed down: a socket-activation listener, a process manager's
// pipe, an open host file) and the shim's config pipe, and could use them
// from inside every namespace. It fails closed: a run whose descriptors
// cannot be swept does not start.
func closeOnExecFrom3() error {
	err := unix.CloseRange(3, ^uint(0), unix.CLOSE_RANGE_CLOEXEC)
	if err == nil {
		return nil
	}
	if err != unix.ENOSYS && err != unix.EINVAL {
		return fmt.Errorf("close-on-exec on inherited descriptors: %w", err)
	}
	// Kernels before 5.11: walk the descriptor table.
	var lim unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_NOFILE, &lim); err != nil {
		return fmt.Errorf("close-on-exec on inherited descriptors: %w", err)
	}
	max := lim.Max
	if max > 1<<20 {
		max = 1 << 20
	}
	for fd := uintptr(3); fd < uintptr(max); fd++ {
		_, _, e := unix.RawSyscall(unix.SYS_FCNTL, fd, unix.F_SETFD, unix.FD_CLOEXEC)
		if e != 0 && e != unix.EBADF {
			return fmt.Errorf("close-on-exec on descriptor %d: %w", fd, e)
		}
	}
	return nil
}

// loopbackUp brings "lo" up in the run's fresh network namespace: the run
// keeps 127.0.0.1 for itself but has no route anywhere else.
func loopbackUp() error {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("loopback up: socket: %w", err)
	}
	defer unix.Close(fd)
	ifr, err := unix.NewIfreq("lo")
	if err != nil {
		return fmt.Errorf("loopback up: %w", err)
	}
	if err := unix.IoctlIfreq(fd, unix.SIOCGIFFLAGS, ifr); err != nil {
		return fmt.Errorf("loopback up: get flags: %w", err)
	}
	ifr.SetUint16(ifr.Uint16() | unix.IFF_UP)
	if err := unix.IoctlIfreq(fd, unix.SIOCSIFFLAGS, ifr); err != nil {
		return fmt.Errorf("loopback up: set flags: %w", err)
	}
	return nil
}

// applyRlimits sets per-process limits that no workload needs above: no
// core dumps (they can leak secrets) and a bounded fd table. The
// process_group backend's process and data-size caps are set later, by
// execFinal.
func applyRlimits(cfg shimConfig) error {
	set := func(res int, v uint64, name string) error {
		lim := unix.Rlimit{Cur: v, Max: v}
		if err := unix.Setrlimit(res, &lim); err != nil {
			return fmt.Errorf("set rlimit %s=%d: %w", name, v, err)
		}
		return nil
	}
	if err := set(unix.RLIMIT_CORE, 0, "core"); err != nil {
		return err
	}
	if err := set(unix.RLIMIT_NOFILE, 4096, "nofile"); err != nil {
		return err
	}
	return nil
}

// dropPrivileges switches to the unprivileged identity. Go's syscall
// package applies these to every thread of the process.
func dropPrivileges(uid, gid int) error {
	if uid <= 0 || gid <= 0 {
		return fmt.Errorf("drop privileges: refusing uid %d gid %d (workloads never run as root)", uid, gid)
	}
	if err := syscall.Setgroups(nil); err != nil {
		return fmt.Errorf("drop supplementary groups: %w", err)
	}
	if err := syscall.Setresgid(gid, gid, gid); err != nil {
		return fmt.Errorf("setresgid %d: %w", gid, err)
	}
	if err := syscall.Setresuid(uid, uid, uid); err != nil {
		return fmt.Errorf("setresuid %d: %w", uid, err)
	}
	if os.Geteuid() != uid || os.Getegid() != gid {
		return fmt.Errorf("drop privileges: still euid %d egid %d", os.Geteuid(), os.Getegid())
	}
	return nil
}

// lookPath resolves a bare command name against the workload's PATH (not
// the daemon's), falling back to the standard system directories.
func lookPath(name string, env []string) (string, error) {
	if name == "" {
		return "", errors.New("resolve workload: empty path")
	}
	if strings.Contains(name, "/") {
		return name, nil
	}
	pathEnv := "/usr/local/bin:/usr/bin:/bin"
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			pathEnv = v
		}
	}
	for _, dir := range filepath.SplitList(pathEnv) {
		if dir == "" {
			dir = "."
		}
		p := filepath.Join(dir, name)
		if st, err := os.Stat(p); err == nil && !st.IsDir() && st.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", fmt.Errorf("resolve workload %q: not found in PATH %s", name, pathEnv)
}

// shimEnv is the environment of the shim process itself (the workload gets
// Spec.Env at execve, never this): one P and no garbage collector, because
// the shim is a short single-threaded program whose Go runtime would
// otherwise spend more CPU on spinning threads and cgroup probing
// (GOMAXPROCS unset makes the runtime read mountinfo) than on its work.
func shimEnv() []string { return []string{"GOMAXPROCS=1", "GOGC=off"} }
