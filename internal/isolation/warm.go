//go:build linux

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
	"path/filepath"
	"syscall"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"golang.org/x/sys/unix"
)

// A cgroup backend keeps a few warm shims: each is a fresh run made ready
// before any run asks for it — its own v2 and v1 cgroups with the default
// limits, registered with the watchdog, and a shim cloned into them with
// its own network, PID and mount namespaces that has joined the v1
// cgroups, brought its loopback up and assembled the common part of the
// run's root (prepareRoot). A run that starts takes one and sends it the
// run's config; the shim then binds the workspace, masks /etc, pivots,
// confines itself (rlimits, Landlock, uid, seccomp) and executes the
// workload, exactly as a fresh shim does after its own set-up. Each warm
// shim serves one run and is never reused, so a run gets nothing another
// run touched; what moves off the run's path is the cgroup creation, the
// clone with its namespaces, the shim's start-up and most of the mounts.
const (
	// warmPoolSize is how many warm shims a backend keeps ready.
	warmPoolSize = 2
	// warmMaxAge bounds how old a warm shim may be when it is used: its
	// mount namespace is a copy of the host's made when it was cloned, so
	// a mount the host added later is only seen by younger shims.
	warmMaxAge = time.Minute
	// outputDrainBound is how long a run's output is still copied after
	// the run is empty (as exec.Cmd's WaitDelay for a fresh shim): only a
	// descriptor leaked to a process outside the run keeps it open.
	outputDrainBound = 5 * time.Second
)

// warmShim is one prepared run waiting for its workload.
type warmShim struct {
	p       *cgProcess
	lim     Limits
	v1Procs []string
	cfgW    *os.File // the shim's config pipe: the run's config goes here
	stR     *os.File // the shim's status pipe
	outR    *os.File // read end of the pipe that is the shim's stdout and stderr
	born    time.Time
}

// warmUsable reports whether a run of spec with limits lim can be served
// by a warm shim: the limits the shim's cgroups and tmpfs caps were made
// with, no stdin, one writer for stdout and stderr (the warm shim has one
// pipe for both), and no egress proxy (its listener must be handed to the
// proxy before the run's config is sent; such runs take a fresh shim).
func warmUsable(spec Spec, lim, warmLim Limits) bool {
	return lim == warmLim && spec.Stdin == nil && spec.EgressProxy == nil && sameWriter(spec.Stdout, spec.Stderr)
}

// sameWriter reports whether a and b are the same writer (or both nil),
// without panicking on writers that cannot be compared.
func sameWriter(a, b io.Writer) (same bool) {
	defer func() {
		if recover() != nil {
			same = false
		}
	}()
	return a == b
}

