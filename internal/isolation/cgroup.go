//go:build linux

package isolation

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"
	"golang.org/x/sys/unix"
)

// Bounds of the cgroup backends. They are generous: they only matter when
// the kernel misbehaves, and then the outcome is recorded, not hidden.
const (
	startBound = 30 * time.Second // shim start → execve
	rmdirBound = 2 * time.Second
)

// cgroupBackend runs every workload in a fresh v2 cgroup created by clone3
// (CLONE_INTO_CGROUP) under an exclusive root. Limits go to the same v2
// cgroup ("cgroup2", pure v2 hosts) or to per-run v1 pids/memory/cpu
// cgroups the shim joins before execve ("hybrid").
type cgroupBackend struct {
	name    string
	hybrid  bool
	root    string            // exclusive v2 root
	v1Roots map[string]string // controller → exclusive v1 root (hybrid)
	cfg     Config
	shim    string
	wd      *watchdogClient
	lockFD  int

	mu     sync.Mutex
	live   map[string]*cgProcess
	closed bool
	// pending are runs whose cleanup failed; retried every retryEvery
	// until they are gone (they stay registered with the watchdog).
	pending map[string]pendingRun
	stop    chan struct{}

	// warm are the prepared shims (warm.go); warmOn is set once Open has
	// self-tested the backend. filling is true while refill runs, fillWG
	// lets Close wait for it.
	warm    []*warmShim
	warmOn  bool
	filling bool
	fillWG  sync.WaitGroup
}

// pendingRun is a run whose cgroups could not be confirmed empty/removed.
type pendingRun struct {
	v2 string
	v1 []string
}

// retryEvery is the cleanup patrol interval for failed cleanups.
const retryEvery = 15 * time.Second

// patrol retries failed cleanups until the backend closes.
func (b *cgroupBackend) patrol() {
	t := time.NewTicker(retryEvery)
	defer t.Stop()
	for {
		select {
		case <-b.stop:
			return
		case <-t.C:
			b.retryPending()
			b.expireWarm()
		}
	}
}

// retryPending kills and removes every pending run once more.
func (b *cgroupBackend) retryPending() {
	b.mu.Lock()
	todo := make(map[string]pendingRun, len(b.pending))
	for id, r := range b.pending {
		todo[id] = r
	}
	b.mu.Unlock()
	for id, r := range todo {
		if err := reapRun(r.v2, r.v1); err != nil {
			continue
		}
		b.mu.Lock()
		delete(b.pending, id)
		b.mu.Unlock()
		b.wd.del(id)
	}
}

func (b *cgroupBackend) addPending(p *cgProcess) {
	b.mu.Lock()
	b.pending[p.id] = pendingRun{v2: p.v2, v1: p.v1}
	b.mu.Unlock()
}

// Name implements Backend.
func (b *cgroupBackend) Name() string { return b.name }

// newRunID returns a random identifier, so run cgroups are never reused
// and leftovers are found by directory, never by PID.
func newRunID() (string, error) {
	var buf [8]byte
	if _, err := rand.Read(buf[:]); err != nil {
		return "", fmt.Errorf("run id: %w", err)
	}
	return hex.EncodeToString(buf[:]), nil
}

// Start implements Backend.
func (b *cgroupBackend) Start(ctx context.Context, spec Spec) (Process, error) {
	b.mu.Lock()
	closed := b.closed
	b.mu.Unlock()
	if closed {
		return nil, errors.New("isolation: start: backend closed")
	}
	if err := checkSpec(spec); err != nil {
		return nil, err
	}
	sctx, span := startSpan(ctx, "isolation.start", attribute.String("isolation.backend", b.name))
	p, err := b.start(sctx, ctx, spec)
	endSpan(span, err)
	if err != nil {
		return nil, err
	}
	b.mu.Lock()
	b.live[p.id] = p
	b.mu.Unlock()
	p.parent = trace.SpanFromContext(ctx)
	go p.monitor()
	killOnCancel(ctx, p.Kill, p.done)
	return p, nil
}

