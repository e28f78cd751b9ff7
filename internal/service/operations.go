package service

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/toolwarden/toolwarden/internal/errs"
	"github.com/toolwarden/toolwarden/internal/execution"
	"github.com/toolwarden/toolwarden/internal/reduction"
)

// The operations on stored executions. REST (server/executions.go) and MCP
// (mcp/tools.go) only decode their arguments, call these and render the
// result with View, so both doors see the same records with the same
// semantics.

// Caller is who asks: the API key id (the owner of the records it
// creates) and whether its role sees every record (reviewer, admin).
type Caller struct {
	ID      string
	SeesAll bool
}

// DefaultCancelWait is how long Cancel waits for a cancelled run to end
// before it reports the cancel as requested but not yet confirmed.
const DefaultCancelWait = 10 * time.Second

// View is the one public shape of a record, whatever the door: Public (no
// environment values, no worker bookkeeping) with the partial output cut
// to a tail of maxPartial bytes while the record runs and include is set,
// and its truncated flag saying whether anything was left out; none once
// it ended or when not asked for.
func View(r *execution.Record, include bool, maxPartial int) *execution.Record {
	c := r.Public()
	if include && !c.Status.Terminal() {
		c.PartialOutput, c.PartialOutputTruncated = c.PartialTail(maxPartial)
	} else {
		c.PartialOutput = ""
	}
	return c
}

// AddStore adds b to Others unless the service already searches it. Call
// it before serving: Others is not guarded against concurrent use.
func (s *Service) AddStore(b execution.Backend) {
	for _, have := range s.stores() {
		if have == b {
			return
		}
	}
	s.Others = append(s.Others, b)
}

// capped returns r with its result re-capped to MaxResultBytes (a copy
// when anything changed). A result that cannot be re-capped is an error,
// never shown over the cap.
func (s *Service) capped(r *execution.Record) (*execution.Record, error) {
	if r == nil {
		return nil, nil
	}
	max := s.MaxResultBytes
	if max <= 0 {
		max = reduction.DefaultMaxLength
	}
	if len(r.Result) <= max {
		return r, nil
	}
	cfg := reduction.Config{MaxLength: max, Root: s.ReductionRoot, ConversationID: r.ConversationID, ExecutionID: r.ExecutionID}
	res, spill, err := reduction.Recap(cfg, r.Result, r.SpillPath)
	if err != nil && (res == "" || len(res) > max) {
		return nil, fmt.Errorf("execution %s: re-cap stored result: %w", r.ExecutionID, err)
	}
	c := r.Clone()
	c.Result, c.SpillPath = res, spill
	return c, nil
}

// stores lists where records live: the service's backend, then Others.
func (s *Service) stores() []execution.Backend {
	return append([]execution.Backend{s.Backend}, s.Others...)
}

// locate finds a record the caller may see and the store holding it.
// Someone else's record is reported as not found, so ids cannot be probed.
func (s *Service) locate(ctx context.Context, id string, c Caller) (*execution.Record, execution.Backend, error) {
	if id == "" {
		return nil, nil, BadField("execution_id", "required")
	}
	var err error
	for _, b := range s.stores() {
		var r *execution.Record
		r, err = b.Get(ctx, id)
		if errors.Is(err, execution.ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, nil, err
		}
		if !c.SeesAll && r.OwnerKeyID != c.ID {
			break
		}
		return r, b, nil
	}
	if err != nil && !errors.Is(err, execution.ErrNotFound) {
		return nil, nil, err
	}
	return nil, nil, fmt.Errorf("execution %s: %w", id, execution.ErrNotFound)
}

// Get returns the record id if the caller may see it.
func (s *Service) Get(ctx context.Context, id string, c Caller) (*execution.Record, error) {
	r, _, err := s.locate(ctx, id, c)
	if err != nil {
		return nil, err
	}
	return s.capped(r)
}

// Wait waits up to d for id to end and returns the newest record; done
// reports that it ended. A wait that times out is a normal observation,
// not an error.
func (s *Service) Wait(ctx context.Context, id string, c Caller, d time.Duration) (*execution.Record, bool, error) {
	_, b, err := s.locate(ctx, id, c)
	if err != nil {
		return nil, false, err
	}
	r, done, err := execution.Wait(ctx, b, id, d)
	if err != nil {
		return r, done, err
	}
	r, err = s.capped(r)
	return r, done, err
}

// Cancellation is the answer to a cancel: the newest record, whether it
// ended within the cancel's wait, and a sentence saying what happened.
type Cancellation struct {
	Record  *execution.Record
	Done    bool
	Message string
}

