//go:build linux

package isolation

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"
)

// wdMsg is one line from the daemon to the watchdog.
type wdMsg struct {
	Op string   `json:"op"` // "add" or "del"
	ID string   `json:"id"`
	V2 string   `json:"v2,omitempty"`
	V1 []string `json:"v1,omitempty"`
}

// wdKillBound bounds how long the watchdog waits for one run to empty.
const wdKillBound = 10 * time.Second

// runWatchdog is the watchdog process: it learns about every live run over
// its stdin and, when stdin reaches EOF (the daemon exited or died), kills
// each remaining run's cgroup, verifies it is empty and removes it. It
// never touches PIDs, only cgroup directories.
func runWatchdog(in io.Reader, out io.Writer) error {
	// Own session already (Setsid); ignore terminal/job-control signals so
	// only EOF (or SIGKILL) ends it.
	signalIgnore()
	live := map[string]wdMsg{}
	if _, err := fmt.Fprintln(out, "ready"); err != nil {
		return fmt.Errorf("watchdog: announce ready: %w", err)
	}
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for sc.Scan() {
		var m wdMsg
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			continue // a torn line cannot name a run; keep the others
		}
		switch m.Op {
		case "add":
			live[m.ID] = m
		case "del":
			delete(live, m.ID)
		}
	}
	var failed []string
	for id, m := range live {
		if err := reapRun(m.V2, m.V1); err != nil {
			failed = append(failed, fmt.Sprintf("%s: %v", id, err))
		}
	}
	if len(failed) > 0 {
		return fmt.Errorf("watchdog: %d run(s) not cleaned: %v", len(failed), failed)
	}
	return nil
}

// reapRun kills a run's v2 cgroup, waits until it is empty and removes it
// together with its v1 limit directories.
func reapRun(v2 string, v1 []string) error {
	var errs []error
	if v2 != "" {
		if _, err := os.Stat(v2); err == nil {
			if err := cgKill(v2); err != nil {
				errs = append(errs, err)
			}
			if err := cgWaitEmpty(v2, wdKillBound); err != nil {
				errs = append(errs, err)
			} else if err := rmdirRetry(v2, 2*time.Second); err != nil {
				errs = append(errs, err)
			}
		}
	}
	for _, d := range v1 {
		if err := rmdirRetry(d, 2*time.Second); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// watchdogClient is the daemon's side of the watchdog: it starts the
// process, tells it about runs, and restarts it (replaying the live runs)
// if it ever dies while the daemon lives.
type watchdogClient struct {
	path string

	mu   sync.Mutex
	cmd  *exec.Cmd
	w    io.WriteCloser
	done chan struct{}
	runs map[string]wdMsg
	// closing is set by close so the exit it causes is not "restarted".
	closing bool
}

func newWatchdog(path string) (*watchdogClient, error) {
	wd := &watchdogClient{path: path, runs: map[string]wdMsg{}}
	wd.mu.Lock()
	defer wd.mu.Unlock()
	if err := wd.startLocked(); err != nil {
		return nil, err
	}
	return wd, nil
}

// startLocked execs the watchdog in its own session and waits for "ready".
func (wd *watchdogClient) startLocked() error {
	cmd := exec.Command(wd.path, watchdogArg)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	cmd.Stderr = os.Stderr
	w, err := cmd.StdinPipe()
	if err != nil {
		return fmt.Errorf("start watchdog: %w", err)
	}
	r, err := cmd.StdoutPipe()
	if err != nil {
		return fmt.Errorf("start watchdog: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start watchdog %s: %w", wd.path, err)
	}
	ready := make(chan error, 1)
	go func() {
		line, err := bufio.NewReader(r).ReadString('\n')
		if err == nil && line != "ready\n" {
			err = fmt.Errorf("unexpected %q", line)
		}
		ready <- err
		_, _ = io.Copy(io.Discard, r)
	}()
	select {
	case err := <-ready:
		if err != nil {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
			return fmt.Errorf("start watchdog: no ready signal: %w", err)
		}
	case <-time.After(10 * time.Second):
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		return errors.New("start watchdog: no ready signal within 10s")
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	wd.cmd, wd.w, wd.done = cmd, w, done
	go wd.restartWhenDead(done)
	return nil
}

// restartWhenDead replaces a watchdog that died while the daemon lives, so
// runs registered with it are covered again without waiting for the next
// registration to notice.
func (wd *watchdogClient) restartWhenDead(done chan struct{}) {
	<-done
	wd.mu.Lock()
	defer wd.mu.Unlock()
	if wd.closing || wd.done != done {
		return // closed on purpose, or already replaced
	}
	if err := wd.restartLocked(); err != nil {
		fmt.Fprintf(os.Stderr, "toolwarden: isolation watchdog died and could not be restarted: %v\n", err)
	}
}

func (wd *watchdogClient) sendLocked(m wdMsg) error {
	b, err := json.Marshal(m)
	if err != nil {
		return err
	}
	_, err = wd.w.Write(append(b, '\n'))
	return err
}

// add registers a run before its first process exists, so a daemon that
// dies right after clone still has its run reaped: the line sits in the
// pipe and the watchdog reads it before EOF.
func (wd *watchdogClient) add(id, v2 string, v1 []string) error {
	m := wdMsg{Op: "add", ID: id, V2: v2, V1: v1}
	wd.mu.Lock()
	defer wd.mu.Unlock()
	wd.runs[id] = m
	if err := wd.sendLocked(m); err == nil {
		return nil
	}
	if err := wd.restartLocked(); err != nil {
		delete(wd.runs, id)
		return fmt.Errorf("register run %s with watchdog: %w", id, err)
	}
	return nil
}

// restartLocked replaces a dead watchdog and replays every live run.
func (wd *watchdogClient) restartLocked() error {
	if wd.cmd != nil && wd.cmd.Process != nil {
		_ = wd.w.Close()
		_ = wd.cmd.Process.Kill()
		<-wd.done
	}
	if err := wd.startLocked(); err != nil {
		return err
	}
	for _, m := range wd.runs {
		if err := wd.sendLocked(m); err != nil {
			return fmt.Errorf("replay runs to new watchdog: %w", err)
		}
	}
	return nil
}

// del tells the watchdog a run was cleaned up by the daemon itself.
func (wd *watchdogClient) del(id string) {
	wd.mu.Lock()
	defer wd.mu.Unlock()
	delete(wd.runs, id)
	if err := wd.sendLocked(wdMsg{Op: "del", ID: id}); err != nil {
		_ = wd.restartLocked() // the replay no longer includes id
	}
}

// pid of the watchdog process (tests use it).
func (wd *watchdogClient) pid() int {
	wd.mu.Lock()
	defer wd.mu.Unlock()
	return wd.cmd.Process.Pid
}

// close ends the watchdog: EOF makes it reap whatever is still registered
// and exit. It waits, bounded, for that to finish.
func (wd *watchdogClient) close() error {
	wd.mu.Lock()
	defer wd.mu.Unlock()
	wd.closing = true
	_ = wd.w.Close()
	select {
	case <-wd.done:
	case <-time.After(wdKillBound + 5*time.Second):
		_ = wd.cmd.Process.Kill()
		return errors.New("close watchdog: did not exit in time")
	}
	if st := wd.cmd.ProcessState; st != nil && !st.Success() {
		return fmt.Errorf("close watchdog: %s", st)
	}
	return nil
}
