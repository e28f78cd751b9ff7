// Package isolation runs one workload process tree under an OS isolation
// backend and guarantees that the whole tree can be limited, observed and
// killed. The executor depends only on the Backend and Process interfaces
// here; the concrete backends (cgroup2, hybrid cgroup v2+v1, process_group)
// are picked by Open according to Config.Mode and what the host offers.
//
// Design rules that every backend follows:
//   - a fresh tracking unit per run (cgroups are never reused: kernel 6.18
//     kills clone3 children placed into a cgroup that already got cgroup.kill);
//   - workloads never run as root (a root workload can leave its cgroup);
//   - nothing downgrades silently: Open records which backend it chose, and
//     Mode "required" refuses to start without the strong backend;
//   - hardening (uid, Landlock, seccomp, rlimits) is applied by a re-exec shim
//     of the host binary before execve, because Go cannot run code between
//     fork and exec.
//
// Backends:
//   - "hybrid" (cgroup v2 without controllers plus v1 pids/memory/cpu, as on
//     many current hosts): the v2 run cgroup tracks and kills (cgroup.kill,
//     cgroup.events), per-run v1 cgroups hold the limits; the shim joins them
//     before execve, so no workload instruction runs outside its limits.
//   - "cgroup2" (pure v2): one run cgroup does both; pids.max, memory.max,
//     cpu.max, memory.events and pids.events.
//   - "process_group" (best effort, no root or no cgroups): a per-run
//     supervisor that is a child subreaper and heads the run's process group;
//     SIGTERM, 3 s grace, SIGKILL of every descendant (setsid'd orphans are
//     reparented to the supervisor, so they stay in its tree). There are no
//     cgroup limits (rlimits stand in) and a run is only as safe as its
//     supervisor process.
//
// A watchdog process (the host binary's hidden `__watchdog` command) is
// told about every cgroup run over a pipe before the run starts; when the
// daemon dies the pipe reaches EOF and the watchdog kills and removes every
// registered run. Open reaps run cgroups left under the exclusive root.
//
// Binaries using this package must dispatch the helpers first thing:
//
//	if isolation.IsShim() { isolation.ShimMain() }
//
// Workloads run as uid/gid 65534 by default: the caller makes the workspace
// writable by that uid. This is lifecycle and resource isolation plus a
// sandbox for unprivileged code; it is not a defence against kernel
// exploits.
package isolation

import (
	"context"
	"fmt"
	"io"
	"net"
)

// EgressProxyAddr is where a run finds its egress proxy (Spec.EgressProxy):
// the only address inside the run's own network namespace that leads out.
const EgressProxyAddr = "127.0.0.1:3128"

// Limits caps the resources of one run. In Config, a zero field gets the
// safe default (DefaultLimits) and Unlimited turns that limit off
// explicitly; in a Spec, a positive field overrides the backend's value
// for that run and zero keeps it. After Open, zero means no limit.
type Limits struct {
	// MaxProcesses caps the number of tasks in the run (pids controller), so
	// a fork storm cannot exhaust the host.
	MaxProcesses int `json:"max_processes"`
	// MemoryMaxBytes caps the run's memory; the kernel OOM-kills inside the
	// run when it is exceeded.
	MemoryMaxBytes int64 `json:"memory_max_bytes"`
	// CPUQuotaMicros is the CPU time allowed per 100ms period (100000 = one
	// full core), so a busy loop cannot starve other runs.
	CPUQuotaMicros int64 `json:"cpu_quota_micros"`
	// TmpfsMaxBytes caps each of the run's private /tmp and /dev/shm
	// (tmpfs, so host memory): a run cannot fill the host's RAM there.
	TmpfsMaxBytes int64 `json:"tmpfs_max_bytes"`
}

// DefaultTmpfsBytes caps each of the run's private /tmp and /dev/shm.
const DefaultTmpfsBytes = 256 << 20

// Unlimited, in a Config limit (or `-1` in security.process_isolation),
// asks for no limit at all; leaving a limit unset gives the safe default.
const Unlimited = -1

