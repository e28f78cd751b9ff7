package executor

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/toolwarden/toolwarden/internal/execution"
	"github.com/toolwarden/toolwarden/internal/execution/embedded"
	"github.com/toolwarden/toolwarden/internal/execution/redisq"
	"github.com/toolwarden/toolwarden/internal/isolation"
)

// childEnv switches the test binary into a standalone executor process
// (see runChildExecutor), so a test can SIGKILL an executor mid-run.
const childEnv = "TOOLWARDEN_EXECUTOR_TEST_CHILD"

// TestMain lets the test binary act as the isolation shim, supervisor and
// watchdog, as cmd/toolwarden does, and as a child executor process.
func TestMain(m *testing.M) {
	if isolation.IsShim() {
		isolation.ShimMain()
	}
	if os.Getenv(childEnv) != "" {
		os.Exit(runChildExecutor())
	}
	os.Exit(m.Run())
}

// waitFor is the upper bound of every wait for a state in these tests. It
// only bounds a hang; no assertion depends on how fast anything is.
const waitFor = 60 * time.Second

// workspace makes a directory the workload's unprivileged uid can use.
func workspace(t testing.TB) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "executor-ws-")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// cgroupRoot returns a fresh exclusive cgroup root for one test backend
// ("auto:NAME", a sibling of the daemon's auto root), or "" when not root
// or in no cgroup2 hierarchy.
func cgroupRoot(tag string) string {
	if os.Geteuid() != 0 {
		return ""
	}
	if b, err := os.ReadFile("/proc/self/cgroup"); err != nil || !strings.Contains(string(b), "0::") {
		return ""
	}
	return fmt.Sprintf("auto:executor-test-%s-%d-%d", strings.ToLower(tag), os.Getpid(), time.Now().UnixNano()%1e9)
}

// isolationConfig is "auto" with a private cgroup root where root and
// cgroup2 exist, else the process-group backend.
func isolationConfig(tag string) isolation.Config {
	if root := cgroupRoot(tag); root != "" {
		return isolation.Config{Mode: isolation.ModeAuto, CgroupRoot: root,
			Limits: isolation.Limits{MaxProcesses: 128, MemoryMaxBytes: 512 << 20}}
	}
	return isolation.Config{Mode: isolation.ModeProcessGroup}
}

// openIso opens the isolation backend for one test and closes it after.
func openIso(t testing.TB) isolation.Backend {
	t.Helper()
	cfg := isolationConfig("t")
	b, err := isolation.Open(context.Background(), cfg)
	if err != nil {
		t.Fatalf("open isolation %s: %v", cfg.Mode, err)
	}
	t.Logf("isolation backend %s", b.Name())
	t.Cleanup(func() {
		if err := b.Close(); err != nil {
			t.Errorf("close isolation: %v", err)
		}
	})
	return b
}

// openEmbedded opens an embedded store in a temp dir.
func openEmbedded(t testing.TB, lease time.Duration) *embedded.Backend {
	t.Helper()
	b, err := embedded.Open(t.TempDir(), embedded.Options{LeaseTTL: lease})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	return b
}

// redisURL is the test Redis: TOOLWARDEN_TEST_REDIS or 127.0.0.1:6379.
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

// redisPrefix checks the test Redis answers (skip when unreachable, fail
// under CI=true) and returns a unique key prefix deleted after the test.
func redisPrefix(t *testing.T) string {
	t.Helper()
	o, err := redis.ParseURL(redisURL())
	if err != nil {
		t.Fatalf("TOOLWARDEN_TEST_REDIS: %v", err)
	}
	c := redis.NewClient(o)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	if err := c.Ping(ctx).Err(); err != nil {
		c.Close()
		if os.Getenv("CI") == "true" {
			t.Fatalf("Redis at %s is required in CI: %v", redisURL(), err)
		}
		t.Skipf("Redis at %s unreachable: %v", redisURL(), err)
	}
	p := fmt.Sprintf("twtest:executor:%d:%d:", os.Getpid(), time.Now().UnixNano())
	t.Cleanup(func() {
		ctx := context.Background()
		var keys []string
		iter := c.Scan(ctx, 0, p+"*", 500).Iterator()
		for iter.Next(ctx) {
			keys = append(keys, iter.Val())
		}
		if len(keys) > 0 {
			c.Del(ctx, keys...)
		}
		c.Close()
	})
	return p
}

