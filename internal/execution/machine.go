package execution

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"
)

// This file is the state machine. Backends load a record, call one of these
// functions, and persist the result atomically; none of them decides a
// transition on its own.

// NewID returns a fresh execution id.
func NewID() string { return "exe_" + strings.ReplaceAll(uuid.NewString(), "-", "") }

// Canonical time precision: microseconds in UTC, so that every backend orders
// and compares the same instants (Redis sorted-set scores are float64).
func canon(t time.Time) time.Time { return t.UTC().Truncate(time.Microsecond) }

// Canon returns t as backends store it (UTC, microsecond precision, no
// monotonic reading).
func Canon(t time.Time) time.Time { return canon(t) }

// PrepareNew validates a record for Create and fills its defaults: id,
// created_at, revision 1, and no worker state. It rejects statuses a record
// cannot start in.
func PrepareNew(r *Record, now time.Time) error {
	if r == nil {
		return fmt.Errorf("create: nil record: %w", ErrInvalidRecord)
	}
	if r.Status == "" {
		r.Status = StatusQueued
	}
	if !r.Status.Initial() {
		return fmt.Errorf("create with status %q: %w", r.Status, ErrInvalidRecord)
	}
	if !r.Cleanup.Valid() {
		return fmt.Errorf("create with cleanup %q: %w", r.Cleanup, ErrInvalidRecord)
	}
	if r.ExecutionID == "" {
		r.ExecutionID = NewID()
	}
	if strings.ContainsAny(r.ExecutionID, " \t\r\n") || len(r.ExecutionID) > 200 {
		return fmt.Errorf("create: execution id %q: %w", r.ExecutionID, ErrInvalidRecord)
	}
	if r.CreatedAt.IsZero() {
		r.CreatedAt = now
	}
	r.CreatedAt = canon(r.CreatedAt)
	r.WorkerID, r.LeaseExpiresAt, r.HeartbeatAt, r.Attempt = "", nil, nil, 0
	r.CancelRequested, r.CancelReason = false, ""
	if r.Status == StatusBlocked && r.EndedAt == nil {
		r.EndedAt = timePtr(r.CreatedAt)
	}
	r.Revision = 1
	return nil
}

// ApplyClaim moves a queued record to running for workerID. It returns
// ErrInvalidTransition when the record is not queued (a cancelled or already
// claimed record that is still in the queue must be skipped, not run).
func ApplyClaim(r *Record, workerID string, now time.Time, lease time.Duration) error {
	if workerID == "" {
		return fmt.Errorf("claim %s: empty worker id: %w", r.ExecutionID, ErrInvalidRecord)
	}
	if err := CheckTransition(r.Status, StatusRunning); err != nil {
		return fmt.Errorf("claim %s: %w", r.ExecutionID, err)
	}
	now = canon(now)
	r.Status = StatusRunning
	r.WorkerID = workerID
	r.StartedAt = timePtr(now)
	r.HeartbeatAt = timePtr(now)
	r.LeaseExpiresAt = timePtr(canon(now.Add(lease)))
	r.Attempt++
	r.Revision++
	return nil
}

// holdsLease reports whether workerID may still write r as its worker.
func holdsLease(r *Record, workerID string, now time.Time) error {
	if r.WorkerID != workerID || workerID == "" {
		return fmt.Errorf("%s is held by worker %q, not %q: %w", r.ExecutionID, r.WorkerID, workerID, ErrLeaseLost)
	}
	if r.Status == StatusOrphaned {
		return fmt.Errorf("%s was orphaned (%s): %w", r.ExecutionID, r.StatusReason, ErrLeaseLost)
	}
	if r.Status.Terminal() {
		return fmt.Errorf("%s is %s: %w", r.ExecutionID, r.Status, ErrAlreadyFinished)
	}
	if r.Status != StatusRunning {
		return fmt.Errorf("%s is %s: %w", r.ExecutionID, r.Status, ErrLeaseLost)
	}
	if r.LeaseExpiresAt == nil || !now.Before(*r.LeaseExpiresAt) {
		return fmt.Errorf("%s lease expired: %w", r.ExecutionID, ErrLeaseLost)
	}
	return nil
}

// ApplyHeartbeat extends workerID's lease, or returns ErrLeaseLost (or
// ErrAlreadyFinished) when the worker no longer owns the record.
func ApplyHeartbeat(r *Record, workerID string, now time.Time, lease time.Duration) error {
	if err := holdsLease(r, workerID, now); err != nil {
		return fmt.Errorf("heartbeat: %w", err)
	}
	now = canon(now)
	r.HeartbeatAt = timePtr(now)
	r.LeaseExpiresAt = timePtr(canon(now.Add(lease)))
	r.Revision++
	return nil
}