// start does the traced stages of Start: cgroup setup, watchdog
// registration and the shim (namespaces, root, confinement, exec). sctx
// carries the span; ctx is the run's own context (its cancellation kills
// the run).
func (b *cgroupBackend) start(sctx, ctx context.Context, spec Spec) (*cgProcess, error) {
	lim := mergeLimits(b.cfg.Limits, spec.Limits)
	h := resolveHardening(b.cfg.Hardening, spec.Hardening)
	if w := b.takeWarm(spec, lim); w != nil {
		// The pool is topped up once this run has executed its workload:
		// a refill clones a shim and builds its root, and overlapping it
		// with this run's start (both taking the kernel's mount and cgroup
		// locks, on the same cores) put it on the run's path.
		defer b.refill()
		p, retry, err := b.startWarm(ctx, sctx, w, spec, h, lim)
		if err == nil {
			warmStarts.Add(1)
			return p, nil
		}
		if !retry {
			w.closeFiles()
			w.p.cleanupAfterFailedStart()
			return nil, err
		}
		// Nothing of the run happened: the warm shim goes, a fresh one runs.
		warmRetried.Add(1)
		go w.discard()
	}
	defer b.refill()
	id, err := newRunID()
	if err != nil {
		return nil, err
	}
	_, cgSpan := startSpan(sctx, "isolation.cgroup_setup")
	p := &cgProcess{b: b, id: id, v2: filepath.Join(b.root, "run-"+id), runState: newRunState()}
	if err := os.Mkdir(p.v2, 0o755); err != nil {
		err = fmt.Errorf("isolation: create run cgroup: %w", err)
		endSpan(cgSpan, err)
		return nil, err
	}
	p.layers = append(p.layers, "cgroup2")
	var v1Procs []string
	if err := b.applyLimits(p, lim, &v1Procs); err != nil {
		endSpan(cgSpan, err)
		p.removeDirs()
		return nil, err
	}
	endSpan(cgSpan, nil)
	_, wdSpan := startSpan(sctx, "isolation.watchdog_register")
	err = b.wd.add(id, p.v2, p.v1)
	endSpan(wdSpan, err)
	if err != nil {
		p.removeDirs()
		return nil, fmt.Errorf("isolation: %w", err)
	}
	shCtx, shSpan := startSpan(sctx, "isolation.shim", attribute.Bool("isolation.warm", false))
	err = b.spawn(ctx, shCtx, p, spec, h, lim, v1Procs)
	endSpan(shSpan, err)
	if err != nil {
		p.cleanupAfterFailedStart()
		return nil, err
	}
	freshStarts.Add(1)
	return p, nil
}

// applyLimits writes the run's limits: into the v2 cgroup on a pure v2
// host, into fresh v1 cgroups (joined later by the shim) on a hybrid one.
func (b *cgroupBackend) applyLimits(p *cgProcess, lim Limits, v1Procs *[]string) error {
	if !b.hybrid {
		if lim.MaxProcesses > 0 {
			if err := writeFile(filepath.Join(p.v2, "pids.max"), fmt.Sprint(lim.MaxProcesses)); err != nil {
				return fmt.Errorf("isolation: set pids.max: %w", err)
			}
		}
		if lim.MemoryMaxBytes > 0 {
			if err := writeFile(filepath.Join(p.v2, "memory.max"), fmt.Sprint(lim.MemoryMaxBytes)); err != nil {
				return fmt.Errorf("isolation: set memory.max: %w", err)
			}
			_ = writeFile(filepath.Join(p.v2, "memory.swap.max"), "0") // absent without swap accounting
			_ = writeFile(filepath.Join(p.v2, "memory.oom.group"), "1")
		}
		if lim.CPUQuotaMicros > 0 {
			if err := writeFile(filepath.Join(p.v2, "cpu.max"), fmt.Sprintf("%d 100000", lim.CPUQuotaMicros)); err != nil {
				return fmt.Errorf("isolation: set cpu.max: %w", err)
			}
		}
		return nil
	}
	for _, c := range v1Controllers {
		dir := filepath.Join(b.v1Roots[c], "run-"+p.id)
		if err := os.Mkdir(dir, 0o755); err != nil {
			return fmt.Errorf("isolation: create v1 %s cgroup: %w", c, err)
		}
		p.v1 = append(p.v1, dir)
		var err error
		switch c {
		case "pids":
			p.v1Pids = dir
			if lim.MaxProcesses > 0 {
				err = writeFile(filepath.Join(dir, "pids.max"), fmt.Sprint(lim.MaxProcesses))
			}
		case "memory":
			p.v1Mem = dir
			if lim.MemoryMaxBytes > 0 {
				err = writeFile(filepath.Join(dir, "memory.limit_in_bytes"), fmt.Sprint(lim.MemoryMaxBytes))
				if err == nil {
					// Without this the limit could be escaped into swap.
					_ = writeFile(filepath.Join(dir, "memory.memsw.limit_in_bytes"), fmt.Sprint(lim.MemoryMaxBytes))
				}
			}
		case "cpu":
			if lim.CPUQuotaMicros > 0 {
				err = writeFile(filepath.Join(dir, "cpu.cfs_period_us"), "100000")
				if err == nil {
					err = writeFile(filepath.Join(dir, "cpu.cfs_quota_us"), fmt.Sprint(lim.CPUQuotaMicros))
				}
			}
		}
		if err != nil {
			return fmt.Errorf("isolation: set v1 %s limit: %w", c, err)
		}
		*v1Procs = append(*v1Procs, filepath.Join(dir, "cgroup.procs"))
	}
	p.layers = append(p.layers, "hybrid-v1-limits")
	return nil
}

