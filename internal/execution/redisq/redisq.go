// Package redisq is the shared execution backend: a Redis Stream per executor
// pool read through a consumer group (XADD / XREADGROUP / XACK), records as
// JSON strings with a TTL once finished, sorted-set indexes for listing and
// for running leases, and pub/sub for Watch. Many servers and executors on
// many hosts share one Redis.
//
// Delivery: a stream entry is acknowledged in the same transaction that
// moves its record from queued to running. An entry read by an executor that
// died before that transaction stays pending and is taken over with
// XAUTOCLAIM after ClaimIdle, so queued work is delivered at least once. Once
// a record is running, its lease (not the stream) owns it: a running record
// whose worker is gone is orphaned by Reconcile, never redelivered, because
// the workload may already have had effects. Every write is an optimistic
// WATCH/MULTI transaction on the record key, and every state change goes
// through the execution package's state machine.
//
// Keys (all under Options.Prefix): rec:<id> (record JSON), idx (all ids by
// created_at), conv:<conversation> (ids by created_at), running (ids by
// lease expiry), queue:<pool> (the stream; its consumer group is the pool
// name) and the pub/sub channel ev:<id>. For Redis Cluster put a hash tag in
// the prefix (for example "{toolwarden}:") so the transactions stay in one slot.
//
// Environment values (they may be secrets) are never part of the record:
// they are sealed with AES-256-GCM under a key derived from
// Options.SecretsKey (random nonce, the execution id as associated data) in
// env:<id>, and that key is deleted in the transaction that claims the
// record (the executor keeps the values in memory) or ends it otherwise.
package redisq

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/toolwarden/toolwarden/internal/execution"
	"github.com/toolwarden/toolwarden/internal/execution/internal/watch"
	"github.com/toolwarden/toolwarden/internal/redisconn"
	"github.com/toolwarden/toolwarden/internal/secrets"
)

// Defaults for Options.
const (
	DefaultPrefix      = "toolwarden:exec:"
	DefaultPool        = "default"
	DefaultFinishedTTL = 7 * 24 * time.Hour
	// watchResync re-reads a watched record even without a pub/sub message,
	// so a message lost across a reconnect delays a watcher, never strands it.
	watchResync = 5 * time.Second
	// maxBlockChunk bounds one XREADGROUP BLOCK so Claim notices a cancelled
	// context and Close promptly.
	maxBlockChunk = time.Second
	txRetries     = 50
)

// Options configure a Redis backend; zero values take defaults.
type Options struct {
	// Client is an existing client (not closed by Close). When nil, URL is
	// dialled (redis://host:port/db) and the client is closed by Close.
	Client redis.UniversalClient
	URL    string
	// Prefix is prepended to every key and channel (default DefaultPrefix);
	// tests use a unique prefix per test.
	Prefix string
	// Pool names the executor pool: its stream and its consumer group.
	Pool string
	// LeaseTTL is how long a claim or heartbeat holds a record.
	LeaseTTL time.Duration
	// ClaimIdle is how long a stream entry may stay read-but-unclaimed before
	// another executor takes it over with XAUTOCLAIM (default LeaseTTL).
	ClaimIdle time.Duration
	// FinishedTTL is how long terminal records are kept (default 7 days;
	// negative keeps them forever).
	FinishedTTL time.Duration
	// Now is the clock used for leases (default time.Now). Executors on
	// different hosts compare lease times, so their clocks must be synced.
	Now func() time.Time
	// SecretsKey is the deployment's master key (security.secrets_key),
	// the same on every server and executor. Without it a record carrying
	// environment values is refused at Create, and one found at claim is
	// failed: values are never stored in plain text.
	SecretsKey []byte
	// TLSCAFile is a PEM bundle trusted for rediss:// URLs, in addition to
	// the system roots (see redisconn).
	TLSCAFile string
	// LegacyPrefix is where earlier versions wrote this deployment's keys
	// (the redis_prefix without a separator: toolwardenrec:<id>); when set
	// and different from Prefix, Open moves those keys under Prefix before
	// anything else (see migrate).
	LegacyPrefix string
	// Migrated, when set, is told how many legacy keys Open moved.
	Migrated func(n int)
}

