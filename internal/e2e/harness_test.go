package e2e

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// binPath is the toolwarden binary built once by TestMain.
var binPath string

// shared holds the teardown of what benchmarks start (servers, data dirs,
// Redis keys): it outlives one call of a benchmark function, so TestMain
// runs it, last first, after all tests and benchmarks.
var shared struct {
	sync.Mutex
	cleanups []func()
}

// atExit registers fn with the shared teardown.
func atExit(fn func()) {
	shared.Lock()
	defer shared.Unlock()
	shared.cleanups = append(shared.cleanups, fn)
}

func TestMain(m *testing.M) { os.Exit(runMain(m)) }

func runMain(m *testing.M) int {
	root, err := moduleRoot()
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		return 1
	}
	packs, _ := filepath.Glob(filepath.Join(root, "internal", "engine", "builtin", "wasm", "*.wasm"))
	if len(packs) == 0 {
		fmt.Fprintln(os.Stderr, "e2e: internal/engine/builtin/wasm holds no rule packs (.wasm); build them first with "+
			"`go tool task rules` (or run the suite through `go tool task test`, which does)")
		return 1
	}
	dir, err := os.MkdirTemp("", "toolwarden-e2e-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e: temp dir for the binary:", err)
		return 1
	}
	defer os.RemoveAll(dir)
	binPath = filepath.Join(dir, "toolwarden")
	build := exec.Command("go", "build", "-o", binPath, "./cmd/toolwarden")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "e2e: go build ./cmd/toolwarden: %v\n%s", err, out)
		return 1
	}
	code := m.Run()
	shared.Lock()
	for i := len(shared.cleanups) - 1; i >= 0; i-- {
		shared.cleanups[i]()
	}
	shared.Unlock()
	return code
}

// moduleRoot finds the directory of the toolwarden go.mod above the test's
// working directory.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("find module root: %w", err)
	}
	for {
		data, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil && bytes.Contains(data, []byte("module github.com/toolwarden/toolwarden\n")) {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("find module root: no go.mod of github.com/toolwarden/toolwarden above the working directory")
		}
		dir = parent
	}
}

// inCI reports whether missing prerequisites must fail rather than skip.
func inCI() bool { return os.Getenv("CI") == "true" }

// need skips the test with reason, or fails it under CI=true.
func need(t testing.TB, reason string) {
	t.Helper()
	if inCI() {
		t.Fatalf("required in CI: %s", reason)
	}
	t.Skip(reason)
}

