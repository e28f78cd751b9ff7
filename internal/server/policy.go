package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"slices"
	"sort"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/toolwarden/toolwarden/engine"
	"github.com/toolwarden/toolwarden/internal/policies"
	"github.com/toolwarden/toolwarden/internal/policystore"
	"github.com/toolwarden/toolwarden/sdk"
)

// The policy routes manage the active policy as versioned revisions
// (package policystore): read it, replace it after strict validation, try
// a candidate against recorded scans, list and roll back. Reviewers may
// read; only admins change anything.

// ReplayScan is one recorded scan a policy dry run judges again.
type ReplayScan struct {
	ScanID  string
	Request engine.Request
}

// Dry-run bounds: how many recorded scans one dry run replays by default
// and at most.
const (
	DefaultDryRunLimit = 200
	MaxDryRunLimit     = 2000
	// maxChangedListed caps the changed decisions listed in one answer
	// (the count of replayed scans is exact).
	maxChangedListed = 200
)

func (s *Server) policyRoutes(v1 *routes, reviewer, admin echo.MiddlewareFunc) {
	v1.GET("/policy", s.getPolicy, reviewer)
	v1.PUT("/policy", s.putPolicy, admin)
	v1.POST("/policy/dry-run", s.dryRunPolicy, admin)
	v1.GET("/policy/history", s.policyHistory, reviewer)
	v1.POST("/policy/rollback", s.rollbackPolicy, admin)
}

// policyStore returns the configured store or the error a deployment
// without one answers.
func (s *Server) policyStore() (*policystore.Store, error) {
	if s.cfg.Policies == nil {
		return nil, apiError(http.StatusNotFound, "policy_store_disabled", "this server does not manage its policy (no policy store configured)")
	}
	return s.cfg.Policies, nil
}

func (s *Server) getPolicy(c echo.Context) error {
	ps, err := s.policyStore()
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, ps.Active())
}

// policyBody reads a policy document from a request: the body itself (YAML,
// any content type but JSON) or JSON {"yaml": "..."}; extra JSON fields are
// decoded into extra.
func policyBody(c echo.Context, extra map[string]any) ([]byte, error) {
	data, err := io.ReadAll(c.Request().Body)
	if err != nil {
		return nil, fmt.Errorf("read policy document: %w", err)
	}
	mt, _, _ := mime.ParseMediaType(c.Request().Header.Get(echo.HeaderContentType))
	if mt != echo.MIMEApplicationJSON {
		if extra != nil {
			return nil, &apiErr{Status: http.StatusBadRequest, Code: "invalid_request", Field: "yaml",
				Message: "send JSON {\"yaml\": ...} (Content-Type: application/json) to this route"}
		}
		return data, nil
	}
	var body map[string]json.RawMessage
	if err := json.Unmarshal(data, &body); err != nil {
		return nil, &apiErr{Status: http.StatusBadRequest, Code: "invalid_request", Message: "request body is not a JSON object: " + err.Error()}
	}
	var doc string
	raw, ok := body["yaml"]
	if !ok || json.Unmarshal(raw, &doc) != nil {
		return nil, &apiErr{Status: http.StatusBadRequest, Code: "invalid_request", Field: "yaml", Message: "field yaml: want the policy document as a string"}
	}
	for k, v := range body {
		if k == "yaml" {
			continue
		}
		if extra == nil {
			return nil, &apiErr{Status: http.StatusBadRequest, Code: "invalid_request", Field: k, Message: "unknown field " + k}
		}
		var x any
		if err := json.Unmarshal(v, &x); err != nil {
			return nil, &apiErr{Status: http.StatusBadRequest, Code: "invalid_request", Field: k, Message: err.Error()}
		}
		extra[k] = x
	}
	return []byte(doc), nil
}

// policyError turns a validation failure into a 400 naming the first key
// at fault (the message lists every problem).
func policyError(err error) error {
	var pe *policies.Error
	if errors.As(err, &pe) && len(pe.Problems) > 0 {
		return &apiErr{Status: http.StatusBadRequest, Code: "invalid_policy", Field: pe.Problems[0].Field, Message: pe.Error()}
	}
	var fe *policies.FieldError
	if errors.As(err, &fe) {
		return &apiErr{Status: http.StatusBadRequest, Code: "invalid_policy", Field: fe.Field, Message: err.Error()}
	}
	return &apiErr{Status: http.StatusBadRequest, Code: "invalid_policy", Message: err.Error()}
}

