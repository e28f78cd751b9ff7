package policystore

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/redis/go-redis/v9"
)

// DefaultRedisPrefix starts every key of the policy store in Redis.
const DefaultRedisPrefix = "toolwarden:policy:"

// Redis stores revisions in Redis, shared by every server: <prefix>rev:<v>
// holds each sealed revision, <prefix>active the active version, and a
// message on the channel <prefix>changed tells the other servers to
// reconcile at once.
type Redis struct {
	c      *redis.Client
	prefix string
	key    []byte
}

// OpenRedis returns a store on c under prefix (DefaultRedisPrefix when
// empty). macKey authenticates every record; a deployment sharing Redis
// passes its master key's derivation so a Redis user cannot install a
// policy.
func OpenRedis(ctx context.Context, c *redis.Client, prefix string, macKey []byte) (*Redis, error) {
	if prefix == "" {
		prefix = DefaultRedisPrefix
	}
	if err := c.Ping(ctx).Err(); err != nil {
		return nil, fmt.Errorf("policystore: redis: %w", err)
	}
	return &Redis{c: c, prefix: prefix, key: macKey}, nil
}

// Append stores rev as the next version and makes it active.
func (r *Redis) Append(ctx context.Context, rev Revision) (Revision, error) {
	n, err := r.c.Incr(ctx, r.prefix+"seq").Result()
	if err != nil {
		return Revision{}, fmt.Errorf("policystore: redis: next version: %w", err)
	}
	v := int(n)
	rev.Version = v
	data, err := seal(r.key, rev)
	if err != nil {
		return Revision{}, err
	}
	// The record is written before the active pointer moves, and the
	// pointer only moves forward, so readers see a complete record and a
	// slower writer never moves it back.
	if err := r.c.Set(ctx, r.revKey(v), data, 0).Err(); err != nil {
		return Revision{}, fmt.Errorf("policystore: redis: store version %d: %w", v, err)
	}
	if err := advanceScript.Run(ctx, r.c, []string{r.prefix + "active"}, v).Err(); err != nil {
		return Revision{}, fmt.Errorf("policystore: redis: activate version %d: %w", v, err)
	}
	// A lost notification is harmless: the others converge at their next
	// reconcile.
	_ = r.c.Publish(ctx, r.prefix+"changed", strconv.Itoa(v)).Err()
	return rev, nil
}

// advanceScript sets KEYS[1] to ARGV[1] only when that is larger.
var advanceScript = redis.NewScript(`
local cur = tonumber(redis.call('GET', KEYS[1]) or '0')
if tonumber(ARGV[1]) > cur then redis.call('SET', KEYS[1], ARGV[1]) end
return 1
`)

func (r *Redis) revKey(v int) string { return r.prefix + "rev:" + strconv.Itoa(v) }

// Active returns the active revision.
func (r *Redis) Active(ctx context.Context) (Revision, error) {
	v, err := r.c.Get(ctx, r.prefix+"active").Int()
	if errors.Is(err, redis.Nil) {
		return Revision{}, ErrNotFound
	}
	if err != nil {
		return Revision{}, fmt.Errorf("policystore: redis: active version: %w", err)
	}
	return r.Get(ctx, v)
}

// Get returns one revision.
func (r *Redis) Get(ctx context.Context, version int) (Revision, error) {
	data, err := r.c.Get(ctx, r.revKey(version)).Bytes()
	if errors.Is(err, redis.Nil) {
		return Revision{}, fmt.Errorf("version %d: %w", version, ErrNotFound)
	}
	if err != nil {
		return Revision{}, fmt.Errorf("policystore: redis: read version %d: %w", version, err)
	}
	rev, err := unseal(r.key, data)
	if err != nil {
		return Revision{}, fmt.Errorf("policystore: version %d: %w", version, err)
	}
	return rev, nil
}

// History returns up to limit revisions, newest first.
func (r *Redis) History(ctx context.Context, limit int) ([]Revision, error) {
	top, err := r.c.Get(ctx, r.prefix+"seq").Int()
	if errors.Is(err, redis.Nil) {
		return []Revision{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("policystore: redis: history: %w", err)
	}
	out := []Revision{}
	for v := top; v > 0 && (limit <= 0 || len(out) < limit); v-- {
		rev, err := r.Get(ctx, v)
		if errors.Is(err, ErrNotFound) {
			continue // a version whose writer died before storing it
		}
		if err != nil {
			return nil, err
		}
		out = append(out, rev)
	}
	return out, nil
}

// Changes subscribes to the change channel; the channel closes with ctx.
func (r *Redis) Changes(ctx context.Context) <-chan struct{} {
	out := make(chan struct{}, 1)
	sub := r.c.Subscribe(ctx, r.prefix+"changed")
	go func() {
		defer sub.Close()
		ch := sub.Channel()
		for {
			select {
			case <-ctx.Done():
				return
			case _, ok := <-ch:
				if !ok {
					return
				}
				select {
				case out <- struct{}{}:
				default:
				}
			}
		}
	}()
	return out
}

// Close does not close the shared client, which its owner closes.
func (r *Redis) Close() error { return nil }