// randHex returns n random bytes as hex, for unique keys, prefixes and
// process markers.
func randHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// tempDir makes a directory readable by the unprivileged uid that workloads
// run as (t.TempDir is 0700), removed when the test ends.
func tempDir(t testing.TB) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "toolwarden-e2e-")
	if err != nil {
		t.Fatalf("temp dir: %v", err)
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatalf("chmod temp dir: %v", err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	return dir
}

// freePort returns a loopback port that was free a moment ago.
func freePort(t testing.TB) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("free port: %v", err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// syncBuffer collects a process's output for failure messages.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// proc is one child process of the test (serve, executor, redis-server).
type proc struct {
	name string
	cmd  *exec.Cmd
	out  *syncBuffer
	done chan struct{}
	err  error
}

// startProc starts name with args and env added to the test's environment.
// The caller decides when it stops (stop, kill) — usually in t.Cleanup.
func startProc(t testing.TB, name string, env []string, path string, args ...string) *proc {
	t.Helper()
	p := &proc{name: name, out: &syncBuffer{}, done: make(chan struct{})}
	p.cmd = exec.Command(path, args...)
	p.cmd.Env = append(os.Environ(), env...)
	p.cmd.Stdout = p.out
	p.cmd.Stderr = p.out
	if err := p.cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", name, err)
	}
	go func() {
		p.err = p.cmd.Wait()
		close(p.done)
	}()
	return p
}

// exited reports whether the process has ended.
func (p *proc) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// stop ends the process gracefully (SIGTERM), then forcibly after 20 s.
func (p *proc) stop() {
	if p.exited() {
		return
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(20 * time.Second):
		_ = p.cmd.Process.Kill()
		<-p.done
	}
}

// kill ends the process with SIGKILL, as a crash would, and reaps it.
func (p *proc) kill(t testing.TB) {
	t.Helper()
	if err := p.cmd.Process.Kill(); err != nil && !p.exited() {
		t.Fatalf("SIGKILL %s: %v", p.name, err)
	}
	<-p.done
}

// tail is the end of the process's output, for failure messages.
func (p *proc) tail() string {
	s := p.out.String()
	if len(s) > 4000 {
		s = "…" + s[len(s)-4000:]
	}
	return s
}

// serverOpts configures one `toolwarden serve`.
type serverOpts struct {
	// DataDir is reused on restart; empty makes a new one.
	DataDir string
	// Port is reused on restart; 0 picks a free one.
	Port int
	// RedisURL and RedisPrefix select the Redis backend.
	RedisURL, RedisPrefix string
	// NoExecutor runs no embedded executor.
	NoExecutor bool
	// Config is extra YAML appended to the test configuration.
	Config string
	// Key is the admin key (TOOLWARDEN_ADMIN_KEY); empty makes one.
	Key string
	// isolation is the executor's cgroup root configuration, kept across
	// restarts so a restarted server reaps what the previous one left.
	isolation string
}

// server is a running `toolwarden serve` and a client for it.
type server struct {
	*proc
	opts serverOpts
	api  *client
}

// baseConfig lifts the per-key rate limit, which would otherwise throttle a
// load test from one key, and keeps everything else at its default.
const baseConfig = "rate_per_second: 1000000\nrate_burst: 1000000\n"

// startServer starts `toolwarden serve` with o, waits until /readyz answers
// 200, and stops it when the test ends (printing its output on failure).
func startServer(t testing.TB, o serverOpts) *server {
	t.Helper()
	s, err := launchServer(t, o, t.Cleanup)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		s.stop()
		if t.Failed() {
			t.Logf("serve on port %d output:\n%s", s.opts.Port, s.tail())
		}
	})
	return s
}

// launchServer starts serve without stopping it at the end of t
// (benchmarks share servers across calls); cleanup receives the teardown
// of its cgroup root.
func launchServer(t testing.TB, o serverOpts, cleanup func(func())) (*server, error) {
	t.Helper()
	if o.DataDir == "" {
		o.DataDir = filepath.Join(tempDir(t), "data")
	}
	if o.Port == 0 {
		o.Port = freePort(t)
	}
	if o.Key == "" {
		o.Key = "tw_e2e_" + randHex(16)
	}
	cfgPath := o.DataDir + ".yaml"
	if err := os.MkdirAll(filepath.Dir(cfgPath), 0o755); err != nil {
		return nil, fmt.Errorf("create config dir: %w", err)
	}
	if !o.NoExecutor && o.isolation == "" {
		o.isolation = isolationConfig(cleanup)
	}
	doc := baseConfig + o.Config + o.isolation
	if err := os.WriteFile(cfgPath, []byte(doc), 0o600); err != nil {
		return nil, fmt.Errorf("write serve config: %w", err)
	}
	args := []string{"serve", "--listen", fmt.Sprintf("127.0.0.1:%d", o.Port), "--data-dir", o.DataDir, "--config", cfgPath}
	env := []string{"TOOLWARDEN_ADMIN_KEY=" + o.Key, "TOOLWARDEN_SECRETS_KEY=" + e2eSecretsKey}
	if o.RedisURL != "" {
		args = append(args, "--redis", o.RedisURL)
		env = append(env, "TOOLWARDEN_REDIS_PREFIX="+o.RedisPrefix)
	}
	if o.NoExecutor {
		args = append(args, "--no-executor")
	}
	s := &server{opts: o, api: newClient(fmt.Sprintf("http://127.0.0.1:%d", o.Port), o.Key)}
	s.proc = startProc(t, "serve", env, binPath, args...)
	if err := s.api.waitReady(s.proc, 90*time.Second); err != nil {
		s.stop()
		return nil, fmt.Errorf("serve on port %d: %w\n%s", o.Port, err, s.tail())
	}
	return s, nil
}

// restart starts a new serve on the same data dir, port, backend and key.
func (s *server) restart(t testing.TB) *server {
	t.Helper()
	return startServer(t, s.opts)
}

