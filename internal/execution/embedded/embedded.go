// Package embedded is the default execution backend: one process, an
// in-process queue, and durable records in SQLite (modernc.org/sqlite, pure
// Go, WAL) in <data-dir>/executions.db.
//
// The queue is the set of queued rows ordered by their enqueue sequence, so it
// survives a restart with the records. A data directory belongs to one
// process at a time (an exclusive lock file), which is what lets Open mark
// every record still running from the previous process as orphaned: its
// worker cannot be alive.
//
// Environment values (they may be secrets) never reach the database: they
// are held in this process's memory from Create until the executor claims
// the record (or it is cancelled or otherwise ends), and handed over with
// the claimed record only. A restart loses them, so a record that needed an
// environment and lost it is failed at claim ("env lost at restart;
// resubmit"), never run without it.
package embedded

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	_ "modernc.org/sqlite" // registers the "sqlite" database/sql driver

	"github.com/toolwarden/toolwarden/internal/execution"
	"github.com/toolwarden/toolwarden/internal/execution/internal/watch"
)

// DBFile is the database file name inside the data directory.
const DBFile = "executions.db"

// Options tune an embedded backend; zero values take defaults.
type Options struct {
	// LeaseTTL is how long a claim or heartbeat holds a record
	// (default execution.DefaultLeaseTTL).
	LeaseTTL time.Duration
	// Now is the clock (default time.Now); tests inject one to expire leases
	// without sleeping.
	Now func() time.Time
}

// Backend is the embedded execution.Backend.
type Backend struct {
	db    *sql.DB
	lock  *os.File
	lease time.Duration
	now   func() time.Time

	mu       sync.Mutex // serializes every read-modify-write
	closed   bool
	queued   chan struct{} // closed and replaced when a record is enqueued
	watchers map[string]map[chan struct{}]struct{}
	done     chan struct{}
	// env holds the environment values of records that may still run,
	// by execution id; never written to disk. Guarded by mu.
	env map[string]map[string]string
	// waiters are blocked claimers, oldest first, that Create may hand a
	// new record to directly (see handOff). Guarded by mu.
	waiters []*claimWaiter
	// commits counts the write transactions of records (each one fsync).
	commits atomic.Int64
	// docs holds the stored document of every watched record, as last
	// read or written, so a watcher's wake-up decodes it instead of reading
	// it back. Every write of a record goes through write, which keeps it
	// current. Guarded by mu.
	docs map[string][]byte
	// reads counts record reads from the database.
	reads atomic.Int64
}

// claimWaiter is one Claim blocked on an empty queue. A record handed to it
// is already claimed by its worker (and committed) when it arrives on ch.
type claimWaiter struct {
	workerID string
	ch       chan *execution.Record // buffered: a hand-off never blocks
}

var _ execution.Backend = (*Backend)(nil)

const schema = `
CREATE TABLE IF NOT EXISTS executions (
	id              TEXT PRIMARY KEY,
	status          TEXT NOT NULL,
	conversation_id TEXT NOT NULL,
	owner           TEXT NOT NULL,
	created_us      INTEGER NOT NULL,
	queue_seq       INTEGER,
	doc             BLOB NOT NULL
);
CREATE INDEX IF NOT EXISTS executions_created ON executions(created_us DESC, id DESC);
CREATE INDEX IF NOT EXISTS executions_conversation ON executions(conversation_id, created_us DESC, id DESC);
CREATE INDEX IF NOT EXISTS executions_queue ON executions(queue_seq) WHERE queue_seq IS NOT NULL;
CREATE INDEX IF NOT EXISTS executions_status ON executions(status);
`

