// Package service is what toolwarden does with one tool call, whatever the
// door it came through (REST, MCP, the MCP gateway): extract the content,
// scan it, store the decision as an execution record, queue what is
// allowed, and wait a bounded time for the result. The HTTP API and the MCP
// server are thin adapters over it, so both decide and record alike.
package service

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/toolwarden/toolwarden/engine"
	"github.com/toolwarden/toolwarden/engine/analyze"
	"github.com/toolwarden/toolwarden/engine/report"
	"github.com/toolwarden/toolwarden/execution"
	"github.com/toolwarden/toolwarden/sdk"
)

// Service submits tool calls. It holds no state beyond its dependencies.
type Service struct {
	Engine  *engine.Engine
	Backend execution.Backend
}

// TooLargeError reports content over the scan size bound, naming the field.
type TooLargeError struct {
	Field string
	Err   error
}

// Error names the field whose content is over the bound.
func (e *TooLargeError) Error() string { return fmt.Sprintf("field %q: %v", e.Field, e.Err) }

// Unwrap returns the analyzer's size error.
func (e *TooLargeError) Unwrap() error { return e.Err }

// Scan scans every piece of req and merges the reports into one: the
// decision over several code blocks is that of all their findings together.
func (s *Service) Scan(ctx context.Context, req *ToolRequest, pieces []Piece) (*sdk.SafetyReport, error) {
	rep, _, err := s.scan(ctx, req, pieces)
	return rep, err
}

// scan is Scan that also reports whether any piece uses the network.
func (s *Service) scan(ctx context.Context, req *ToolRequest, pieces []Piece) (*sdk.SafetyReport, bool, error) {
	var reps []*sdk.SafetyReport
	network := false
	for _, p := range pieces {
		rep, facts, err := s.Engine.ScanWithFacts(ctx, req.EngineRequest(p))
		if err != nil {
			var tl *analyze.TooLargeError
			if errors.As(err, &tl) {
				return nil, false, &TooLargeError{Field: p.Field, Err: err}
			}
			return nil, false, &FieldError{p.Field, err.Error()}
		}
		network = network || engine.UsesNetwork(facts)
		reps = append(reps, rep)
	}
	if len(reps) == 1 {
		return reps[0], network, nil
	}
	var all []sdk.Finding
	var elapsed time.Duration
	type key struct {
		rule, evidence string
		line           int
	}
	seen := map[key]bool{}
	for _, r := range reps {
		for _, f := range r.Findings {
			// A finding repeated by several fields (the same command
			// in command and script) is reported once.
			k := key{f.RuleID, f.Evidence, f.Line}
			if seen[k] {
				continue
			}
			seen[k] = true
			all = append(all, f)
		}
		elapsed += time.Duration(r.ElapsedMS * float64(time.Millisecond))
	}
	first := reps[0]
	start, _ := time.Parse(time.RFC3339Nano, first.Timestamp)
	return report.Build(report.Meta{ScanID: first.ScanID, ToolName: first.ToolName, Language: first.Language,
		Start: start, Elapsed: elapsed}, all, s.Engine.Policy()), network, nil
}

// Submit scans req and stores the decision: denied → a blocked record,
// nothing queued; held by block_on_review → pending_review; otherwise queued
// for an executor, then waited on for at most wait. done reports that the
// returned record is terminal. A wait that ends first is not an error.
func (s *Service) Submit(ctx context.Context, req *ToolRequest, owner string, wait time.Duration) (rec *execution.Record, done bool, err error) {
	pieces, err := req.Pieces()
	if err != nil {
		return nil, false, err
	}
	if len(pieces) != 1 {
		// Every field is judged first: a deny in any of them is
		// reported as such. What is not denied still cannot run as one
		// execution (which field would run is ambiguous).
		rep, _, err := s.scan(ctx, req, pieces)
		if err == nil && rep.Decision == sdk.Deny {
			return nil, false, &FieldError{pieces[1].Field, "denied: " + rep.Summary}
		}
		return nil, false, &FieldError{pieces[1].Field, "an execution runs one content field; send one field (or one block) per execution"}
	}
	if req.TimeoutSeconds < 0 {
		return nil, false, &FieldError{"timeout_seconds", "must be >= 0"}
	}
	rep, network, err := s.scan(ctx, req, pieces)
	if err != nil {
		return nil, false, err
	}
	rec = &execution.Record{
		NetworkUse:     network,
		ExecutionID:    execution.NewID(),
		ToolName:       req.ToolName,
		ConversationID: req.ConversationID,
		Language:       rep.Language,
		Content:        pieces[0].Content,
		Cwd:            req.Cwd,
		EnvNames:       sortedKeys(req.Env),
		Env:            req.Env,
		TimeoutMS:      int64(req.TimeoutSeconds * 1000),
		OwnerKeyID:     owner,
		SafetyReport:   rep,
	}
	switch {
	case rep.Decision == sdk.Deny:
		rec.Status = execution.StatusBlocked
		rec.Env = nil // never stored for a call that cannot run
		rec.StatusReason = rep.Summary
		rec.IsError = true
		rec.Error = "TOOL_SAFETY_BLOCKED: " + rep.Summary
	case rep.Blocked:
		rec.Status = execution.StatusPendingReview
		rec.StatusReason = "held for human review (block_on_review): " + rep.Summary
	default:
		rec.Status = execution.StatusQueued
	}
	if err := s.Backend.Create(ctx, rec); err != nil {
		return nil, false, fmt.Errorf("store execution: %w", err)
	}
	if rec.Status != execution.StatusQueued {
		return rec, rec.Status.Terminal(), nil
	}
	got, done, err := execution.Wait(ctx, s.Backend, rec.ExecutionID, wait)
	if err != nil {
		return rec, false, err
	}
	if got == nil {
		got = rec
	}
	return got, done, nil
}

// Load fetches a record the caller may see: all of them when seesAll
// (reviewers, admins), else only those the owner created. Someone else's
// record is reported as not found, so ids cannot be probed.
func (s *Service) Load(ctx context.Context, id, owner string, seesAll bool) (*execution.Record, error) {
	r, err := s.Backend.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	if !seesAll && r.OwnerKeyID != owner {
		return nil, fmt.Errorf("execution %s: %w", id, execution.ErrNotFound)
	}
	return r, nil
}

func sortedKeys(m map[string]string) []string {
	if len(m) == 0 {
		return nil
	}
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
