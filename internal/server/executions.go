package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/toolwarden/toolwarden/internal/execution"
	"github.com/toolwarden/toolwarden/internal/reduction"
	"github.com/toolwarden/toolwarden/internal/service"
	"github.com/toolwarden/toolwarden/sdk"
)

// bindStrict decodes a JSON body, rejecting unknown fields and wrong types
// with an error that names the field. An empty body decodes to the zero
// value.
func bindStrict(c echo.Context, v any) error {
	body, err := io.ReadAll(c.Request().Body)
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return bodyTooLarge(mbe.Limit)
		}
		return apiError(http.StatusBadRequest, "invalid_request", "read body: "+err.Error())
	}
	if len(bytes.TrimSpace(body)) == 0 {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		var te *json.UnmarshalTypeError
		var se *json.SyntaxError
		var fe *service.FieldError
		switch {
		case errors.As(err, &fe):
			return fe
		case errors.As(err, &te):
			if te.Field == "" {
				return apiError(http.StatusBadRequest, "invalid_json", fmt.Sprintf("the request body must be %s, got %s", jsonKind(te.Type), jsonValueWord(te.Value)))
			}
			return service.BadField(te.Field, fmt.Sprintf("must be %s, got %s", jsonKind(te.Type), jsonValueWord(te.Value)))
		case errors.As(err, &se):
			return apiError(http.StatusBadRequest, "invalid_json", fmt.Sprintf("invalid JSON at byte %d: %v", se.Offset, err))
		case strings.HasPrefix(err.Error(), "json: unknown field "):
			f := strings.Trim(strings.TrimPrefix(err.Error(), "json: unknown field "), `"`)
			return service.BadField(f, "unknown field")
		}
		return apiError(http.StatusBadRequest, "invalid_json", err.Error())
	}
	// One JSON value per body: anything after it (a second object, stray
	// bytes) is refused rather than ignored, so what was judged is all
	// that was sent.
	if rest := bytes.TrimSpace(body[dec.InputOffset():]); len(rest) > 0 {
		return apiError(http.StatusBadRequest, "invalid_json", fmt.Sprintf("trailing data after the JSON body at byte %d", dec.InputOffset()))
	}
	return nil
}

func (s *Server) scan(c echo.Context) error {
	var req service.ToolRequest
	if err := bindStrict(c, &req); err != nil {
		return err
	}
	pieces, err := req.Pieces()
	if err != nil {
		return err
	}
	rep, err := s.svc.ScanFor(c.Request().Context(), &req, pieces, keyOf(c).ID)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, rep)
}

// createExecution scans, stores and queues, then waits a bounded time.
// Denied → 403 with the blocked record; held for review → 202 with the
// pending_review record; finished within the wait → 200 with the result;
// still going → 202 with the running (or queued) record.
func (s *Server) createExecution(c echo.Context) error {
	var req service.ToolRequest
	if err := bindStrict(c, &req); err != nil {
		return err
	}
	wait, err := s.waitDuration(req.WaitSeconds, "wait_seconds", s.cfg.WaitTimeout)
	if err != nil {
		return err
	}
	rec, done, err := s.svc.Submit(c.Request().Context(), &req, keyOf(c).ID, wait)
	if rec != nil {
		s.metrics.execCreated(rec.Status)
	}
	if err != nil {
		return err
	}
	switch {
	case rec.Status == execution.StatusBlocked && rec.SafetyReport != nil && rec.SafetyReport.Decision == sdk.Deny:
		return c.JSON(http.StatusForbidden, service.View(rec, false, 0))
	case done:
		return c.JSON(http.StatusOK, service.View(rec, true, execution.DefaultPartialOutputMaxBytes))
	}
	return c.JSON(http.StatusAccepted, service.View(rec, true, execution.DefaultPartialOutputMaxBytes))
}