// Cancel requests cancellation of id and then waits up to wait (zero:
// DefaultCancelWait) for the record to end, so the answer usually carries
// the final state — cancelled, or orphaned with cleanup_unconfirmed for an
// upstream MCP call that cannot confirm it stopped. A run still stopping
// when the wait ends is reported as requested (Done false); the cancel
// itself is not bounded by the wait. reason defaults to "cancelled by
// <caller>". A record that already ended is returned unchanged.
func (s *Service) Cancel(ctx context.Context, id string, c Caller, reason string, wait time.Duration) (*Cancellation, error) {
	r, b, err := s.locate(ctx, id, c)
	if err != nil {
		return nil, err
	}
	if r.Status.Terminal() {
		if r, err = s.capped(r); err != nil {
			return nil, err
		}
		return &Cancellation{Record: r, Done: true, Message: "already finished as " + string(r.Status) + "; nothing to cancel"}, nil
	}
	if reason == "" {
		reason = "cancelled by " + c.ID
	}
	if wait <= 0 {
		wait = DefaultCancelWait
	}
	if _, err := b.RequestCancel(ctx, id, reason); err != nil {
		return nil, err
	}
	got, done, err := execution.Wait(ctx, b, id, wait)
	if err != nil {
		return nil, err
	}
	if got, err = s.capped(got); err != nil {
		return nil, err
	}
	msg := "cancelled"
	switch {
	case !done:
		msg = "cancel requested; the run is stopping — follow it with wait"
	case got.Status == execution.StatusOrphaned:
		msg = "cancellation sent but not confirmed: the record is orphaned with cleanup " + string(got.Cleanup)
	case got.Status != execution.StatusCancelled:
		msg = "it finished as " + string(got.Status) + " before the cancel took effect"
	}
	return &Cancellation{Record: got, Done: done, Message: msg}, nil
}

// CancelConversation cancels the unfinished executions of one
// conversation — the caller's own, or everyone's for a caller who sees
// all — in every store, and returns their ids. ConversationCancelled is
// then told, once per owner concerned, so their workspaces go too. It
// does not wait for the runs to end.
func (s *Service) CancelConversation(ctx context.Context, conv string, c Caller, reason string) ([]string, error) {
	if conv == "" {
		return nil, BadField("conversation_id", "required")
	}
	if reason == "" {
		reason = "conversation " + conv + " cancelled"
	}
	ids := []string{}
	owners := map[string]bool{}
	if !c.SeesAll {
		owners[c.ID] = true
	}
	var errList []error
	for _, b := range s.stores() {
		f := execution.Filter{ConversationID: conv, Limit: execution.MaxListLimit}
		if !c.SeesAll {
			f.Owner = c.ID
		}
		for {
			recs, next, err := b.List(ctx, f)
			if err != nil {
				return ids, fmt.Errorf("cancel conversation %s: %w", conv, err)
			}
			for _, r := range recs {
				owners[r.OwnerKeyID] = true
				if r.Status.Terminal() {
					continue
				}
				if _, err := b.RequestCancel(ctx, r.ExecutionID, reason); err != nil {
					errList = append(errList, fmt.Errorf("cancel %s: %w", r.ExecutionID, err))
					continue
				}
				ids = append(ids, r.ExecutionID)
			}
			if next == "" {
				break
			}
			f.Cursor = next
		}
	}
	if hook := s.ConversationCancelled; hook != nil {
		for owner := range owners {
			hook(ctx, owner, conv)
		}
	}
	return ids, errors.Join(errList...)
}

// Review decides a record held by block_on_review: approve queues it for
// an executor, reject ends it blocked. Only reviewers may call it (the
// adapters check the role); who is recorded in the status reason.
func (s *Service) Review(ctx context.Context, id string, c Caller, approve bool, reason string) (*execution.Record, error) {
	err := s.Backend.Update(ctx, id, func(r *execution.Record) error {
		if r.Status != execution.StatusPendingReview {
			return fmt.Errorf("execution %s is %s, not pending_review: %w", id, r.Status, execution.ErrInvalidTransition)
		}
		if approve {
			r.Status = execution.StatusQueued
			r.StatusReason = "approved by " + c.ID
		} else {
			r.Status = execution.StatusBlocked
			r.IsError = true
			r.Error = "TOOL_SAFETY_REJECTED: rejected by reviewer"
			r.StatusReason = "rejected by " + c.ID
		}
		if reason != "" {
			r.StatusReason += ": " + reason
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	r, err := s.Backend.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	return s.capped(r)
}

// List returns a page of the records the caller may see (only its own
// unless it sees all), newest first, from the service's backend. A bad
// cursor is a FieldError naming "cursor".
func (s *Service) List(ctx context.Context, f execution.Filter, c Caller) ([]*execution.Record, string, error) {
	if !c.SeesAll {
		f.Owner = c.ID
	}
	recs, next, err := s.Backend.List(ctx, f)
	if err != nil {
		if errs.Has(err, errs.InvalidCursor) {
			return nil, "", BadField("cursor", err.Error())
		}
		return nil, "", err
	}
	for i, r := range recs {
		if recs[i], err = s.capped(r); err != nil {
			return nil, "", err
		}
	}
	return recs, next, nil
}