// takeWarm hands out a warm shim for spec, or nil. Shims past warmMaxAge are
// discarded on the way.
func (b *cgroupBackend) takeWarm(spec Spec, lim Limits) *warmShim {
	if !warmUsable(spec, lim, b.cfg.Limits) {
		return nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	for len(b.warm) > 0 {
		w := b.warm[0]
		b.warm = b.warm[1:]
		if time.Since(w.born) < warmMaxAge {
			return w
		}
		go w.discard()
	}
	return nil
}

// refill tops the pool up to warmPoolSize in the background; one refill
// runs at a time and Close waits for it.
func (b *cgroupBackend) refill() {
	b.mu.Lock()
	if b.filling || b.closed || !b.warmOn || len(b.warm) >= warmPoolSize {
		b.mu.Unlock()
		return
	}
	b.filling = true
	b.fillWG.Add(1)
	b.mu.Unlock()
	go func() {
		defer b.fillWG.Done()
		for {
			b.mu.Lock()
			if b.closed || len(b.warm) >= warmPoolSize {
				b.filling = false
				b.mu.Unlock()
				return
			}
			b.mu.Unlock()
			w, err := b.spawnWarm()
			b.mu.Lock()
			if err != nil || b.closed {
				// A failure leaves runs on fresh shims; the next start
				// tries again.
				b.filling = false
				b.mu.Unlock()
				if w != nil {
					w.discard()
				}
				return
			}
			b.warm = append(b.warm, w)
			b.mu.Unlock()
		}
	}()
}

// expireWarm discards warm shims past warmMaxAge and refills the pool, so
// an idle daemon still has young shims ready.
func (b *cgroupBackend) expireWarm() {
	b.mu.Lock()
	var keep, old []*warmShim
	for _, w := range b.warm {
		if time.Since(w.born) < warmMaxAge/2 {
			keep = append(keep, w)
		} else {
			old = append(old, w)
		}
	}
	b.warm = keep
	b.mu.Unlock()
	for _, w := range old {
		w.discard()
	}
	b.refill()
}

// drainWarm discards every warm shim (Close).
func (b *cgroupBackend) drainWarm() {
	b.fillWG.Wait()
	b.mu.Lock()
	ws := b.warm
	b.warm = nil
	b.mu.Unlock()
	for _, w := range ws {
		w.discard()
	}
}

// spawnWarm makes one warm shim: cgroups with the default limits, the
// watchdog told, the shim cloned into them and prepared.
func (b *cgroupBackend) spawnWarm() (*warmShim, error) {
	id, err := newRunID()
	if err != nil {
		return nil, err
	}
	p := &cgProcess{b: b, id: id, v2: filepath.Join(b.root, "run-"+id), runState: newRunState()}
	if err := os.Mkdir(p.v2, 0o755); err != nil {
		return nil, fmt.Errorf("isolation: create run cgroup: %w", err)
	}
	p.layers = append(p.layers, "cgroup2")
	w := &warmShim{p: p, lim: b.cfg.Limits, born: time.Now()}
	if err := b.applyLimits(p, w.lim, &w.v1Procs); err != nil {
		p.removeDirs()
		return nil, err
	}
	if err := b.wd.add(id, p.v2, p.v1); err != nil {
		p.removeDirs()
		return nil, fmt.Errorf("isolation: %w", err)
	}
	if err := w.launch(b.shim); err != nil {
		w.discard()
		return nil, err
	}
	return w, nil
}

// launch clones the shim into w's cgroups with the run's namespaces and
// waits until it has prepared itself.
func (w *warmShim) launch(shim string) error {
	p := w.p
	cgFD, err := unix.Open(p.v2, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("isolation: open run cgroup: %w", err)
	}
	defer unix.Close(cgFD)
	var files []*os.File
	pipe := func() (r, wr *os.File, err error) {
		r, wr, err = os.Pipe()
		if err == nil {
			files = append(files, r, wr)
		}
		return r, wr, err
	}
	closeAll := func() {
		for _, f := range files {
			f.Close()
		}
	}
	cfgR, cfgW, err := pipe()
	if err != nil {
		return fmt.Errorf("isolation: config pipe: %w", err)
	}
	stR, stW, err := pipe()
	if err != nil {
		closeAll()
		return fmt.Errorf("isolation: status pipe: %w", err)
	}
	outR, outW, err := pipe()
	if err != nil {
		closeAll()
		return fmt.Errorf("isolation: output pipe: %w", err)
	}
	cmd := exec.Command(shim, shimArg)
	cmd.SysProcAttr = &syscall.SysProcAttr{UseCgroupFD: true, CgroupFD: cgFD,
		Cloneflags: runCloneFlags}
	cmd.ExtraFiles = []*os.File{cfgR, stW}
	cmd.Env = shimEnv()
	cmd.Dir = "/"
	cmd.Stdout, cmd.Stderr = outW, outW
	p.cmd = cmd
	err = cmd.Start()
	cfgR.Close()
	stW.Close()
	outW.Close()
	if err != nil {
		p.cmd = nil
		cfgW.Close()
		stR.Close()
		outR.Close()
		return fmt.Errorf("isolation: start warm shim: %w", err)
	}
	w.cfgW, w.stR, w.outR = cfgW, stR, outR
	sc := shimConfig{V1Procs: w.v1Procs, NetNS: true, MountNS: true, TmpfsBytes: w.lim.TmpfsMaxBytes, Warm: true}
	if err := json.NewEncoder(cfgW).Encode(sc); err != nil {
		return fmt.Errorf("isolation: warm shim config: %w", err)
	}
	if err := stR.SetReadDeadline(time.Now().Add(startBound)); err != nil {
		return fmt.Errorf("isolation: warm shim status: %w", err)
	}
	line, err := bufio.NewReader(stR).ReadBytes('\n')
	if err != nil {
		return fmt.Errorf("isolation: warm shim did not get ready: %w", err)
	}
	_ = stR.SetReadDeadline(time.Time{})
	var m statusMsg
	if err := json.Unmarshal(line, &m); err != nil {
		return fmt.Errorf("isolation: warm shim status: %w", err)
	}
	if m.Error != "" || !m.Ready {
		return fmt.Errorf("isolation: warm shim: %q", m.Error)
	}
	return nil
}

// closeFiles closes the parent's ends of w's pipes.
func (w *warmShim) closeFiles() {
	for _, f := range []*os.File{w.cfgW, w.stR, w.outR} {
		if f != nil {
			f.Close()
		}
	}
}

// discard kills an unused warm shim and removes its cgroups.
func (w *warmShim) discard() {
	w.closeFiles()
	w.p.cleanupAfterFailedStart()
}

// startWarm starts spec on the warm shim w. retry reports a failure that a
// fresh shim may not have (the warm shim died, or cannot see the
// workspace): nothing of the run has happened and the caller discards w
// and starts fresh.
func (b *cgroupBackend) startWarm(ctx, sctx context.Context, w *warmShim, spec Spec, h Hardening, lim Limits) (p *cgProcess, retry bool, err error) {
	shCtx, span := startSpan(sctx, "isolation.shim", attribute.Bool("isolation.warm", true))
	clock := stageClock{last: time.Now()}
	defer func() { clock.record(span); endSpan(span, err) }()
	p = w.p
	sc := shimConfigFor(spec, h, lim, w.v1Procs)
	sc.SentNS = time.Now().UnixNano()
	werr := json.NewEncoder(w.cfgW).Encode(sc)
	w.cfgW.Close()
	w.cfgW = nil
	clock.lap("send")
	if werr != nil {
		return nil, true, fmt.Errorf("isolation: warm shim config: %w", werr)
	}
	st, stale, err := readStatus(ctx, shCtx, w.stR)
	w.stR.Close()
	w.stR = nil
	clock.lap("status")
	if err != nil {
		return nil, stale || errors.Is(err, errShimGone), err
	}
	p.layers = append(p.layers, "netns", "pidns")
	p.layers = append(p.layers, st...)
	dst := spec.Stdout
	if dst == nil {
		dst = io.Discard
	}
	p.out, p.copied = w.outR, make(chan struct{})
	w.outR = nil
	go func() {
		defer close(p.copied)
		_, _ = io.Copy(dst, p.out)
	}()
	return p, false, nil
}

// waitOutput waits (bounded) until a warm run's output has been copied,
// then closes the pipe; nothing for a fresh shim (exec.Cmd copies).
func (p *cgProcess) waitOutput() {
	if p.copied == nil {
		return
	}
	select {
	case <-p.copied:
	case <-time.After(outputDrainBound):
	}
	p.out.Close()
	<-p.copied
}