func (s *Server) putPolicy(c echo.Context) error {
	ps, err := s.policyStore()
	if err != nil {
		return err
	}
	doc, err := policyBody(c, nil)
	if err != nil {
		return err
	}
	if _, err := ps.Validate(doc); err != nil {
		return policyError(err)
	}
	rev, err := ps.Put(c.Request().Context(), doc, keyOf(c).ID, "")
	if err != nil {
		return storeError(err)
	}
	return c.JSON(http.StatusOK, rev)
}

// storeError keeps a validation error a 400 and makes a store failure a
// 503, so clients retry an outage but not a bad document.
func storeError(err error) error {
	var pe *policies.Error
	if errors.As(err, &pe) {
		return policyError(err)
	}
	if errors.Is(err, policystore.ErrNotFound) {
		return apiError(http.StatusNotFound, "not_found", err.Error())
	}
	return apiError(http.StatusServiceUnavailable, "store_unavailable", "policy store unavailable; retry later: "+err.Error())
}

func (s *Server) policyHistory(c echo.Context) error {
	ps, err := s.policyStore()
	if err != nil {
		return err
	}
	revs, err := ps.History(c.Request().Context(), 100)
	if err != nil {
		return storeError(err)
	}
	return c.JSON(http.StatusOK, map[string]any{"revisions": revs, "active_version": ps.Active().Version})
}

func (s *Server) rollbackPolicy(c echo.Context) error {
	ps, err := s.policyStore()
	if err != nil {
		return err
	}
	var body struct {
		Version int `json:"version"`
	}
	if err := decodeStrict(c, &body); err != nil {
		return err
	}
	if body.Version < 1 {
		return &apiErr{Status: http.StatusBadRequest, Code: "invalid_request", Field: "version",
			Message: "field version: want a stored version (1 or more; see GET /v1/policy/history)"}
	}
	rev, err := ps.Rollback(c.Request().Context(), body.Version, keyOf(c).ID)
	if err != nil {
		return storeError(err)
	}
	return c.JSON(http.StatusOK, rev)
}

// decodeStrict decodes a JSON body, refusing unknown fields.
func decodeStrict(c echo.Context, v any) error {
	dec := json.NewDecoder(c.Request().Body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return &apiErr{Status: http.StatusBadRequest, Code: "invalid_request", Message: "request body: " + err.Error()}
	}
	return nil
}

// policyChange is one recorded scan whose decision the candidate changes.
type policyChange struct {
	ScanID      string       `json:"scan_id"`
	Before      sdk.Decision `json:"before"`
	After       sdk.Decision `json:"after"`
	RulesBefore []string     `json:"rules_before"`
	RulesAfter  []string     `json:"rules_after"`
}

func (s *Server) dryRunPolicy(c echo.Context) error {
	ps, err := s.policyStore()
	if err != nil {
		return err
	}
	extra := map[string]any{}
	doc, err := policyBody(c, extra)
	if err != nil {
		return err
	}
	limit := DefaultDryRunLimit
	for k, v := range extra {
		n, ok := v.(float64)
		if k != "limit" || !ok || n != float64(int(n)) || n < 1 || n > MaxDryRunLimit {
			return &apiErr{Status: http.StatusBadRequest, Code: "invalid_request", Field: k,
				Message: fmt.Sprintf("field %s: want limit, a whole number from 1 to %d", k, MaxDryRunLimit)}
		}
		limit = int(n)
	}
	cand, err := ps.Validate(doc)
	if err != nil {
		return policyError(err)
	}
	recent := s.recentScans()
	if recent == nil {
		return apiError(http.StatusNotFound, "scanlog_disabled", "no scans are recorded on this server (scanlog disabled), so there is nothing to replay")
	}
	ctx := c.Request().Context()
	scans, err := recent(ctx, limit)
	if err != nil {
		return apiError(http.StatusServiceUnavailable, "store_unavailable", "read recorded scans: "+err.Error())
	}
	changed, err := replayPolicy(ctx, s.eng, cand, scans)
	if err != nil {
		return err
	}
	total := len(changed)
	if len(changed) > maxChangedListed {
		changed = changed[:maxChangedListed]
	}
	return c.JSON(http.StatusOK, map[string]any{"replayed": len(scans), "changed_count": total, "changed": changed})
}

