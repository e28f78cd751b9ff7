package auth

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
)

var testMaster = bytes.Repeat([]byte{3}, 32)

// forge is what an attacker with write access to the store plants: a
// record for a token they chose, with the role they want.
func forge(token string, role Role, mac string) Key {
	id, _ := tokenID(token)
	return Key{ID: id, Name: "forged", Role: role, Hash: hashToken(token), CreatedAt: time.Now().UTC(), MAC: mac}
}

func attackerToken() string { return tokenPrefix + randomHex(6) + "_" + randomHex(32) }

// TestForgedRedisRecordRefused: a record written straight into the Redis
// hash (HSET, as a workload that reached Redis would) does not
// authenticate — without a MAC, with a made-up one, or with a real MAC
// copied from another record — and is not listed; a record the server
// wrote works; a record whose role was raised is refused.
func TestForgedRedisRecordRefused(t *testing.T) {
	rdb := redisClient(t)
	b := make([]byte, 6)
	rand.Read(b)
	prefix := "twtest:" + hex.EncodeToString(b) + ":"
	ctx := context.Background()
	t.Cleanup(func() { rdb.Del(ctx, prefix+"keys") })
	s, err := OpenRedis(ctx, rdb, prefix, WithSecretsKey(testMaster))
	if err != nil {
		t.Fatal(err)
	}
	agentToken, agent, err := s.Create("agent", RoleAgent)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := s.Authenticate(agentToken); err != nil || got.Role != RoleAgent {
		t.Fatalf("a record with a valid MAC: %+v %v", got, err)
	}
	before := testutil.ToFloat64(forgedRecords)

	stored, _ := rdb.HGet(ctx, prefix+"keys", agent.ID).Result()
	var real Key
	if err := json.Unmarshal([]byte(stored), &real); err != nil || real.MAC == "" {
		t.Fatalf("stored record has no MAC: %s", stored)
	}
	for name, mac := range map[string]string{"no MAC": "", "made-up MAC": randomHex(32), "MAC of another record": real.MAC} {
		tok := attackerToken()
		k := forge(tok, RoleAdmin, mac)
		raw, _ := json.Marshal(k)
		if err := rdb.HSet(ctx, prefix+"keys", k.ID, raw).Err(); err != nil {
			t.Fatal(err)
		}
		if got, err := s.Authenticate(tok); err != ErrInvalidKey {
			t.Fatalf("%s: forged admin record authenticated: %+v %v", name, got, err)
		}
		keys, err := s.List()
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range keys {
			if l.ID == k.ID {
				t.Fatalf("%s: forged record listed", name)
			}
		}
	}
	// Garbage in the hash refuses nothing else.
	rdb.HSet(ctx, prefix+"keys", "junk", "{not json")
	if got, err := s.Authenticate(agentToken); err != nil || got.ID != agent.ID {
		t.Fatalf("a junk field broke other keys: %+v %v", got, err)
	}
	if _, err := s.List(); err != nil {
		t.Fatalf("a junk field broke listing: %v", err)
	}
	// Tampering: the agent's own record with its role raised.
	real.Role = RoleAdmin
	raw, _ := json.Marshal(real)
	rdb.HSet(ctx, prefix+"keys", real.ID, raw)
	if got, err := s.Authenticate(agentToken); err != ErrInvalidKey {
		t.Fatalf("record with a raised role authenticated: %+v %v", got, err)
	}
	if after := testutil.ToFloat64(forgedRecords); after < before+4 {
		t.Fatalf("forgery metric went %v → %v, want +4 at least", before, after)
	}
	// Another server with the same secret accepts what the first wrote.
	other, _ := OpenRedis(ctx, rdb, prefix, WithSecretsKey(testMaster))
	tok2, _, _ := s.Create("agent2", RoleAgent)
	if _, err := other.Authenticate(tok2); err != nil {
		t.Fatalf("same secret, other server: %v", err)
	}
	// One with another secret does not.
	wrong, _ := OpenRedis(ctx, rdb, prefix, WithSecretsKey(bytes.Repeat([]byte{4}, 32)))
	if _, err := wrong.Authenticate(tok2); err != ErrInvalidKey {
		t.Fatalf("other secret accepted the record: %v", err)
	}
}

// TestForgedFileRecordRefused: the same for keys.json: a record added or
// edited in the file is refused after reopening; records the server wrote
// survive a restart with the same secret; unsigned records from before MACs
// are refused and Bootstrap then creates a fresh admin.
func TestForgedFileRecordRefused(t *testing.T) {
	path := filepath.Join(t.TempDir(), "keys.json")
	s, err := Open(path, WithSecretsKey(testMaster))
	if err != nil {
		t.Fatal(err)
	}
	tok, k, err := s.Create("agent", RoleAgent)
	if err != nil {
		t.Fatal(err)
	}
	var keys []Key
	b, _ := os.ReadFile(path)
	if err := json.Unmarshal(b, &keys); err != nil {
		t.Fatal(err)
	}
	evil := attackerToken()
	keys = append(keys, forge(evil, RoleAdmin, ""))
	for i := range keys {
		if keys[i].ID == k.ID {
			keys[i].Name = "renamed"
		}
	}
	b, _ = json.Marshal(keys)
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	re, err := Open(path, WithSecretsKey(testMaster))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := re.Authenticate(evil); err != ErrInvalidKey {
		t.Fatalf("planted admin authenticated: %v", err)
	}
	if _, err := re.Authenticate(tok); err != ErrInvalidKey {
		t.Fatalf("edited record authenticated: %v", err)
	}
	admin, err := re.Bootstrap("")
	if err != nil || admin == "" {
		t.Fatalf("bootstrap with only invalid records must create a new admin: %q %v", admin, err)
	}
	again, _ := Open(path, WithSecretsKey(testMaster))
	if got, err := again.Authenticate(admin); err != nil || got.Role != RoleAdmin {
		t.Fatalf("signed admin after restart: %+v %v", got, err)
	}
	if _, err := Open(path, WithSecretsKey(testMaster[:5])); err == nil {
		t.Fatal("a short secrets key was accepted")
	}
}
