package isolation

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// ModeJobObject names the Windows backend in Backend.Name and
// Report.Backend.
const ModeJobObject = "job_object"

// jobAPI is what the job backend needs from Windows Job Objects.
// job_windows.go implements it with golang.org/x/sys/windows; the tests
// drive the backend's logic (limits, start order, kill, the active-process
// check, failure handling) through a fake on any OS.
type jobAPI interface {
	// elevated reports whether the daemon runs elevated (its workloads
	// would too).
	elevated() bool
	// create makes a new, unnamed job object.
	create() (jobHandle, error)
	// setLimits applies l (KILL_ON_JOB_CLOSE always) to the job.
	setLimits(j jobHandle, l jobLimits) error
	// startInJob starts spec's process suspended, assigns it to the job
	// and only then resumes it, so no instruction of the workload runs
	// outside the job and every child it creates is born inside.
	startInJob(j jobHandle, spec Spec) (jobProc, error)
	// terminate ends every process of the job.
	terminate(j jobHandle, code uint32) error
	// activeProcesses counts the job's live processes.
	activeProcesses(j jobHandle) (int, error)
	// closeJob releases the handle (with KILL_ON_JOB_CLOSE, the last
	// handle closing ends the job's processes: the kernel is the
	// watchdog when the daemon dies).
	closeJob(j jobHandle) error
}

// jobHandle is an opaque job object handle.
type jobHandle uintptr

// jobProc is the main process of a job run.
type jobProc interface {
	pid() int
	// wait waits for the main process and reports its exit code.
	wait() (int, error)
}

// jobLimits are the job object limits of one run.
type jobLimits struct {
	// ActiveProcesses caps the job's live processes (0: none).
	ActiveProcesses uint32
	// JobMemoryBytes caps the committed memory of all its processes
	// together (0: none).
	JobMemoryBytes uint64
	// CPURate is the hard CPU cap in hundredths of a percent of all the
	// host's CPUs, 1..10000 (0: none).
	CPURate uint32
}

// jobLimitsFor maps the backend-neutral Limits onto a job on a host with
// ncpu CPUs: CPUQuotaMicros per 100 ms period is a share of one CPU, the
// job's rate a share of all of them.
func jobLimitsFor(l Limits, ncpu int) jobLimits {
	var jl jobLimits
	if l.MaxProcesses > 0 {
		jl.ActiveProcesses = uint32(l.MaxProcesses)
	}
	if l.MemoryMaxBytes > 0 {
		jl.JobMemoryBytes = uint64(l.MemoryMaxBytes)
	}
	if l.CPUQuotaMicros > 0 && ncpu > 0 {
		// quota/100000 CPUs out of ncpu, in 1/10000 units.
		rate := l.CPUQuotaMicros * 10000 / (100000 * int64(ncpu))
		switch {
		case rate < 1:
			rate = 1
		case rate > 10000:
			rate = 10000
		}
		jl.CPURate = uint32(rate)
	}
	return jl
}

// jobBackend runs every workload in a job object of its own: limits on
// processes, memory and CPU; the whole tree killed by TerminateJobObject
// and confirmed gone by the job's active-process count; the kernel kills
// the job when the daemon's handle closes, so a dead daemon leaves no
// run behind. Runs share the host's network and filesystem (Windows has
// no namespaces to give them), so Open refuses it unless
// Config.AllowSharedHost, and it refuses an elevated daemon.
type jobBackend struct {
	api  jobAPI
	cfg  Config
	ncpu int

	runs runSet[*jobProcess]
}

// newJobBackend checks what the backend refuses and returns it.
func newJobBackend(api jobAPI, cfg Config, ncpu int) (*jobBackend, error) {
	if cfg.Mode == ModeRequired {
		return nil, errors.New("isolation: mode required: no cgroup backend on windows; runs are refused")
	}
	if !cfg.AllowSharedHost {
		return nil, errors.New("isolation: the job object backend's runs share the host's network and filesystem; refused (security.process_isolation.allow_shared_host: true accepts that, dangerous)")
	}
	if api.elevated() {
		return nil, errors.New("isolation: the daemon runs elevated and its workloads would too; run toolwarden as an unprivileged user")
	}
	return &jobBackend{api: api, cfg: cfg, ncpu: ncpu}, nil
}

// Name implements Backend.
func (b *jobBackend) Name() string { return ModeJobObject }

// Reasons implements Reasoner.
func (b *jobBackend) Reasons() []string {
	return []string{"no namespaces: runs share the host's network and filesystem view (allow_shared_host)"}
}

