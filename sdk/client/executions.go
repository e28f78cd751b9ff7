package client

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/toolwarden/toolwarden/sdk"
)

// Scan judges a tool call without running it.
func (c *Client) Scan(ctx context.Context, req ToolRequest) (*sdk.SafetyReport, error) {
	var rep sdk.SafetyReport
	if _, err := c.do(ctx, call{method: http.MethodPost, path: "/v1/scan", body: req, idempotent: true}, &rep); err != nil {
		return nil, err
	}
	return &rep, nil
}

// Submit scans a tool call and, when allowed, queues it and waits up to
// req.WaitSeconds for the result. A denied call is not an error: the
// returned Execution is blocked and carries its SafetyReport. A call held
// for review is pending_review; one still running when the wait ends is
// queued or running (use Wait).
func (c *Client) Submit(ctx context.Context, req ToolRequest) (*Execution, error) {
	var raw json.RawMessage
	status, err := c.do(ctx, call{method: http.MethodPost, path: "/v1/executions", body: req,
		accept: []int{http.StatusOK, http.StatusAccepted, http.StatusForbidden}}, &raw)
	if err != nil {
		return nil, err
	}
	var probe struct {
		ExecutionID string `json:"execution_id"`
	}
	_ = json.Unmarshal(raw, &probe)
	if probe.ExecutionID == "" {
		// A 403 without a record is an authorization error (the key's
		// role), not a denial of the call: report the API's own words.
		ae := &APIError{StatusCode: status, Code: "forbidden", Message: "the API key may not submit executions"}
		var wrapped struct {
			Error *APIError `json:"error"`
		}
		wrapped.Error = ae
		_ = json.Unmarshal(raw, &wrapped)
		ae.StatusCode = status
		return nil, ae
	}
	var e Execution
	if err := json.Unmarshal(raw, &e); err != nil {
		return nil, fmt.Errorf("toolwarden client: decode answer of POST /v1/executions: %w", err)
	}
	return &e, nil
}

// Get fetches an execution (with up to 4096 bytes of partial output while
// it runs).
func (c *Client) Get(ctx context.Context, id string) (*Execution, error) {
	var e Execution
	if _, err := c.do(ctx, call{method: http.MethodGet, path: "/v1/executions/" + url.PathEscape(id), idempotent: true}, &e); err != nil {
		return nil, err
	}
	return &e, nil
}

// WaitOnce waits at most timeout (bounded by the server's max wait) for an
// execution to finish and returns what it saw; WaitTimedOut is set when
// the execution is still going.
func (c *Client) WaitOnce(ctx context.Context, id string, timeout time.Duration) (*Execution, error) {
	secs := timeout.Seconds()
	var e Execution
	if _, err := c.do(ctx, call{method: http.MethodPost, path: "/v1/executions/" + url.PathEscape(id) + "/wait",
		body: map[string]any{"timeout_seconds": secs}, idempotent: true}, &e); err != nil {
		return nil, err
	}
	return &e, nil
}

// DefaultWaitStep is the bounded step of Wait.
const DefaultWaitStep = 20 * time.Second

// Wait waits in bounded steps (step each; DefaultWaitStep when 0) until the
// execution finishes or ctx ends, calling progress (when not nil) with
// every observation of an unfinished execution. No request is held open
// longer than a step, so proxies and load balancers never cut a long wait.
func (c *Client) Wait(ctx context.Context, id string, step time.Duration, progress func(*Execution)) (*Execution, error) {
	if step <= 0 {
		step = DefaultWaitStep
	}
	for {
		began := time.Now()
		e, err := c.WaitOnce(ctx, id, step)
		if err != nil {
			return nil, err
		}
		if e.Terminal() {
			return e, nil
		}
		if progress != nil {
			progress(e)
		}
		if err := ctx.Err(); err != nil {
			return e, err
		}
		if time.Since(began) < step/4 {
			// An answer well before the step (e.g. a held execution) is
			// not waited on by the server: pause rather than spin.
			t := time.NewTimer(step / 4)
			select {
			case <-ctx.Done():
				t.Stop()
				return e, ctx.Err()
			case <-t.C:
			}
		}
	}
}

// Cancel asks for an execution to be cancelled (reason may be empty).
func (c *Client) Cancel(ctx context.Context, id, reason string) (*Execution, error) {
	var e Execution
	if _, err := c.do(ctx, call{method: http.MethodPost, path: "/v1/executions/" + url.PathEscape(id) + "/cancel",
		body: map[string]string{"reason": reason}, idempotent: true}, &e); err != nil {
		return nil, err
	}
	return &e, nil
}

// CancelConversation cancels the caller's unfinished executions of one
// conversation (every owner's for reviewers and admins).
func (c *Client) CancelConversation(ctx context.Context, conversationID, reason string) (*ConversationCancel, error) {
	var out ConversationCancel
	if _, err := c.do(ctx, call{method: http.MethodPost, path: "/v1/conversations/" + url.PathEscape(conversationID) + "/cancel",
		body: map[string]string{"reason": reason}, idempotent: true}, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// List lists executions, newest first, one page at a time.
func (c *Client) List(ctx context.Context, opt ListOptions) (*Page, error) {
	q := url.Values{}
	if opt.ConversationID != "" {
		q.Set("conversation_id", opt.ConversationID)
	}
	if opt.Status != "" {
		q.Set("status", opt.Status)
	}
	if opt.Limit > 0 {
		q.Set("limit", strconv.Itoa(opt.Limit))
	}
	if opt.Cursor != "" {
		q.Set("cursor", opt.Cursor)
	}
	var p Page
	if _, err := c.do(ctx, call{method: http.MethodGet, path: "/v1/executions", query: q, idempotent: true}, &p); err != nil {
		return nil, err
	}
	return &p, nil
}

// Output reads one chunk of a finished execution's full output.
func (c *Client) Output(ctx context.Context, id string, offset int64, limit int) (*OutputChunk, error) {
	q := url.Values{"offset": {strconv.FormatInt(offset, 10)}}
	if limit > 0 {
		q.Set("limit", strconv.Itoa(limit))
	}
	var ch OutputChunk
	if _, err := c.do(ctx, call{method: http.MethodGet, path: "/v1/executions/" + url.PathEscape(id) + "/output", query: q, idempotent: true}, &ch); err != nil {
		return nil, err
	}
	return &ch, nil
}

// Approve queues an execution held for review (reviewer role).
func (c *Client) Approve(ctx context.Context, id, reason string) (*Execution, error) {
	return c.review(ctx, id, "approve", reason)
}

// Reject ends an execution held for review as blocked (reviewer role).
func (c *Client) Reject(ctx context.Context, id, reason string) (*Execution, error) {
	return c.review(ctx, id, "reject", reason)
}

func (c *Client) review(ctx context.Context, id, verb, reason string) (*Execution, error) {
	var e Execution
	if _, err := c.do(ctx, call{method: http.MethodPost, path: "/v1/executions/" + url.PathEscape(id) + "/" + verb,
		body: map[string]string{"reason": reason}, idempotent: true}, &e); err != nil {
		return nil, err
	}
	return &e, nil
}