// Backend is the Redis execution.Backend.
type Backend struct {
	rdb         redis.UniversalClient
	ownsClient  bool
	prefix      string
	pool        string
	stream      string
	lease       time.Duration
	claimIdle   time.Duration
	finishedTTL time.Duration
	now         func() time.Time
	done        chan struct{}
	closeOnce   chan struct{}
	// envBox seals environment values; nil without Options.SecretsKey.
	envBox *secrets.Box
}

var _ execution.Backend = (*Backend)(nil)

// Open connects, checks Redis answers, and creates the pool's consumer group.
// An unreachable Redis is an error wrapping execution.ErrUnavailable.
func Open(ctx context.Context, o Options) (*Backend, error) {
	b := &Backend{rdb: o.Client, prefix: o.Prefix, pool: o.Pool, lease: o.LeaseTTL, claimIdle: o.ClaimIdle,
		finishedTTL: o.FinishedTTL, now: o.Now, done: make(chan struct{}), closeOnce: make(chan struct{}, 1)}
	b.closeOnce <- struct{}{}
	if o.SecretsKey != nil {
		box, err := secrets.NewEnvBox(o.SecretsKey)
		if err != nil {
			return nil, fmt.Errorf("open redis execution store: %w", err)
		}
		b.envBox = box
	}
	if b.rdb == nil {
		u := o.URL
		if u == "" {
			u = "redis://127.0.0.1:6379/0"
		}
		c, err := redisconn.NewClient(redisconn.Options{URL: u, TLSCAFile: o.TLSCAFile})
		if err != nil {
			return nil, fmt.Errorf("open redis execution store: %w", err)
		}
		b.rdb, b.ownsClient = c, true
	}
	if b.prefix == "" {
		b.prefix = DefaultPrefix
	}
	if b.pool == "" {
		b.pool = DefaultPool
	}
	if b.lease <= 0 {
		b.lease = execution.DefaultLeaseTTL
	}
	if b.claimIdle <= 0 {
		b.claimIdle = b.lease
	}
	if b.finishedTTL == 0 {
		b.finishedTTL = DefaultFinishedTTL
	}
	if b.now == nil {
		b.now = time.Now
	}
	b.stream = b.prefix + "queue:" + b.pool
	if err := b.rdb.Ping(ctx).Err(); err != nil {
		b.Close()
		return nil, b.wrap("open redis execution store: ping", err)
	}
	if n, err := b.migrate(ctx, o.LegacyPrefix); err != nil {
		b.Close()
		return nil, fmt.Errorf("open redis execution store: %w", err)
	} else if o.Migrated != nil {
		o.Migrated(n)
	}
	if err := b.ensureGroup(ctx); err != nil {
		b.Close()
		return nil, fmt.Errorf("open redis execution store: %w", err)
	}
	return b, nil
}

// ensureGroup creates the pool's stream and consumer group if missing.
func (b *Backend) ensureGroup(ctx context.Context) error {
	err := b.rdb.XGroupCreateMkStream(ctx, b.stream, b.pool, "0").Err()
	if err != nil && !redis.HasErrorPrefix(err, "BUSYGROUP") {
		return b.wrap("create consumer group "+b.pool, err)
	}
	return nil
}

// Close stops watchers and blocked claims and closes the client if Open
// created it.
func (b *Backend) Close() error {
	select {
	case <-b.closeOnce:
	default:
		return nil
	}
	close(b.done)
	if b.ownsClient {
		if err := b.rdb.Close(); err != nil {
			return fmt.Errorf("close redis execution store: %w", err)
		}
	}
	return nil
}

func (b *Backend) checkOpen() error {
	select {
	case <-b.done:
		return execution.ErrClosed
	default:
		return nil
	}
}

// wrap classifies a Redis error: context errors stay themselves, everything
// else (network, pool, server state) is ErrUnavailable so the API answers
// 503 instead of guessing.
func (b *Backend) wrap(op string, err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("%s: %w", op, err)
	}
	if errors.Is(err, redis.ErrClosed) {
		select {
		case <-b.done:
			return fmt.Errorf("%s: %w", op, execution.ErrClosed)
		default:
		}
	}
	return fmt.Errorf("%s: %w: %w", op, execution.ErrUnavailable, err)
}

func (b *Backend) recKey(id string) string   { return b.prefix + "rec:" + id }
func (b *Backend) convKey(c string) string   { return b.prefix + "conv:" + c }
func (b *Backend) evChan(id string) string   { return b.prefix + "ev:" + id }
func (b *Backend) idxKey() string            { return b.prefix + "idx" }
func (b *Backend) runningKey() string        { return b.prefix + "running" }
func (b *Backend) envKey(id string) string   { return b.prefix + "env:" + id }
func score(r *execution.Record) float64      { us, _ := execution.SortKey(r); return float64(us) }
func leaseScore(r *execution.Record) float64 { return float64(r.LeaseExpiresAt.UnixMilli()) }

// load reads a record through c (a client or a WATCHing transaction).
func (b *Backend) load(ctx context.Context, c redis.Cmdable, id string) (*execution.Record, error) {
	raw, err := c.Get(ctx, b.recKey(id)).Bytes()
	if errors.Is(err, redis.Nil) {
		return nil, fmt.Errorf("execution %s: %w", id, execution.ErrNotFound)
	}
	if err != nil {
		return nil, b.wrap("load execution "+id, err)
	}
	r, err := execution.Unmarshal(raw)
	if err != nil {
		return nil, fmt.Errorf("decode execution %s: %w", id, err)
	}
	return r, nil
}

// queueWrite adds the commands that store r (already encoded as doc) to
// pipe: the record (with a TTL once terminal), the running index, the stream
// entry when enqueue, and the change notification.
func (b *Backend) queueWrite(ctx context.Context, pipe redis.Pipeliner, r *execution.Record, doc []byte, enqueue bool) {
	var ttl time.Duration
	if r.Status.Terminal() && b.finishedTTL > 0 {
		ttl = b.finishedTTL
	}
	pipe.Set(ctx, b.recKey(r.ExecutionID), doc, ttl)
	if r.Status == execution.StatusRunning && r.LeaseExpiresAt != nil {
		pipe.ZAdd(ctx, b.runningKey(), redis.Z{Score: leaseScore(r), Member: r.ExecutionID})
	} else {
		pipe.ZRem(ctx, b.runningKey(), r.ExecutionID)
	}
	if enqueue {
		pipe.XAdd(ctx, &redis.XAddArgs{Stream: b.stream, Values: map[string]any{"id": r.ExecutionID}})
	}
	if !mayRun(r.Status) {
		pipe.Del(ctx, b.envKey(r.ExecutionID))
	}
	pipe.Publish(ctx, b.evChan(r.ExecutionID), strconv.FormatInt(r.Revision, 10))
}

// txn runs body as an optimistic transaction watching key, retrying when
// another client changed key first. Errors body returns pass through as they
// are (body classifies its own Redis errors); a failing WATCH is
// ErrUnavailable.
func (b *Backend) txn(ctx context.Context, op, key string, body func(tx *redis.Tx) error) error {
	for i := 0; i < txRetries; i++ {
		var bodyErr error
		err := b.rdb.Watch(ctx, func(tx *redis.Tx) error { bodyErr = body(tx); return bodyErr }, key)
		switch {
		case errors.Is(err, redis.TxFailedErr):
			continue
		case err == nil:
			return nil
		case bodyErr != nil:
			return err
		default:
			return b.wrap(op, err)
		}
	}
	return fmt.Errorf("%s: too much contention: %w", op, execution.ErrUnavailable)
}

// commit executes fn's commands with MULTI/EXEC. redis.TxFailedErr (a
// watched key changed) is returned as is so txn retries.
func (b *Backend) commit(ctx context.Context, tx *redis.Tx, op string, fn func(pipe redis.Pipeliner)) error {
	_, err := tx.TxPipelined(ctx, func(pipe redis.Pipeliner) error { fn(pipe); return nil })
	if err == nil || errors.Is(err, redis.TxFailedErr) {
		return err
	}
	return b.wrap(op, err)
}

// modify runs an optimistic read-modify-write of one record: fn decides
// (through the state machine) and the write commits only if nobody changed
// the record in between; otherwise it retries.
func (b *Backend) modify(ctx context.Context, op, id string,
	fn func(r *execution.Record) (changed, enqueue bool, err error)) (*execution.Record, error) {
	if err := b.checkOpen(); err != nil {
		return nil, err
	}
	op = op + " " + id
	var out *execution.Record
	err := b.txn(ctx, op, b.recKey(id), func(tx *redis.Tx) error {
		r, err := b.load(ctx, tx, id)
		if err != nil {
			return err
		}
		changed, enqueue, err := fn(r)
		if err != nil {
			return err
		}
		out = r
		if !changed {
			return nil
		}
		doc, err := marshalWithoutEnv(r)
		if err != nil {
			return fmt.Errorf("%s: encode: %w", op, err)
		}
		return b.commit(ctx, tx, op, func(pipe redis.Pipeliner) { b.queueWrite(ctx, pipe, r, doc, enqueue) })
	})
	if err != nil {
		return nil, err
	}
	return out.Clone(), nil
}

// Create implements execution.Backend.
func (b *Backend) Create(ctx context.Context, r *execution.Record) error {
	if err := b.checkOpen(); err != nil {
		return err
	}
	if err := execution.PrepareNew(r, b.now()); err != nil {
		return err
	}
	op := "create execution " + r.ExecutionID
	doc, err := marshalWithoutEnv(r)
	if err != nil {
		return fmt.Errorf("%s: encode: %w", op, err)
	}
	var sealed []byte
	if len(r.Env) > 0 && mayRun(r.Status) {
		if sealed, err = b.sealEnv(r); err != nil {
			return fmt.Errorf("%s: %w", op, err)
		}
	}
	key := b.recKey(r.ExecutionID)
	return b.txn(ctx, op, key, func(tx *redis.Tx) error {
		n, err := tx.Exists(ctx, key).Result()
		if err != nil {
			return b.wrap(op, err)
		}
		if n > 0 {
			return fmt.Errorf("%s: %w", op, execution.ErrExists)
		}
		return b.commit(ctx, tx, op, func(pipe redis.Pipeliner) {
			z := redis.Z{Score: score(r), Member: r.ExecutionID}
			pipe.ZAdd(ctx, b.idxKey(), z)
			pipe.ZAdd(ctx, b.convKey(r.ConversationID), z)
			if sealed != nil {
				pipe.Set(ctx, b.envKey(r.ExecutionID), sealed, 0)
			}
			b.queueWrite(ctx, pipe, r, doc, r.Status == execution.StatusQueued)
		})
	})
}

// Get implements execution.Backend.
func (b *Backend) Get(ctx context.Context, id string) (*execution.Record, error) {
	if err := b.checkOpen(); err != nil {
		return nil, err
	}
	return b.load(ctx, b.rdb, id)
}

// List implements execution.Backend. It walks the conversation index (or the
// global one) newest first and filters status and owner here; ids whose
// record expired are dropped from the index on the way.
func (b *Backend) List(ctx context.Context, f execution.Filter) ([]*execution.Record, string, error) {
	if err := b.checkOpen(); err != nil {
		return nil, "", err
	}
	cus, cid, hasCursor, err := execution.DecodeCursor(f.Cursor)
	if err != nil {
		return nil, "", fmt.Errorf("list executions: %w", err)
	}
	if f.Status != "" && !f.Status.Valid() {
		return nil, "", fmt.Errorf("list executions: status %q: %w", f.Status, execution.ErrInvalidRecord)
	}
	limit := f.EffectiveLimit()
	idx := b.idxKey()
	if f.ConversationID != "" {
		idx = b.convKey(f.ConversationID)
	}
	max := "+inf"
	if hasCursor {
		max = strconv.FormatInt(cus, 10)
	}
	const batch = 200
	var out []*execution.Record
	var offset int64
	for len(out) <= limit {
		zs, err := b.rdb.ZRevRangeByScoreWithScores(ctx, idx, &redis.ZRangeBy{Max: max, Min: "-inf", Offset: offset, Count: batch}).Result()
		if err != nil {
			return nil, "", b.wrap("list executions", err)
		}
		if len(zs) == 0 {
			break
		}
		offset += int64(len(zs))
		var ids []string
		for _, z := range zs {
			id := z.Member.(string)
			if hasCursor && !execution.After(int64(z.Score), id, cus, cid) {
				continue
			}
			ids = append(ids, id)
		}
		if len(ids) == 0 {
			continue
		}
		keys := make([]string, len(ids))
		for i, id := range ids {
			keys[i] = b.recKey(id)
		}
		vals, err := b.rdb.MGet(ctx, keys...).Result()
		if err != nil {
			return nil, "", b.wrap("list executions", err)
		}
		var gone []any
		for i, v := range vals {
			s, ok := v.(string)
			if !ok {
				gone = append(gone, ids[i])
				continue
			}
			r, err := execution.Unmarshal([]byte(s))
			if err != nil {
				return nil, "", fmt.Errorf("list executions: decode %s: %w", ids[i], err)
			}
			if f.Matches(r) {
				out = append(out, r)
				if len(out) > limit {
					break
				}
			}
		}
		if len(gone) > 0 {
			if err := b.rdb.ZRem(ctx, idx, gone...).Err(); err != nil {
				return nil, "", b.wrap("list executions: prune index", err)
			}
			offset -= int64(len(gone))
		}
	}
	next := ""
	if len(out) > limit {
		out = out[:limit]
		us, id := execution.SortKey(out[limit-1])
		next = execution.EncodeCursor(us, id)
	}
	return out, next, nil
}

// Claim implements execution.Backend: first entries abandoned by dead
// executors (XAUTOCLAIM), then new ones (XREADGROUP), each claimed only if
// its record is still queued.
func (b *Backend) Claim(ctx context.Context, workerID string, block time.Duration) (*execution.Record, error) {
	if workerID == "" {
		return nil, fmt.Errorf("claim: empty worker id: %w", execution.ErrInvalidRecord)
	}
	deadline := time.Now().Add(block)
	for {
		if err := b.checkOpen(); err != nil {
			return nil, err
		}
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("claim: %w", err)
		}
		msgs, _, err := b.rdb.XAutoClaim(ctx, &redis.XAutoClaimArgs{Stream: b.stream, Group: b.pool,
			MinIdle: b.claimIdle, Start: "0-0", Count: 10, Consumer: workerID}).Result()
		if redis.HasErrorPrefix(err, "NOGROUP") {
			// The stream or its group was deleted (a flush, a manual
			// cleanup): recreate the group from the start of the stream so
			// entries added since are still delivered.
			if err := b.ensureGroup(ctx); err != nil {
				return nil, err
			}
			continue
		}
		if err != nil {
			return nil, b.wrap("claim: recover abandoned entries", err)
		}
		if r, err := b.claimFirst(ctx, workerID, msgs); r != nil || err != nil {
			return r, err
		}
		wait := time.Until(deadline)
		args := &redis.XReadGroupArgs{Group: b.pool, Consumer: workerID, Streams: []string{b.stream, ">"}, Count: 1, Block: -1}
		if wait > 0 {
			args.Block = min(wait, maxBlockChunk)
			if args.Block < time.Millisecond {
				args.Block = time.Millisecond
			}
		}
		res, err := b.rdb.XReadGroup(ctx, args).Result()
		if redis.HasErrorPrefix(err, "NOGROUP") {
			if err := b.ensureGroup(ctx); err != nil {
				return nil, err
			}
			continue
		}
		if err != nil && !errors.Is(err, redis.Nil) {
			return nil, b.wrap("claim: read queue", err)
		}
		for _, s := range res {
			if r, err := b.claimFirst(ctx, workerID, s.Messages); r != nil || err != nil {
				return r, err
			}
		}
		if len(res) == 0 && time.Until(deadline) <= 0 {
			return nil, execution.ErrNoWork
		}
	}
}

// claimFirst claims the first of msgs whose record is still queued and
// acknowledges (and deletes) entries whose record is gone or not queued.
// Entries after the claimed one stay pending for this consumer and are
// recovered by XAUTOCLAIM after ClaimIdle.
func (b *Backend) claimFirst(ctx context.Context, workerID string, msgs []redis.XMessage) (*execution.Record, error) {
	for i, m := range msgs {
		id, _ := m.Values["id"].(string)
		r, err := b.claimEntry(ctx, workerID, m.ID, id)
		if err != nil {
			return nil, err
		}
		if r != nil {
			// Give back entries this call took but will not run.
			for _, rest := range msgs[i+1:] {
				if err := b.release(ctx, rest.ID); err != nil {
					return r, nil // the entry stays pending and is recovered later
				}
			}
			return r, nil
		}
	}
	return nil, nil
}

// release returns a pending entry to the pool by re-adding it and
// acknowledging the old copy, so it does not wait for ClaimIdle.
func (b *Backend) release(ctx context.Context, entryID string) error {
	msgs, err := b.rdb.XRangeN(ctx, b.stream, entryID, entryID, 1).Result()
	if err != nil || len(msgs) == 0 {
		return err
	}
	_, err = b.rdb.TxPipelined(ctx, func(pipe redis.Pipeliner) error {
		pipe.XAdd(ctx, &redis.XAddArgs{Stream: b.stream, Values: msgs[0].Values})
		pipe.XAck(ctx, b.stream, b.pool, entryID)
		pipe.XDel(ctx, b.stream, entryID)
		return nil
	})
	return err
}