// testSecretsKey is the master key shared by the test's stores and executors.
var testSecretsKey = bytes.Repeat([]byte{5}, 32)

func openRedis(t testing.TB, prefix string, lease time.Duration) *redisq.Backend {
	t.Helper()
	b, err := redisq.Open(context.Background(), redisq.Options{URL: redisURL(), Prefix: prefix, LeaseTTL: lease, SecretsKey: testSecretsKey})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	return b
}

// recorder wraps a backend and remembers every accepted Finish, so a test
// can compare what the daemon sent with what the store returns and count
// how often a record was finished. failHeartbeat, when set, replaces the
// backend's answer to Heartbeat.
type recorder struct {
	execution.Backend
	mu            sync.Mutex
	finished      map[string][]*execution.Record
	rejected      map[string][]error
	failHeartbeat error
	// failFinishes makes that many Finish calls fail as unavailable first.
	failFinishes int
}

func newRecorder(b execution.Backend) *recorder {
	return &recorder{Backend: b, finished: map[string][]*execution.Record{}, rejected: map[string][]error{}}
}

func (r *recorder) Finish(ctx context.Context, workerID, id string, final *execution.Record) error {
	r.mu.Lock()
	if r.failFinishes > 0 {
		r.failFinishes--
		err := fmt.Errorf("finish: test: %w", execution.ErrUnavailable)
		r.rejected[id] = append(r.rejected[id], err)
		r.mu.Unlock()
		return err
	}
	r.mu.Unlock()
	err := r.Backend.Finish(ctx, workerID, id, final)
	r.mu.Lock()
	defer r.mu.Unlock()
	if err == nil {
		r.finished[id] = append(r.finished[id], final.Clone())
	} else {
		r.rejected[id] = append(r.rejected[id], err)
	}
	return err
}

func (r *recorder) Heartbeat(ctx context.Context, workerID, id string) error {
	r.mu.Lock()
	fail := r.failHeartbeat
	r.mu.Unlock()
	if fail != nil {
		return fail
	}
	return r.Backend.Heartbeat(ctx, workerID, id)
}

func (r *recorder) finishes(id string) []*execution.Record {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]*execution.Record(nil), r.finished[id]...)
}