// needExecutorCommand skips (fails in CI) when the binary has no
// `executor` subcommand.
func needExecutorCommand(t testing.TB) {
	t.Helper()
	if out, err := exec.Command(binPath, "executor", "--help").CombinedOutput(); err != nil {
		need(t, fmt.Sprintf("toolwarden has no working `executor` subcommand: %v: %s", err, bytes.TrimSpace(out)))
	}
}

// e2eSecretsKey is the master key (security.secrets_key) every server and
// executor of a test deployment shares.
const e2eSecretsKey = "5e2e5e2e5e2e5e2e5e2e5e2e5e2e5e2e5e2e5e2e5e2e5e2e5e2e5e2e5e2e5e2e"

// startExecutor starts `toolwarden executor` on a Redis backend with its
// own cgroup root, workspace and data dir, plus args (for example
// --concurrency, --lease); it is stopped when the test ends.
func startExecutor(t testing.TB, redisURL, prefix string, args ...string) *proc {
	t.Helper()
	dir := tempDir(t)
	cfgPath := filepath.Join(dir, "executor.yaml")
	if err := os.WriteFile(cfgPath, []byte(isolationConfig(t.Cleanup)), 0o600); err != nil {
		t.Fatalf("write executor config: %v", err)
	}
	ws := filepath.Join(dir, "workspace")
	if err := os.Mkdir(ws, 0o755); err != nil {
		t.Fatalf("create executor workspace: %v", err)
	}
	// Workloads run as an unprivileged uid: the workspace is shared like /tmp.
	if err := os.Chmod(ws, 0o1777); err != nil {
		t.Fatalf("chmod executor workspace: %v", err)
	}
	all := append([]string{"executor", "--redis", redisURL, "--config", cfgPath,
		"--data-dir", filepath.Join(dir, "data"), "--workspace", ws}, args...)
	p := startProc(t, "executor", []string{"TOOLWARDEN_REDIS_PREFIX=" + prefix, "TOOLWARDEN_SECRETS_KEY=" + e2eSecretsKey}, binPath, all...)
	t.Cleanup(func() {
		p.stop()
		if t.Failed() {
			t.Logf("executor pid %d output:\n%s", p.cmd.Process.Pid, p.tail())
		}
	})
	return p
}

// redisURL is the test Redis: TOOLWARDEN_TEST_REDIS (host:port or a
// redis:// URL) or 127.0.0.1:6379.
func redisURL() string {
	v := os.Getenv("TOOLWARDEN_TEST_REDIS")
	if v == "" {
		v = "127.0.0.1:6379"
	}
	if !strings.Contains(v, "://") {
		v = "redis://" + v
	}
	return v
}

// probeRedis dials the test Redis once and returns a client to it.
func probeRedis() (*redis.Client, error) {
	o, err := redis.ParseURL(redisURL())
	if err != nil {
		return nil, fmt.Errorf("TOOLWARDEN_TEST_REDIS: %w", err)
	}
	o.MaxRetries = -1
	c := redis.NewClient(o)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	if err := c.Ping(ctx).Err(); err != nil {
		c.Close()
		return nil, fmt.Errorf("Redis at %s unreachable: %w", redisURL(), err)
	}
	return c, nil
}

// deletePrefix deletes every key under prefix and closes c.
func deletePrefix(c *redis.Client, prefix string) {
	defer c.Close()
	ctx := context.Background()
	iter := c.Scan(ctx, 0, prefix+"*", 1000).Iterator()
	var keys []string
	for iter.Next(ctx) {
		keys = append(keys, iter.Val())
	}
	if len(keys) > 0 {
		c.Del(ctx, keys...)
	}
}

// needRedis returns the test Redis URL and a key prefix private to the test
// (its keys are deleted afterwards); it skips when Redis is unreachable,
// except under CI=true.
func needRedis(t testing.TB) (url, prefix string) {
	t.Helper()
	c, err := probeRedis()
	if err != nil {
		need(t, err.Error())
	}
	prefix = "twe2e:" + randHex(8) + ":"
	t.Cleanup(func() { deletePrefix(c, prefix) })
	return redisURL(), prefix
}

// redisServer is a private redis-server the test may stop and restart.
type redisServer struct {
	*proc
	port int
	dir  string
	url  string
}

