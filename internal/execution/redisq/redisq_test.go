package redisq_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/redis/go-redis/v9"

	"github.com/toolwarden/toolwarden/internal/execution"
	"github.com/toolwarden/toolwarden/internal/execution/conformance"
	"github.com/toolwarden/toolwarden/internal/execution/redisq"
)

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

var (
	probeOnce sync.Once
	probeErr  error
)

// needRedis returns a client to the test Redis, skipping the test when it is
// unreachable — unless CI=true, where a missing Redis is a failure. The
// probe runs once per package so an absent Redis costs one dial, not one per
// test.
func needRedis(t testing.TB) *redis.Client {
	t.Helper()
	o, err := redis.ParseURL(redisURL())
	if err != nil {
		t.Fatalf("TOOLWARDEN_TEST_REDIS: %v", err)
	}
	probeOnce.Do(func() {
		po := *o
		po.MaxRetries = -1
		c := redis.NewClient(&po)
		defer c.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		defer cancel()
		probeErr = c.Ping(ctx).Err()
	})
	if probeErr != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("Redis at %s is required in CI: %v", redisURL(), probeErr)
		}
		t.Skipf("Redis at %s unreachable: %v", redisURL(), probeErr)
	}
	return redis.NewClient(o)
}

// uniquePrefix reserves a key prefix for one test and deletes its keys after.
func uniquePrefix(t testing.TB, c *redis.Client) string {
	p := "twtest:" + uuid.NewString() + ":"
	t.Cleanup(func() {
		ctx := context.Background()
		iter := c.Scan(ctx, 0, p+"*", 500).Iterator()
		var keys []string
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

// opener gives each test its own prefix; a second open in the same test is a
// new client on the same prefix (the conformance durability check).
func opener(opts redisq.Options) func(t *testing.T) execution.Backend {
	var mu sync.Mutex
	prefixes := map[*testing.T]string{}
	return func(t *testing.T) execution.Backend {
		c := needRedis(t)
		mu.Lock()
		p, ok := prefixes[t]
		if !ok {
			p = uniquePrefix(t, c)
			prefixes[t] = p
		} else {
			c.Close()
		}
		mu.Unlock()
		o := opts
		o.URL, o.Prefix = redisURL(), p
		b, err := redisq.Open(context.Background(), o)
		if err != nil {
			t.Fatalf("Open: %v", err)
		}
		t.Cleanup(func() { b.Close() })
		return b
	}
}

func TestConformance(t *testing.T) {
	conformance.Run(t, opener(redisq.Options{SecretsKey: testSecretsKey}))
}

// testSecretsKey is the master key of the test deployment.
var testSecretsKey = bytes.Repeat([]byte{7}, 32)

func openT(t testing.TB, o redisq.Options) (*redisq.Backend, *redis.Client, string) {
	c := needRedis(t)
	p := uniquePrefix(t, c)
	o.URL, o.Prefix = redisURL(), p
	b, err := redisq.Open(context.Background(), o)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { b.Close() })
	return b, c, p
}

func TestAbandonedEntryIsRecoveredWithXAutoClaim(t *testing.T) {
	b, c, p := openT(t, redisq.Options{ClaimIdle: time.Millisecond})
	ctx := context.Background()
	r := &execution.Record{ToolName: "exec"}
	if err := b.Create(ctx, r); err != nil {
		t.Fatal(err)
	}
	// An executor reads the entry and dies before claiming the record.
	stream := p + "queue:" + redisq.DefaultPool
	res, err := c.XReadGroup(ctx, &redis.XReadGroupArgs{Group: redisq.DefaultPool, Consumer: "dead",
		Streams: []string{stream, ">"}, Count: 1, Block: -1}).Result()
	if err != nil || len(res) != 1 || len(res[0].Messages) != 1 {
		t.Fatalf("simulated dead read: %v %v", res, err)
	}
	time.Sleep(5 * time.Millisecond) // exceed ClaimIdle (a lower bound, not a speed assertion)
	got, err := b.Claim(ctx, "w2", 0)
	if err != nil || got.ExecutionID != r.ExecutionID || got.WorkerID != "w2" || got.Attempt != 1 {
		t.Fatalf("recovered claim: %v %+v", err, got)
	}
	pending, err := c.XPending(ctx, stream, redisq.DefaultPool).Result()
	if err != nil || pending.Count != 0 {
		t.Fatalf("pending after claim: %+v %v", pending, err)
	}
	if n, _ := c.XLen(ctx, stream).Result(); n != 0 {
		t.Fatalf("stream still holds %d entries after the claim", n)
	}
}

func TestFinishedRecordsExpire(t *testing.T) {
	b, c, p := openT(t, redisq.Options{FinishedTTL: time.Hour})
	ctx := context.Background()
	r := &execution.Record{ToolName: "exec"}
	if err := b.Create(ctx, r); err != nil {
		t.Fatal(err)
	}
	if ttl, _ := c.TTL(ctx, p+"rec:"+r.ExecutionID).Result(); ttl != -1 {
		t.Fatalf("queued record has TTL %v, want none", ttl)
	}
	if _, err := b.Claim(ctx, "w", 0); err != nil {
		t.Fatal(err)
	}
	if err := b.Finish(ctx, "w", r.ExecutionID, &execution.Record{Status: execution.StatusCompleted}); err != nil {
		t.Fatal(err)
	}
	ttl, _ := c.TTL(ctx, p+"rec:"+r.ExecutionID).Result()
	if ttl <= 0 || ttl > time.Hour {
		t.Fatalf("finished record TTL %v, want (0, 1h]", ttl)
	}
	// An expired record disappears from listings and its index entry is pruned.
	c.Del(ctx, p+"rec:"+r.ExecutionID)
	recs, _, err := b.List(ctx, execution.Filter{})
	if err != nil || len(recs) != 0 {
		t.Fatalf("List after expiry: %v %v", recs, err)
	}
	if n, _ := c.ZCard(ctx, p+"idx").Result(); n != 0 {
		t.Fatalf("index still holds %d entries", n)
	}
}

type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) Now() time.Time      { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *fakeClock) Add(d time.Duration) { c.mu.Lock(); c.t = c.t.Add(d); c.mu.Unlock() }

func TestLeaseExpiry(t *testing.T) {
	clock := &fakeClock{t: time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)}
	b, _, _ := openT(t, redisq.Options{LeaseTTL: 10 * time.Second, Now: clock.Now})
	ctx := context.Background()
	r := &execution.Record{ToolName: "exec"}
	if err := b.Create(ctx, r); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Claim(ctx, "w1", 0); err != nil {
		t.Fatal(err)
	}
	clock.Add(9 * time.Second)
	if err := b.Heartbeat(ctx, "w1", r.ExecutionID); err != nil {
		t.Fatalf("heartbeat within the lease: %v", err)
	}
	clock.Add(9 * time.Second)
	if ids, err := b.Reconcile(ctx, nil); err != nil || len(ids) != 0 {
		t.Fatalf("Reconcile of a heartbeating worker: %v %v", ids, err)
	}
	clock.Add(2 * time.Second)
	if err := b.Finish(ctx, "w1", r.ExecutionID, &execution.Record{Status: execution.StatusCompleted}); !errors.Is(err, execution.ErrLeaseLost) {
		t.Fatalf("finish after expiry: %v, want ErrLeaseLost", err)
	}
	ids, err := b.Reconcile(ctx, nil)
	if err != nil || len(ids) != 1 || ids[0] != r.ExecutionID {
		t.Fatalf("Reconcile after expiry: %v %v", ids, err)
	}
	if got, _ := b.Get(ctx, r.ExecutionID); got.Status != execution.StatusOrphaned {
		t.Fatalf("status %s, want orphaned", got.Status)
	}
}

