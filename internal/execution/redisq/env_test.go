package redisq_test

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/toolwarden/toolwarden/internal/execution"
	"github.com/toolwarden/toolwarden/internal/execution/redisq"
)

// DumpPrefix returns every value stored under prefix (strings, hashes,
// sorted sets, lists, sets and stream entries) as one blob, the way an
// attacker reading Redis would see it.
func dumpPrefix(t *testing.T, c *redis.Client, prefix string) []byte {
	t.Helper()
	ctx := context.Background()
	var out bytes.Buffer
	iter := c.Scan(ctx, 0, prefix+"*", 500).Iterator()
	for iter.Next(ctx) {
		k := iter.Val()
		out.WriteString(k + "\n")
		typ, err := c.Type(ctx, k).Result()
		if err != nil {
			t.Fatal(err)
		}
		switch typ {
		case "string":
			out.WriteString(c.Get(ctx, k).Val())
		case "hash":
			for f, v := range c.HGetAll(ctx, k).Val() {
				out.WriteString(f + "=" + v + "\n")
			}
		case "zset":
			out.WriteString(strings.Join(c.ZRange(ctx, k, 0, -1).Val(), "\n"))
		case "list":
			out.WriteString(strings.Join(c.LRange(ctx, k, 0, -1).Val(), "\n"))
		case "set":
			out.WriteString(strings.Join(c.SMembers(ctx, k).Val(), "\n"))
		case "stream":
			for _, m := range c.XRange(ctx, k, "-", "+").Val() {
				for f, v := range m.Values {
					out.WriteString(f + "=" + strings.TrimSpace(strings.ReplaceAll(strings.ReplaceAll(
						strings.TrimSpace(toString(v)), "\n", " "), "\r", " ")) + "\n")
				}
			}
		}
		out.WriteString("\n")
	}
	if err := iter.Err(); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

func toString(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	return ""
}

// TestEnvSealedAndDeletedAtClaim: in Redis the env is only ever an
// AES-GCM ciphertext, gone once the record is claimed.
func TestEnvSealedAndDeletedAtClaim(t *testing.T) {
	b, c, p := openT(t, redisq.Options{SecretsKey: testSecretsKey})
	ctx := context.Background()
	secret := "tw-redis-secret-9f3a61c0d2"
	r := &execution.Record{Language: "bash", Content: "true", EnvNames: []string{"API_TOKEN"},
		Env: map[string]string{"API_TOKEN": secret}}
	if err := b.Create(ctx, r); err != nil {
		t.Fatal(err)
	}
	dump := dumpPrefix(t, c, p)
	if bytes.Contains(dump, []byte(secret)) {
		t.Fatal("the env value is in Redis in plain text before the claim")
	}
	if n := c.Exists(ctx, p+"env:"+r.ExecutionID).Val(); n != 1 {
		t.Fatal("no sealed env stored")
	}
	got, err := b.Claim(ctx, "w", 0)
	if err != nil || got.Env["API_TOKEN"] != secret {
		t.Fatalf("claim: %v %v", err, got)
	}
	if n := c.Exists(ctx, p+"env:"+r.ExecutionID).Val(); n != 0 {
		t.Fatal("the sealed env is still in Redis after the claim")
	}
	if err := b.Finish(ctx, "w", r.ExecutionID, &execution.Record{Status: execution.StatusCompleted}); err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(dumpPrefix(t, c, p), []byte(secret)) {
		t.Fatal("the env value is in Redis after the run")
	}
}

// TestEnvWithoutKeyRefused: a backend without the secrets key refuses to
// store env values rather than storing them in plain text.
func TestEnvWithoutKeyRefused(t *testing.T) {
	b, c, p := openT(t, redisq.Options{})
	r := &execution.Record{Language: "bash", Content: "true", EnvNames: []string{"A"}, Env: map[string]string{"A": "plain-secret-x1"}}
	err := b.Create(context.Background(), r)
	if err == nil || !strings.Contains(err.Error(), "secrets_key") {
		t.Fatalf("create with env and no key: %v, want an error naming security.secrets_key", err)
	}
	if bytes.Contains(dumpPrefix(t, c, p), []byte("plain-secret-x1")) {
		t.Fatal("value stored anyway")
	}
}

// TestEnvMovedToAnotherRecordDoesNotOpen: the ciphertext is bound to its
// execution id, and an executor with another key cannot open it; both fail
// the record instead of running it.
func TestEnvMovedToAnotherRecordDoesNotOpen(t *testing.T) {
	b, c, p := openT(t, redisq.Options{SecretsKey: testSecretsKey})
	ctx := context.Background()
	mk := func() *execution.Record {
		r := &execution.Record{Language: "bash", Content: "true", EnvNames: []string{"A"}, Env: map[string]string{"A": "v"}}
		if err := b.Create(ctx, r); err != nil {
			t.Fatal(err)
		}
		return r
	}
	victim, other := mk(), mk()
	sealed := c.Get(ctx, p+"env:"+victim.ExecutionID).Val()
	c.Set(ctx, p+"env:"+other.ExecutionID, sealed, 0)
	// The victim goes to an executor holding a different key.
	wrong, err := redisq.Open(ctx, redisq.Options{URL: redisURL(), Prefix: p, SecretsKey: bytes.Repeat([]byte{9}, 32)})
	if err != nil {
		t.Fatal(err)
	}
	defer wrong.Close()
	if got, err := wrong.Claim(ctx, "w", 0); err == nil {
		t.Fatalf("executor with another key claimed %s with env %v", got.ExecutionID, got.Env)
	}
	// The other record, holding the victim's ciphertext, goes to an
	// executor with the right key: bound to another id, it does not open.
	if got, err := b.Claim(ctx, "w", 0); err == nil {
		t.Fatalf("claimed %s with a ciphertext of another record: env %v", got.ExecutionID, got.Env)
	}
	for _, id := range []string{victim.ExecutionID, other.ExecutionID} {
		r, err := b.Get(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if r.Status != execution.StatusFailed || r.StatusReason == "" {
			t.Fatalf("%s: status %s reason %q", id, r.Status, r.StatusReason)
		}
	}
}
