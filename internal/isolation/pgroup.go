//go:build linux

package isolation

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"golang.org/x/sys/unix"
)

// daemonEUID is os.Geteuid; tests replace it to see an unprivileged
// daemon's decisions from a root test process.
var daemonEUID = os.Geteuid

// pgBackend is the best-effort backend for hosts without usable cgroups:
// each run gets its own process group headed by a supervisor (a re-exec of
// the host binary) that is a child subreaper, so setsid'd descendants are
// still reparented to it and found by walking the process tree. Kill is
// SIGTERM, a 3 s grace, then SIGKILL of every descendant. The supervisor is
// also the run's watchdog: when its control pipe reaches EOF (Kill, or the
// daemon died) it kills the tree. There are no cgroup limits here; rlimits
// (nproc, address space) stand in for them. It is not strong isolation.
type pgBackend struct {
	cfg  Config
	shim string

	runs runSet[*pgProcess]
	// reasons records why auto mode fell back to this backend.
	reasons []string
	// userns is true when an unprivileged daemon can give runs user
	// namespaces of their own (probeUserNS); usernsReason says why not.
	userns       bool
	usernsReason string
}

// Name implements Backend.
func (b *pgBackend) Name() string { return ModeProcessGroup }

// Start implements Backend.
func (b *pgBackend) Start(ctx context.Context, spec Spec) (Process, error) {
	if b.runs.isClosed() {
		return nil, errors.New("isolation: start: backend closed")
	}
	if err := checkSpec(spec); err != nil {
		return nil, err
	}
	lim := mergeLimits(b.cfg.Limits, spec.Limits)
	h := resolveHardening(b.cfg.Hardening, spec.Hardening)
	root := daemonEUID() == 0
	// userns: an unprivileged daemon gives the run a user namespace of its
	// own, in which it may create the same network, PID and mount
	// namespaces (and the same built root) that a root daemon creates.
	userns := !root && b.userns
	if !root && !userns {
		// Neither root nor user namespaces: the run would share the host's
		// network and filesystem view. Only an explicit
		// allow_shared_host runs it; Layers() then shows no "netns",
		// "pidns" or "root". A run that needs its network confined to an
		// egress proxy is refused whatever the setting.
		if !b.cfg.AllowSharedHost {
			return nil, fmt.Errorf("isolation: process_group as uid %d without user namespaces (%s): a run would share the host's network and filesystem; refused (security.process_isolation.allow_shared_host: true accepts that, dangerous)", os.Geteuid(), b.usernsReason)
		}
		if spec.EgressProxy != nil {
			return nil, errors.New("isolation: egress proxy needs a network namespace of the run's own (a root daemon or user namespaces)")
		}
	}
	sc := shimConfigFor(spec, h, lim, nil)
	sc.KeepUID = !root && !userns
	sc.UserNS = userns
	if h.Rlimits {
		if lim.MaxProcesses > 0 {
			// RLIMIT_NPROC counts every process of the uid on the host,
			// so it is only a rough stand-in for a per-run pids limit.
			sc.NProc = uint64(lim.MaxProcesses)
		}
		if lim.MemoryMaxBytes > 0 {
			sc.AddressSpace = uint64(lim.MemoryMaxBytes)
		}
	}
	// Every run with namespaces gets its own network namespace; the
	// supervisor itself is cloned into it (so the egress listener can be
	// opened there before the workload starts) and the shim inherits it;
	// the shim gets its own PID, mount and IPC namespaces with a root built
	// for the run.
	attr := &syscall.SysProcAttr{Setpgid: true}
	if root || userns {
		attr.Cloneflags = unix.CLONE_NEWNET
		sc.NetNS = true
		sc.Cloneflags |= unix.CLONE_NEWPID | unix.CLONE_NEWNS | unix.CLONE_NEWIPC
		sc.MountNS = true
	}
	if userns {
		attr.Cloneflags |= unix.CLONE_NEWUSER
		attr.UidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Geteuid(), Size: 1}}
		attr.GidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getegid(), Size: 1}}
		attr.GidMappingsEnableSetgroups = false
	}
	exitR, exitW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("isolation: exit pipe: %w", err)
	}
	ctlR, ctlW, err := os.Pipe()
	if err != nil {
		exitR.Close()
		exitW.Close()
		return nil, fmt.Errorf("isolation: control pipe: %w", err)
	}
	bin := b.shim
	if userns && strings.HasPrefix(bin, "/proc/") {
		// The sealed memfd of UseShimBinary is reached through the daemon's
		// /proc, which a process in another user namespace may not open:
		// the supervisor of a user namespace run is the host binary.
		bin = b.cfg.WatchdogPath
	}
	cmd := exec.Command(bin, supervisorArg)
	cmd.SysProcAttr = attr
	cmd.ExtraFiles = []*os.File{exitW, ctlR}
	p := &pgProcess{b: b, cmd: cmd, exitR: exitR, ctlW: ctlW, runState: newRunState()}
	hook := egressHook(spec, &p.egress)
	var egressEnd *os.File
	if userns && spec.EgressProxy != nil {
		// The daemon cannot enter a network namespace owned by the run's
		// user namespace; the supervisor opens the listener inside and
		// hands it over (egressFromSupervisor).
		var theirs *os.File
		egressEnd, theirs, err = socketPair()
		if err != nil {
			exitR.Close()
			exitW.Close()
			ctlR.Close()
			ctlW.Close()
			return nil, err
		}
		cmd.ExtraFiles = append(cmd.ExtraFiles, theirs)
		cmd.Args = append(cmd.Args, egressArg)
		defer theirs.Close()
		defer egressEnd.Close()
		hook = egressFromSupervisor(spec, egressEnd, &p.egress)
	}
	sctx, span := startSpan(ctx, "isolation.start", attribute.String("isolation.backend", ModeProcessGroup))
	layers, err := startShim(ctx, sctx, cmd, spec, sc, hook)
	endSpan(span, err)
	exitW.Close()
	ctlR.Close()
	if err != nil {
		p.closeEgress()
		ctlW.Close()
		exitR.Close()
		if cmd.Process != nil {
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			_ = cmd.Wait()
		}
		return nil, err
	}
	if root || userns {
		p.layers = append(p.layers, "netns")
	}
	if p.egress != nil {
		p.layers = append(p.layers, "egress-proxy")
	}
	for _, l := range layers {
		if n, ok := strings.CutPrefix(l, "pid:"); ok {
			p.pid, _ = strconv.Atoi(n)
			continue
		}
		p.layers = append(p.layers, l)
	}
	b.runs.add(p)
	go p.monitor()
	killOnCancel(ctx, p.Kill, p.done)
	return p, nil
}