// Open opens (creating if needed) the store in dataDir, takes the directory's
// exclusive lock, and orphans records left running by a previous process.
func Open(dataDir string, opts Options) (*Backend, error) {
	if err := os.MkdirAll(dataDir, 0o700); err != nil {
		return nil, fmt.Errorf("open executions store: create %s: %w", dataDir, err)
	}
	if err := os.Chmod(dataDir, 0o700); err != nil {
		return nil, fmt.Errorf("open executions store: %s: %w", dataDir, err)
	}
	lock, err := lockDir(filepath.Join(dataDir, DBFile+".lock"))
	if err != nil {
		return nil, fmt.Errorf("open executions store %s: %w", dataDir, err)
	}
	path := filepath.Join(dataDir, DBFile)
	if err := privateFiles(path); err != nil {
		lock.Close()
		return nil, fmt.Errorf("open executions store %s: %w", path, err)
	}
	// WAL with synchronous=FULL: every commit is fsynced before it returns,
	// so a record the API acknowledged (and a claim that let a workload
	// start) survives a power loss or OS crash, not only a process crash —
	// a lost claim would put a run that may have had effects back in the
	// queue. NORMAL was ~1 ms per commit faster here (see BENCHMARKS-e2e.md).
	// secure_delete: deleted and overwritten content is zeroed, not left in
	// free pages of the file.
	dsn := "file:" + path + "?_pragma=journal_mode(WAL)&_pragma=synchronous(FULL)&_pragma=busy_timeout(5000)&_pragma=foreign_keys(1)&_pragma=secure_delete(ON)"
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		lock.Close()
		return nil, fmt.Errorf("open executions store %s: %w", path, err)
	}
	db.SetMaxOpenConns(1) // one writer; the mutex orders everything anyway
	if _, err := db.Exec(schema); err != nil {
		db.Close()
		lock.Close()
		return nil, fmt.Errorf("open executions store %s: schema: %w", path, err)
	}
	b := &Backend{
		db: db, lock: lock, lease: opts.LeaseTTL, now: opts.Now,
		queued: make(chan struct{}), watchers: map[string]map[chan struct{}]struct{}{}, done: make(chan struct{}),
		env: map[string]map[string]string{}, docs: map[string][]byte{},
	}
	if b.lease <= 0 {
		b.lease = execution.DefaultLeaseTTL
	}
	if b.now == nil {
		b.now = time.Now
	}
	if err := b.orphanPrevious(); err != nil {
		b.Close()
		return nil, fmt.Errorf("open executions store %s: %w", path, err)
	}
	return b, nil
}

// orphanPrevious marks every running record orphaned: holding the lock means
// no worker of another process can still own one.
func (b *Backend) orphanPrevious() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	recs, err := b.queryDocs(context.Background(), `SELECT doc FROM executions WHERE status = ?`, string(execution.StatusRunning))
	if err != nil {
		return fmt.Errorf("find running records: %w", err)
	}
	now := b.now()
	for _, r := range recs {
		if err := execution.ApplyOrphan(r, "executor process restarted; worker "+r.WorkerID+" is gone", now); err != nil {
			return err
		}
		if err := b.write(context.Background(), r, false); err != nil {
			return err
		}
	}
	return nil
}

// privateFiles creates the database file 0600 (whatever the umask) before
// SQLite opens it, and fixes the modes of existing ones: SQLite gives the
// -wal and -shm files the mode of the database file, so they follow.
func privateFiles(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	f.Close()
	for _, p := range []string{path, path + "-wal", path + "-shm", path + "-journal", path + ".lock"} {
		if err := os.Chmod(p, 0o600); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
	}
	return nil
}

// SecureDelete reports SQLite's secure_delete setting (1 when on), so
// tests and check tools can see the store zeroes what it deletes.
func (b *Backend) SecureDelete() int {
	var v int
	if err := b.db.QueryRow(`PRAGMA secure_delete`).Scan(&v); err != nil {
		return -1
	}
	return v
}

// Close releases the database and the directory lock; watchers end.
func (b *Backend) Close() error {
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return nil
	}
	b.closed = true
	close(b.done)
	b.mu.Unlock()
	err := b.db.Close()
	if lerr := b.lock.Close(); err == nil {
		err = lerr
	}
	if err != nil {
		return fmt.Errorf("close executions store: %w", err)
	}
	return nil
}

func (b *Backend) checkOpen() error {
	if b.closed {
		return execution.ErrClosed
	}
	return nil
}

func (b *Backend) queryDocs(ctx context.Context, q string, args ...any) ([]*execution.Record, error) {
	rows, err := b.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, dbErr("query executions", err)
	}
	defer rows.Close()
	var out []*execution.Record
	for rows.Next() {
		var doc []byte
		if err := rows.Scan(&doc); err != nil {
			return nil, dbErr("read executions", err)
		}
		r, err := execution.Unmarshal(doc)
		if err != nil {
			return nil, fmt.Errorf("decode stored record: %w", err)
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, dbErr("read executions", err)
	}
	return out, nil
}

// load reads one record; caller holds mu.
func (b *Backend) load(ctx context.Context, id string) (*execution.Record, error) {
	doc, err := b.loadDoc(ctx, id)
	if err != nil {
		return nil, err
	}
	return decode(id, doc)
}

