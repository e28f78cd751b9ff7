package runner

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/toolwarden/toolwarden/internal/isolation"
)

// pgBackend is a minimal test-only backend: a process group per run,
// killed as a group. It lets these tests run real processes without the
// privileges the real backends need.
type pgBackend struct{}

func (pgBackend) Name() string { return "test_process_group" }
func (pgBackend) Close() error { return nil }

func (pgBackend) Start(ctx context.Context, spec isolation.Spec) (isolation.Process, error) {
	cmd := exec.Command(spec.Path, spec.Args[1:]...)
	cmd.Args = spec.Args
	cmd.Env = spec.Env
	if cmd.Env == nil {
		cmd.Env = []string{}
	}
	cmd.Dir = spec.Dir
	cmd.Stdin = spec.Stdin
	cmd.Stdout = spec.Stdout
	cmd.Stderr = spec.Stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", spec.Path, err)
	}
	p := &pgProcess{cmd: cmd, pgid: cmd.Process.Pid}
	stop := context.AfterFunc(ctx, func() { _ = p.Kill() })
	p.stop = stop
	return p, nil
}

type pgProcess struct {
	cmd  *exec.Cmd
	pgid int
	stop func() bool

	waitOnce sync.Once
	exit     isolation.Exit
	err      error
}

func (p *pgProcess) Pid() int { return p.cmd.Process.Pid }

func (p *pgProcess) Wait() (isolation.Exit, error) {
	p.waitOnce.Do(func() {
		err := p.cmd.Wait()
		p.stop()
		// The group must be gone too: kill leftovers (background children).
		_ = syscall.Kill(-p.pgid, syscall.SIGKILL)
		st := p.cmd.ProcessState
		if st == nil {
			p.exit, p.err = isolation.Exit{Code: -1}, err
			return
		}
		ws := st.Sys().(syscall.WaitStatus)
		switch {
		case ws.Signaled():
			p.exit = isolation.Exit{Code: -1, Signal: unix.SignalName(ws.Signal())}
		default:
			p.exit = isolation.Exit{Code: ws.ExitStatus()}
		}
		var ee *exec.ExitError
		if err != nil && !errors.As(err, &ee) {
			p.err = err
		}
	})
	return p.exit, p.err
}

func (p *pgProcess) Kill() error {
	if err := syscall.Kill(-p.pgid, syscall.SIGKILL); err != nil && !errors.Is(err, syscall.ESRCH) {
		return fmt.Errorf("kill group %d: %w", p.pgid, err)
	}
	return nil
}

func (p *pgProcess) Layers() []string { return []string{"process_group"} }
func (p *pgProcess) Cleanup() string  { return "" }

// failingBackend refuses every start, to check that nothing is left over.
type failingBackend struct{}

func (failingBackend) Name() string { return "failing" }
func (failingBackend) Close() error { return nil }
func (failingBackend) Start(context.Context, isolation.Spec) (isolation.Process, error) {
	return nil, errors.New("no isolation today")
}

// brokenKillBackend starts processes whose Kill fails, to check the error
// is recorded rather than dropped.
type brokenKillBackend struct{ pgBackend }

func (b brokenKillBackend) Start(ctx context.Context, spec isolation.Spec) (isolation.Process, error) {
	p, err := b.pgBackend.Start(context.WithoutCancel(ctx), spec)
	if err != nil {
		return nil, err
	}
	return &brokenKill{p.(*pgProcess)}, nil
}

type brokenKill struct{ *pgProcess }

func (b *brokenKill) Kill() error {
	_ = b.pgProcess.Kill()
	return errors.New("cgroup.kill: device busy")
}
func (b *brokenKill) Cleanup() string { return "cleanup_unconfirmed" }