// spawn clones the shim straight into the run cgroup and waits until it
// has either executed the workload or reported why it could not.
func (b *cgroupBackend) spawn(ctx, spanCtx context.Context, p *cgProcess, spec Spec, h Hardening, lim Limits, v1Procs []string) error {
	cgFD, err := unix.Open(p.v2, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("isolation: open run cgroup: %w", err)
	}
	defer unix.Close(cgFD)
	sc := shimConfigFor(spec, h, lim, v1Procs)
	// Every run has its own network, PID, mount and IPC namespaces (and a
	// root built for it): no code path leaves a workload in the host's.
	cloneflags := uintptr(runCloneFlags)
	sc.NetNS, sc.MountNS = true, true
	cmd := exec.Command(b.shim, shimArg)
	cmd.SysProcAttr = &syscall.SysProcAttr{UseCgroupFD: true, CgroupFD: cgFD, Cloneflags: cloneflags}
	p.cmd = cmd
	st, err := startShim(ctx, spanCtx, cmd, spec, sc, egressHook(spec, &p.egress))
	if err != nil {
		return err
	}
	p.layers = append(p.layers, "netns", "pidns")
	if p.egress != nil {
		p.layers = append(p.layers, "egress-proxy")
	}
	p.layers = append(p.layers, st...)
	return nil
}

// shimConfigFor turns a Spec, resolved Hardening and Limits into the
// shim's input.
func shimConfigFor(spec Spec, h Hardening, lim Limits, v1Procs []string) shimConfig {
	return shimConfig{
		Path: spec.Path, Args: spec.Args, Env: spec.Env, Dir: workDir(spec), Workspace: spec.Workspace,
		V1Procs: v1Procs, UID: h.UID, GID: h.GID, TmpfsBytes: lim.TmpfsMaxBytes,
		Landlock: h.Landlock, Seccomp: h.Seccomp, Rlimits: h.Rlimits,
	}
}

// startShim starts cmd (the shim) with the config and status pipes and
// returns the layers the shim applied. On any failure the caller kills and
// reaps the shim. Extra files (beyond config and status) may already be in
// cmd.ExtraFiles at positions 2+. afterStart, when set, runs with the new
// process's pid before the shim gets its config, that is before any
// workload code can run; an error from it aborts the start.
//
// ctx bounds the start; spanCtx carries the span that receives the
// shim's timings.
func startShim(ctx, spanCtx context.Context, cmd *exec.Cmd, spec Spec, sc shimConfig, afterStart func(pid int) error) ([]string, error) {
	cfgR, cfgW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("isolation: config pipe: %w", err)
	}
	stR, stW, err := os.Pipe()
	if err != nil {
		cfgR.Close()
		cfgW.Close()
		return nil, fmt.Errorf("isolation: status pipe: %w", err)
	}
	defer stR.Close()
	cmd.ExtraFiles = append([]*os.File{cfgR, stW}, cmd.ExtraFiles...)
	cmd.Env = shimEnv()
	cmd.Dir = sc.Dir
	cmd.Stdin, cmd.Stdout, cmd.Stderr = spec.Stdin, spec.Stdout, spec.Stderr
	// Output pipes are closed once the unit is empty; this only guards
	// against a descriptor leaked outside the run.
	cmd.WaitDelay = 5 * time.Second
	err = cmd.Start()
	cfgR.Close()
	stW.Close()
	if err != nil {
		cfgW.Close()
		return nil, fmt.Errorf("isolation: start shim: %w", err)
	}
	if afterStart != nil {
		if err := afterStart(cmd.Process.Pid); err != nil {
			cfgW.Close()
			return nil, err
		}
	}
	go func() {
		_ = json.NewEncoder(cfgW).Encode(sc)
		cfgW.Close()
	}()
	layers, _, err := readStatus(ctx, spanCtx, stR)
	return layers, err
}

