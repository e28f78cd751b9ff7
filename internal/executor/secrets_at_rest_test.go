package executor

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/toolwarden/toolwarden/internal/execution"
	"github.com/toolwarden/toolwarden/internal/execution/embedded"
)

// secretRun runs a workload that proves it received API_TOKEN (it prints
// the token's SHA-256, never the token) and returns the token.
func secretRun(t *testing.T, b execution.Backend, ws string) string {
	t.Helper()
	raw := make([]byte, 16)
	rand.Read(raw)
	secret := "tw-at-rest-" + hex.EncodeToString(raw)
	r := &execution.Record{ToolName: "exec", Language: "bash", Cwd: ws,
		Content:  `[ -n "$API_TOKEN" ] && printf '%s' "$API_TOKEN" | sha256sum | cut -d' ' -f1`,
		EnvNames: []string{"API_TOKEN"}, Env: map[string]string{"API_TOKEN": secret}}
	if err := b.Create(context.Background(), r); err != nil {
		t.Fatal(err)
	}
	got := waitTerminal(t, b, r.ExecutionID)
	sum := sha256.Sum256([]byte(secret))
	if got.Status != execution.StatusCompleted || got.Result != hex.EncodeToString(sum[:])+"\n" {
		t.Fatalf("the workload did not get the env value: %s %q (%s)", got.Status, got.Result, got.Error)
	}
	return secret
}

// grepTree fails t when needle is in any file under dir.
func grepTree(t *testing.T, dir, needle string) {
	t.Helper()
	n := 0
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		n++
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if bytes.Contains(b, []byte(needle)) {
			t.Errorf("%s holds the env value in plain text", p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n == 0 {
		t.Fatalf("nothing under %s to search", dir)
	}
}

// TestEnvValueNotAtRestEmbedded: after a run with a secret env value, no
// file of the data dir — database, -wal, -shm, lock — contains it, while
// the store is open and after it closed.
func TestEnvValueNotAtRestEmbedded(t *testing.T) {
	dir := t.TempDir()
	b, err := embedded.Open(dir, embedded.Options{LeaseTTL: 3 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	cfg := fastConfig()
	cfg.ReductionRoot = filepath.Join(dir, "reduction")
	dr := start(t, b, openIso(t), cfg)
	secret := secretRun(t, b, workspace(t))
	if _, err := os.Stat(filepath.Join(dir, embedded.DBFile+"-wal")); err != nil {
		t.Fatalf("expected a WAL to search: %v", err)
	}
	grepTree(t, dir, secret)
	dr.stop(t)
	b.Close()
	grepTree(t, dir, secret)
}

// TestEnvValueNotAtRestRedis: after a run with a secret env value, a full
// dump of every key under the deployment's prefix (strings, hashes, sets,
// streams) does not contain it.
func TestEnvValueNotAtRestRedis(t *testing.T) {
	prefix := redisPrefix(t)
	b := openRedis(t, prefix, 3*time.Second)
	start(t, b, openIso(t), fastConfig())
	secret := secretRun(t, b, workspace(t))
	o, _ := redis.ParseURL(redisURL())
	c := redis.NewClient(o)
	defer c.Close()
	ctx := context.Background()
	var dump bytes.Buffer
	keys := 0
	iter := c.Scan(ctx, 0, prefix+"*", 500).Iterator()
	for iter.Next(ctx) {
		k := iter.Val()
		keys++
		switch c.Type(ctx, k).Val() {
		case "string":
			dump.WriteString(c.Get(ctx, k).Val())
		case "hash":
			fmt.Fprint(&dump, c.HGetAll(ctx, k).Val())
		case "zset":
			fmt.Fprint(&dump, c.ZRange(ctx, k, 0, -1).Val())
		case "set":
			fmt.Fprint(&dump, c.SMembers(ctx, k).Val())
		case "list":
			fmt.Fprint(&dump, c.LRange(ctx, k, 0, -1).Val())
		case "stream":
			fmt.Fprint(&dump, c.XRange(ctx, k, "-", "+").Val())
		}
	}
	if err := iter.Err(); err != nil {
		t.Fatal(err)
	}
	if keys == 0 || dump.Len() == 0 {
		t.Fatalf("nothing under %s to search", prefix)
	}
	if bytes.Contains(dump.Bytes(), []byte(secret)) {
		t.Fatal("Redis holds the env value in plain text after the run")
	}
}
