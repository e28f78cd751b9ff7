// Package execution defines the execution record, its state machine and the
// Backend interface that the queue-and-store implementations (embedded SQLite
// and Redis Streams) satisfy.
//
// Delivery contract, shared by every backend: a queued record is delivered at
// least once until some worker moves it to running (Claim); from then on the
// record's lease, not the queue, owns it. A running record whose worker dies
// or stops heartbeating is marked orphaned (Reconcile, or the backend's own
// recovery), never handed to a second worker: the workload may already have
// had effects, and running a tool call twice is worse than reporting that it
// was interrupted. Finish writes the terminal result exactly once and only
// for the worker that still holds the lease.
package execution

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Backend is the queue and the store of executions behind one interface, so
// the API and the executor daemon do not care whether they share a process
// (embedded) or a Redis.
type Backend interface {
	// Create stores a new record (status queued, pending_review or blocked)
	// and enqueues it when queued. An empty ExecutionID is filled with a new
	// id and a zero CreatedAt with now; r is updated in place with what was
	// stored. A duplicate id is ErrExists.
	Create(ctx context.Context, r *Record) error
	// Get returns a copy of the record, or ErrNotFound.
	Get(ctx context.Context, id string) (*Record, error)
	// List returns records matching f, newest first, and the cursor for the
	// next page ("" when there is none).
	List(ctx context.Context, f Filter) ([]*Record, string, error)
	// Claim moves the oldest queued record to running for workerID with a
	// fresh lease, waiting up to block for one; ErrNoWork when none arrived.
	Claim(ctx context.Context, workerID string, block time.Duration) (*Record, error)
	// Heartbeat extends workerID's lease on id; ErrLeaseLost when the worker
	// no longer holds it (expired, orphaned, finished or never claimed).
	Heartbeat(ctx context.Context, workerID, id string) error
	// Update applies fn to a copy of the record and stores the result if
	// CheckUpdate allows the change (partial output, review decisions,
	// cleanup outcomes). fn's error aborts the update and is returned. A
	// review approval (pending_review → queued) enqueues the record.
	Update(ctx context.Context, id string, fn func(*Record) error) error
	// Finish writes the terminal outcome of a running record exactly once,
	// only for the worker holding the lease (see ApplyFinish).
	Finish(ctx context.Context, workerID, id string, final *Record) error
	// RequestCancel cancels a queued or pending record at once and flags a
	// running one for its worker; a terminal record is returned unchanged.
	RequestCancel(ctx context.Context, id, reason string) (*Record, error)
	// CancelRequested reports whether a cancel was requested for id.
	CancelRequested(ctx context.Context, id string) (bool, error)
	// Watch delivers the current record and then every later revision
	// (coalesced: a slow reader gets the newest, never a stale one). The
	// channel closes after a terminal record, when ctx ends, or when the
	// record disappears.
	Watch(ctx context.Context, id string) (<-chan *Record, error)
	// Reconcile marks orphaned every running record whose lease expired or,
	// when liveWorkers is non-nil, whose worker is not in liveWorkers, and
	// returns their ids. nil liveWorkers means "unknown; judge by lease only".
	Reconcile(ctx context.Context, liveWorkers []string) ([]string, error)
	// Close releases the backend; later calls return ErrClosed.
	Close() error
}

// Filter selects records for List. Zero fields match everything.
type Filter struct {
	ConversationID string
	Status         Status
	// Owner is the API key id that created the record (Record.OwnerKeyID).
	Owner string
	// Limit is the page size: default DefaultListLimit, at most MaxListLimit.
	Limit int
	// Cursor is the opaque value a previous List returned.
	Cursor string
}

// Page sizes for List.
const (
	DefaultListLimit = 50
	MaxListLimit     = 1000
)

// EffectiveLimit returns the page size List uses for f.
func (f Filter) EffectiveLimit() int {
	switch {
	case f.Limit <= 0:
		return DefaultListLimit
	case f.Limit > MaxListLimit:
		return MaxListLimit
	}
	return f.Limit
}

// Matches reports whether r passes f's field filters (not the cursor).
func (f Filter) Matches(r *Record) bool {
	if f.ConversationID != "" && r.ConversationID != f.ConversationID {
		return false
	}
	if f.Status != "" && r.Status != f.Status {
		return false
	}
	if f.Owner != "" && r.OwnerKeyID != f.Owner {
		return false
	}
	return true
}

// Default timings shared by the backends.
const (
	// DefaultLeaseTTL is how long a claim or heartbeat keeps a record owned;
	// workers heartbeat at a third of it.
	DefaultLeaseTTL = 30 * time.Second
)

// CancelConversation requests cancellation of every unfinished execution of
// one conversation — and of no other — and returns the ids it touched.
// Errors on single records are joined, never swallowed.
func CancelConversation(ctx context.Context, b Backend, conversationID, reason string) ([]string, error) {
	if conversationID == "" {
		return nil, fmt.Errorf("cancel conversation: empty conversation id: %w", ErrInvalidRecord)
	}
	var ids []string
	var errs []error
	cursor := ""
	for {
		recs, next, err := b.List(ctx, Filter{ConversationID: conversationID, Limit: MaxListLimit, Cursor: cursor})
		if err != nil {
			return ids, fmt.Errorf("cancel conversation %s: %w", conversationID, err)
		}
		for _, r := range recs {
			if r.Status.Terminal() {
				continue
			}
			if _, err := b.RequestCancel(ctx, r.ExecutionID, reason); err != nil {
				errs = append(errs, fmt.Errorf("cancel %s: %w", r.ExecutionID, err))
				continue
			}
			ids = append(ids, r.ExecutionID)
		}
		if next == "" {
			break
		}
		cursor = next
	}
	return ids, errors.Join(errs...)
}