// DefaultLimits are what every run gets unless the configuration says
// otherwise: 256 processes, 2 GiB of memory, one CPU, 256 MiB each for
// /tmp and /dev/shm. A fork or memory bomb under them stays inside.
func DefaultLimits() Limits {
	return Limits{MaxProcesses: 256, MemoryMaxBytes: 2 << 30, CPUQuotaMicros: 100000, TmpfsMaxBytes: DefaultTmpfsBytes}
}

// effectiveLimits fills unset Config limits with DefaultLimits and maps
// Unlimited to 0 (no limit); any other negative value is an error.
func effectiveLimits(l Limits) (Limits, error) {
	def := DefaultLimits()
	var bad []string
	pick := func(name string, v, d int64) int64 {
		switch {
		case v == 0:
			return d
		case v == Unlimited:
			return 0
		case v < 0:
			bad = append(bad, name)
		}
		return v
	}
	out := Limits{
		MaxProcesses:   int(pick("max_processes", int64(l.MaxProcesses), int64(def.MaxProcesses))),
		MemoryMaxBytes: pick("memory_max_bytes", l.MemoryMaxBytes, def.MemoryMaxBytes),
		CPUQuotaMicros: pick("cpu_quota_micros", l.CPUQuotaMicros, def.CPUQuotaMicros),
		TmpfsMaxBytes:  pick("tmpfs_max_bytes", l.TmpfsMaxBytes, def.TmpfsMaxBytes),
	}
	if len(bad) > 0 {
		return l, fmt.Errorf("isolation: negative limit %v (use -1 for no limit)", bad)
	}
	return out, nil
}

// Hardening selects the in-process confinement layers the shim applies
// before it executes the workload. Each layer is optional so a host lacking
// one can still run; Process.Layers reports which ones actually applied.
type Hardening struct {
	// UID and GID the workload runs as; 0 picks 65534 (nobody), because
	// workloads must never run as root.
	UID, GID int
	// Landlock restricts the filesystem: the system read-only, Workspace
	// read-write, home directories unreadable.
	Landlock bool
	// Seccomp denies syscalls used to escape tracking or the host
	// (setsid/setpgid, mount, ptrace, bpf, keyctl, unshare, setns, io_uring).
	Seccomp bool
	// Rlimits sets per-process resource limits (core, nofile, nproc, ...).
	Rlimits bool
}

// Spec describes one workload to run.
type Spec struct {
	// Path is the executable; Args is the full argv (Args[0] included).
	Path string
	Args []string
	// Env is the complete environment of the workload (nothing is inherited).
	Env []string
	// Dir is the working directory; empty means Workspace (or "/").
	Dir string
	// Stdin, Stdout and Stderr are the workload's standard streams; nil
	// means /dev/null. An *os.File is passed straight through; any other
	// value is copied through a pipe that closes when the run is empty.
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	// Workspace is the read-write root for Landlock; everything else is
	// read-only.
	Workspace string
	// Limits and Hardening override the backend defaults field by field when
	// non-zero (Limits) or always (Hardening, when any field is set).
	Limits    Limits
	Hardening Hardening
	// EgressProxy, when non-nil, is called before the workload starts with a TCP listener bound to
	// EgressProxyAddr inside the run's own network namespace; it must start serving in its own goroutine and
	// return quickly. The backend closes the listener when the run has ended. An error refuses the run.
	//
	// Every run has its own network namespace (only an up loopback), so
	// this listener is the run's one way out; a backend that cannot create
	// a network namespace (process_group without root) refuses a run that
	// sets it.
	EgressProxy func(ln net.Listener) error
}

// Exit is how a run ended.
type Exit struct {
	// Code is the main process exit code, or -1 when it died from a signal.
	Code int `json:"code"`
	// Signal names the signal that ended the main process ("" if none).
	Signal string `json:"signal,omitempty"`
	// OOMKilled reports that the memory limit killed something in the run.
	OOMKilled bool `json:"oom_killed,omitempty"`
	// PidsLimited reports that the run hit its process cap at least once.
	PidsLimited bool `json:"pids_limited,omitempty"`
}