// Close implements Backend.
func (b *pgBackend) Close() error { return b.runs.closeAll() }

// pgProcess is one run of the process_group backend.
type pgProcess struct {
	b     *pgBackend
	cmd   *exec.Cmd
	pid   int
	exitR *os.File
	ctlW  *os.File
	// egress is the run's egress proxy listener (nil without one), closed
	// when the run has ended.
	egress net.Listener

	killOnce sync.Once
	runState
}

// Pid implements Process: the workload's pid (the supervisor's when the
// workload's is unknown).
func (p *pgProcess) Pid() int {
	if p.pid > 0 {
		return p.pid
	}
	return p.cmd.Process.Pid
}

// Kill implements Process: closing the control pipe makes the supervisor
// TERM, wait up to 3 s, then KILL every descendant; if the supervisor does
// not finish in time, the process group is SIGKILLed as a last resort.
func (p *pgProcess) Kill() error {
	p.killOnce.Do(func() { p.ctlW.Close() })
	select {
	case <-p.done:
		return nil
	case <-time.After(pgGrace + killBound):
	}
	pgid := p.cmd.Process.Pid
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
	select {
	case <-p.done:
		return errors.New("isolation: kill process group: supervisor unresponsive, group SIGKILLed")
	case <-time.After(5 * time.Second):
		return errors.New("isolation: kill process group: supervisor did not exit")
	}
}

// monitor reads the supervisor's exit report and reaps it.
func (p *pgProcess) monitor() {
	defer close(p.done)
	defer p.closeEgress()
	var rep Exit
	derr := json.NewDecoder(p.exitR).Decode(&rep)
	p.exitR.Close()
	werr := p.cmd.Wait()
	p.killOnce.Do(func() { p.ctlW.Close() })
	if derr != nil {
		p.exit = exitFrom(p.cmd.ProcessState)
		p.waitErr = fmt.Errorf("isolation: supervisor gave no exit report: %w", derr)
	} else {
		p.exit = rep
	}
	pgid := p.cmd.Process.Pid
	if werr != nil || syscall.Kill(-pgid, 0) == nil {
		// The supervisor could not confirm an empty tree, or the group
		// still has members: kill what we can see, but say so.
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
		p.cleanup = "cleanup_unconfirmed"
	}
	p.b.runs.remove(p)
}

