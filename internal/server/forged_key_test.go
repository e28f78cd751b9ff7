package server_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http/httptest"
	"os"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/toolwarden/toolwarden/engine"
	"github.com/toolwarden/toolwarden/internal/auth"
	"github.com/toolwarden/toolwarden/internal/execution"
	"github.com/toolwarden/toolwarden/internal/execution/embedded"
	"github.com/toolwarden/toolwarden/internal/policies"
	"github.com/toolwarden/toolwarden/internal/server"
)

// TestForgedRedisKeyCannotAdminister replays the escape where a run that
// reached Redis wrote an admin key record (HSET <prefix>keys …) and then
// listed keys and approved held executions: the forged record carries no
// valid MAC, so the API answers 401 to both; the server's own admin key
// still works.
func TestForgedRedisKeyCannotAdminister(t *testing.T) {
	addr := os.Getenv("TOOLWARDEN_TEST_REDIS")
	if addr == "" {
		addr = "127.0.0.1:6379"
	}
	rdb := redis.NewClient(&redis.Options{Addr: addr})
	ctx := context.Background()
	if err := rdb.Ping(ctx).Err(); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("Redis at %s is required in CI: %v", addr, err)
		}
		t.Skipf("no Redis at %s: %v", addr, err)
	}
	t.Cleanup(func() { rdb.Close() })
	rnd := make([]byte, 6)
	rand.Read(rnd)
	prefix := "twtest:" + hex.EncodeToString(rnd) + ":"
	t.Cleanup(func() { rdb.Del(context.Background(), prefix+"keys") })
	keys, err := auth.OpenRedis(ctx, rdb, prefix, auth.WithSecretsKey(bytes.Repeat([]byte{8}, 32)))
	if err != nil {
		t.Fatal(err)
	}
	admin, _, err := keys.Create("admin", auth.RoleAdmin)
	if err != nil {
		t.Fatal(err)
	}
	pol, _ := policies.Builtin("default")
	eng, err := engine.New(ctx, engine.Options{Policy: pol, Packs: engine.NativePacks()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close(context.Background()) })
	b, err := embedded.Open(t.TempDir(), embedded.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	held := &execution.Record{Status: execution.StatusPendingReview, ToolName: "exec", Language: "bash", Content: "make deploy"}
	if err := b.Create(ctx, held); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(server.New(server.Config{WaitTimeout: time.Second}, eng, b, keys).Handler())
	t.Cleanup(srv.Close)
	f := &fixture{t: t, url: srv.URL, backend: b}

	// The attacker's record: a token they chose, role admin, no MAC (or
	// the MAC of the real admin record copied over).
	realRaw, _ := rdb.HGetAll(ctx, prefix+"keys").Result()
	var copied string
	for _, v := range realRaw {
		var k map[string]any
		json.Unmarshal([]byte(v), &k)
		copied, _ = k["mac"].(string)
	}
	for _, mac := range []string{"", copied} {
		id := hex.EncodeToString(rnd) + "f"
		token := "tw_" + id + "_" + hex.EncodeToString(bytes.Repeat(rnd, 5))
		h := sha256.Sum256([]byte(token))
		rec := map[string]any{"id": id, "name": "pwned", "role": "admin", "hash": hex.EncodeToString(h[:]),
			"created_at": time.Now().UTC()}
		if mac != "" {
			rec["mac"] = mac
		}
		raw, _ := json.Marshal(rec)
		if err := rdb.HSet(ctx, prefix+"keys", id, raw).Err(); err != nil {
			t.Fatal(err)
		}
		if code, _ := f.do("GET", "/v1/keys", token, nil); code != 401 {
			t.Fatalf("forged key (mac %q) listed keys: HTTP %d", mac, code)
		}
		if code, _ := f.do("POST", "/v1/executions/"+held.ExecutionID+"/approve", token, map[string]any{"reason": "x"}); code != 401 {
			t.Fatalf("forged key (mac %q) approved: HTTP %d", mac, code)
		}
	}
	if got, _ := b.Get(ctx, held.ExecutionID); got.Status != execution.StatusPendingReview {
		t.Fatalf("held execution is now %s", got.Status)
	}
	code, out := f.do("GET", "/v1/keys", admin, nil)
	if code != 200 {
		t.Fatalf("real admin: HTTP %d", code)
	}
	if list, _ := out["keys"].([]any); len(list) != 1 {
		t.Fatalf("the key list shows forged records: %v", out)
	}
}