// Process is one started run.
type Process interface {
	// Pid of the main process (as seen from the host).
	Pid() int
	// Wait waits for the main process AND for the whole unit (every
	// descendant) to be gone, so no output writer or child outlives the run.
	// A run ends with its main process: whatever it left running in the
	// background is killed then (the process_group backend sends SIGTERM
	// and allows a 3 s grace first).
	Wait() (Exit, error)
	// Kill kills the whole tree (cgroup.kill or the process group) and waits,
	// bounded, until the unit is empty. It is safe to call more than once.
	Kill() error
	// Layers lists the isolation layers that applied: "cgroup2",
	// "hybrid-v1-limits", "uid", "netns", "pidns", "private-tmp", "landlock",
	// "seccomp", "rlimits", "process_group".
	Layers() []string
	// Cleanup reports the cleanup outcome after Wait or Kill: "" when the
	// unit was confirmed empty and removed, "cleanup_failed" or
	// "cleanup_unconfirmed" otherwise. Callers record it, never hide it.
	Cleanup() string
}

// Backend starts workloads under one isolation mechanism.
type Backend interface {
	// Name is "cgroup2", "hybrid" or "process_group".
	Name() string
	// Start launches spec. Cancelling ctx kills the whole tree.
	Start(ctx context.Context, spec Spec) (Process, error)
	// Close stops the watchdog and releases the backend's resources. Runs
	// still alive are killed.
	Close() error
}

// Mode values for Config.Mode.
const (
	// ModeAuto picks the strongest backend available and records it.
	ModeAuto = "auto"
	// ModeRequired refuses to open without a cgroup backend.
	ModeRequired = "required"
	// ModeProcessGroup forces the best-effort process-group backend.
	ModeProcessGroup = "process_group"
)

// Config configures Open and Check. It mirrors the
// security.process_isolation section of the configuration file.
type Config struct {
	// Mode is auto, required or process_group ("" means auto).
	Mode string `json:"mode"`
	// CgroupRoot is "auto" (or "") or an absolute path of a v2 directory that
	// toolwarden owns exclusively; per-run cgroups are created under it and
	// leftovers in it are reaped at Open.
	CgroupRoot string `json:"cgroup_root"`
	// Limits and Hardening are the defaults for every run.
	Limits    Limits    `json:"limits"`
	Hardening Hardening `json:"hardening"`
	// WatchdogPath is the binary executed as the watchdog and the shim;
	// default os.Executable().
	WatchdogPath string `json:"watchdog_path,omitempty"`
	// ShimPath is the binary executed once per run as the workload shim
	// and the process-group supervisor; default: the binary given to
	// UseShimBinary, else WatchdogPath. It must dispatch IsShim/ShimMain
	// like the host binary.
	ShimPath string `json:"shim_path,omitempty"`
	// AllowSharedHost lets the process_group backend of an unprivileged
	// daemon run workloads where it cannot give them namespaces of their
	// own (no user namespaces on the host): such runs share the host's
	// network — loopback services and unix sockets included — and its
	// filesystem view. Dangerous; false (the default) refuses those runs.
	// A root daemon, or one with user namespaces, never needs it.
	AllowSharedHost bool `json:"allow_shared_host,omitempty"`
}

// DefaultHardening is what runs get when neither Config nor Spec set any
// hardening field: every layer that the kernel supports, as nobody. The
// namespaces are not Hardening fields because no run goes without them
// (root daemon): every run gets its own network namespace (see
// Spec.EgressProxy for the way out), PID namespace and a mount namespace
// with a root built for it (see buildRoot).
func DefaultHardening() Hardening {
	return Hardening{
		UID: 65534, GID: 65534,
		Landlock: true, Seccomp: true, Rlimits: true,
	}
}

// Reasoner is implemented by the backends Open returns: Reasons explains
// why a stronger backend was not picked (empty for the strongest), so that
// callers never downgrade silently. It is portable so that front ends
// build on every OS.
type Reasoner interface {
	Reasons() []string
}