// ApplyFinish writes final's outcome onto the stored running record r. Only
// the outcome fields are taken from final (status, times, exit code, result,
// error, partial output, isolation backend, cleanup, status reason); the
// request and the identity stay as stored. Rejected with ErrAlreadyFinished
// for a terminal record and ErrLeaseLost for a worker that lost the lease.
func ApplyFinish(r *Record, workerID string, final *Record, now time.Time) error {
	if final == nil {
		return fmt.Errorf("finish %s: nil outcome: %w", r.ExecutionID, ErrInvalidRecord)
	}
	if err := holdsLease(r, workerID, now); err != nil {
		return fmt.Errorf("finish: %w", err)
	}
	if !final.Status.Terminal() {
		return fmt.Errorf("finish %s with non-terminal status %q: %w", r.ExecutionID, final.Status, ErrInvalidTransition)
	}
	if err := CheckTransition(r.Status, final.Status); err != nil {
		return fmt.Errorf("finish %s: %w", r.ExecutionID, err)
	}
	if !final.Cleanup.Valid() {
		return fmt.Errorf("finish %s with cleanup %q: %w", r.ExecutionID, final.Cleanup, ErrInvalidRecord)
	}
	now = canon(now)
	r.Status = final.Status
	ended := now
	if final.EndedAt != nil {
		ended = canon(*final.EndedAt)
	}
	r.EndedAt = timePtr(ended)
	r.DurationMS = final.DurationMS
	if r.DurationMS == 0 && r.StartedAt != nil {
		r.DurationMS = ended.Sub(*r.StartedAt).Milliseconds()
	}
	if final.ExitCode != nil {
		v := *final.ExitCode
		r.ExitCode = &v
	}
	r.Result, r.Error, r.IsError = final.Result, final.Error, final.IsError
	if final.PartialOutputUpdatedAt != nil || final.PartialOutput != "" {
		r.PartialOutput = final.PartialOutput
		r.PartialOutputBytes = final.PartialOutputBytes
		r.PartialOutputTruncated = final.PartialOutputTruncated
		r.PartialOutputUpdatedAt = cloneTime(final.PartialOutputUpdatedAt)
	}
	if final.IsolationBackend != "" {
		r.IsolationBackend = final.IsolationBackend
	}
	if final.SpillPath != "" {
		r.SpillPath = final.SpillPath
	}
	if final.NetworkConnections != nil || final.NetworkConnectionsOmitted != 0 {
		r.NetworkConnections = append([]NetworkConnection(nil), final.NetworkConnections...)
		r.NetworkConnectionsOmitted = final.NetworkConnectionsOmitted
	}
	r.Cleanup, r.CleanupDetail = final.Cleanup, final.CleanupDetail
	if final.StatusReason != "" {
		r.StatusReason = final.StatusReason
	}
	if final.Workspace != "" {
		r.Workspace, r.WorkspaceUID = final.Workspace, final.WorkspaceUID
	}
	if final.EffectiveTimeoutMS > 0 {
		r.EffectiveTimeoutMS = final.EffectiveTimeoutMS
	}
	r.StopReason = final.StopReason
	r.LeaseExpiresAt = nil
	r.Env = nil // the run is over: environment values (maybe secrets) leave the store
	r.Revision++
	return nil
}

// ApplyCancel cancels r: queued and pending_review records become cancelled at
// once; a running record gets CancelRequested for its worker to act on. It
// reports whether r changed; a terminal record is left as it is.
func ApplyCancel(r *Record, reason string, now time.Time) (bool, error) {
	switch {
	case r.Status.Terminal():
		return false, nil
	case r.Status == StatusRunning:
		if r.CancelRequested {
			return false, nil
		}
		r.CancelRequested, r.CancelReason = true, reason
	default:
		if err := CheckTransition(r.Status, StatusCancelled); err != nil {
			return false, fmt.Errorf("cancel %s: %w", r.ExecutionID, err)
		}
		r.Status = StatusCancelled
		r.CancelRequested, r.CancelReason = true, reason
		r.StatusReason = reason
		r.Env = nil
		r.EndedAt = timePtr(canon(now))
		if r.StartedAt != nil {
			r.DurationMS = r.EndedAt.Sub(*r.StartedAt).Milliseconds()
		}
	}
	r.Revision++
	return true, nil
}