// waitDuration validates a requested wait in seconds.
func (s *Server) waitDuration(v *float64, field string, def time.Duration) (time.Duration, error) {
	if v == nil {
		return def, nil
	}
	if *v < 0 || math.IsNaN(*v) || math.IsInf(*v, 0) {
		return 0, service.BadField(field, "must be a number of seconds >= 0")
	}
	d := time.Duration(*v * float64(time.Second))
	if d > s.cfg.MaxWait {
		d = s.cfg.MaxWait
	}
	return d, nil
}

// caller is the service's view of the request's API key.
func caller(c echo.Context) service.Caller {
	return service.Caller{ID: keyOf(c).ID, SeesAll: seesAll(c)}
}

// load fetches a record the caller may see; agents see only their own
// (someone else's record is reported as not found, not forbidden, so ids
// cannot be probed).
func (s *Server) load(c echo.Context) (*execution.Record, error) {
	return s.svc.Get(c.Request().Context(), c.Param("id"), caller(c))
}

// partialParams reads include_partial_output (default true) and
// partial_output_max_bytes (default 4096, at most 65536).
func partialParams(c echo.Context) (bool, int, error) {
	include := true
	if v := c.QueryParam("include_partial_output"); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return false, 0, service.BadField("include_partial_output", "must be true or false")
		}
		include = b
	}
	max := execution.DefaultPartialOutputMaxBytes
	if v := c.QueryParam("partial_output_max_bytes"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > execution.MaxPartialOutputMaxBytes {
			return false, 0, service.BadField("partial_output_max_bytes", fmt.Sprintf("must be an integer from 1 to %d", execution.MaxPartialOutputMaxBytes))
		}
		max = n
	}
	return include, max, nil
}

func (s *Server) getExecution(c echo.Context) error {
	include, max, err := partialParams(c)
	if err != nil {
		return err
	}
	r, err := s.load(c)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, service.View(r, include, max))
}

type waitRequest struct {
	TimeoutSeconds        *float64 `json:"timeout_seconds"`
	IncludePartialOutput  *bool    `json:"include_partial_output"`
	PartialOutputMaxBytes int      `json:"partial_output_max_bytes"`
}

// waitExecution waits up to timeout_seconds. Reaching the timeout while the
// run goes on is a successful observation: 200 with the running record and
// "wait_timed_out": true — never an error.
func (s *Server) waitExecution(c echo.Context) error {
	var req waitRequest
	if err := bindStrict(c, &req); err != nil {
		return err
	}
	d, err := s.waitDuration(req.TimeoutSeconds, "timeout_seconds", s.cfg.WaitTimeout)
	if err != nil {
		return err
	}
	include := req.IncludePartialOutput == nil || *req.IncludePartialOutput
	max := req.PartialOutputMaxBytes
	if max == 0 {
		max = execution.DefaultPartialOutputMaxBytes
	}
	if max < 1 || max > execution.MaxPartialOutputMaxBytes {
		return service.BadField("partial_output_max_bytes", fmt.Sprintf("must be from 1 to %d", execution.MaxPartialOutputMaxBytes))
	}
	r, done, err := s.svc.Wait(c.Request().Context(), c.Param("id"), caller(c), d)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, struct {
		*execution.Record
		WaitTimedOut bool `json:"wait_timed_out"`
	}{service.View(r, include, max), !done})
}

type reasonRequest struct {
	Reason string `json:"reason"`
}

type cancelRequest struct {
	Reason      string   `json:"reason"`
	WaitSeconds *float64 `json:"wait_seconds"`
}

