package isolation

import (
	"context"
	"errors"
	"net"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeJobs is an in-memory jobAPI: a job holds "processes" that live until
// terminated (or, for the main one, until it exits by itself).
type fakeJobs struct {
	mu        sync.Mutex
	isElev    bool
	next      jobHandle
	jobs      map[jobHandle]*fakeJob
	failLimit error
	failStart error
	order     []string
}

type fakeJob struct {
	limits   jobLimits
	active   int
	closed   bool
	mainDone chan int
	// lingering processes stay active after termination (a process the
	// kernel has not reaped yet) this many polls.
	lingering int
}

type fakeProc struct {
	j    *fakeJob
	done chan int
}

func (p fakeProc) pid() int           { return 4242 }
func (p fakeProc) wait() (int, error) { return <-p.done, nil }

func newFakeJobs() *fakeJobs { return &fakeJobs{jobs: map[jobHandle]*fakeJob{}} }

func (f *fakeJobs) elevated() bool { return f.isElev }
func (f *fakeJobs) create() (jobHandle, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.next++
	f.jobs[f.next] = &fakeJob{mainDone: make(chan int, 1)}
	f.order = append(f.order, "create")
	return f.next, nil
}
func (f *fakeJobs) setLimits(j jobHandle, l jobLimits) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.order = append(f.order, "limits")
	if f.failLimit != nil {
		return f.failLimit
	}
	f.jobs[j].limits = l
	return nil
}
func (f *fakeJobs) startInJob(j jobHandle, spec Spec) (jobProc, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.order = append(f.order, "start")
	if f.failStart != nil {
		return nil, f.failStart
	}
	job := f.jobs[j]
	job.active = 2 // the main process and a child it started
	return fakeProc{j: job, done: job.mainDone}, nil
}
func (f *fakeJobs) terminate(j jobHandle, code uint32) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.order = append(f.order, "terminate")
	job := f.jobs[j]
	if job.active > 0 {
		job.active = 0
		select {
		case job.mainDone <- int(code):
		default:
		}
	}
	return nil
}
func (f *fakeJobs) activeProcesses(j jobHandle) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	job := f.jobs[j]
	if job.lingering > 0 {
		job.lingering--
		return 1, nil
	}
	return job.active, nil
}
func (f *fakeJobs) closeJob(j jobHandle) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.order = append(f.order, "close")
	f.jobs[j].closed = true
	return nil
}

func TestJobLimitsMapping(t *testing.T) {
	jl := jobLimitsFor(DefaultLimits(), 4)
	if jl.ActiveProcesses != 256 || jl.JobMemoryBytes != 2<<30 {
		t.Errorf("defaults: %+v", jl)
	}
	// One CPU (100000 µs per 100 ms) of 4 is 25 % = 2500.
	if jl.CPURate != 2500 {
		t.Errorf("cpu rate %d, want 2500", jl.CPURate)
	}
	if got := jobLimitsFor(Limits{CPUQuotaMicros: 1}, 64).CPURate; got != 1 {
		t.Errorf("tiny quota rate %d, want the minimum 1", got)
	}
	if got := jobLimitsFor(Limits{CPUQuotaMicros: 800000}, 2).CPURate; got != 10000 {
		t.Errorf("quota above the host rate %d, want 10000", got)
	}
	if got := jobLimitsFor(Limits{}, 4); got != (jobLimits{}) {
		t.Errorf("no limits: %+v", got)
	}
}

func TestJobBackendRefusals(t *testing.T) {
	f := newFakeJobs()
	if _, err := newJobBackend(f, Config{Mode: ModeAuto}, 2); err == nil || !strings.Contains(err.Error(), "allow_shared_host") {
		t.Errorf("without allow_shared_host: %v", err)
	}
	if _, err := newJobBackend(f, Config{Mode: ModeRequired, AllowSharedHost: true}, 2); err == nil || !strings.Contains(err.Error(), "required") {
		t.Errorf("required: %v", err)
	}
	f.isElev = true
	if _, err := newJobBackend(f, Config{AllowSharedHost: true}, 2); err == nil || !strings.Contains(err.Error(), "elevated") {
		t.Errorf("elevated daemon: %v", err)
	}
}

