package scanlog

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// RedisKeyspace is the key segment of the scan log below the deployment's
// prefix: with redis_prefix "toolwarden" the keys are toolwarden:scans:….
const RedisKeyspace = "scans:"

// Redis is the Log shared by every server of a Redis deployment. Each entry
// is a string key <prefix>e:<scan id> (its TTL is the retention) indexed by
// time in the sorted set <prefix>idx; both bounds are enforced on append.
type Redis struct {
	c      redis.UniversalClient
	prefix string
	cfg    Config
	now    func() time.Time
}

var _ Log = (*Redis)(nil)

// NewRedis returns the Redis log under prefix (e.g. "toolwarden:scans:").
// now is the clock for retention (time.Now when nil).
func NewRedis(c redis.UniversalClient, prefix string, cfg Config, now func() time.Time) *Redis {
	if now == nil {
		now = time.Now
	}
	return &Redis{c: c, prefix: prefix, cfg: cfg.WithDefaults(), now: now}
}

func (r *Redis) entryKey(id string) string { return r.prefix + "e:" + id }
func (r *Redis) indexKey() string          { return r.prefix + "idx" }

// Append stores e (sanitized) with its retention TTL and trims the index.
func (r *Redis) Append(ctx context.Context, e Entry) error {
	return r.AppendBatch(ctx, []Entry{e})
}

var _ BatchAppender = (*Redis)(nil)

// AppendBatch stores es (sanitized) in one transaction (MULTI/EXEC, one
// round trip) and trims the index once.
func (r *Redis) AppendBatch(ctx context.Context, es []Entry) error {
	return r.appendBatch(ctx, es, false)
}

var _ sanitizedAppender = (*Redis)(nil)

// appendSanitized is AppendBatch of entries the Recorder sanitized.
func (r *Redis) appendSanitized(ctx context.Context, es []Entry) error {
	return r.appendBatch(ctx, es, true)
}

// appendBatch is AppendBatch; sanitized says the entries have been through
// Sanitize already (see resanitize).
func (r *Redis) appendBatch(ctx context.Context, es []Entry, sanitized bool) error {
	docs := make([][]byte, len(es))
	ttls := make([]time.Duration, len(es))
	live := 0
	for i := range es {
		if es[i].ScanID == "" {
			return errors.New("scan log append: scan_id is empty")
		}
		if sanitized {
			es[i] = resanitize(es[i], r.cfg.MaxContentBytes)
		} else {
			es[i] = Sanitize(es[i], r.cfg.MaxContentBytes)
		}
		doc, err := json.Marshal(es[i])
		if err != nil {
			return fmt.Errorf("scan log append %s: encode: %w", es[i].ScanID, err)
		}
		docs[i] = doc
		if ttls[i] = es[i].Time.Add(r.cfg.Retention).Sub(r.now()); ttls[i] > 0 {
			live++
		}
	}
	if live == 0 {
		return nil // all already past retention
	}
	_, err := r.c.TxPipelined(ctx, func(p redis.Pipeliner) error {
		for i, e := range es {
			if ttls[i] <= 0 {
				continue
			}
			p.Set(ctx, r.entryKey(e.ScanID), docs[i], ttls[i])
			p.ZAdd(ctx, r.indexKey(), redis.Z{Score: float64(e.Time.UnixMicro()), Member: e.ScanID})
		}
		p.ZRemRangeByScore(ctx, r.indexKey(), "-inf", "("+strconv.FormatInt(r.now().Add(-r.cfg.Retention).UnixMicro(), 10))
		return nil
	})
	if err != nil {
		return fmt.Errorf("scan log append %s: redis: %w", es[0].ScanID, err)
	}
	return r.trim(ctx)
}

// trim drops the oldest entries beyond max_entries (index member and key).
func (r *Redis) trim(ctx context.Context) error {
	n, err := r.c.ZCard(ctx, r.indexKey()).Result()
	if err != nil {
		return fmt.Errorf("scan log trim: %w", err)
	}
	over := n - int64(r.cfg.MaxEntries)
	if over <= 0 {
		return nil
	}
	ids, err := r.c.ZRange(ctx, r.indexKey(), 0, over-1).Result()
	if err != nil || len(ids) == 0 {
		if err != nil {
			return fmt.Errorf("scan log trim: %w", err)
		}
		return nil
	}
	keys := make([]string, len(ids))
	members := make([]any, len(ids))
	for i, id := range ids {
		keys[i] = r.entryKey(id)
		members[i] = id
	}
	_, err = r.c.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.ZRem(ctx, r.indexKey(), members...)
		p.Del(ctx, keys...)
		return nil
	})
	if err != nil {
		return fmt.Errorf("scan log trim: %w", err)
	}
	return nil
}