// cancelExecution requests the cancel and waits up to wait_seconds
// (default 10s) for the run to end, like cancel_tool_execution: the answer
// carries the final record when it ended in time ("wait_timed_out":
// false), else the record still stopping.
func (s *Server) cancelExecution(c echo.Context) error {
	var req cancelRequest
	if err := bindStrict(c, &req); err != nil {
		return err
	}
	wait, err := s.waitDuration(req.WaitSeconds, "wait_seconds", service.DefaultCancelWait)
	if err != nil {
		return err
	}
	got, err := s.svc.Cancel(c.Request().Context(), c.Param("id"), caller(c), req.Reason, wait)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, struct {
		*execution.Record
		WaitTimedOut bool   `json:"wait_timed_out"`
		Message      string `json:"message"`
	}{service.View(got.Record, false, 0), !got.Done, got.Message})
}

// cancelConversation cancels the caller's unfinished executions of one
// conversation (everyone's for a reviewer or admin) and no others.
func (s *Server) cancelConversation(c echo.Context) error {
	var req reasonRequest
	if err := bindStrict(c, &req); err != nil {
		return err
	}
	conv := c.Param("id")
	ids, err := s.svc.CancelConversation(c.Request().Context(), conv, caller(c), req.Reason)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"conversation_id": conv, "cancelled": ids})
}

func (s *Server) listExecutions(c echo.Context) error {
	f, err := listFilter(c)
	if err != nil {
		return err
	}
	f.Cursor = c.QueryParam("cursor")
	if v := c.QueryParam("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > execution.MaxListLimit {
			return service.BadField("limit", fmt.Sprintf("must be an integer from 1 to %d", execution.MaxListLimit))
		}
		f.Limit = n
	}
	recs, next, err := s.svc.List(c.Request().Context(), f, caller(c))
	if err != nil {
		return err
	}
	out := make([]*execution.Record, len(recs))
	for i, r := range recs {
		out[i] = service.View(r, false, 0)
	}
	return c.JSON(http.StatusOK, map[string]any{"executions": out, "next_cursor": next})
}

// executionOutput serves the full output: the persisted file when the
// result was reduced, else the result itself.
func (s *Server) executionOutput(c echo.Context) error {
	r, err := s.load(c)
	if err != nil {
		return err
	}
	offset, limit := int64(0), 1<<20
	if v := c.QueryParam("offset"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 0 {
			return service.BadField("offset", "must be an integer >= 0")
		}
		offset = n
	}
	if v := c.QueryParam("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 8<<20 {
			return service.BadField("limit", "must be an integer from 1 to 8388608")
		}
		limit = n
	}
	if !r.Status.Terminal() {
		return apiError(http.StatusConflict, "not_finished", "the execution has not finished; use partial output while it runs")
	}
	if r.SpillPath == "" {
		data := []byte(r.Result)
		total := int64(len(data))
		if offset > total {
			offset = total
		}
		end := offset + int64(limit)
		if end > total {
			end = total
		}
		return c.JSON(http.StatusOK, map[string]any{"execution_id": r.ExecutionID, "offset": offset, "size": total,
			"eof": end == total, "data": string(data[offset:end]), "persisted": false})
	}
	chunk, err := reduction.ReadPersisted(s.cfg.ReductionRoot, r.SpillPath, offset, limit)
	if err != nil {
		return apiError(http.StatusGone, "output_unavailable", "persisted output cannot be read: "+err.Error())
	}
	return c.JSON(http.StatusOK, map[string]any{"execution_id": r.ExecutionID, "offset": chunk.Offset, "size": chunk.Size,
		"eof": chunk.EOF, "data": string(chunk.Data), "persisted": true, "path": r.SpillPath})
}

// approveExecution lets a reviewer queue a held execution.
func (s *Server) approveExecution(c echo.Context) error {
	return s.review(c, true)
}

// rejectExecution lets a reviewer end a held execution as blocked.
func (s *Server) rejectExecution(c echo.Context) error {
	return s.review(c, false)
}

func (s *Server) review(c echo.Context, approve bool) error {
	var req reasonRequest
	if err := bindStrict(c, &req); err != nil {
		return err
	}
	r, err := s.svc.Review(c.Request().Context(), c.Param("id"), caller(c), approve, req.Reason)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, service.View(r, false, 0))
}