// closeEgress closes the run's egress listener, if any.
func (p *pgProcess) closeEgress() {
	if p.egress != nil {
		_ = p.egress.Close()
	}
}

// runSupervisor is the process-group supervisor: it starts the workload
// through the shim, reports its exit status, and kills every descendant
// when the workload ends, when asked, or when the daemon disappears.
func runSupervisor() error {
	signalIgnore()
	// The workload must not inherit the exit and control pipes.
	for _, fd := range []int{fdExit, fdCtl} {
		if _, err := unix.FcntlInt(uintptr(fd), unix.F_SETFD, unix.FD_CLOEXEC); err != nil {
			return fmt.Errorf("supervisor: set close-on-exec on fd %d: %w", fd, err)
		}
	}
	if err := supervisorEgress(); err != nil {
		reportStatus(statusMsg{Error: err.Error()})
		return err
	}
	sc, err := readShimConfig()
	if err != nil {
		reportStatus(statusMsg{Error: err.Error()})
		return err
	}
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		err = fmt.Errorf("become child subreaper: %w", err)
		reportStatus(statusMsg{Error: err.Error()})
		return err
	}
	// /proc/self/exe, not os.Executable(): the supervisor may itself run
	// from the sealed memfd of UseShimBinary, which has no path to re-open.
	cmd := exec.Command("/proc/self/exe", shimArg)
	cmd.SysProcAttr = &syscall.SysProcAttr{Cloneflags: sc.Cloneflags}
	spec := Spec{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr}
	layers, err := startShim(context.Background(), context.Background(), cmd, spec, sc, nil)
	if err != nil {
		if cmd.Process != nil {
			killDescendants(syscall.SIGKILL)
		}
		reportStatus(statusMsg{Error: err.Error()})
		return err
	}
	all := []string{"process_group"}
	if sc.Cloneflags&unix.CLONE_NEWPID != 0 {
		all = append(all, "pidns")
	}
	all = append(all, layers...)
	all = append(all, fmt.Sprintf("pid:%d", cmd.Process.Pid))
	reportStatus(statusMsg{Layers: all})
	statusFile().Close()

	killReq := make(chan struct{})
	go func() {
		ctl := os.NewFile(fdCtl, "ctl")
		buf := make([]byte, 64)
		for {
			if _, err := ctl.Read(buf); err != nil {
				close(killReq)
				return
			}
		}
	}()
	reaped := make(chan struct{})
	mainExited := make(chan struct{})
	mainPid := cmd.Process.Pid
	exitOut := os.NewFile(fdExit, "exit")
	go func() {
		defer close(reaped)
		for {
			var ws syscall.WaitStatus
			pid, err := syscall.Wait4(-1, &ws, 0, nil)
			if errors.Is(err, syscall.EINTR) {
				continue
			}
			if err != nil { // ECHILD: the whole tree is gone
				return
			}
			if pid == mainPid {
				ex := Exit{Code: ws.ExitStatus()}
				if ws.Signaled() {
					ex = Exit{Code: -1, Signal: unix.SignalName(ws.Signal())}
				}
				_ = json.NewEncoder(exitOut).Encode(ex)
				exitOut.Close()
				close(mainExited)
			}
		}
	}()
	select {
	case <-reaped:
		return nil
	case <-killReq:
	case <-mainExited:
	}
	// The workload ended and left processes behind, or we were asked to
	// stop (or the daemon is gone): TERM, grace, KILL until empty.
	killDescendants(syscall.SIGTERM)
	select {
	case <-reaped:
		return nil
	case <-time.After(pgGrace):
	}
	for {
		killDescendants(syscall.SIGKILL)
		select {
		case <-reaped:
			return nil
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// killDescendants signals every process below this one in the process
// tree. As a child subreaper, orphaned (setsid'd, double-forked)
// descendants are reparented here, so they stay in this tree.
func killDescendants(sig syscall.Signal) {
	for _, pid := range descendants(os.Getpid()) {
		_ = syscall.Kill(pid, sig)
	}
}

// descendants walks /proc and returns every process whose parent chain
// reaches root.
func descendants(root int) []int {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	children := map[int][]int{}
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(s[i+1:])
		if len(f) < 2 {
			continue
		}
		ppid, err := strconv.Atoi(f[1])
		if err != nil {
			continue
		}
		children[ppid] = append(children[ppid], pid)
	}
	var out []int
	queue := []int{root}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, c := range children[p] {
			out = append(out, c)
			queue = append(queue, c)
		}
	}
	return out
}