// Start implements Backend.
func (b *jobBackend) Start(ctx context.Context, spec Spec) (Process, error) {
	if b.runs.isClosed() {
		return nil, errors.New("isolation: start: backend closed")
	}
	if spec.EgressProxy != nil {
		return nil, errors.New("isolation: job_object: an egress proxy needs a network namespace of the run's own")
	}
	if spec.Workspace != "" && spec.Dir != "" && !dirInWorkspaceAnyOS(spec.Dir, spec.Workspace) {
		return nil, fmt.Errorf("isolation: working directory %q is outside the workspace %q", spec.Dir, spec.Workspace)
	}
	j, err := b.api.create()
	if err != nil {
		return nil, fmt.Errorf("isolation: create job object: %w", err)
	}
	if err := b.api.setLimits(j, jobLimitsFor(mergeLimits(b.cfg.Limits, spec.Limits), b.ncpu)); err != nil {
		_ = b.api.closeJob(j)
		return nil, fmt.Errorf("isolation: job object limits: %w", err)
	}
	proc, err := b.api.startInJob(j, spec)
	if err != nil {
		_ = b.api.terminate(j, 1)
		_ = b.api.closeJob(j)
		return nil, fmt.Errorf("isolation: start in job object: %w", err)
	}
	p := &jobProcess{b: b, job: j, proc: proc, runState: newRunState(), killReq: make(chan struct{})}
	p.layers = []string{ModeJobObject, "job-limits"}
	b.runs.add(p)
	go p.monitor()
	killOnCancel(ctx, p.Kill, p.done)
	return p, nil
}

// Close implements Backend: every live run is killed.
func (b *jobBackend) Close() error {
	return b.runs.closeAll()
}

// jobProcess is one run of the job backend.
type jobProcess struct {
	b        *jobBackend
	job      jobHandle
	proc     jobProc
	killOnce sync.Once
	killReq  chan struct{}
	runState
}

// Pid implements Process.
func (p *jobProcess) Pid() int { return p.proc.pid() }

// jobKillBound bounds how long a terminated job may take to empty.
const jobKillBound = 10 * time.Second

// Kill implements Process.
func (p *jobProcess) Kill() error {
	p.killOnce.Do(func() { close(p.killReq) })
	select {
	case <-p.done:
		return nil
	case <-time.After(jobKillBound + time.Second):
		return errors.New("isolation: job object not empty in time")
	}
}

// monitor waits for the main process or a kill request, terminates the
// job (a run ends with its main process), confirms it is empty and closes
// it.
func (p *jobProcess) monitor() {
	defer close(p.done)
	exited := make(chan struct{})
	var code int
	var werr error
	go func() { code, werr = p.proc.wait(); close(exited) }()
	killed := false
	select {
	case <-exited:
	case <-p.killReq:
		killed = true
		_ = p.b.api.terminate(p.job, 1)
		<-exited
	}
	p.exit = Exit{Code: code}
	if killed {
		p.exit = Exit{Code: -1, Signal: "SIGKILL"}
	}
	if werr != nil {
		p.waitErr = fmt.Errorf("isolation: wait: %w", werr)
	}
	if err := p.b.api.terminate(p.job, 1); err != nil {
		p.cleanup = "cleanup_failed"
	}
	if !waitJobEmpty(p.b.api, p.job, jobKillBound) && p.cleanup == "" {
		p.cleanup = "cleanup_unconfirmed"
	}
	if err := p.b.api.closeJob(p.job); err != nil && p.cleanup == "" {
		p.cleanup = "cleanup_failed"
	}
	p.b.runs.remove(p)
}

// waitJobEmpty polls the job's active-process count until it is zero or
// d has passed; an error counts as not empty.
func waitJobEmpty(api jobAPI, j jobHandle, d time.Duration) bool {
	deadline := time.Now().Add(d)
	for {
		n, err := api.activeProcesses(j)
		if err == nil && n == 0 {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// dirInWorkspaceAnyOS is dirInWorkspace for paths of either separator.
func dirInWorkspaceAnyOS(dir, ws string) bool {
	return dirInWorkspace(toSlash(dir), toSlash(ws)) || dirInWorkspace(dir, ws)
}

func toSlash(p string) string {
	b := []byte(p)
	for i, c := range b {
		if c == '\\' {
			b[i] = '/'
		}
	}
	if len(b) >= 2 && b[1] == ':' {
		// C:/x → /C:/x, so an absolute drive path counts as absolute.
		b = append([]byte{'/'}, b...)
	}
	return string(b)
}
