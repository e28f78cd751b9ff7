package redisq_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/toolwarden/toolwarden/internal/execution"
	"github.com/toolwarden/toolwarden/internal/execution/redisq"
)

// TestLegacyKeysMigrated: records, indexes, a queued entry and a sealed
// env written by an earlier version under "<prefix>rec:…" (no separator)
// are found under "<prefix>:rec:…" after Open with LegacyPrefix: the record
// reads back, lists, and the queued one is claimed with its env. No
// legacy key is left.
func TestLegacyKeysMigrated(t *testing.T) {
	c := needRedis(t)
	base := strings.TrimSuffix(uniquePrefix(t, c), ":") // twtest:<uuid>, cleaned up with its ":"-keys
	legacy := base + "-legacy"                          // the old layout: <legacy>rec:<id>
	t.Cleanup(func() {
		ctx := context.Background()
		iter := c.Scan(ctx, 0, legacy+"*", 500).Iterator()
		for iter.Next(ctx) {
			c.Del(ctx, iter.Val())
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	old, err := redisq.Open(ctx, redisq.Options{URL: redisURL(), Prefix: legacy, SecretsKey: testSecretsKey})
	if err != nil {
		t.Fatal(err)
	}
	done := &execution.Record{ExecutionID: execution.NewID(), Status: execution.StatusBlocked, ConversationID: "conv1",
		OwnerKeyID: "k1", Content: "rm -rf /", StatusReason: "denied"}
	queued := &execution.Record{ExecutionID: execution.NewID(), Status: execution.StatusQueued, ConversationID: "conv1",
		OwnerKeyID: "k1", Content: "echo hi", EnvNames: []string{"TOKEN"}, Env: map[string]string{"TOKEN": "s3cret"}}
	for _, r := range []*execution.Record{done, queued} {
		if err := old.Create(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	old.Close()
	if n := c.Exists(ctx, legacy+"rec:"+queued.ExecutionID, legacy+"idx", legacy+"queue:default", legacy+"env:"+queued.ExecutionID).Val(); n != 4 {
		t.Fatalf("the legacy layout was not written as expected (%d of 4 keys)", n)
	}

	nu := legacy + ":"
	moved := -1
	b, err := redisq.Open(ctx, redisq.Options{URL: redisURL(), Prefix: nu, LegacyPrefix: legacy, SecretsKey: testSecretsKey,
		Migrated: func(n int) { moved = n }})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if moved < 5 {
		t.Errorf("moved %d keys, want at least 5 (2 records, idx, conv, queue, env)", moved)
	}
	got, err := b.Get(ctx, done.ExecutionID)
	if err != nil || got.Status != execution.StatusBlocked || got.Content != "rm -rf /" {
		t.Fatalf("migrated record: %+v %v", got, err)
	}
	recs, _, err := b.List(ctx, execution.Filter{ConversationID: "conv1"})
	if err != nil || len(recs) != 2 {
		t.Fatalf("list after migration: %d records, %v", len(recs), err)
	}
	claimed, err := b.Claim(ctx, "w1", 2*time.Second)
	if err != nil || claimed == nil || claimed.ExecutionID != queued.ExecutionID || claimed.Env["TOKEN"] != "s3cret" {
		t.Fatalf("claim of the migrated queued record: %+v %v", claimed, err)
	}
	var left []string
	iter := c.Scan(ctx, 0, legacy+"*", 500).Iterator()
	for iter.Next(ctx) {
		if !strings.HasPrefix(iter.Val(), nu) {
			left = append(left, iter.Val())
		}
	}
	if len(left) > 0 {
		t.Errorf("legacy keys left behind: %v", left)
	}

	// A second Open finds nothing to move.
	moved = -1
	b2, err := redisq.Open(ctx, redisq.Options{URL: redisURL(), Prefix: nu, LegacyPrefix: legacy, SecretsKey: testSecretsKey,
		Migrated: func(n int) { moved = n }})
	if err != nil {
		t.Fatal(err)
	}
	b2.Close()
	if moved != 0 {
		t.Errorf("second open moved %d keys, want 0", moved)
	}
}

// TestLegacyKeysMergedWithNew: when a current-version process already
// wrote the index and the queue, the legacy ones are merged into them, not
// lost.
func TestLegacyKeysMergedWithNew(t *testing.T) {
	c := needRedis(t)
	legacy := strings.TrimSuffix(uniquePrefix(t, c), ":") + "-legacy"
	t.Cleanup(func() {
		ctx := context.Background()
		iter := c.Scan(ctx, 0, legacy+"*", 500).Iterator()
		for iter.Next(ctx) {
			c.Del(ctx, iter.Val())
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	nu := legacy + ":"
	mk := func(prefix string) *execution.Record {
		b, err := redisq.Open(ctx, redisq.Options{URL: redisURL(), Prefix: prefix})
		if err != nil {
			t.Fatal(err)
		}
		defer b.Close()
		r := &execution.Record{ExecutionID: execution.NewID(), Status: execution.StatusQueued, OwnerKeyID: "k", Content: "echo " + prefix}
		if err := b.Create(ctx, r); err != nil {
			t.Fatal(err)
		}
		return r
	}
	oldRec, newRec := mk(legacy), mk(nu)
	b, err := redisq.Open(ctx, redisq.Options{URL: redisURL(), Prefix: nu, LegacyPrefix: legacy})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	recs, _, err := b.List(ctx, execution.Filter{})
	if err != nil || len(recs) != 2 {
		t.Fatalf("list after merge: %d, %v", len(recs), err)
	}
	seen := map[string]bool{}
	for range 2 {
		r, err := b.Claim(ctx, "w", 2*time.Second)
		if err != nil || r == nil {
			t.Fatalf("claim: %v %v", r, err)
		}
		seen[r.ExecutionID] = true
	}
	if !seen[oldRec.ExecutionID] || !seen[newRec.ExecutionID] {
		t.Errorf("claimed %v, want both the legacy and the new record", seen)
	}
}