func TestUnreachableRedisIsUnavailable(t *testing.T) {
	_, err := redisq.Open(context.Background(), redisq.Options{URL: "redis://127.0.0.1:1/0"})
	if !errors.Is(err, execution.ErrUnavailable) {
		t.Fatalf("Open of an unreachable Redis: %v, want ErrUnavailable", err)
	}

	// A client that stops working after Open: every operation reports
	// ErrUnavailable, never "not found" or "no work".
	c := needRedis(t)
	p := uniquePrefix(t, needRedis(t))
	b, err := redisq.Open(context.Background(), redisq.Options{Client: c, Prefix: p})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	c.Close()
	ctx := context.Background()
	if _, err := b.Get(ctx, "exe_x"); !errors.Is(err, execution.ErrUnavailable) {
		t.Fatalf("Get: %v", err)
	}
	if _, err := b.Claim(ctx, "w", 0); !errors.Is(err, execution.ErrUnavailable) {
		t.Fatalf("Claim: %v", err)
	}
	if err := b.Create(ctx, &execution.Record{}); !errors.Is(err, execution.ErrUnavailable) {
		t.Fatalf("Create: %v", err)
	}
	if err := b.Update(ctx, "exe_x", func(*execution.Record) error { return nil }); !errors.Is(err, execution.ErrUnavailable) {
		t.Fatalf("Update: %v", err)
	}
	if _, _, err := b.List(ctx, execution.Filter{}); !errors.Is(err, execution.ErrUnavailable) {
		t.Fatalf("List: %v", err)
	}
	if _, err := b.Watch(ctx, "exe_x"); !errors.Is(err, execution.ErrUnavailable) {
		t.Fatalf("Watch: %v", err)
	}
}

func TestSeparatePoolsDoNotShareWork(t *testing.T) {
	c := needRedis(t)
	p := uniquePrefix(t, c)
	ctx := context.Background()
	gpu, err := redisq.Open(ctx, redisq.Options{URL: redisURL(), Prefix: p, Pool: "gpu"})
	if err != nil {
		t.Fatal(err)
	}
	defer gpu.Close()
	cpu, err := redisq.Open(ctx, redisq.Options{URL: redisURL(), Prefix: p, Pool: "cpu"})
	if err != nil {
		t.Fatal(err)
	}
	defer cpu.Close()
	r := &execution.Record{ToolName: "exec"}
	if err := gpu.Create(ctx, r); err != nil {
		t.Fatal(err)
	}
	if _, err := cpu.Claim(ctx, "c1", 0); !errors.Is(err, execution.ErrNoWork) {
		t.Fatalf("cpu pool claimed gpu work: %v", err)
	}
	if got, err := gpu.Claim(ctx, "g1", 0); err != nil || got.ExecutionID != r.ExecutionID {
		t.Fatalf("gpu claim: %v %+v", err, got)
	}
	// Records are shared: the cpu pool's backend still reads the record.
	if got, err := cpu.Get(ctx, r.ExecutionID); err != nil || got.Status != execution.StatusRunning {
		t.Fatalf("shared record: %v %+v", err, got)
	}
}

func TestDeletedStreamIsRecreated(t *testing.T) {
	b, c, p := openT(t, redisq.Options{})
	ctx := context.Background()
	if err := c.Del(ctx, p+"queue:"+redisq.DefaultPool).Err(); err != nil {
		t.Fatal(err)
	}
	r := &execution.Record{ToolName: "exec"}
	if err := b.Create(ctx, r); err != nil {
		t.Fatal(err)
	}
	got, err := b.Claim(ctx, "w", time.Second)
	if err != nil || got.ExecutionID != r.ExecutionID {
		t.Fatalf("claim after the stream was deleted: %v %+v", err, got)
	}
}
