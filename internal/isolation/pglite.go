//go:build unix

package isolation

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// ModeLite names the lite process-group backend in Backend.Name and
// Report.Backend: the backend of Unix hosts without cgroups and
// namespaces (macOS, the BSDs).
const ModeLite = "process_group_lite"

// Helper arguments of the lite backend (see IsShim).
const (
	liteShimArg     = "__isolation_lite_shim"
	liteWatchdogArg = "__isolation_lite_watchdog"
)

// Descriptors of the lite shim: fd 3 carries the go-ahead byte (EOF means
// the daemon is gone: exit without running anything), fd 4 the JSON
// liteConfig.
const (
	fdLiteGate   = 3
	fdLiteConfig = 4
)

// liteBackend is the backend of Unix hosts that have neither cgroups nor
// namespaces (macOS, the BSDs; on Linux it exists for its tests): every
// run is a process group of its own, started by a re-exec shim that waits
// on a pipe until the daemon has registered the group with a watchdog
// process, so no workload instruction runs before something will kill it
// when the daemon dies. Kill is SIGTERM to the group, a grace, then
// SIGKILL until the group is empty. Rlimits stand in for limits.
//
// What it cannot do, and says (Reasons, SECURITY.md): a workload that
// calls setsid leaves the group and escapes the kill; runs share the
// host's network and filesystem view, so Open refuses it unless
// Config.AllowSharedHost.
type liteBackend struct {
	cfg  Config
	shim string
	wd   *liteWatchdog

	runs runSet[*liteProcess]
}

// liteConfig is what the lite shim needs: the workload and its rlimits.
type liteConfig struct {
	Path  string   `json:"path"`
	Args  []string `json:"args"`
	Env   []string `json:"env"`
	NProc uint64   `json:"nproc,omitempty"`
	// Data caps the data segment (RLIMIT_DATA; RLIMIT_AS on hosts where
	// the data limit is not enforced would break runtimes that reserve
	// address space).
	Data uint64 `json:"data,omitempty"`
	// UID and GID, when positive, are the identity the shim switches to
	// before execve (a root daemon; workloads never run as root).
	UID int `json:"uid,omitempty"`
	GID int `json:"gid,omitempty"`
}

// openLite opens the lite backend; it refuses without AllowSharedHost
// because its runs share the host's network and filesystem.
func openLite(ctx context.Context, cfg Config) (*liteBackend, error) {
	if cfg.Mode == ModeRequired {
		return nil, errors.New("isolation: mode required: no cgroup backend on this host; runs are refused")
	}
	if !cfg.AllowSharedHost {
		return nil, errors.New("isolation: this host offers only the process-group backend, whose runs share the host's network and filesystem; refused (security.process_isolation.allow_shared_host: true accepts that, dangerous)")
	}
	shim := cfg.ShimPath
	if shim == "" {
		shim = cfg.WatchdogPath
	}
	if shim == "" {
		exe, err := os.Executable()
		if err != nil {
			return nil, fmt.Errorf("isolation: find own binary for the shim: %w", err)
		}
		shim = exe
	}
	wd, err := startLiteWatchdog(shim)
	if err != nil {
		return nil, err
	}
	b := &liteBackend{cfg: cfg, shim: shim, wd: wd}
	if err := selfTestLite(ctx, b); err != nil {
		b.Close()
		return nil, fmt.Errorf("isolation: %s self-test: %w", ModeLite, err)
	}
	return b, nil
}

// selfTestLite runs /bin/sh -c true; anything but exit 0 refuses the
// backend.
func selfTestLite(ctx context.Context, b *liteBackend) error {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	p, err := b.Start(ctx, Spec{Path: "/bin/sh", Args: []string{"sh", "-c", "true"}})
	if err != nil {
		return err
	}
	ex, err := p.Wait()
	if err != nil {
		return err
	}
	if ex.Code != 0 {
		return fmt.Errorf("/bin/sh -c true exited %d %s", ex.Code, ex.Signal)
	}
	return nil
}

// Name implements Backend.
func (b *liteBackend) Name() string { return ModeLite }

// Reasons implements Reasoner: what this backend cannot do.
func (b *liteBackend) Reasons() []string {
	return []string{
		"no cgroups: limits are rlimits (process count per uid, data size)",
		"no namespaces: runs share the host's network and filesystem view (allow_shared_host)",
		"a workload that calls setsid leaves its process group and is not killed with the run",
	}
}