// loadDoc reads the stored document of id; caller holds mu.
func (b *Backend) loadDoc(ctx context.Context, id string) ([]byte, error) {
	b.reads.Add(1)
	var doc []byte
	err := b.db.QueryRowContext(ctx, `SELECT doc FROM executions WHERE id = ?`, id).Scan(&doc)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("execution %s: %w", id, execution.ErrNotFound)
	}
	if err != nil {
		return nil, dbErr("load execution "+id, err)
	}
	return doc, nil
}

// decode turns a stored document into a record of its own.
func decode(id string, doc []byte) (*execution.Record, error) {
	r, err := execution.Unmarshal(doc)
	if err != nil {
		return nil, fmt.Errorf("decode execution %s: %w", id, err)
	}
	return r, nil
}

// getWatched is Get for a watcher of id: the document kept for watchers
// when there is one (the same bytes the database holds), else a read.
func (b *Backend) getWatched(ctx context.Context, id string) (*execution.Record, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if err := b.checkOpen(); err != nil {
		return nil, err
	}
	if doc, ok := b.docs[id]; ok {
		return decode(id, doc)
	}
	return b.load(ctx, id)
}

// write stores r (caller holds mu) and, when enqueue, gives it the next queue
// position; a record that is not queued leaves the queue.
func (b *Backend) write(ctx context.Context, r *execution.Record, enqueue bool) error {
	if !mayRun(r.Status) {
		delete(b.env, r.ExecutionID)
	}
	doc, err := marshalWithoutEnv(r)
	if err != nil {
		return fmt.Errorf("encode execution %s: %w", r.ExecutionID, err)
	}
	q := `UPDATE executions SET status = ?, doc = ?, queue_seq = NULL WHERE id = ?`
	if enqueue {
		q = `UPDATE executions SET status = ?, doc = ?,
			queue_seq = (SELECT COALESCE(MAX(queue_seq), 0) + 1 FROM executions) WHERE id = ?`
	} else if r.Status == execution.StatusQueued {
		q = `UPDATE executions SET status = ?, doc = ? WHERE id = ?`
	}
	if _, err := b.db.ExecContext(ctx, q, string(r.Status), doc, r.ExecutionID); err != nil {
		delete(b.docs, r.ExecutionID) // unknown now: watchers read it back
		return dbErr("store execution "+r.ExecutionID, err)
	}
	b.commits.Add(1)
	if b.watchers[r.ExecutionID] != nil {
		b.docs[r.ExecutionID] = doc
	}
	b.notify(r.ExecutionID, enqueue)
	return nil
}

// notify wakes watchers of id and, after an enqueue, blocked claimers.
// Caller holds mu.
func (b *Backend) notify(id string, enqueued bool) {
	for ch := range b.watchers[id] {
		select {
		case ch <- struct{}{}:
		default:
		}
	}
	if enqueued {
		// The woken claimers take the queue in order; none may be handed a
		// newer record before they have looked.
		b.waiters = nil
		close(b.queued)
		b.queued = make(chan struct{})
	}
}