// Recent returns the n newest entries.
func (r *Redis) Recent(ctx context.Context, n int) ([]Entry, error) {
	if n <= 0 {
		return nil, nil
	}
	out, _, err := r.query(ctx, Filter{}, n)
	return out, err
}

// Query returns one page of f, newest first. The field filters are applied
// here to index pages, so one query reads at most max_entries entries.
func (r *Redis) Query(ctx context.Context, f Filter) ([]Entry, string, error) {
	return r.query(ctx, f, f.limit())
}

func (r *Redis) query(ctx context.Context, f Filter, limit int) ([]Entry, string, error) {
	cur, hasCur, err := parseCursor(f.Cursor)
	if err != nil {
		return nil, "", err
	}
	minUS := r.now().Add(-r.cfg.Retention).UnixMicro()
	if !f.Since.IsZero() && f.Since.UnixMicro() > minUS {
		minUS = f.Since.UnixMicro()
	}
	maxArg := "+inf"
	if !f.Until.IsZero() {
		maxArg = "(" + strconv.FormatInt(f.Until.UnixMicro(), 10)
	}
	if hasCur && (f.Until.IsZero() || cur.us < f.Until.UnixMicro()) {
		maxArg = strconv.FormatInt(cur.us, 10)
	}
	const batch = 200
	var out []Entry
	var last cursor
	for offset := int64(0); offset < int64(r.cfg.MaxEntries)+batch; offset += batch {
		zs, err := r.c.ZRevRangeByScoreWithScores(ctx, r.indexKey(), &redis.ZRangeBy{
			Min: strconv.FormatInt(minUS, 10), Max: maxArg, Offset: offset, Count: batch}).Result()
		if err != nil {
			return nil, "", fmt.Errorf("scan log query: %w", err)
		}
		if len(zs) == 0 {
			break
		}
		// ZREVRANGE orders equal scores by member descending, which is
		// the (time, id) descending order the cursor follows.
		var ids []string
		var uss []int64
		for _, z := range zs {
			id, _ := z.Member.(string)
			us := int64(z.Score)
			if hasCur && !cur.before(us, id) {
				continue
			}
			ids = append(ids, id)
			uss = append(uss, us)
		}
		if len(ids) > 0 {
			keys := make([]string, len(ids))
			for i, id := range ids {
				keys[i] = r.entryKey(id)
			}
			docs, err := r.c.MGet(ctx, keys...).Result()
			if err != nil {
				return nil, "", fmt.Errorf("scan log query: %w", err)
			}
			for i, d := range docs {
				s, ok := d.(string)
				if !ok {
					continue // expired or trimmed since the index read
				}
				var e Entry
				if err := json.Unmarshal([]byte(s), &e); err != nil {
					return nil, "", fmt.Errorf("scan log query: decode %s: %w", ids[i], err)
				}
				if !f.Matches(e) {
					continue
				}
				if len(out) == limit {
					return out, last.String(), nil
				}
				out = append(out, e)
				last = cursor{uss[i], ids[i]}
			}
		}
		if len(zs) < batch {
			break
		}
	}
	return out, "", nil
}

// Get returns one entry, or ErrNotFound.
func (r *Redis) Get(ctx context.Context, scanID string) (Entry, error) {
	s, err := r.c.Get(ctx, r.entryKey(scanID)).Result()
	if errors.Is(err, redis.Nil) {
		return Entry{}, fmt.Errorf("scan %s: %w", scanID, ErrNotFound)
	}
	if err != nil {
		return Entry{}, fmt.Errorf("scan log get %s: %w", scanID, err)
	}
	var e Entry
	if err := json.Unmarshal([]byte(s), &e); err != nil {
		return Entry{}, fmt.Errorf("scan log get %s: decode: %w", scanID, err)
	}
	if e.Time.Before(r.now().Add(-r.cfg.Retention)) {
		return Entry{}, fmt.Errorf("scan %s: %w", scanID, ErrNotFound)
	}
	return e, nil
}

// Keys lists the Redis keys of the log (for tests and operators checking
// what is stored); it scans, so use it on small logs only.
func (r *Redis) Keys(ctx context.Context) ([]string, error) {
	var keys []string
	iter := r.c.Scan(ctx, 0, strings.ReplaceAll(r.prefix, "*", `\*`)+"*", 500).Iterator()
	for iter.Next(ctx) {
		keys = append(keys, iter.Val())
	}
	return keys, iter.Err()
}