// Start implements Backend.
func (b *liteBackend) Start(ctx context.Context, spec Spec) (Process, error) {
	if b.runs.isClosed() {
		return nil, errors.New("isolation: start: backend closed")
	}
	if err := checkSpec(spec); err != nil {
		return nil, err
	}
	if spec.EgressProxy != nil {
		return nil, fmt.Errorf("isolation: %s: an egress proxy needs a network namespace of the run's own", ModeLite)
	}
	lim := mergeLimits(b.cfg.Limits, spec.Limits)
	h := resolveHardening(b.cfg.Hardening, spec.Hardening)
	lc := liteConfig{Path: spec.Path, Args: spec.Args, Env: spec.Env}
	if lim.MaxProcesses > 0 {
		lc.NProc = uint64(lim.MaxProcesses)
	}
	if lim.MemoryMaxBytes > 0 {
		lc.Data = uint64(lim.MemoryMaxBytes)
	}
	gateR, gateW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("isolation: gate pipe: %w", err)
	}
	cfgR, cfgW, err := os.Pipe()
	if err != nil {
		gateR.Close()
		gateW.Close()
		return nil, fmt.Errorf("isolation: config pipe: %w", err)
	}
	cmd := exec.Command(b.shim, liteShimArg)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	layers := []string{"process_group", "rlimits"}
	if os.Geteuid() == 0 {
		// Workloads never run as root: the shim switches before execve.
		lc.UID, lc.GID = h.UID, h.GID
		layers = append(layers, "uid")
	}
	cmd.ExtraFiles = []*os.File{gateR, cfgR}
	cmd.Env = []string{}
	cmd.Dir = workDir(spec)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = spec.Stdin, spec.Stdout, spec.Stderr
	cmd.WaitDelay = 5 * time.Second
	err = cmd.Start()
	gateR.Close()
	cfgR.Close()
	if err != nil {
		gateW.Close()
		cfgW.Close()
		return nil, fmt.Errorf("isolation: start shim: %w", err)
	}
	pgid := cmd.Process.Pid
	abort := func(err error) (Process, error) {
		gateW.Close()
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
		_ = cmd.Wait()
		return nil, err
	}
	// Registered before the workload may run: from here on the watchdog
	// kills the group if the daemon dies.
	if err := b.wd.add(pgid); err != nil {
		cfgW.Close()
		return abort(err)
	}
	if err := json.NewEncoder(cfgW).Encode(lc); err != nil {
		cfgW.Close()
		b.wd.del(pgid)
		return abort(fmt.Errorf("isolation: send shim config: %w", err))
	}
	cfgW.Close()
	if _, err := gateW.Write([]byte{1}); err != nil {
		b.wd.del(pgid)
		return abort(fmt.Errorf("isolation: release shim: %w", err))
	}
	gateW.Close()
	p := &liteProcess{b: b, cmd: cmd, pgid: pgid, runState: newRunState(), killReq: make(chan struct{})}
	p.layers = layers
	b.runs.add(p)
	go p.monitor()
	killOnCancel(ctx, p.Kill, p.done)
	return p, nil
}

// Close implements Backend: live runs are killed, then the watchdog stops.
func (b *liteBackend) Close() error {
	return errors.Join(b.runs.closeAll(), b.wd.close())
}

// liteProcess is one run of the lite backend.
type liteProcess struct {
	b        *liteBackend
	cmd      *exec.Cmd
	pgid     int
	killOnce sync.Once
	killReq  chan struct{}
	runState
}

// Pid implements Process.
func (p *liteProcess) Pid() int { return p.pgid }

// Kill implements Process: the group gets SIGTERM, a grace, then SIGKILL
// until it is empty (bounded).
func (p *liteProcess) Kill() error {
	p.killOnce.Do(func() { close(p.killReq) })
	select {
	case <-p.done:
		return nil
	case <-time.After(pgGrace + killBound):
		return errors.New("isolation: kill process group: not empty in time")
	}
}

// monitor waits for the main process (or a kill request), then empties
// the group and records the outcome.
func (p *liteProcess) monitor() {
	defer close(p.done)
	exited := make(chan error, 1)
	go func() { exited <- p.cmd.Wait() }()
	var werr error
	select {
	case werr = <-exited:
	case <-p.killReq:
		_ = syscall.Kill(-p.pgid, syscall.SIGTERM)
		select {
		case werr = <-exited:
		case <-time.After(pgGrace):
			_ = syscall.Kill(-p.pgid, syscall.SIGKILL)
			werr = <-exited
		}
	}
	p.exit = exitFrom(p.cmd.ProcessState)
	var ee *exec.ExitError
	if werr != nil && !errors.As(werr, &ee) {
		p.waitErr = fmt.Errorf("isolation: wait: %w", werr)
	}
	// A run ends with its main process: what it left in the group goes.
	if !groupEmpty(p.pgid) {
		_ = syscall.Kill(-p.pgid, syscall.SIGTERM)
		if !waitGroupEmpty(p.pgid, pgGrace) {
			_ = syscall.Kill(-p.pgid, syscall.SIGKILL)
		}
	}
	if !waitGroupEmpty(p.pgid, killBound) {
		p.cleanup = "cleanup_unconfirmed"
	} else {
		p.b.wd.del(p.pgid)
	}
	p.b.runs.remove(p)
}

// groupEmpty reports whether process group pgid has no member left.
func groupEmpty(pgid int) bool {
	return errors.Is(syscall.Kill(-pgid, 0), syscall.ESRCH)
}