// Create implements execution.Backend.
func (b *Backend) Create(ctx context.Context, r *execution.Record) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if err := b.checkOpen(); err != nil {
		return err
	}
	if err := execution.PrepareNew(r, b.now()); err != nil {
		return err
	}
	doc, err := marshalWithoutEnv(r)
	if err != nil {
		return fmt.Errorf("encode execution %s: %w", r.ExecutionID, err)
	}
	var seq any
	enqueue := r.Status == execution.StatusQueued
	q := `INSERT INTO executions(id, status, conversation_id, owner, created_us, queue_seq, doc) VALUES (?, ?, ?, ?, ?, ?, ?)`
	if enqueue {
		q = `INSERT INTO executions(id, status, conversation_id, owner, created_us, queue_seq, doc)
			VALUES (?, ?, ?, ?, ?, (SELECT COALESCE(MAX(queue_seq), 0) + 1 FROM executions), ?)`
	}
	args := []any{r.ExecutionID, string(r.Status), r.ConversationID, r.OwnerKeyID, r.CreatedAt.UnixMicro()}
	if !enqueue {
		args = append(args, seq)
	}
	args = append(args, doc)
	var exists int
	if err := b.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM executions WHERE id = ?`, r.ExecutionID).Scan(&exists); err != nil {
		return dbErr("create execution "+r.ExecutionID, err)
	}
	if exists > 0 {
		return fmt.Errorf("create execution %s: %w", r.ExecutionID, execution.ErrExists)
	}
	if enqueue && len(b.waiters) > 0 {
		if handed, err := b.handOff(ctx, r); handed || err != nil {
			return err
		}
	}
	if _, err := b.db.ExecContext(ctx, q, args...); err != nil {
		return dbErr("create execution "+r.ExecutionID, err)
	}
	b.commits.Add(1)
	if len(r.Env) > 0 && mayRun(r.Status) {
		env := make(map[string]string, len(r.Env))
		for k, v := range r.Env {
			env[k] = v
		}
		b.env[r.ExecutionID] = env
	}
	b.notify(r.ExecutionID, enqueue)
	return nil
}

// handOff gives the new queued record r to the oldest blocked claimer: the
// record is inserted already claimed by that worker, in one commit, instead
// of a commit that queues it and a second that claims it. The durability is
// the same — the API acknowledges r and the worker starts it only after
// that commit, and a crash after it finds the record running (orphaned at
// the next Open, never run twice). r, the caller's copy, stays as created
// (queued); the store's copy and the claimer's are running. handed is
// false when the claim could not be applied (r is then queued as usual).
// Caller holds mu.
func (b *Backend) handOff(ctx context.Context, r *execution.Record) (handed bool, err error) {
	w := b.waiters[0]
	claimed := r.Clone()
	if err := execution.ApplyClaim(claimed, w.workerID, b.now(), b.lease); err != nil {
		return false, nil
	}
	doc, err := marshalWithoutEnv(claimed)
	if err != nil {
		return false, fmt.Errorf("encode execution %s: %w", r.ExecutionID, err)
	}
	if _, err := b.db.ExecContext(ctx, `INSERT INTO executions(id, status, conversation_id, owner, created_us, queue_seq, doc) VALUES (?, ?, ?, ?, ?, NULL, ?)`,
		claimed.ExecutionID, string(claimed.Status), claimed.ConversationID, claimed.OwnerKeyID, claimed.CreatedAt.UnixMicro(), doc); err != nil {
		return false, dbErr("create execution "+r.ExecutionID, err)
	}
	b.commits.Add(1)
	b.waiters = b.waiters[1:]
	if len(r.Env) > 0 {
		claimed.Env = make(map[string]string, len(r.Env))
		for k, v := range r.Env {
			claimed.Env[k] = v
		}
	}
	w.ch <- claimed
	b.notify(r.ExecutionID, false)
	return true, nil
}

// mayRun reports whether a record in status s can still be run, so its
// environment must be kept until the claim.
func mayRun(s execution.Status) bool {
	return s == execution.StatusQueued || s == execution.StatusPendingReview
}

// marshalWithoutEnv encodes r as stored: without environment values.
func marshalWithoutEnv(r *execution.Record) ([]byte, error) {
	c := *r
	c.Env = nil
	return c.Marshal()
}

// EnvLostReason is the status reason of a record that needed environment
// values this process no longer holds (they are kept in memory only).
const EnvLostReason = "env lost at restart; resubmit"

// Get implements execution.Backend.
func (b *Backend) Get(ctx context.Context, id string) (*execution.Record, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if err := b.checkOpen(); err != nil {
		return nil, err
	}
	return b.load(ctx, id)
}

// List implements execution.Backend.
func (b *Backend) List(ctx context.Context, f execution.Filter) ([]*execution.Record, string, error) {
	cus, cid, hasCursor, err := execution.DecodeCursor(f.Cursor)
	if err != nil {
		return nil, "", fmt.Errorf("list executions: %w", err)
	}
	if f.Status != "" && !f.Status.Valid() {
		return nil, "", fmt.Errorf("list executions: status %q: %w", f.Status, execution.ErrInvalidRecord)
	}
	limit := f.EffectiveLimit()
	q := `SELECT doc FROM executions WHERE 1=1`
	var args []any
	if f.ConversationID != "" {
		q += ` AND conversation_id = ?`
		args = append(args, f.ConversationID)
	}
	if f.Status != "" {
		q += ` AND status = ?`
		args = append(args, string(f.Status))
	}
	if f.Owner != "" {
		q += ` AND owner = ?`
		args = append(args, f.Owner)
	}
	if hasCursor {
		q += ` AND (created_us < ? OR (created_us = ? AND id < ?))`
		args = append(args, cus, cus, cid)
	}
	q += ` ORDER BY created_us DESC, id DESC LIMIT ?`
	args = append(args, limit+1)

	b.mu.Lock()
	defer b.mu.Unlock()
	if err := b.checkOpen(); err != nil {
		return nil, "", err
	}
	recs, err := b.queryDocs(ctx, q, args...)
	if err != nil {
		return nil, "", fmt.Errorf("list executions: %w", err)
	}
	next := ""
	if len(recs) > limit {
		recs = recs[:limit]
		us, id := execution.SortKey(recs[limit-1])
		next = execution.EncodeCursor(us, id)
	}
	return recs, next, nil
}

// Claim implements execution.Backend.
func (b *Backend) Claim(ctx context.Context, workerID string, block time.Duration) (*execution.Record, error) {
	if workerID == "" {
		return nil, fmt.Errorf("claim: empty worker id: %w", execution.ErrInvalidRecord)
	}
	var timeout <-chan time.Time
	if block > 0 {
		t := time.NewTimer(block)
		defer t.Stop()
		timeout = t.C
	}
	for {
		r, wake, w, err := b.tryClaim(ctx, workerID, block > 0)
		if err != nil || r != nil {
			return r, err
		}
		if block <= 0 {
			return nil, execution.ErrNoWork
		}
		// A record handed over while this claimer gave up is claimed by it
		// already: it is returned whatever ended the wait.
		select {
		case r := <-w.ch:
			return r, nil
		case <-wake:
			if r := b.dropWaiter(w); r != nil {
				return r, nil
			}
		case <-timeout:
			if r := b.dropWaiter(w); r != nil {
				return r, nil
			}
			return nil, execution.ErrNoWork
		case <-ctx.Done():
			if r := b.dropWaiter(w); r != nil {
				return r, nil
			}
			return nil, fmt.Errorf("claim: %w", ctx.Err())
		case <-b.done:
			if r := b.dropWaiter(w); r != nil {
				return r, nil
			}
			return nil, execution.ErrClosed
		}
	}
}

// tryClaim claims the first queued record or, when wait and the queue is
// empty, registers a waiter for Create to hand a record to.
func (b *Backend) tryClaim(ctx context.Context, workerID string, wait bool) (*execution.Record, <-chan struct{}, *claimWaiter, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if err := b.checkOpen(); err != nil {
		return nil, nil, nil, err
	}
	r, wake, err := b.tryClaimLocked(ctx, workerID)
	if err != nil || r != nil || !wait {
		return r, wake, nil, err
	}
	w := &claimWaiter{workerID: workerID, ch: make(chan *execution.Record, 1)}
	b.waiters = append(b.waiters, w)
	return nil, wake, w, nil
}

// dropWaiter unregisters w and returns the record handed to it before
// that, if any.
func (b *Backend) dropWaiter(w *claimWaiter) *execution.Record {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.removeWaiter(w)
	select {
	case r := <-w.ch:
		return r
	default:
		return nil
	}
}

// removeWaiter takes w out of the waiters; caller holds mu.
func (b *Backend) removeWaiter(w *claimWaiter) {
	for i, x := range b.waiters {
		if x == w {
			b.waiters = append(b.waiters[:i], b.waiters[i+1:]...)
			return
		}
	}
}

// tryClaimLocked claims the first queued record; caller holds mu.
func (b *Backend) tryClaimLocked(ctx context.Context, workerID string) (*execution.Record, <-chan struct{}, error) {
	recs, err := b.queryDocs(ctx, `SELECT doc FROM executions WHERE queue_seq IS NOT NULL ORDER BY queue_seq LIMIT 1`)
	if err != nil {
		return nil, nil, fmt.Errorf("claim: %w", err)
	}
	if len(recs) == 0 {
		return nil, b.queued, nil
	}
	r := recs[0]
	env, held := b.env[r.ExecutionID]
	now := b.now()
	if err := execution.ApplyClaim(r, workerID, now, b.lease); err != nil {
		return nil, nil, err
	}
	if len(r.EnvNames) > 0 && !held {
		// The values were in the memory of a previous process: running
		// without them would silently run something else than was asked.
		if err := execution.ApplyFinish(r, workerID, execution.EnvLostOutcome(EnvLostReason), now); err != nil {
			return nil, nil, err
		}
		if err := b.write(ctx, r, false); err != nil {
			return nil, nil, err
		}
		return b.tryClaimLocked(ctx, workerID)
	}
	if err := b.write(ctx, r, false); err != nil {
		return nil, nil, err
	}
	out := r.Clone()
	out.Env = env // handed to the executor only; the store forgets them
	return out, nil, nil
}

// modify is the read-modify-write skeleton of every other write.
func (b *Backend) modify(ctx context.Context, id string, fn func(r *execution.Record) (changed, enqueue bool, err error)) (*execution.Record, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if err := b.checkOpen(); err != nil {
		return nil, err
	}
	r, err := b.load(ctx, id)
	if err != nil {
		return nil, err
	}
	changed, enqueue, err := fn(r)
	if err != nil {
		return nil, err
	}
	if changed {
		if err := b.write(ctx, r, enqueue); err != nil {
			return nil, err
		}
	}
	return r.Clone(), nil
}

// Heartbeat implements execution.Backend.
func (b *Backend) Heartbeat(ctx context.Context, workerID, id string) error {
	_, err := b.modify(ctx, id, func(r *execution.Record) (bool, bool, error) {
		return true, false, execution.ApplyHeartbeat(r, workerID, b.now(), b.lease)
	})
	return err
}

// Update implements execution.Backend.
func (b *Backend) Update(ctx context.Context, id string, fn func(*execution.Record) error) error {
	_, err := b.modify(ctx, id, func(r *execution.Record) (bool, bool, error) {
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
	_, err := b.modify(ctx, id, func(r *execution.Record) (bool, bool, error) {
		return true, false, execution.ApplyFinish(r, workerID, final, b.now())
	})
	return err
}

// RequestCancel implements execution.Backend.
func (b *Backend) RequestCancel(ctx context.Context, id, reason string) (*execution.Record, error) {
	return b.modify(ctx, id, func(r *execution.Record) (bool, bool, error) {
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

// Watch implements execution.Backend.
func (b *Backend) Watch(ctx context.Context, id string) (<-chan *execution.Record, error) {
	b.mu.Lock()
	if err := b.checkOpen(); err != nil {
		b.mu.Unlock()
		return nil, err
	}
	doc, err := b.loadDoc(ctx, id)
	if err != nil {
		b.mu.Unlock()
		return nil, err
	}
	b.docs[id] = doc
	sig := make(chan struct{}, 1)
	if b.watchers[id] == nil {
		b.watchers[id] = map[chan struct{}]struct{}{}
	}
	b.watchers[id][sig] = struct{}{}
	b.mu.Unlock()

	wctx, cancel := context.WithCancel(ctx)
	go func() {
		select {
		case <-b.done:
			cancel()
		case <-wctx.Done():
		}
	}()
	stop := func() {
		cancel()
		b.mu.Lock()
		delete(b.watchers[id], sig)
		if len(b.watchers[id]) == 0 {
			delete(b.watchers, id)
			delete(b.docs, id)
		}
		b.mu.Unlock()
	}
	out := make(chan *execution.Record, 1)
	go watch.Loop(wctx, func(ctx context.Context) (*execution.Record, error) { return b.getWatched(ctx, id) }, sig, 0, out, stop)
	return out, nil
}

// Reconcile implements execution.Backend.
func (b *Backend) Reconcile(ctx context.Context, liveWorkers []string) ([]string, error) {
	var live map[string]bool
	if liveWorkers != nil {
		live = make(map[string]bool, len(liveWorkers))
		for _, w := range liveWorkers {
			live[w] = true
		}
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if err := b.checkOpen(); err != nil {
		return nil, err
	}
	recs, err := b.queryDocs(ctx, `SELECT doc FROM executions WHERE status = ?`, string(execution.StatusRunning))
	if err != nil {
		return nil, fmt.Errorf("reconcile: %w", err)
	}
	now := b.now()
	var ids []string
	for _, r := range recs {
		reason, orphan := execution.Orphaned(r, live, now)
		if !orphan {
			continue
		}
		if err := execution.ApplyOrphan(r, reason, now); err != nil {
			return ids, fmt.Errorf("reconcile: %w", err)
		}
		if err := b.write(ctx, r, false); err != nil {
			return ids, fmt.Errorf("reconcile: %w", err)
		}
		ids = append(ids, r.ExecutionID)
	}
	return ids, nil
}

// dbErr marks a database failure as ErrUnavailable (the API answers 503),
// keeping context cancellation recognisable as itself.
func dbErr(op string, err error) error {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("%s: %w", op, err)
	}
	return fmt.Errorf("%s: %w: %w", op, execution.ErrUnavailable, err)
}
