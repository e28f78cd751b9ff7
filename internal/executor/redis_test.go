package executor

import (
	"context"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/toolwarden/toolwarden/internal/execution"
	"github.com/toolwarden/toolwarden/internal/execution/redisq"
)

func TestRedisEchoCompletes(t *testing.T) {
	prefix := redisPrefix(t)
	b := newRecorder(openRedis(t, prefix, 3*time.Second))
	start(t, b, openIso(t), fastConfig())

	r := create(t, b, "printf 'hi\\n'", workspace(t))
	got := waitTerminal(t, b, r.ExecutionID)
	if got.Status != execution.StatusCompleted || got.Result != "hi\n" {
		t.Fatalf("got %s %q (%s)", got.Status, got.Result, got.Error)
	}
	// The recorder notes a Finish after the store returned it, which is
	// after the record became visible as terminal: give it that moment.
	fin := b.finishes(r.ExecutionID)
	for end := time.Now().Add(5 * time.Second); len(fin) == 0 && time.Now().Before(end); fin = b.finishes(r.ExecutionID) {
		time.Sleep(10 * time.Millisecond)
	}
	if len(fin) != 1 || fin[0].Result != got.Result {
		t.Fatalf("finishes %d: %+v", len(fin), fin)
	}
}

// TestRedisKilledExecutorIsOrphaned runs an executor as a separate process,
// SIGKILLs it while its workload runs, and checks that a second executor's
// reconciliation marks the record orphaned: not lost, not re-run, not
// finished twice — and that the dead executor's workload does not survive.
func TestRedisKilledExecutorIsOrphaned(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a child executor process")
	}
	prefix := redisPrefix(t)
	const lease = 2 * time.Second
	b := newRecorder(openRedis(t, prefix, lease))
	ws := workspace(t)
	marker := sleepMarker(120)
	r := create(t, b, "echo started; sleep "+marker, ws)

	child := exec.Command(os.Args[0], "-test.run=^$")
	child.Env = append(os.Environ(),
		childEnv+"=1",
		"TW_CHILD_REDIS="+redisURL(),
		"TW_CHILD_PREFIX="+prefix,
		"TW_CHILD_LEASE="+lease.String(),
		"TW_CHILD_WORKER=child-executor",
		"TW_CHILD_REDUCTION="+t.TempDir(),
	)
	var stderr lockedBuffer
	child.Stdout, child.Stderr = &stderr, &stderr
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { child.Wait(); close(exited) }()
	t.Cleanup(func() {
		child.Process.Kill()
		<-exited
		t.Logf("child executor log:\n%s", stderr.String())
	})

	waitUntil(t, b, r.ExecutionID, "child runs the workload", func(r *execution.Record) bool {
		return r.Status == execution.StatusRunning && r.WorkerID == "child-executor" && r.PartialOutput == "started\n"
	})
	waitProcess(t, marker, true)
	if err := child.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-exited

	// A queued record created now must still be run by the survivor.
	after := create(t, b, "echo after", ws)

	cfg := fastConfig()
	cfg.Lease = lease
	cfg.WorkerID = "survivor"
	start(t, b, openIso(t), cfg)

	got := waitTerminal(t, b, r.ExecutionID)
	if got.Status != execution.StatusOrphaned || got.WorkerID != "child-executor" || got.Attempt != 1 {
		t.Fatalf("got %s worker %q attempt %d reason %q", got.Status, got.WorkerID, got.Attempt, got.StatusReason)
	}
	if got.Cleanup != execution.CleanupUnconfirmed {
		t.Fatalf("cleanup %q, want unconfirmed", got.Cleanup)
	}
	if n := len(b.finishes(r.ExecutionID)); n != 0 {
		t.Fatalf("the orphaned record was finished %d times", n)
	}
	// The dead executor's watchdog (cgroup) or supervisor (process group)
	// takes its workload down with it.
	waitProcess(t, marker, false)

	done := waitTerminal(t, b, after.ExecutionID)
	if done.Status != execution.StatusCompleted || done.WorkerID != "survivor" || done.Result != "after\n" {
		t.Fatalf("queued record: %s by %q %q", done.Status, done.WorkerID, done.Result)
	}
	// Still orphaned after more reconcile cycles: never re-run.
	time.Sleep(2 * cfg.ReconcileInterval)
	again, err := b.Get(context.Background(), r.ExecutionID)
	if err != nil || again.Status != execution.StatusOrphaned || again.Revision != got.Revision {
		t.Fatalf("orphaned record changed: %v %s rev %d→%d", err, again.Status, got.Revision, again.Revision)
	}
}

func TestRedisCancelKillsTheRun(t *testing.T) {
	prefix := redisPrefix(t)
	b := openRedis(t, prefix, 3*time.Second)
	start(t, b, openIso(t), fastConfig())
	marker := sleepMarker(120)
	r := create(t, b, "echo started; sleep "+marker, workspace(t))
	waitUntil(t, b, r.ExecutionID, "partial output", func(r *execution.Record) bool {
		return r.Status == execution.StatusRunning && r.PartialOutput == "started\n"
	})
	waitProcess(t, marker, true)
	if _, err := b.RequestCancel(context.Background(), r.ExecutionID, "conversation ended"); err != nil {
		t.Fatal(err)
	}
	got := waitTerminal(t, b, r.ExecutionID)
	if got.Status != execution.StatusCancelled || got.StatusReason != "conversation ended" || got.Result != "started\n" {
		t.Fatalf("got %s reason %q result %q", got.Status, got.StatusReason, got.Result)
	}
	if processWith(marker) {
		t.Fatal("sleep still runs after the record says cancelled")
	}
}

// A queue entry that a dead executor read but never claimed (it died
// between XREADGROUP and the claim) is taken over with XAUTOCLAIM and run
// once by a live executor: nothing ran before, so running it is safe.
func TestRedisUnclaimedEntryOfDeadExecutorIsRun(t *testing.T) {
	prefix := redisPrefix(t)
	const lease = 2 * time.Second
	b := newRecorder(openRedis(t, prefix, lease))
	r := create(t, b, "echo recovered", workspace(t))

	o, err := redis.ParseURL(redisURL())
	if err != nil {
		t.Fatal(err)
	}
	c := redis.NewClient(o)
	defer c.Close()
	read, err := c.XReadGroup(context.Background(), &redis.XReadGroupArgs{Group: redisq.DefaultPool, Consumer: "dead-executor",
		Streams: []string{prefix + "queue:" + redisq.DefaultPool, ">"}, Count: 10, Block: -1}).Result()
	if err != nil || len(read) != 1 || len(read[0].Messages) != 1 {
		t.Fatalf("read the entry as a dead executor: %v %v", read, err)
	}

	cfg := fastConfig()
	cfg.Lease = lease
	start(t, b, openIso(t), cfg)
	got := waitTerminal(t, b, r.ExecutionID)
	if got.Status != execution.StatusCompleted || got.Result != "recovered\n" || got.Attempt != 1 {
		t.Fatalf("got %s %q attempt %d", got.Status, got.Result, got.Attempt)
	}
	if n := len(b.finishes(r.ExecutionID)); n != 1 {
		t.Fatalf("finished %d times", n)
	}
}