// testLogger writes the daemon's log into the test log.
func testLogger(t testing.TB) *slog.Logger {
	return slog.New(slog.NewTextHandler(tWriter{t}, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

type tWriter struct{ t testing.TB }

func (w tWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

// daemonRun is a daemon running in the background of a test.
type daemonRun struct {
	d      *Daemon
	cancel context.CancelFunc
	done   chan error
	once   sync.Once
}

// start runs a daemon on b until stop (or the end of the test).
func start(t testing.TB, b execution.Backend, iso isolation.Backend, cfg Config) *daemonRun {
	t.Helper()
	if cfg.Logger == nil {
		cfg.Logger = testLogger(t)
	}
	if cfg.ReductionRoot == "" {
		cfg.ReductionRoot = t.TempDir()
	}
	d, err := New(b, iso, cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	dr := &daemonRun{d: d, cancel: cancel, done: make(chan error, 1)}
	go func() { dr.done <- d.Run(ctx) }()
	t.Cleanup(func() { dr.stop(t) })
	return dr
}

// stop cancels the daemon and waits for Run to return.
func (dr *daemonRun) stop(t testing.TB) {
	t.Helper()
	dr.once.Do(func() {
		dr.cancel()
		select {
		case err := <-dr.done:
			if err != nil {
				t.Errorf("Run: %v", err)
			}
		case <-time.After(waitFor):
			t.Fatal("daemon did not stop")
		}
	})
}

// create stores a queued bash record running content in ws.
func create(t testing.TB, b execution.Backend, content, ws string) *execution.Record {
	t.Helper()
	r := &execution.Record{ToolName: "exec", ConversationID: "conv-test", Language: "bash", Content: content, Cwd: ws}
	if err := b.Create(context.Background(), r); err != nil {
		t.Fatal(err)
	}
	return r
}

// waitUntil polls id until ok accepts the record.
func waitUntil(t testing.TB, b execution.Backend, id string, what string, ok func(*execution.Record) bool) *execution.Record {
	t.Helper()
	deadline := time.Now().Add(waitFor)
	for {
		r, err := b.Get(context.Background(), id)
		if err != nil {
			t.Fatalf("get %s: %v", id, err)
		}
		if ok(r) {
			return r
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: still %s (reason %q, error %q) after %s", what, r.Status, r.StatusReason, r.Error, waitFor)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// waitTerminal waits for id's terminal record.
func waitTerminal(t testing.TB, b execution.Backend, id string) *execution.Record {
	t.Helper()
	return waitUntil(t, b, id, "terminal", func(r *execution.Record) bool { return r.Status.Terminal() })
}

// sleepMarker is a `sleep` argument unique to one test, so the test can
// find (or miss) exactly its own process in /proc.
func sleepMarker(secs int) string {
	return fmt.Sprintf("%d.%09d", secs, rand.IntN(1_000_000_000))
}

// processWith reports whether a process with argv "sleep <marker>" exists.
func processWith(marker string) bool {
	want := []byte("sleep\x00" + marker + "\x00")
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		if e.Name()[0] < '0' || e.Name()[0] > '9' {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err == nil && bytes.HasSuffix(b, want) && bytes.Contains(b, []byte("sleep")) {
			if base := filepath.Base(string(bytes.SplitN(b, []byte{0}, 2)[0])); base == "sleep" {
				return true
			}
		}
	}
	return false
}

// waitProcess waits until the marked process exists (want) or is gone.
func waitProcess(t testing.TB, marker string, want bool) {
	t.Helper()
	deadline := time.Now().Add(waitFor)
	for processWith(marker) != want {
		if time.Now().After(deadline) {
			t.Fatalf("process sleep %s: exists=%v after %s, want %v", marker, !want, waitFor, want)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// runChildExecutor is the body of a child executor process: a daemon on the
// Redis backend named by the environment, running until it is killed.
func runChildExecutor() int {
	fail := func(err error) int {
		fmt.Fprintln(os.Stderr, "child executor:", err)
		return 1
	}
	lease, err := time.ParseDuration(os.Getenv("TW_CHILD_LEASE"))
	if err != nil {
		return fail(err)
	}
	ctx := context.Background()
	b, err := redisq.Open(ctx, redisq.Options{URL: os.Getenv("TW_CHILD_REDIS"), Prefix: os.Getenv("TW_CHILD_PREFIX"), LeaseTTL: lease, SecretsKey: testSecretsKey})
	if err != nil {
		return fail(err)
	}
	defer b.Close()
	iso, err := isolation.Open(ctx, isolationConfig("child"))
	if err != nil {
		return fail(err)
	}
	defer iso.Close()
	d, err := New(b, iso, Config{
		WorkerID: os.Getenv("TW_CHILD_WORKER"), Concurrency: 1, Lease: lease,
		ReductionRoot: os.Getenv("TW_CHILD_REDUCTION"), PartialInterval: 50 * time.Millisecond,
		Logger: slog.New(slog.NewTextHandler(os.Stderr, nil)),
	})
	if err != nil {
		return fail(err)
	}
	if err := d.Run(ctx); err != nil {
		return fail(err)
	}
	return 0
}

// lockedBuffer collects a child's stderr for the test log.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

var _ io.Writer = (*lockedBuffer)(nil)

// discardLogger drops the daemon's log (benchmarks).
func discardLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }
