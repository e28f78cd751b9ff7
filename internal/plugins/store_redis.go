package plugins

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/toolwarden/toolwarden/internal/secrets"
)

// replicaStaleAfter drops a replica's status from listings when it has not
// reported for this long (a server that stopped).
const replicaStaleAfter = 30 * time.Second

// RedisStore keeps revisions and the active set in Redis under
// PREFIX:plugins: keys, shared by every server of a deployment, and
// announces changes on the PREFIX:plugins:events channel:
//
//	PREFIX:plugins:module:<hex>   the module bytes (checked against the digest on read)
//	PREFIX:plugins:revs:<name>    hash: <hex> → revision record
//	PREFIX:plugins:names          set of plugin names
//	PREFIX:plugins:active         the active set
//	PREFIX:plugins:replicas       hash: replica id → status
//
// Records (revisions, the active set) are authenticated with an HMAC under
// a key derived from the deployment's master key, so whoever can write to
// Redis but does not hold the key cannot activate a module by writing a
// record; modules are content-addressed and checked on every read.
type RedisStore struct {
	c      redis.UniversalClient
	prefix string
	mac    []byte
}

// OpenRedis returns a store on c under prefix ("toolwarden" when empty).
// master is the deployment's master key (security.secrets_key); nil
// disables record authentication (tests only).
func OpenRedis(c redis.UniversalClient, prefix string, master []byte) (*RedisStore, error) {
	if prefix == "" {
		prefix = "toolwarden"
	}
	s := &RedisStore{c: c, prefix: prefix + ":plugins:"}
	if master != nil {
		k, err := secrets.Derive(master, "toolwarden plugin records")
		if err != nil {
			return nil, fmt.Errorf("plugin store: %w", err)
		}
		s.mac = k
	}
	return s, nil
}

// EventsChannel is the pub/sub channel of active-set changes.
func (s *RedisStore) EventsChannel() string { return s.prefix + "events" }

func (s *RedisStore) key(parts ...string) string {
	k := s.prefix
	for i, p := range parts {
		if i > 0 {
			k += ":"
		}
		k += p
	}
	return k
}

// sealed is a record with its MAC.
type sealed struct {
	MAC  string          `json:"mac,omitempty"`
	Body json.RawMessage `json:"body"`
}

func (s *RedisStore) sign(what string, v any) ([]byte, error) {
	body, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	rec := sealed{Body: body}
	if s.mac != nil {
		m := hmac.New(sha256.New, s.mac)
		m.Write([]byte(what + "\x00"))
		m.Write(body)
		rec.MAC = hex.EncodeToString(m.Sum(nil))
	}
	return json.Marshal(rec)
}

func (s *RedisStore) open(what string, raw []byte, v any) error {
	var rec sealed
	if err := json.Unmarshal(raw, &rec); err != nil {
		return fmt.Errorf("decode %s: %w", what, err)
	}
	if s.mac != nil {
		m := hmac.New(sha256.New, s.mac)
		m.Write([]byte(what + "\x00"))
		m.Write(rec.Body)
		want := m.Sum(nil)
		got, err := hex.DecodeString(rec.MAC)
		if err != nil || !hmac.Equal(got, want) {
			return fmt.Errorf("%s: record authentication failed (written without the deployment's secrets_key, or altered)", what)
		}
	}
	if err := json.Unmarshal(rec.Body, v); err != nil {
		return fmt.Errorf("decode %s: %w", what, err)
	}
	return nil
}

// PutRevision implements Store.
func (s *RedisStore) PutRevision(ctx context.Context, rev Revision, module []byte) error {
	if err := checkName(rev.Name); err != nil {
		return err
	}
	h, err := digestHex(rev.Digest)
	if err != nil {
		return err
	}
	if Digest(module) != rev.Digest {
		return fmt.Errorf("put revision %s: module does not match digest %s", rev.Name, rev.Digest)
	}
	rec, err := s.sign("revision "+rev.Name+" "+h, rev)
	if err != nil {
		return fmt.Errorf("put revision %s: %w", rev.Name, err)
	}
	_, err = s.c.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.SetNX(ctx, s.key("module", h), module, 0)
		p.HSet(ctx, s.key("revs", rev.Name), h, rec)
		p.SAdd(ctx, s.key("names"), rev.Name)
		return nil
	})
	if err != nil {
		return fmt.Errorf("put revision %s: redis: %w", rev.Name, err)
	}
	return nil
}

