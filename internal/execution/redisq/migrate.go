package redisq

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// keyRoots are the key names (below the prefix) the backend writes; the
// ones ending in ":" are families (rec:<id>), the others single keys.
// Pub/sub channels (ev:<id>) hold nothing and need no migration.
var keyRoots = []string{"rec:", "conv:", "env:", "queue:", "idx", "running"}

// migrate moves the keys an earlier version wrote under legacy (the
// deployment's redis_prefix with no separator: toolwardenrec:<id>) under
// the backend's prefix (toolwarden:rec:<id>). It runs at Open, once per
// deployment at a time (a lock key), and is idempotent: a key is renamed
// when its new name is free; when both exist (a new-version process
// already wrote it) sorted sets are merged, stream entries re-added to the
// new stream (delivery is at least once: an entry for a record that is no
// longer queued is skipped at claim) and a record or sealed env keeps its
// new copy. TTLs move with renamed keys.
func (b *Backend) migrate(ctx context.Context, legacy string) (moved int, err error) {
	if legacy == "" || legacy == b.prefix {
		return 0, nil
	}
	token := make([]byte, 8)
	_, _ = rand.Read(token)
	lock := b.prefix + "migrate:lock"
	ok, err := b.rdb.SetNX(ctx, lock, hex.EncodeToString(token), time.Minute).Result()
	if err != nil {
		return 0, b.wrap("migrate legacy keys: lock", err)
	}
	if !ok {
		return 0, nil // another process is migrating this deployment
	}
	defer b.rdb.Del(context.WithoutCancel(ctx), lock)
	for _, root := range keyRoots {
		var keys []string
		if strings.HasSuffix(root, ":") {
			iter := b.rdb.Scan(ctx, 0, globEscape(legacy+root)+"*", 500).Iterator()
			for iter.Next(ctx) {
				keys = append(keys, iter.Val())
			}
			if err := iter.Err(); err != nil {
				return moved, b.wrap("migrate legacy keys: scan "+legacy+root, err)
			}
		} else {
			n, err := b.rdb.Exists(ctx, legacy+root).Result()
			if err != nil {
				return moved, b.wrap("migrate legacy keys: "+legacy+root, err)
			}
			if n == 1 {
				keys = append(keys, legacy+root)
			}
		}
		for _, old := range keys {
			if strings.HasPrefix(old, b.prefix) {
				continue // legacy is a prefix of the new prefix's keys: already new
			}
			if err := b.moveKey(ctx, old, b.prefix+strings.TrimPrefix(old, legacy)); err != nil {
				return moved, err
			}
			moved++
		}
	}
	return moved, nil
}

// moveKey renames old to nu, or merges it into an existing nu.
func (b *Backend) moveKey(ctx context.Context, old, nu string) error {
	renamed, err := b.rdb.RenameNX(ctx, old, nu).Result()
	if err != nil {
		if strings.Contains(err.Error(), "no such key") {
			return nil // moved meanwhile
		}
		return b.wrap("migrate "+old, err)
	}
	if renamed {
		return nil
	}
	typ, err := b.rdb.Type(ctx, old).Result()
	if err != nil {
		return b.wrap("migrate "+old, err)
	}
	switch typ {
	case "zset":
		if err := b.rdb.ZUnionStore(ctx, nu, &redis.ZStore{Keys: []string{nu, old}, Aggregate: "MAX"}).Err(); err != nil {
			return b.wrap("migrate "+old+": merge", err)
		}
	case "stream":
		msgs, err := b.rdb.XRange(ctx, old, "-", "+").Result()
		if err != nil {
			return b.wrap("migrate "+old+": read", err)
		}
		for _, m := range msgs {
			if err := b.rdb.XAdd(ctx, &redis.XAddArgs{Stream: nu, Values: m.Values}).Err(); err != nil {
				return b.wrap("migrate "+old+": re-add", err)
			}
		}
	case "string", "none":
		// The new copy was written by a new-version process: it wins.
	default:
		return fmt.Errorf("migrate %s: unexpected type %s next to %s; left in place", old, typ, nu)
	}
	if err := b.rdb.Del(ctx, old).Err(); err != nil {
		return b.wrap("migrate "+old+": delete", err)
	}
	return nil
}

// globEscape quotes the SCAN MATCH metacharacters of s.
func globEscape(s string) string {
	var sb strings.Builder
	for _, r := range s {
		if strings.ContainsRune(`*?[]\`, r) {
			sb.WriteByte('\\')
		}
		sb.WriteRune(r)
	}
	return sb.String()
}