// readStatus reads the shim's status lines until EOF (execve succeeded) and
// returns the layers it applied, bounded by ctx and startBound. stale is
// set when a warm shim reported that it cannot serve this run but a fresh
// shim might (see statusMsg.Stale).
func readStatus(ctx, spanCtx context.Context, stR *os.File) (layers []string, stale bool, err error) {
	type result struct {
		layers []string
		stale  bool
		err    error
	}
	res := make(chan result, 1)
	go func() {
		var r result
		br := bufio.NewReader(stR)
		t0 := time.Now()
		var tStatus time.Time
		for {
			line, err := br.ReadBytes('\n')
			if len(line) > 0 {
				var m statusMsg
				if jerr := json.Unmarshal(line, &m); jerr != nil {
					r.err = fmt.Errorf("isolation: shim status: %w", jerr)
				} else if m.Error != "" {
					r.err = fmt.Errorf("isolation: shim: %s", m.Error)
					r.stale = m.Stale
				} else {
					tStatus = time.Now()
					r.layers = append(r.layers, m.Layers...)
					recordShimTimings(spanCtx, m.Timings)
				}
			}
			if err != nil {
				if err != io.EOF && r.err == nil {
					r.err = fmt.Errorf("isolation: read shim status: %w", err)
				}
				break
			}
		}
		if !tStatus.IsZero() {
			// As the daemon sees it: until the shim said it is confined
			// (its wake-up, root and confinement), and from then until
			// the status pipe closed on execve.
			recordShimTimings(spanCtx, map[string]int64{
				"to_status": tStatus.Sub(t0).Microseconds(),
				"exec":      time.Since(tStatus).Microseconds(),
			})
		}
		if r.err == nil && r.layers == nil {
			r.err = errShimGone
		}
		res <- r
	}()
	var r result
	select {
	case r = <-res:
	case <-ctx.Done():
		r.err = fmt.Errorf("isolation: start cancelled: %w", ctx.Err())
	case <-time.After(startBound):
		r.err = fmt.Errorf("isolation: shim did not execute the workload within %s", startBound)
	}
	if r.err != nil {
		return nil, r.stale, r.err
	}
	return r.layers, false, nil
}

// errShimGone is a shim that ended without executing the workload or
// saying why.
var errShimGone = errors.New("isolation: shim exited before executing the workload")

// cgProcess is one run of a cgroup backend.
type cgProcess struct {
	b      *cgroupBackend
	id     string
	v2     string
	v1     []string
	v1Pids string
	v1Mem  string
	cmd    *exec.Cmd
	// egress is the run's egress proxy listener (nil without one), closed
	// when the run has ended.
	egress net.Listener
	// out is the read end of a warm run's output pipe and copied closes
	// when its copy to the Spec's writer has ended (nil for a fresh shim,
	// whose exec.Cmd copies).
	out    *os.File
	copied chan struct{}
	// parent is the span the run was started under (none: a no-op span):
	// the reap's span joins that trace.
	parent trace.Span
	runState
}

// Pid implements Process.
func (p *cgProcess) Pid() int { return p.cmd.Process.Pid }

// Kill implements Process: cgroup.kill reaches every descendant, including
// setsid'd and double-forked ones, then it waits (bounded) for the run to
// be empty and cleaned up.
func (p *cgProcess) Kill() error {
	select {
	case <-p.done:
		return nil
	default:
	}
	if err := cgKill(p.v2); err != nil && !errors.Is(err, fs.ErrNotExist) {
		// ENOENT means monitor already emptied and removed the run and
		// is about to finish; anything else is a real failure.
		return fmt.Errorf("isolation: kill run %s: %w", p.id, err)
	}
	select {
	case <-p.done:
		if p.cleanup != "" {
			return fmt.Errorf("isolation: kill run %s: %s", p.id, p.cleanup)
		}
		return nil
	case <-time.After(killBound + rmdirBound + 5*time.Second):
		return fmt.Errorf("isolation: kill run %s: not empty after %s", p.id, killBound)
	}
}

