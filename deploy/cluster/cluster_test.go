//go:build unix

package cluster

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// fakeBin stands in for bin/toolwarden: `serve` listens on its --listen
// address (or exits 3 with FAKE_SERVE_FAIL), `executor` sleeps (or exits 7
// with FAKE_EXECUTOR_FAIL, or exits 5 once the file FAKE_EXECUTOR_EXIT_ON
// appears), so the script's failure reports are tested without Redis.
const fakeBin = `#!/usr/bin/env bash
cmd=$1; shift
case "$cmd" in
executor)
	[[ "${1:-}" == --help ]] && exit 0
	if [[ -n "${FAKE_EXECUTOR_FAIL:-}" ]]; then echo "executor: cannot reach redis (fake)" >&2; exit 7; fi
	if [[ -n "${FAKE_EXECUTOR_EXIT_ON:-}" ]]; then
		while [[ ! -e "$FAKE_EXECUTOR_EXIT_ON" ]]; do sleep 0.05; done
		echo "executor: lost redis (fake)" >&2; exit 5
	fi
	exec sleep 300 ;;
serve)
	while [[ $# -gt 0 ]]; do [[ "$1" == --listen ]] && listen=$2; shift; done
	if [[ -n "${FAKE_SERVE_FAIL:-}" ]]; then echo "serve: listen $listen: bind: address already in use (fake)" >&2; exit 3; fi
	exec python3 -c 'import socket,sys,time
h,p=sys.argv[1].rsplit(":",1)
s=socket.socket(); s.setsockopt(socket.SOL_SOCKET,socket.SO_REUSEADDR,1); s.bind((h,int(p))); s.listen(); time.sleep(300)' "$listen" ;;
esac
exit 64
`

type run struct {
	cmd    *exec.Cmd
	stderr *bytes.Buffer // read only after exit
	dir    string
	// started is closed when the script prints that the cluster is up.
	started chan struct{}
}

// start runs cluster.sh 1 1 with the fake binary, a stand-in Redis (a
// listener that accepts) and BASE_PORT port, plus env.
func start(t *testing.T, port int, env ...string) *run {
	t.Helper()
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 (the fake server's listener) not installed")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "toolwarden")
	if err := os.WriteFile(bin, []byte(fakeBin), 0o755); err != nil {
		t.Fatal(err)
	}
	redis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { redis.Close() })
	go func() {
		for {
			c, err := redis.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	cmd := exec.CommandContext(ctx, "bash", "cluster.sh", "1", "1")
	cmd.Env = append(os.Environ(), "TOOLWARDEN_BIN="+bin, "TOOLWARDEN_REDIS_URL=redis://"+redis.Addr().String()+"/0",
		"BASE_PORT="+strconv.Itoa(port), "CLUSTER_DIR="+filepath.Join(dir, "cluster"))
	cmd.Env = append(cmd.Env, env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	r := &run{cmd: cmd, stderr: &bytes.Buffer{}, dir: dir, started: make(chan struct{})}
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = pw, r.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pw.Close()
	go func() {
		defer pr.Close()
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			if strings.Contains(sc.Text(), "Ctrl-C stops them all.") {
				close(r.started)
				break
			}
		}
		_, _ = io.Copy(io.Discard, pr)
	}()
	pgid := cmd.Process.Pid
	// Whatever happens, end the processes this test started (the group
	// of the script it ran).
	t.Cleanup(func() { _ = syscall.Kill(-pgid, syscall.SIGKILL) })
	return r
}

// exit waits for the script and returns its exit status.
func (r *run) exit(t *testing.T) int {
	t.Helper()
	err := r.cmd.Wait()
	if err == nil {
		return 0
	}
	ee, ok := err.(*exec.ExitError)
	if !ok {
		t.Errorf("cluster.sh: %v", err) // may run off the test goroutine: no Fatal
		return -1
	}
	return ee.ExitCode()
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// TestPortTaken: a server port already in use stops the script before it
// starts anything, naming the port.
func TestPortTaken(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	port := l.Addr().(*net.TCPAddr).Port
	r := start(t, port)
	if rc := r.exit(t); rc == 0 {
		t.Fatalf("exit 0 with port %d taken; stderr: %s", port, r.stderr)
	}
	want := "port " + strconv.Itoa(port) + " (server 1) is already in use"
	if !strings.Contains(r.stderr.String(), want) {
		t.Errorf("stderr does not say %q: %s", want, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(r.dir, "cluster", "server-1.log")); err == nil {
		t.Error("a server was started although its port was taken")
	}
}

// TestExecutorExitsAtStartup: an executor that exits during start-up stops
// the cluster with its status, naming it and showing its log.
func TestExecutorExitsAtStartup(t *testing.T) {
	port := freePort(t)
	r := start(t, port, "FAKE_EXECUTOR_FAIL=1")
	if rc := r.exit(t); rc != 7 {
		t.Fatalf("exit %d, want the executor's 7; stderr: %s", rc, r.stderr)
	}
	for _, want := range []string{"executor 1 (pid ", "exited during start-up with status 7", "cannot reach redis (fake)"} {
		if !strings.Contains(r.stderr.String(), want) {
			t.Errorf("stderr lacks %q: %s", want, r.stderr)
		}
	}
	if c, err := net.Dial("tcp", "127.0.0.1:"+strconv.Itoa(port)); err == nil {
		c.Close()
		t.Error("the server is still running after the cluster stopped")
	}
}

// TestServerExitsAtStartup: a server that cannot start is named with its
// status (not a silent 30 s wait).
func TestServerExitsAtStartup(t *testing.T) {
	port := freePort(t)
	r := start(t, port, "FAKE_SERVE_FAIL=1")
	if rc := r.exit(t); rc != 3 {
		t.Fatalf("exit %d, want the server's 3; stderr: %s", rc, r.stderr)
	}
	want := "server 1 (http://127.0.0.1:" + strconv.Itoa(port) + ") (pid "
	if !strings.Contains(r.stderr.String(), want) || !strings.Contains(r.stderr.String(), "address already in use (fake)") {
		t.Errorf("stderr lacks %q and the log line: %s", want, r.stderr)
	}
}

// TestExitAfterStartup: a process that exits once the cluster runs stops
// it, non-zero, naming the process.
func TestExitAfterStartup(t *testing.T) {
	port := freePort(t)
	trigger := filepath.Join(t.TempDir(), "exit-now")
	r := start(t, port, "FAKE_EXECUTOR_EXIT_ON="+trigger)
	// Wait for the "started" banner (or the script's end), then make the
	// executor exit.
	exited := make(chan int, 1)
	go func() { exited <- r.exit(t) }()
	select {
	case <-r.started:
	case rc := <-exited:
		t.Fatalf("script ended (%d) before start-up completed: %s", rc, r.stderr)
	}
	if err := os.WriteFile(trigger, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if rc := <-exited; rc != 5 {
		t.Fatalf("exit %d, want the executor's 5; stderr: %s", rc, r.stderr)
	}
	if !strings.Contains(r.stderr.String(), "executor 1 (pid ") || !strings.Contains(r.stderr.String(), "exited unexpectedly with status 5") {
		t.Errorf("stderr: %s", r.stderr)
	}
}
