package execution

import "fmt"

// Status is the lifecycle state of an execution. The values are the wire
// names the API, the store and the panel share, taken from the execution
// governance design so that a caller reads the same words everywhere.
type Status string

// The states an execution can be in.
const (
	// StatusQueued: created and waiting for a worker; the only state Claim takes work from.
	StatusQueued Status = "queued"
	// StatusRunning: a worker holds the lease and the workload may have started.
	StatusRunning Status = "running"
	// StatusCompleted: the tool call itself finished (whatever its exit code).
	StatusCompleted Status = "completed"
	// StatusFailed: the tool could not be run or failed for a reason of its own.
	StatusFailed Status = "failed"
	// StatusCancelled: a user, an agent or conversation cleanup cancelled it.
	StatusCancelled Status = "cancelled"
	// StatusHardTimeout: the system killed it after the hard timeout.
	StatusHardTimeout Status = "hard_timeout"
	// StatusOrphaned: it was running when its worker died or lost the lease;
	// it is never restarted automatically because the workload may have run.
	StatusOrphaned Status = "orphaned"
	// StatusBlocked: the scan denied it, or a reviewer rejected it; nothing ran.
	StatusBlocked Status = "blocked"
	// StatusPendingReview: the scan asked for a human decision before it may run.
	StatusPendingReview Status = "pending_review"
)

// AllStatuses lists every status, in lifecycle order, for validation and for
// UIs that offer a status filter.
func AllStatuses() []Status {
	return []Status{StatusPendingReview, StatusQueued, StatusRunning, StatusCompleted, StatusFailed,
		StatusCancelled, StatusHardTimeout, StatusOrphaned, StatusBlocked}
}

// transitions is the one table of allowed status changes:
//
//	pending_review ─► queued | blocked (rejected) | cancelled
//	queued         ─► running (Claim) | cancelled
//	running        ─► completed | failed | cancelled | hard_timeout (Finish)
//	               └► orphaned (Reconcile, restart, or a worker reporting it)
//
// completed, failed, cancelled, hard_timeout, orphaned and blocked are
// terminal: nothing leaves them, and only their cleanup outcome may still be
// recorded. Every backend goes
// through CheckTransition, so no write path can invent its own rules.
var transitions = map[Status][]Status{
	StatusPendingReview: {StatusQueued, StatusBlocked, StatusCancelled},
	StatusQueued:        {StatusRunning, StatusCancelled},
	StatusRunning:       {StatusCompleted, StatusFailed, StatusCancelled, StatusHardTimeout, StatusOrphaned},
}

// Valid reports whether s is one of the known statuses; unknown statuses are
// rejected rather than stored, so a typo never creates an unreachable record.
func (s Status) Valid() bool {
	switch s {
	case StatusQueued, StatusRunning, StatusCompleted, StatusFailed, StatusCancelled,
		StatusHardTimeout, StatusOrphaned, StatusBlocked, StatusPendingReview:
		return true
	}
	return false
}

// Terminal reports whether s is final: a terminal record never changes status
// again and its result is the canonical one.
func (s Status) Terminal() bool {
	switch s {
	case StatusCompleted, StatusFailed, StatusCancelled, StatusHardTimeout, StatusOrphaned, StatusBlocked:
		return true
	}
	return false
}

// Initial reports whether a record may be created in status s: queued (allowed
// or approved calls), pending_review (held for a reviewer) or blocked (denied,
// recorded so the panel and audit can show it).
func (s Status) Initial() bool {
	return s == StatusQueued || s == StatusPendingReview || s == StatusBlocked
}

// CanTransition reports whether the table allows from → to. Staying in the
// same status is not a transition and is reported as false.
func CanTransition(from, to Status) bool {
	for _, t := range transitions[from] {
		if t == to {
			return true
		}
	}
	return false
}

// CheckTransition returns an error wrapping ErrInvalidTransition when the
// table does not allow from → to, so callers can map it to a 409.
func CheckTransition(from, to Status) error {
	if !to.Valid() {
		return fmt.Errorf("status %q: %w", to, ErrInvalidRecord)
	}
	if !CanTransition(from, to) {
		return fmt.Errorf("%s → %s: %w", from, to, ErrInvalidTransition)
	}
	return nil
}
