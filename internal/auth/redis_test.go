package auth

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"
)

// redisClient connects to the test Redis (TOOLWARDEN_TEST_REDIS, default
// 127.0.0.1:6379); without one the test is skipped — unless CI=true, where
// the Redis suite must run.
func redisClient(t *testing.T) *redis.Client {
	t.Helper()
	addr := os.Getenv("TOOLWARDEN_TEST_REDIS")
	if addr == "" {
		addr = "127.0.0.1:6379"
	}
	rdb := redis.NewClient(&redis.Options{Addr: addr})
	if err := rdb.Ping(context.Background()).Err(); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("Redis at %s is required in CI: %v", addr, err)
		}
		t.Skipf("no Redis at %s (%v); set TOOLWARDEN_TEST_REDIS", addr, err)
	}
	t.Cleanup(func() { rdb.Close() })
	return rdb
}

// TestRedisKeysAreShared: two servers on one Redis accept the same keys,
// and a deletion on one takes effect on the other at once.
func TestRedisKeysAreShared(t *testing.T) {
	rdb := redisClient(t)
	b := make([]byte, 6)
	rand.Read(b)
	prefix := "twtest:" + hex.EncodeToString(b) + ":"
	t.Cleanup(func() { rdb.Del(context.Background(), prefix+"keys") })
	a, err := OpenRedis(context.Background(), rdb, prefix, WithSecretsKey(testMaster))
	if err != nil {
		t.Fatal(err)
	}
	other, err := OpenRedis(context.Background(), rdb, prefix, WithSecretsKey(testMaster))
	if err != nil {
		t.Fatal(err)
	}
	token, k, err := a.Create("agent", RoleAgent)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := other.Authenticate(token); err != nil || got.ID != k.ID || got.Hash != "" {
		t.Fatalf("other server: %+v %v", got, err)
	}
	if _, err := other.Bootstrap("shared-admin-token-0123456789"); err != nil {
		t.Fatal(err)
	}
	if got, err := a.Authenticate("shared-admin-token-0123456789"); err != nil || got.Role != RoleAdmin {
		t.Fatalf("imported token on the first server: %+v %v", got, err)
	}
	if err := other.Delete(k.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Authenticate(token); err != ErrInvalidKey {
		t.Fatalf("deleted key still works on the other server: %v", err)
	}
	stored, _ := rdb.HGetAll(context.Background(), prefix+"keys").Result()
	for _, v := range stored {
		if len(v) > 0 && (contains(v, token) || contains(v, "shared-admin-token")) {
			t.Fatal("Redis holds a token in clear")
		}
	}
}

// TestRedisDownFailsClosed: an unreachable store is an error, not a
// missing key.
func TestRedisDownFailsClosed(t *testing.T) {
	rdb := redisClient(t)
	s, err := OpenRedis(context.Background(), rdb, "twtest:down:")
	if err != nil {
		t.Fatal(err)
	}
	rdb.Close()
	if _, err := s.Authenticate("tw_abc_def"); err == nil || err == ErrInvalidKey {
		t.Fatalf("err = %v, want a store error", err)
	}
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }

// TestMoveRedis: keys stored under an old prefix authenticate from the new
// one after MoveRedis, merged with keys already there; the old hash is gone.
func TestMoveRedis(t *testing.T) {
	rdb := redisClient(t)
	b := make([]byte, 6)
	rand.Read(b)
	base := "twtest:" + hex.EncodeToString(b)
	oldP, newP := base+"::", base+":"
	t.Cleanup(func() { rdb.Del(context.Background(), oldP+"keys", newP+"keys") })
	ctx := context.Background()
	old, err := OpenRedis(ctx, rdb, oldP, WithSecretsKey(testMaster))
	if err != nil {
		t.Fatal(err)
	}
	tokOld, _, err := old.Create("old", RoleAgent)
	if err != nil {
		t.Fatal(err)
	}
	if n, err := MoveRedis(ctx, rdb, oldP, newP); err != nil || n != 1 {
		t.Fatalf("rename: moved %d, %v", n, err)
	}
	nu, err := OpenRedis(ctx, rdb, newP, WithSecretsKey(testMaster))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := nu.Authenticate(tokOld); err != nil {
		t.Fatalf("moved key: %v", err)
	}
	// Merge: an old hash appears again beside the new one.
	tokOld2, _, _ := old.Create("old2", RoleAgent)
	if n, err := MoveRedis(ctx, rdb, oldP, newP); err != nil || n != 1 {
		t.Fatalf("merge: moved %d, %v", n, err)
	}
	for _, tok := range []string{tokOld, tokOld2} {
		if _, err := nu.Authenticate(tok); err != nil {
			t.Errorf("after merge: %v", err)
		}
	}
	if rdb.Exists(ctx, oldP+"keys").Val() != 0 {
		t.Error("old hash left behind")
	}
	if n, err := MoveRedis(ctx, rdb, oldP, newP); err != nil || n != 0 {
		t.Errorf("nothing to move: %d, %v", n, err)
	}
}