// UpdateRevision implements Store.
func (s *RedisStore) UpdateRevision(ctx context.Context, rev Revision) error {
	if _, err := s.Revision(ctx, rev.Name, rev.Digest); err != nil {
		return err
	}
	h, _ := digestHex(rev.Digest)
	rec, err := s.sign("revision "+rev.Name+" "+h, rev)
	if err != nil {
		return err
	}
	if err := s.c.HSet(ctx, s.key("revs", rev.Name), h, rec).Err(); err != nil {
		return fmt.Errorf("update revision %s: redis: %w", rev.Name, err)
	}
	return nil
}

// Module implements Store.
func (s *RedisStore) Module(ctx context.Context, digest string) ([]byte, error) {
	h, err := digestHex(digest)
	if err != nil {
		return nil, err
	}
	b, err := s.c.Get(ctx, s.key("module", h)).Bytes()
	if errors.Is(err, redis.Nil) {
		return nil, fmt.Errorf("module %s: %w", digest, ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("module %s: redis: %w", digest, err)
	}
	if Digest(b) != digest {
		return nil, fmt.Errorf("module %s: stored bytes do not match the digest (corrupted or altered)", digest)
	}
	return b, nil
}

// Revision implements Store.
func (s *RedisStore) Revision(ctx context.Context, name, digest string) (Revision, error) {
	if err := checkName(name); err != nil {
		return Revision{}, fmt.Errorf("%w: %w", ErrNotFound, err)
	}
	h, err := digestHex(digest)
	if err != nil {
		return Revision{}, fmt.Errorf("%w: %w", ErrNotFound, err)
	}
	raw, err := s.c.HGet(ctx, s.key("revs", name), h).Bytes()
	if errors.Is(err, redis.Nil) {
		return Revision{}, fmt.Errorf("plugin %s revision %s: %w", name, digest, ErrNotFound)
	}
	if err != nil {
		return Revision{}, fmt.Errorf("plugin %s revision %s: redis: %w", name, digest, err)
	}
	var rev Revision
	if err := s.open("revision "+name+" "+h, raw, &rev); err != nil {
		return Revision{}, fmt.Errorf("plugin %s revision %s: %w", name, digest, err)
	}
	return rev, nil
}

// Revisions implements Store.
func (s *RedisStore) Revisions(ctx context.Context, name string) ([]Revision, error) {
	if err := checkName(name); err != nil {
		return nil, nil
	}
	all, err := s.c.HGetAll(ctx, s.key("revs", name)).Result()
	if err != nil {
		return nil, fmt.Errorf("plugin %s revisions: redis: %w", name, err)
	}
	out := make([]Revision, 0, len(all))
	for h, raw := range all {
		var rev Revision
		if err := s.open("revision "+name+" "+h, []byte(raw), &rev); err != nil {
			return nil, fmt.Errorf("plugin %s revisions: %w", name, err)
		}
		out = append(out, rev)
	}
	sortRevisions(out)
	return out, nil
}

// Names implements Store.
func (s *RedisStore) Names(ctx context.Context) ([]string, error) {
	names, err := s.c.SMembers(ctx, s.key("names")).Result()
	if err != nil {
		return nil, fmt.Errorf("plugin names: redis: %w", err)
	}
	sort.Strings(names)
	return names, nil
}

// DeleteRevision implements Store.
func (s *RedisStore) DeleteRevision(ctx context.Context, name, digest string) error {
	if _, err := s.Revision(ctx, name, digest); err != nil {
		return err
	}
	h, _ := digestHex(digest)
	if err := s.c.HDel(ctx, s.key("revs", name), h).Err(); err != nil {
		return fmt.Errorf("delete plugin %s revision %s: redis: %w", name, digest, err)
	}
	if n, err := s.c.HLen(ctx, s.key("revs", name)).Result(); err == nil && n == 0 {
		s.c.SRem(ctx, s.key("names"), name)
	}
	names, err := s.Names(ctx)
	if err != nil {
		return err
	}
	for _, n := range names {
		if ok, _ := s.c.HExists(ctx, s.key("revs", n), h).Result(); ok {
			return nil
		}
	}
	if err := s.c.Del(ctx, s.key("module", h)).Err(); err != nil {
		return fmt.Errorf("delete module %s: redis: %w", digest, err)
	}
	return nil
}

func (s *RedisStore) readSet(ctx context.Context, c redis.Cmdable) (Set, error) {
	raw, err := c.Get(ctx, s.key("active")).Bytes()
	if errors.Is(err, redis.Nil) {
		return Set{Active: map[string]string{}, History: map[string][]string{}}, nil
	}
	if err != nil {
		return Set{}, fmt.Errorf("read active plugin set: redis: %w", err)
	}
	var set Set
	if err := s.open("active set", raw, &set); err != nil {
		return Set{}, fmt.Errorf("read active plugin set: %w", err)
	}
	return set.clone(), nil
}

// ActiveSet implements Store.
func (s *RedisStore) ActiveSet(ctx context.Context) (Set, error) { return s.readSet(ctx, s.c) }

// UpdateActive implements Store: WATCH / MULTI on the active key, retried
// when another server changed it in between.
func (s *RedisStore) UpdateActive(ctx context.Context, fn func(*Set) error) (Set, error) {
	key := s.key("active")
	var out Set
	for attempt := 0; attempt < 50; attempt++ {
		err := s.c.Watch(ctx, func(tx *redis.Tx) error {
			set, err := s.readSet(ctx, tx)
			if err != nil {
				return err
			}
			if err := fn(&set); err != nil {
				return err
			}
			set.Generation++
			rec, err := s.sign("active set", set)
			if err != nil {
				return err
			}
			_, err = tx.TxPipelined(ctx, func(p redis.Pipeliner) error {
				p.Set(ctx, key, rec, 0)
				return nil
			})
			if err == nil {
				out = set
			}
			return err
		}, key)
		if errors.Is(err, redis.TxFailedErr) {
			continue
		}
		if err != nil {
			return Set{}, err
		}
		// A lost notification is caught by the periodic reconcile.
		s.c.Publish(ctx, s.EventsChannel(), out.Generation)
		return out, nil
	}
	return Set{}, errors.New("update active plugin set: too much contention, retry")
}

// ReportReplica implements Store.
func (s *RedisStore) ReportReplica(ctx context.Context, st ReplicaStatus) error {
	st.UpdatedAt = time.Now().UTC()
	b, err := json.Marshal(st)
	if err != nil {
		return err
	}
	if err := s.c.HSet(ctx, s.key("replicas"), st.ID, b).Err(); err != nil {
		return fmt.Errorf("report replica status: redis: %w", err)
	}
	return nil
}

// Replicas implements Store: statuses reported within the last 30 s
// (older ones are removed).
func (s *RedisStore) Replicas(ctx context.Context) ([]ReplicaStatus, error) {
	all, err := s.c.HGetAll(ctx, s.key("replicas")).Result()
	if err != nil {
		return nil, fmt.Errorf("replica statuses: redis: %w", err)
	}
	var out []ReplicaStatus
	for id, raw := range all {
		var st ReplicaStatus
		if json.Unmarshal([]byte(raw), &st) != nil || time.Since(st.UpdatedAt) > replicaStaleAfter {
			s.c.HDel(ctx, s.key("replicas"), id)
			continue
		}
		out = append(out, st)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out, nil
}

// Subscribe implements Store with Redis pub/sub on EventsChannel.
func (s *RedisStore) Subscribe(ctx context.Context) (<-chan struct{}, error) {
	ps := s.c.Subscribe(ctx, s.EventsChannel())
	if _, err := ps.Receive(ctx); err != nil {
		ps.Close()
		return nil, fmt.Errorf("subscribe %s: %w", s.EventsChannel(), err)
	}
	out := make(chan struct{}, 1)
	go func() {
		defer ps.Close()
		msgs := ps.Channel()
		for {
			select {
			case <-ctx.Done():
				return
			case _, ok := <-msgs:
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
	return out, nil
}
