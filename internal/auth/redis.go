package auth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
)

// OpenRedis returns a key store kept in a Redis hash (<prefix>keys, field =
// key id, value = the key as JSON with its hash), shared by every server
// of a deployment. Redis errors surface from each call; Authenticate then
// fails closed.
//
// Records carry a MAC (see mac.go): anything that can write the hash but
// does not hold the server secret cannot add a key. Shared deployments
// pass WithSecretsKey with the deployment's master key.
func OpenRedis(ctx context.Context, rdb *redis.Client, prefix string, opts ...Option) (*Store, error) {
	kv := &redisKV{rdb: rdb, key: prefix + "keys", timeout: 3 * time.Second}
	s := &Store{kv: kv}
	if err := s.apply(opts); err != nil {
		return nil, fmt.Errorf("open redis key store: %w", err)
	}
	if err := rdb.Ping(ctx).Err(); err != nil {
		return nil, fmt.Errorf("open redis key store: %w", err)
	}
	return s, nil
}

type redisKV struct {
	rdb     *redis.Client
	key     string
	timeout time.Duration
}

func (r *redisKV) ctx() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), r.timeout)
}

func (r *redisKV) get(id string) (Key, bool, error) {
	ctx, cancel := r.ctx()
	defer cancel()
	b, err := r.rdb.HGet(ctx, r.key, id).Bytes()
	if errors.Is(err, redis.Nil) {
		return Key{}, false, nil
	}
	if err != nil {
		return Key{}, false, fmt.Errorf("redis key store: %w", err)
	}
	var k Key
	if err := json.Unmarshal(b, &k); err != nil {
		// Not a record a server wrote: the same as a record with a bad MAC,
		// and no reason to fail the other keys.
		return Key{ID: id}, true, nil
	}
	return k, true, nil
}

func (r *redisKV) all() ([]Key, error) {
	ctx, cancel := r.ctx()
	defer cancel()
	m, err := r.rdb.HGetAll(ctx, r.key).Result()
	if err != nil {
		return nil, fmt.Errorf("redis key store: %w", err)
	}
	out := make([]Key, 0, len(m))
	for id, v := range m {
		var k Key
		if err := json.Unmarshal([]byte(v), &k); err != nil {
			// Undecodable: kept as an empty record, which fails its MAC
			// check (refused, logged), rather than failing every key.
			k = Key{ID: id}
		}
		out = append(out, k)
	}
	return out, nil
}

func (r *redisKV) put(k Key) error {
	b, err := json.Marshal(k)
	if err != nil {
		return err
	}
	ctx, cancel := r.ctx()
	defer cancel()
	if err := r.rdb.HSet(ctx, r.key, k.ID, b).Err(); err != nil {
		return fmt.Errorf("redis key store: %w", err)
	}
	return nil
}

func (r *redisKV) del(id string) (bool, error) {
	ctx, cancel := r.ctx()
	defer cancel()
	n, err := r.rdb.HDel(ctx, r.key, id).Result()
	if err != nil {
		return false, fmt.Errorf("redis key store: %w", err)
	}
	return n > 0, nil
}

// MoveRedis moves a key store written under oldPrefix (<oldPrefix>keys) to
// newPrefix, for deployments whose key names changed: renamed when the new
// hash does not exist, else each key the new hash lacks is copied over
// (the new one wins), then the old hash is deleted. It reports how many
// keys it moved; nothing to move is 0 and no error.
func MoveRedis(ctx context.Context, rdb *redis.Client, oldPrefix, newPrefix string) (int, error) {
	oldKey, newKey := oldPrefix+"keys", newPrefix+"keys"
	if oldKey == newKey {
		return 0, nil
	}
	n, err := rdb.HLen(ctx, oldKey).Result()
	if err != nil {
		return 0, fmt.Errorf("move redis key store %s: %w", oldKey, err)
	}
	if n == 0 {
		return 0, nil
	}
	ok, err := rdb.RenameNX(ctx, oldKey, newKey).Result()
	if err != nil {
		return 0, fmt.Errorf("move redis key store %s: %w", oldKey, err)
	}
	if ok {
		return int(n), nil
	}
	m, err := rdb.HGetAll(ctx, oldKey).Result()
	if err != nil {
		return 0, fmt.Errorf("move redis key store %s: %w", oldKey, err)
	}
	moved := 0
	for id, v := range m {
		set, err := rdb.HSetNX(ctx, newKey, id, v).Result()
		if err != nil {
			return moved, fmt.Errorf("move redis key store %s: %w", oldKey, err)
		}
		if set {
			moved++
		}
	}
	if err := rdb.Del(ctx, oldKey).Err(); err != nil {
		return moved, fmt.Errorf("move redis key store %s: delete: %w", oldKey, err)
	}
	return moved, nil
}