func TestJobBackendRunLifecycle(t *testing.T) {
	f := newFakeJobs()
	b, err := newJobBackend(f, Config{AllowSharedHost: true, Limits: DefaultLimits()}, 2)
	if err != nil {
		t.Fatal(err)
	}
	p, err := b.Start(context.Background(), Spec{Path: "cmd.exe"})
	if err != nil {
		t.Fatal(err)
	}
	job := f.jobs[1]
	if job.limits.ActiveProcesses != 256 || job.limits.CPURate != 5000 {
		t.Errorf("limits applied %+v", job.limits)
	}
	// The main process exits with 7 while a child still runs: the run
	// ends with it, the job is terminated, confirmed empty and closed.
	job.mainDone <- 7
	ex, err := p.Wait()
	if err != nil || ex.Code != 7 {
		t.Fatalf("exit %+v %v", ex, err)
	}
	if p.Cleanup() != "" || !job.closed || job.active != 0 {
		t.Errorf("cleanup %q closed %v active %d", p.Cleanup(), job.closed, job.active)
	}
	want := "create limits start terminate close"
	if got := strings.Join(f.order, " "); got != want {
		t.Errorf("calls %q, want %q", got, want)
	}
}

func TestJobBackendKillAndFailures(t *testing.T) {
	f := newFakeJobs()
	b, _ := newJobBackend(f, Config{AllowSharedHost: true}, 2)
	p, err := b.Start(context.Background(), Spec{Path: "cmd.exe"})
	if err != nil {
		t.Fatal(err)
	}
	f.jobs[1].lingering = 3 // the kernel takes a few polls to empty it
	if err := p.Kill(); err != nil {
		t.Fatal(err)
	}
	if ex, _ := p.Wait(); ex.Signal != "SIGKILL" || p.Cleanup() != "" {
		t.Errorf("killed run: exit %+v cleanup %q", ex, p.Cleanup())
	}
	// Cancelling the context kills too.
	ctx, cancel := context.WithCancel(context.Background())
	p, err = b.Start(ctx, Spec{Path: "cmd.exe"})
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	select {
	case <-p.(*jobProcess).done:
	case <-time.After(10 * time.Second):
		t.Fatal("cancel did not end the run")
	}
	// A limit that cannot be set refuses the run and closes the job; a
	// process that cannot start in the job terminates and closes it.
	f.failLimit = errors.New("access denied")
	if _, err := b.Start(context.Background(), Spec{Path: "cmd.exe"}); err == nil || !strings.Contains(err.Error(), "limits") {
		t.Errorf("limit failure: %v", err)
	}
	f.failLimit, f.failStart = nil, errors.New("suspended start failed")
	if _, err := b.Start(context.Background(), Spec{Path: "cmd.exe"}); err == nil {
		t.Error("start failure accepted")
	}
	for h, j := range f.jobs {
		if !j.closed {
			t.Errorf("job %d left open", h)
		}
	}
	f.failStart = nil
	if _, err := b.Start(context.Background(), Spec{Path: "x", EgressProxy: func(net.Listener) error { return nil }}); err == nil {
		t.Error("egress proxy accepted")
	}
	if _, err := b.Start(context.Background(), Spec{Path: "x", Dir: `C:\Windows`, Workspace: `C:\ws\a`}); err == nil {
		t.Error("cwd outside the workspace accepted")
	}
	if p, err := b.Start(context.Background(), Spec{Path: "x", Dir: `C:\ws\a\sub`, Workspace: `C:\ws\a`}); err != nil {
		t.Errorf("cwd inside the workspace refused: %v", err)
	} else if err := p.Kill(); err != nil {
		t.Error(err)
	}
}