// recentScans is where dry runs find recorded scans: Config.RecentScans,
// else the scan log (its content redacted, env values never kept), else
// nil.
func (s *Server) recentScans() func(ctx context.Context, n int) ([]ReplayScan, error) {
	if s.cfg.RecentScans != nil {
		return s.cfg.RecentScans
	}
	if s.cfg.ScanLog == nil {
		return nil
	}
	return func(ctx context.Context, n int) ([]ReplayScan, error) {
		entries, err := s.cfg.ScanLog.Recent(ctx, n)
		if err != nil {
			return nil, err
		}
		out := make([]ReplayScan, len(entries))
		for i, e := range entries {
			out[i] = ReplayScan{ScanID: e.ScanID, Request: e.Request}
		}
		return out, nil
	}
}

// replayPolicy judges every scan under the policy in force and under the
// candidate, with the same rule packs, and lists the scans whose decision
// differs. Both sides are judged now (not the recorded decision) so that
// only the policy differs between them.
func replayPolicy(ctx context.Context, eng *engine.Engine, cand *sdk.Policy, scans []ReplayScan) ([]policyChange, error) {
	cur := eng.Policy()
	changed := []policyChange{}
	for _, sc := range scans {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("dry run: %w", err)
		}
		before, err := eng.ScanWithPolicy(ctx, sc.Request, cur)
		if err != nil {
			continue // content the engine no longer accepts is not a change
		}
		after, err := eng.ScanWithPolicy(ctx, sc.Request, cand)
		if err != nil {
			continue
		}
		if before.Decision != after.Decision {
			changed = append(changed, policyChange{ScanID: sc.ScanID, Before: before.Decision, After: after.Decision,
				RulesBefore: reportRules(before), RulesAfter: reportRules(after)})
		}
	}
	return changed, nil
}

func reportRules(rep *sdk.SafetyReport) []string {
	ids := []string{}
	for _, f := range rep.Findings {
		ids = append(ids, f.RuleID)
	}
	sort.Strings(ids)
	return slices.Compact(ids)
}

// PolicyValidator is the strict check of a managed policy document: the
// policies loader (unknown keys, types and values, each error naming its
// key) and rule overrides naming only rules the engine runs.
func PolicyValidator(eng *engine.Engine) policystore.Validator {
	return func(name string, yaml []byte) (*sdk.Policy, error) {
		if strings.TrimSpace(string(yaml)) == "" {
			return nil, &policies.Error{Source: name, Problems: []*policies.FieldError{{Field: "(document)", Message: "empty policy document"}}}
		}
		pol, err := policies.LoadBytes(name+".yaml", yaml)
		if err != nil {
			return nil, err
		}
		ids := []string{engine.RulePluginError}
		for _, info := range eng.Plugins() {
			for _, r := range info.Rules {
				ids = append(ids, r.ID)
			}
		}
		if err := policies.CheckRuleIDs(pol, ids); err != nil {
			field := "rules"
			for id := range pol.Rules {
				if !slices.Contains(ids, id) && (field == "rules" || "rules."+id < field) {
					field = "rules." + id
				}
			}
			return nil, &policies.Error{Source: name, Problems: []*policies.FieldError{{Field: field, Message: err.Error()}}}
		}
		// The audit log is opened once, at start, from the server's own
		// configuration; a managed document cannot move it.
		if cur := eng.Policy(); cur != nil && pol.AuditLogPath != cur.AuditLogPath {
			return nil, &policies.Error{Source: name, Problems: []*policies.FieldError{{Field: "audit_log_path",
				Message: fmt.Sprintf("is set in the server's configuration (%q) and cannot be changed through the API", cur.AuditLogPath)}}}
		}
		return pol, nil
	}
}