// claimEntry moves the entry's record queued → running for workerID and
// acknowledges the entry in the same transaction. It returns nil, nil when
// the record is gone or not queued (the entry is acknowledged and dropped).
func (b *Backend) claimEntry(ctx context.Context, workerID, entryID, id string) (*execution.Record, error) {
	drop := func() error {
		_, err := b.rdb.TxPipelined(ctx, func(pipe redis.Pipeliner) error {
			pipe.XAck(ctx, b.stream, b.pool, entryID)
			pipe.XDel(ctx, b.stream, entryID)
			return nil
		})
		return b.wrap("claim: drop stale entry", err)
	}
	if id == "" {
		return nil, drop()
	}
	op := "claim " + id
	var claimed *execution.Record
	err := b.txn(ctx, op, b.recKey(id), func(tx *redis.Tx) error {
		claimed = nil
		r, err := b.load(ctx, tx, id)
		if errors.Is(err, execution.ErrNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		if r.Status != execution.StatusQueued {
			return nil
		}
		now := b.now()
		if err := execution.ApplyClaim(r, workerID, now, b.lease); err != nil {
			return err
		}
		var env map[string]string
		lost := ""
		if len(r.EnvNames) > 0 {
			if env, lost, err = b.openEnv(ctx, tx, r); err != nil {
				return err
			}
			if lost != "" {
				// Never run without the values that were asked for.
				if err := execution.ApplyFinish(r, workerID, execution.EnvLostOutcome(lost), now); err != nil {
					return err
				}
			}
		}
		doc, err := marshalWithoutEnv(r)
		if err != nil {
			return fmt.Errorf("%s: encode: %w", op, err)
		}
		err = b.commit(ctx, tx, op, func(pipe redis.Pipeliner) {
			b.queueWrite(ctx, pipe, r, doc, false) // deletes the sealed env
			pipe.XAck(ctx, b.stream, b.pool, entryID)
			pipe.XDel(ctx, b.stream, entryID)
		})
		if err == nil && lost == "" {
			r.Env = env // in the executor's memory only
			claimed = r
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	if claimed == nil {
		return nil, drop()
	}
	return claimed, nil
}

// Heartbeat implements execution.Backend.
func (b *Backend) Heartbeat(ctx context.Context, workerID, id string) error {
	_, err := b.modify(ctx, "heartbeat", id, func(r *execution.Record) (bool, bool, error) {
		return true, false, execution.ApplyHeartbeat(r, workerID, b.now(), b.lease)
	})
	return err
}

// Update implements execution.Backend.
func (b *Backend) Update(ctx context.Context, id string, fn func(*execution.Record) error) error {
	_, err := b.modify(ctx, "update", id, func(r *execution.Record) (bool, bool, error) {
		next, enqueue, err := execution.ApplyUpdate(r, fn, b.now())
		if err != nil {
			return false, false, err
		}
		*r = *next
		return true, enqueue, nil
	})
	return err
}

// Finish implements execution.Backend.
func (b *Backend) Finish(ctx context.Context, workerID, id string, final *execution.Record) error {
	_, err := b.modify(ctx, "finish", id, func(r *execution.Record) (bool, bool, error) {
		return true, false, execution.ApplyFinish(r, workerID, final, b.now())
	})
	return err
}

// RequestCancel implements execution.Backend. A cancelled queued record's
// stream entry stays until a claimer reads it, sees it is not queued and
// drops it.
func (b *Backend) RequestCancel(ctx context.Context, id, reason string) (*execution.Record, error) {
	return b.modify(ctx, "cancel", id, func(r *execution.Record) (bool, bool, error) {
		changed, err := execution.ApplyCancel(r, reason, b.now())
		return changed, false, err
	})
}

// CancelRequested implements execution.Backend.
func (b *Backend) CancelRequested(ctx context.Context, id string) (bool, error) {
	r, err := b.Get(ctx, id)
	if err != nil {
		return false, err
	}
	return r.CancelRequested, nil
}

// Watch implements execution.Backend: it subscribes to the record's channel
// before the first read, so no change between the two is missed.
func (b *Backend) Watch(ctx context.Context, id string) (<-chan *execution.Record, error) {
	if err := b.checkOpen(); err != nil {
		return nil, err
	}
	ps := b.rdb.Subscribe(ctx, b.evChan(id))
	if _, err := ps.Receive(ctx); err != nil {
		ps.Close()
		return nil, b.wrap("watch "+id, err)
	}
	if _, err := b.Get(ctx, id); err != nil {
		ps.Close()
		return nil, err
	}
	wctx, cancel := context.WithCancel(ctx)
	sig := make(chan struct{}, 1)
	msgs := ps.Channel()
	go func() {
		defer cancel()
		for {
			select {
			case _, ok := <-msgs:
				if !ok {
					return
				}
				select {
				case sig <- struct{}{}:
				default:
				}
			case <-wctx.Done():
				return
			case <-b.done:
				return
			}
		}
	}()
	out := make(chan *execution.Record, 1)
	get := func(ctx context.Context) (*execution.Record, error) { return b.Get(ctx, id) }
	go watch.Loop(wctx, get, sig, watchResync, out, func() { cancel(); ps.Close() })
	return out, nil
}

// Reconcile implements execution.Backend using the running index, so it
// never scans all records.
func (b *Backend) Reconcile(ctx context.Context, liveWorkers []string) ([]string, error) {
	if err := b.checkOpen(); err != nil {
		return nil, err
	}
	var live map[string]bool
	if liveWorkers != nil {
		live = make(map[string]bool, len(liveWorkers))
		for _, w := range liveWorkers {
			live[w] = true
		}
	}
	ids, err := b.rdb.ZRange(ctx, b.runningKey(), 0, -1).Result()
	if err != nil {
		return nil, b.wrap("reconcile", err)
	}
	var orphaned []string
	for _, id := range ids {
		did := false
		_, err := b.modify(ctx, "reconcile", id, func(r *execution.Record) (bool, bool, error) {
			did = false
			now := b.now()
			reason, orphan := execution.Orphaned(r, live, now)
			if !orphan {
				return false, false, nil
			}
			did = true
			return true, false, execution.ApplyOrphan(r, reason, now)
		})
		if errors.Is(err, execution.ErrNotFound) {
			if err := b.rdb.ZRem(ctx, b.runningKey(), id).Err(); err != nil {
				return orphaned, b.wrap("reconcile", err)
			}
			continue
		}
		if err != nil {
			return orphaned, fmt.Errorf("reconcile: %w", err)
		}
		if did {
			orphaned = append(orphaned, id)
		}
	}
	if err := b.pruneConsumers(ctx); err != nil {
		return orphaned, fmt.Errorf("reconcile: %w", err)
	}
	return orphaned, nil
}

// ConsumerIdleLimit is how long a consumer with nothing pending may stay
// silent before Reconcile removes it from the group; every worker id becomes
// a consumer, and without this the group would grow forever. A removed
// consumer that reads again is simply re-created by Redis.
const ConsumerIdleLimit = time.Hour

func (b *Backend) pruneConsumers(ctx context.Context) error {
	cs, err := b.rdb.XInfoConsumers(ctx, b.stream, b.pool).Result()
	if err != nil {
		return b.wrap("list consumers", err)
	}
	for _, c := range cs {
		if c.Pending == 0 && c.Idle > ConsumerIdleLimit {
			if err := b.rdb.XGroupDelConsumer(ctx, b.stream, b.pool, c.Name).Err(); err != nil {
				return b.wrap("delete idle consumer "+c.Name, err)
			}
		}
	}
	return nil
}

// mayRun reports whether a record in status s can still be run, so its
// sealed environment must be kept until the claim.
func mayRun(s execution.Status) bool {
	return s == execution.StatusQueued || s == execution.StatusPendingReview
}

// marshalWithoutEnv encodes r as stored: without environment values, which
// live sealed in env:<id>.
func marshalWithoutEnv(r *execution.Record) ([]byte, error) {
	c := *r
	c.Env = nil
	return c.Marshal()
}

// sealEnv encrypts r's environment bound to its execution id.
func (b *Backend) sealEnv(r *execution.Record) ([]byte, error) {
	if b.envBox == nil {
		return nil, fmt.Errorf("environment values need %s to be stored sealed; refusing to store them in plain text",
			secrets.ConfigKeyName)
	}
	plain, err := json.Marshal(r.Env)
	if err != nil {
		return nil, fmt.Errorf("encode env: %w", err)
	}
	return b.envBox.Seal(plain, []byte(r.ExecutionID))
}

// openEnv reads and decrypts r's sealed environment inside the claim
// transaction. A value that is missing or does not open is not an error of
// the claim: it returns why, and the record is failed instead of run.
func (b *Backend) openEnv(ctx context.Context, tx *redis.Tx, r *execution.Record) (map[string]string, string, error) {
	sealed, err := tx.Get(ctx, b.envKey(r.ExecutionID)).Bytes()
	if errors.Is(err, redis.Nil) {
		return nil, "environment values missing from the store; resubmit", nil
	}
	if err != nil {
		return nil, "", b.wrap("claim "+r.ExecutionID+": read env", err)
	}
	if b.envBox == nil {
		return nil, "this executor has no " + secrets.ConfigKeyName + " to open the environment values", nil
	}
	plain, err := b.envBox.Open(sealed, []byte(r.ExecutionID))
	if err != nil {
		return nil, "environment values do not open with this executor's " + secrets.ConfigKeyName +
			" (servers and executors must share one key)", nil
	}
	env := map[string]string{}
	if err := json.Unmarshal(plain, &env); err != nil {
		return nil, "environment values are corrupt; resubmit", nil
	}
	return env, "", nil
}