// Orphaned reports whether a running record should be orphaned: its lease
// expired, or live is non-nil and its worker is not in it. The returned
// reason is stored as StatusReason.
func Orphaned(r *Record, live map[string]bool, now time.Time) (string, bool) {
	if r.Status != StatusRunning {
		return "", false
	}
	if live != nil && !live[r.WorkerID] {
		return fmt.Sprintf("worker %q is gone", r.WorkerID), true
	}
	if r.LeaseExpiresAt == nil || !now.Before(*r.LeaseExpiresAt) {
		return fmt.Sprintf("lease of worker %q expired", r.WorkerID), true
	}
	return "", false
}

// ApplyOrphan marks a running record orphaned with reason. Its cleanup is
// unconfirmed: nobody saw the worker reclaim the workload's processes.
func ApplyOrphan(r *Record, reason string, now time.Time) error {
	if err := CheckTransition(r.Status, StatusOrphaned); err != nil {
		return fmt.Errorf("orphan %s: %w", r.ExecutionID, err)
	}
	now = canon(now)
	r.Status = StatusOrphaned
	r.StatusReason = reason
	r.IsError = true
	r.Env = nil
	if r.Error == "" {
		r.Error = "execution orphaned: " + reason
	}
	r.EndedAt = timePtr(now)
	if r.StartedAt != nil {
		r.DurationMS = now.Sub(*r.StartedAt).Milliseconds()
	}
	if r.Cleanup == CleanupNone {
		r.Cleanup = CleanupUnconfirmed
		r.CleanupDetail = "worker " + r.WorkerID + " did not report cleanup"
	}
	r.LeaseExpiresAt = nil
	r.Revision++
	return nil
}

// ApplyUpdate runs fn on a copy of r and returns the new record if the change
// is allowed:
//   - id, created_at, worker, lease, attempt and revision are owned by the
//     backend and must not change;
//   - status may only move along the table, and not into or out of running
//     (that is Claim, Finish and Reconcile, which check the lease);
//   - a terminal record may only change its cleanup outcome, so the result
//     stays canonical.
//
// enqueue is true when the change moved the record to queued.
func ApplyUpdate(r *Record, fn func(*Record) error, now time.Time) (next *Record, enqueue bool, err error) {
	c := r.Clone()
	if err := fn(c); err != nil {
		return nil, false, err
	}
	if c.ExecutionID != r.ExecutionID || !c.CreatedAt.Equal(r.CreatedAt) || c.WorkerID != r.WorkerID ||
		!eqTime(c.LeaseExpiresAt, r.LeaseExpiresAt) || c.Attempt != r.Attempt || c.Revision != r.Revision {
		return nil, false, fmt.Errorf("update %s: id, created_at, worker, lease, attempt and revision are backend-owned: %w",
			r.ExecutionID, ErrInvalidRecord)
	}
	if !c.Cleanup.Valid() {
		return nil, false, fmt.Errorf("update %s: cleanup %q: %w", r.ExecutionID, c.Cleanup, ErrInvalidRecord)
	}
	if r.Status.Terminal() {
		a, b := *c, *r
		a.Cleanup, a.CleanupDetail, b.Cleanup, b.CleanupDetail = "", "", "", ""
		ja, _ := json.Marshal(&a)
		jb, _ := json.Marshal(&b)
		if !bytes.Equal(ja, jb) {
			return nil, false, fmt.Errorf("update %s: record is %s, only cleanup may change: %w", r.ExecutionID, r.Status, ErrAlreadyFinished)
		}
	}
	if c.Status != r.Status {
		if c.Status == StatusRunning || r.Status == StatusRunning {
			return nil, false, fmt.Errorf("update %s: %s → %s goes through Claim/Finish/Reconcile: %w",
				r.ExecutionID, r.Status, c.Status, ErrInvalidTransition)
		}
		if err := CheckTransition(r.Status, c.Status); err != nil {
			return nil, false, fmt.Errorf("update %s: %w", r.ExecutionID, err)
		}
		if c.Status.Terminal() && c.EndedAt == nil {
			c.EndedAt = timePtr(canon(now))
		}
		if c.Status.Terminal() {
			c.Env = nil
		}
		enqueue = c.Status == StatusQueued
	}
	c.Revision = r.Revision + 1
	return c, enqueue, nil
}

func eqTime(a, b *time.Time) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Equal(*b)
}