// startRedisServer starts a private redis-server on a free port that keeps
// its data in an append-only file fsynced on every write, so a SIGKILL loses
// nothing Redis acknowledged. It skips without redis-server (fails in CI).
func startRedisServer(t testing.TB) *redisServer {
	t.Helper()
	path, err := exec.LookPath("redis-server")
	if err != nil {
		need(t, "redis-server is not installed")
	}
	r := &redisServer{port: freePort(t), dir: tempDir(t)}
	r.url = fmt.Sprintf("redis://127.0.0.1:%d/0", r.port)
	r.launch(t, path)
	return r
}

func (r *redisServer) launch(t testing.TB, path string) {
	t.Helper()
	p := startProc(t, "redis-server", nil, path,
		"--port", strconv.Itoa(r.port), "--bind", "127.0.0.1", "--dir", r.dir,
		"--save", "", "--appendonly", "yes", "--appendfsync", "always")
	r.proc = p
	t.Cleanup(p.stop)
	o, _ := redis.ParseURL(r.url)
	o.MaxRetries = -1
	c := redis.NewClient(o)
	defer c.Close()
	deadline := time.Now().Add(30 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		err := c.Ping(ctx).Err()
		cancel()
		if err == nil {
			return
		}
		if p.exited() || time.Now().After(deadline) {
			t.Fatalf("redis-server on port %d did not come up: %v\n%s", r.port, err, p.tail())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// restart starts redis-server again on the same port and directory; the
// append-only file brings back every acknowledged write.
func (r *redisServer) restart(t testing.TB) {
	t.Helper()
	path, _ := exec.LookPath("redis-server")
	r.launch(t, path)
}

// record is the part of an execution record the tests check.
type record struct {
	ExecutionID    string          `json:"execution_id"`
	Status         string          `json:"status"`
	ConversationID string          `json:"conversation_id"`
	Result         string          `json:"result"`
	Error          string          `json:"error"`
	IsError        bool            `json:"is_error"`
	ExitCode       *int            `json:"exit_code"`
	Cleanup        string          `json:"cleanup"`
	Content        string          `json:"content"`
	Attempt        int             `json:"attempt"`
	DurationMS     int64           `json:"duration_ms"`
	SafetyReport   json.RawMessage `json:"safety_report"`
}

// terminal reports whether status is final.
func terminal(status string) bool {
	switch status {
	case "completed", "failed", "cancelled", "hard_timeout", "orphaned", "blocked":
		return true
	}
	return false
}

// apiError is the JSON error body of the API.
type apiError struct {
	Error struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// client calls the REST API with one key.
type client struct {
	base, key string
	hc        *http.Client
}

func newClient(base, key string) *client {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = 256
	return &client{base: base, key: key, hc: &http.Client{Timeout: 3 * time.Minute, Transport: tr}}
}

// do sends body as JSON (nil: no body) and returns the status and body.
func (c *client) do(ctx context.Context, method, path string, body any) (int, []byte, error) {
	var rd io.Reader
	if body != nil {
		data, err := json.Marshal(body)
		if err != nil {
			return 0, nil, fmt.Errorf("encode %s %s: %w", method, path, err)
		}
		rd = bytes.NewReader(data)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, rd)
	if err != nil {
		return 0, nil, fmt.Errorf("%s %s: %w", method, path, err)
	}
	req.Header.Set("Authorization", "Bearer "+c.key)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return 0, nil, fmt.Errorf("%s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return resp.StatusCode, nil, fmt.Errorf("%s %s: read body: %w", method, path, err)
	}
	return resp.StatusCode, data, nil
}

// waitReady polls /readyz until it answers 200, p exits, or d passes.
func (c *client) waitReady(p *proc, d time.Duration) error {
	deadline := time.Now().Add(d)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		code, body, err := c.do(ctx, http.MethodGet, "/readyz", nil)
		cancel()
		if err == nil && code == http.StatusOK {
			return nil
		}
		if p.exited() {
			return fmt.Errorf("exited before ready: %v", p.err)
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("not ready after %s: status %d %s err %v", d, code, body, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// submitReq is the body of POST /v1/executions used by the tests.
type submitReq struct {
	Command        string   `json:"command"`
	WaitSeconds    *float64 `json:"wait_seconds,omitempty"`
	ConversationID string   `json:"conversation_id,omitempty"`
}

func seconds(s float64) *float64 { return &s }

// submit posts a command for scan-and-run and decodes the record.
func (c *client) submit(ctx context.Context, command string, wait float64) (int, record, []byte, error) {
	code, body, err := c.do(ctx, http.MethodPost, "/v1/executions", submitReq{Command: command, WaitSeconds: seconds(wait)})
	if err != nil {
		return code, record{}, body, err
	}
	var r record
	if code == http.StatusOK || code == http.StatusAccepted || code == http.StatusForbidden {
		if err := json.Unmarshal(body, &r); err != nil {
			return code, r, body, fmt.Errorf("decode execution record: %w: %s", err, body)
		}
	}
	return code, r, body, nil
}

// mustSubmit submits and requires an acknowledged (200/202) record.
func (c *client) mustSubmit(t testing.TB, command string, wait float64) record {
	t.Helper()
	code, r, body, err := c.submit(context.Background(), command, wait)
	if err != nil {
		t.Fatalf("submit %q: %v", command, err)
	}
	if code != http.StatusOK && code != http.StatusAccepted {
		t.Fatalf("submit %q: HTTP %d: %s", command, code, body)
	}
	if r.ExecutionID == "" {
		t.Fatalf("submit %q: no execution_id: %s", command, body)
	}
	return r
}

// get reads one record.
func (c *client) get(ctx context.Context, id string) (int, record, []byte, error) {
	code, body, err := c.do(ctx, http.MethodGet, "/v1/executions/"+id+"?include_partial_output=false", nil)
	if err != nil {
		return code, record{}, body, err
	}
	var r record
	if code == http.StatusOK {
		if err := json.Unmarshal(body, &r); err != nil {
			return code, r, body, fmt.Errorf("decode execution record: %w: %s", err, body)
		}
	}
	return code, r, body, nil
}

// mustGet reads one record and requires HTTP 200.
func (c *client) mustGet(t testing.TB, id string) record {
	t.Helper()
	code, r, body, err := c.get(context.Background(), id)
	if err != nil || code != http.StatusOK {
		t.Fatalf("get %s: HTTP %d %v: %s", id, code, err, body)
	}
	return r
}

// wait calls POST /v1/executions/{id}/wait.
func (c *client) wait(ctx context.Context, id string, timeout float64) (int, record, []byte, error) {
	code, body, err := c.do(ctx, http.MethodPost, "/v1/executions/"+id+"/wait", map[string]any{"timeout_seconds": timeout})
	if err != nil {
		return code, record{}, body, err
	}
	var r record
	if code == http.StatusOK {
		if err := json.Unmarshal(body, &r); err != nil {
			return code, r, body, fmt.Errorf("decode execution record: %w: %s", err, body)
		}
	}
	return code, r, body, nil
}

// awaitTerminal waits (through the wait endpoint, retrying transient
// errors) until id is in a terminal state or d passes.
func (c *client) awaitTerminal(t testing.TB, id string, d time.Duration) record {
	t.Helper()
	deadline := time.Now().Add(d)
	var last string
	for time.Now().Before(deadline) {
		code, r, body, err := c.wait(context.Background(), id, 10)
		if err == nil && code == http.StatusOK && terminal(r.Status) {
			return r
		}
		last = fmt.Sprintf("HTTP %d %v status %q %.300s", code, err, r.Status, body)
		if code != http.StatusOK {
			time.Sleep(250 * time.Millisecond)
		}
	}
	t.Fatalf("execution %s not terminal after %s; last: %s", id, d, last)
	return record{}
}

// awaitStatus polls GET until id has status want, failing when it reaches
// another terminal state or d passes.
func (c *client) awaitStatus(t testing.TB, id, want string, d time.Duration) record {
	t.Helper()
	deadline := time.Now().Add(d)
	var r record
	for time.Now().Before(deadline) {
		code, got, _, err := c.get(context.Background(), id)
		if err == nil && code == http.StatusOK {
			r = got
			if r.Status == want {
				return r
			}
			if terminal(r.Status) {
				t.Fatalf("execution %s ended %s (%s), want %s", id, r.Status, r.Error, want)
			}
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Fatalf("execution %s is %q after %s, want %s", id, r.Status, d, want)
	return r
}

// processesWith lists the pids whose command line (arguments joined by
// spaces) contains marker.
func processesWith(marker string) []int {
	entries, _ := os.ReadDir("/proc")
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		data, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil || len(data) == 0 {
			continue
		}
		if strings.Contains(strings.ReplaceAll(string(bytes.TrimRight(data, "\x00")), "\x00", " "), marker) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// awaitProcesses waits until the number of processes with marker is
// non-zero (present) or zero (!present), returning the last pids seen.
func awaitProcesses(marker string, present bool, d time.Duration) ([]int, bool) {
	deadline := time.Now().Add(d)
	for {
		pids := processesWith(marker)
		if (len(pids) > 0) == present {
			return pids, true
		}
		if time.Now().After(deadline) {
			return pids, false
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// parentPID reads a process's parent from /proc/<pid>/stat.
func parentPID(pid int) (int, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, fmt.Errorf("read stat of %d: %w", pid, err)
	}
	// The command name may contain spaces and parentheses: fields start
	// after the last ')'.
	s := string(data)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, fmt.Errorf("parse stat of %d: %q", pid, s)
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 2 {
		return 0, fmt.Errorf("parse stat of %d: %q", pid, s)
	}
	return strconv.Atoi(f[1])
}

// descendsFrom reports whether pid has ancestor among its ancestors.
func descendsFrom(pid, ancestor int) bool {
	for i := 0; i < 64 && pid > 1; i++ {
		pp, err := parentPID(pid)
		if err != nil {
			return false
		}
		if pp == ancestor {
			return true
		}
		pid = pp
	}
	return false
}

// isolationConfig returns the security.process_isolation YAML for one
// executor (embedded or remote) started by the tests: a cgroup root of its
// own. The cgroup backend locks its root exclusively, so two executors on
// one host — the two daemons of the executor crash test, or a test running
// while someone else's `toolwarden serve` holds the default root — need
// distinct roots. Without root privileges (no cgroup backend) it returns
// "". cleanup receives the removal of the root's cgroup directories.
func isolationConfig(cleanup func(func())) string {
	if os.Geteuid() != 0 {
		return ""
	}
	mounts, selves, err := cgroupLayout()
	if err != nil || mounts["2"] == "" {
		return ""
	}
	base := "toolwarden-e2e-" + randHex(6)
	root := filepath.Join(mounts["2"], selves["2"], base)
	cleanup(func() {
		for key, m := range mounts {
			removeCgroupTree(filepath.Join(m, selves[key], base))
		}
	})
	return fmt.Sprintf("security:\n  process_isolation:\n    cgroup_root: %s\n", root)
}

// cgroupLayout maps each cgroup hierarchy ("2" for cgroup2, else its v1
// controller list as in /proc/self/cgroup) to its mount point and to this
// process's path in it.
func cgroupLayout() (mounts, selves map[string]string, err error) {
	mounts, selves = map[string]string{}, map[string]string{}
	mi, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return nil, nil, fmt.Errorf("read mountinfo: %w", err)
	}
	for _, line := range strings.Split(string(mi), "\n") {
		pre, post, ok := strings.Cut(line, " - ")
		if !ok {
			continue
		}
		pf, qf := strings.Fields(pre), strings.Fields(post)
		if len(pf) < 5 || len(qf) < 3 {
			continue
		}
		switch qf[0] {
		case "cgroup2":
			mounts["2"] = pf[4]
		case "cgroup":
			var ctrls []string
			for _, o := range strings.Split(qf[2], ",") {
				if o != "rw" && o != "ro" {
					ctrls = append(ctrls, o)
				}
			}
			mounts[strings.Join(ctrls, ",")] = pf[4]
		}
	}
	cg, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return nil, nil, fmt.Errorf("read /proc/self/cgroup: %w", err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(cg)), "\n") {
		f := strings.SplitN(line, ":", 3)
		if len(f) != 3 {
			continue
		}
		key := f[1]
		if f[0] == "0" && f[1] == "" {
			key = "2"
		}
		selves[key] = f[2]
	}
	return mounts, selves, nil
}

// removeCgroupTree removes dir and the cgroups below it, deepest first
// (cgroup directories are removed with rmdir once empty of processes).
func removeCgroupTree(dir string) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		if e.IsDir() {
			removeCgroupTree(filepath.Join(dir, e.Name()))
		}
	}
	_ = syscall.Rmdir(dir)
}
