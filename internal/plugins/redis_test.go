package plugins

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/redis/go-redis/v9"

	"github.com/toolwarden/toolwarden/sdk"
)

// redisStore returns a store under a key prefix of its own (deleted after
// the test) on the Redis of TOOLWARDEN_TEST_REDIS (127.0.0.1:6379). The
// test is skipped without one — unless CI=true.
func redisStore(t *testing.T, master []byte) (*RedisStore, string, *redis.Client) {
	t.Helper()
	url := os.Getenv("TOOLWARDEN_TEST_REDIS")
	if url == "" {
		url = "redis://127.0.0.1:6379/0"
	}
	o, err := redis.ParseURL(url)
	if err != nil {
		t.Fatal(err)
	}
	c := redis.NewClient(o)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	if err := c.Ping(ctx).Err(); err != nil {
		c.Close()
		if os.Getenv("CI") == "true" {
			t.Fatalf("Redis at %s is required in CI: %v", url, err)
		}
		t.Skipf("Redis at %s unreachable: %v", url, err)
	}
	prefix := "twtest-plugins-" + uuid.NewString()
	t.Cleanup(func() {
		ctx := context.Background()
		keys, _ := c.Keys(ctx, prefix+":*").Result()
		if len(keys) > 0 {
			c.Del(ctx, keys...)
		}
		c.Close()
	})
	s, err := OpenRedis(c, prefix, master)
	if err != nil {
		t.Fatal(err)
	}
	return s, prefix, c
}

func waitUntil(t *testing.T, within time.Duration, what string, cond func() bool) time.Duration {
	t.Helper()
	start := time.Now()
	for !cond() {
		if time.Since(start) > within {
			t.Fatalf("%s: not within %s", what, within)
		}
		time.Sleep(20 * time.Millisecond)
	}
	return time.Since(start)
}

// TestRedisTwoReplicasApplyActivationWithin2s: two servers' managers on
// one Redis; an activation and a deactivation through one reach the other's
// engine within 2 s, and each replica's loaded digest is visible. A third
// replica that cannot load the revision (its memory cap is below the
// module's) keeps its previous set and reports why.
func TestRedisTwoReplicasApplyActivationWithin2s(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	master := []byte(strings.Repeat("k", 32))
	sa, prefix, c := redisStore(t, master)
	sb, _ := OpenRedis(c, prefix, master)
	sc, _ := OpenRedis(c, prefix, master)
	engA, engB, engC := newEngine(t), newEngine(t), newEngine(t)
	ma := newManager(t, sa, engA, func(c *Config) { c.ReplicaID = "a"; c.ReconcileEvery = time.Second })
	mb := newManager(t, sb, engB, func(c *Config) { c.ReplicaID = "b"; c.ReconcileEvery = time.Second })
	mc := newManager(t, sc, engC, func(c *Config) { c.ReplicaID = "c"; c.ReconcileEvery = time.Second; c.Limits.MemoryBytes = 65536 })
	ma.Start(ctx)
	mb.Start(ctx)
	mc.Start(ctx)
	res, err := ma.Upload(ctx, UploadRequest{Module: readTestdata(t, "marker.wasm"), Activate: true})
	if err != nil {
		t.Fatal(err)
	}
	took := waitUntil(t, 2*time.Second, "replica b applies the activation", func() bool {
		return hasRule(decide(t, engB, "echo twmarker-deny"), "WAT_MARKER")
	})
	t.Logf("replica b judged with the new plugin %s after the upload answered", took)
	waitUntil(t, 2*time.Second, "replica c reports its load failure", func() bool { return mc.Health() != nil })
	if rep := decide(t, engC, "echo twmarker-deny"); hasRule(rep, "WAT_MARKER") || rep.Decision != sdk.Allow {
		t.Fatalf("replica c left its previous set: %s %v", rep.Decision, rep.RuleIDs())
	}
	waitUntil(t, 3*time.Second, "all replicas reported", func() bool {
		d, err := ma.Get(ctx, "marker")
		if err != nil || len(d.Replicas) != 3 {
			return false
		}
		byID := map[string]ReplicaView{}
		for _, r := range d.Replicas {
			byID[r.ID] = r
		}
		return byID["a"].LoadedDigest == res.Digest && byID["b"].LoadedDigest == res.Digest &&
			byID["c"].LoadedDigest == "" && strings.Contains(byID["c"].Error, "memory")
	})

	if _, err := mb.Deactivate(ctx, "marker"); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, 2*time.Second, "replica a applies the deactivation", func() bool {
		return !hasRule(decide(t, engA, "echo twmarker-deny"), "WAT_MARKER")
	})
	waitUntil(t, 2*time.Second, "replica c recovers once the set loads", func() bool { return mc.Health() == nil })
}

// TestRedisRecordsAreAuthenticated: a revision record written without the
// deployment's key (or altered) is refused, so Redis write access alone
// cannot activate a module.
func TestRedisRecordsAreAuthenticated(t *testing.T) {
	ctx := context.Background()
	s, prefix, c := redisStore(t, []byte(strings.Repeat("k", 32)))
	module := readTestdata(t, "marker.wasm")
	rev := Revision{Name: "marker", Digest: Digest(module), Validation: Validation{OK: true}}
	if err := s.PutRevision(ctx, rev, module); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Revision(ctx, "marker", rev.Digest); err != nil {
		t.Fatal(err)
	}
	forger, _ := OpenRedis(c, prefix, []byte(strings.Repeat("x", 32)))
	if _, err := forger.Revision(ctx, "marker", rev.Digest); err == nil || !strings.Contains(err.Error(), "authentication") {
		t.Fatalf("record read under another key: %v", err)
	}
	if _, err := forger.UpdateActive(ctx, func(s *Set) error { s.Active["marker"] = rev.Digest; return nil }); err != nil {
		t.Fatal(err)
	}
	if _, err := s.ActiveSet(ctx); err == nil {
		t.Fatal("an active set written without the key was accepted")
	}
	h, _ := digestHex(rev.Digest)
	c.Set(ctx, prefix+":plugins:module:"+h, append(module, 0), 0)
	if _, err := s.Module(ctx, rev.Digest); err == nil {
		t.Fatal("altered module bytes accepted")
	}
}