// waitGroupEmpty polls until the group is empty or d passed.
func waitGroupEmpty(pgid int, d time.Duration) bool {
	deadline := time.Now().Add(d)
	for {
		if groupEmpty(pgid) {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// runLiteShim waits for the go-ahead, applies the rlimits and executes
// the workload. It only returns on error.
func runLiteShim() error {
	gate := os.NewFile(fdLiteGate, "gate")
	b := make([]byte, 1)
	if n, err := gate.Read(b); n != 1 || b[0] != 1 {
		return fmt.Errorf("no go-ahead from the daemon (%v): not running the workload", err)
	}
	gate.Close()
	var lc liteConfig
	cf := os.NewFile(fdLiteConfig, "config")
	if err := json.NewDecoder(cf).Decode(&lc); err != nil {
		return fmt.Errorf("read config: %w", err)
	}
	cf.Close()
	set := func(res int, v uint64, name string) error {
		var r unix.Rlimit
		setRlimit(&r, v)
		if err := unix.Setrlimit(res, &r); err != nil {
			return fmt.Errorf("set rlimit %s=%d: %w", name, v, err)
		}
		return nil
	}
	if err := set(unix.RLIMIT_CORE, 0, "core"); err != nil {
		return err
	}
	if lc.NProc > 0 {
		if err := set(unix.RLIMIT_NPROC, lc.NProc, "nproc"); err != nil {
			return err
		}
	}
	if lc.Data > 0 {
		if err := set(unix.RLIMIT_DATA, lc.Data, "data"); err != nil {
			return err
		}
	}
	if lc.UID > 0 && lc.GID > 0 {
		if err := syscall.Setgroups(nil); err != nil {
			return fmt.Errorf("drop supplementary groups: %w", err)
		}
		if err := syscall.Setgid(lc.GID); err != nil {
			return fmt.Errorf("setgid %d: %w", lc.GID, err)
		}
		if err := syscall.Setuid(lc.UID); err != nil {
			return fmt.Errorf("setuid %d: %w", lc.UID, err)
		}
		if os.Geteuid() != lc.UID || os.Getuid() != lc.UID {
			return fmt.Errorf("drop privileges: still uid %d euid %d", os.Getuid(), os.Geteuid())
		}
	} else if os.Geteuid() == 0 {
		return errors.New("refusing to run a workload as root")
	}
	path := lc.Path
	if !strings.Contains(path, "/") {
		p, err := exec.LookPath(path)
		if err != nil {
			return fmt.Errorf("resolve workload %q: %w", path, err)
		}
		path = p
	}
	argv := lc.Args
	if len(argv) == 0 {
		argv = []string{lc.Path}
	}
	// Nothing the daemon holds without close-on-exec (a launcher's socket,
	// an open host file) nor this shim's own pipes reaches the workload.
	if err := closeOnExecFrom3(); err != nil {
		return err
	}
	return unix.Exec(path, argv, lc.Env)
}

// liteWatchdog is the daemon's side of the lite watchdog process: a
// re-exec in its own session that learns every live run's process group
// over a pipe and SIGKILLs all of them when the pipe reaches EOF (the
// daemon exited or died).
type liteWatchdog struct {
	mu  sync.Mutex
	cmd *exec.Cmd
	in  io.WriteCloser
}

func startLiteWatchdog(bin string) (*liteWatchdog, error) {
	cmd := exec.Command(bin, liteWatchdogArg)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	cmd.Env = []string{}
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("isolation: watchdog pipe: %w", err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("isolation: watchdog pipe: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("isolation: start watchdog: %w", err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || strings.TrimSpace(line) != "ready" {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		return nil, fmt.Errorf("isolation: watchdog did not start (%q, %v)", line, err)
	}
	return &liteWatchdog{cmd: cmd, in: in}, nil
}

func (w *liteWatchdog) send(op string, pgid int) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.in == nil {
		return errors.New("isolation: watchdog closed")
	}
	if _, err := fmt.Fprintf(w.in, "%s %d\n", op, pgid); err != nil {
		return fmt.Errorf("isolation: tell watchdog: %w", err)
	}
	return nil
}

func (w *liteWatchdog) add(pgid int) error { return w.send("add", pgid) }
func (w *liteWatchdog) del(pgid int)       { _ = w.send("del", pgid) }

// pid is the watchdog's process id (tests kill the daemon around it).
func (w *liteWatchdog) pid() int { return w.cmd.Process.Pid }

func (w *liteWatchdog) close() error {
	w.mu.Lock()
	in := w.in
	w.in = nil
	w.mu.Unlock()
	if in == nil {
		return nil
	}
	in.Close()
	return w.cmd.Wait()
}

// runLiteWatchdog is the watchdog process: "add PGID" / "del PGID" lines
// on stdin; at EOF every group still registered is SIGKILLed.
func runLiteWatchdog(in io.Reader, out io.Writer) error {
	live := map[int]bool{}
	if _, err := fmt.Fprintln(out, "ready"); err != nil {
		return err
	}
	sc := bufio.NewScanner(in)
	for sc.Scan() {
		op, arg, _ := strings.Cut(sc.Text(), " ")
		pgid, err := strconv.Atoi(arg)
		if err != nil || pgid <= 1 {
			continue
		}
		switch op {
		case "add":
			live[pgid] = true
		case "del":
			delete(live, pgid)
		}
	}
	for pgid := range live {
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
	}
	return nil
}