// monitor waits for the main process without reaping it, empties the run,
// then reaps, records the outcome and removes the cgroups.
func (p *cgProcess) monitor() {
	defer close(p.done)
	defer p.closeEgress()
	pid := p.cmd.Process.Pid
	var info unix.Siginfo
	for {
		err := unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
		if err == nil || !errors.Is(err, unix.EINTR) {
			break
		}
	}
	// The reap's stages (the empty check, the reap, the output drain, the
	// event read, the cgroups' removal) as attributes of one span: the
	// part of a run between its exit and its result.
	_, span := startSpan(trace.ContextWithSpan(context.Background(), p.parent), "isolation.reap")
	st := stageClock{last: time.Now()}
	defer func() { st.record(span); span.End() }()
	emptied := true
	if pop, err := cgPopulated(p.v2); err != nil || pop {
		if err := cgKill(p.v2); err != nil {
			p.waitErr = err
		}
		if err := cgWaitEmpty(p.v2, killBound); err != nil {
			emptied = false
			p.waitErr = fmt.Errorf("isolation: run %s: %w", p.id, err)
		}
	}
	st.lap("empty")
	werr := p.cmd.Wait()
	st.lap("wait")
	p.waitOutput()
	st.lap("output")
	p.exit = exitFrom(p.cmd.ProcessState)
	var ee *exec.ExitError
	if werr != nil && !errors.As(werr, &ee) && p.waitErr == nil {
		p.waitErr = fmt.Errorf("isolation: wait run %s: %w", p.id, werr)
	}
	p.readEvents()
	st.lap("events")
	p.b.forget(p.id)
	// A failed cleanup is recorded on the Process, stays registered with
	// the watchdog, is retried by the patrol and reaped at the next Open.
	if !emptied {
		p.cleanup = "cleanup_unconfirmed"
		p.b.addPending(p)
		return
	}
	err := p.removeDirs()
	st.lap("rmdir")
	if err != nil {
		p.cleanup = "cleanup_failed"
		if p.waitErr == nil {
			p.waitErr = err
		}
		p.b.addPending(p)
		return
	}
	p.b.wd.del(p.id)
}

// readEvents records OOM kills and pids-limit hits before the cgroups go.
func (p *cgProcess) readEvents() {
	if p.b.hybrid {
		if n, err := readKeyed(filepath.Join(p.v1Mem, "memory.oom_control"), "oom_kill"); err == nil && n > 0 {
			p.exit.OOMKilled = true
		}
		if n, err := readKeyed(filepath.Join(p.v1Pids, "pids.events"), "max"); err == nil && n > 0 {
			p.exit.PidsLimited = true
		}
		return
	}
	if n, err := readKeyed(filepath.Join(p.v2, "memory.events"), "oom_kill"); err == nil && n > 0 {
		p.exit.OOMKilled = true
	}
	if n, err := readKeyed(filepath.Join(p.v2, "pids.events"), "max"); err == nil && n > 0 {
		p.exit.PidsLimited = true
	}
}

// removeDirs removes the run's v2 and v1 cgroups.
func (p *cgProcess) removeDirs() error {
	var errs []error
	if err := rmdirRetry(p.v2, rmdirBound); err != nil {
		errs = append(errs, err)
	}
	for _, d := range p.v1 {
		if err := rmdirRetry(d, rmdirBound); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// cleanupAfterFailedStart kills whatever the failed start left behind.
func (p *cgProcess) cleanupAfterFailedStart() {
	p.closeEgress()
	_ = cgKill(p.v2)
	_ = cgWaitEmpty(p.v2, killBound)
	if p.cmd != nil && p.cmd.Process != nil {
		_ = p.cmd.Wait()
	}
	if err := p.removeDirs(); err != nil {
		p.b.addPending(p)
		return
	}
	p.b.wd.del(p.id)
}

// closeEgress closes the run's egress listener, if any.
func (p *cgProcess) closeEgress() {
	if p.egress != nil {
		_ = p.egress.Close()
	}
}

func (b *cgroupBackend) forget(id string) {
	b.mu.Lock()
	delete(b.live, id)
	b.mu.Unlock()
}

// Close implements Backend: it kills live runs, stops the watchdog and
// releases the exclusive root.
func (b *cgroupBackend) Close() error {
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return nil
	}
	b.closed = true
	close(b.stop)
	live := make([]*cgProcess, 0, len(b.live))
	for _, p := range b.live {
		live = append(live, p)
	}
	b.mu.Unlock()
	b.drainWarm()
	var errs []error
	for _, p := range live {
		if err := p.Kill(); err != nil {
			errs = append(errs, err)
		}
	}
	b.retryPending()
	if err := b.wd.close(); err != nil {
		errs = append(errs, err)
	}
	_ = unix.Rmdir(b.root)
	for _, d := range b.v1Roots {
		_ = unix.Rmdir(d)
	}
	_ = unix.Close(b.lockFD)
	return errors.Join(errs...)
}

// runCloneFlags are the namespaces every shim of the cgroup backends is
// cloned into: its own network (no host services), PID, mount (the root
// built for the run) and IPC namespace — without the last, a run's System V
// shared memory, semaphores and message queues live in the host's: they
// outlast the run (host memory nobody accounts for) and are open to every
// other conversation's runs and to host processes that use System V IPC.
const runCloneFlags = unix.CLONE_NEWNET | unix.CLONE_NEWPID | unix.CLONE_NEWNS | unix.CLONE_NEWIPC
