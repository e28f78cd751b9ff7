package server

import (
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/toolwarden/toolwarden/internal/scanlog"
	"github.com/toolwarden/toolwarden/internal/service"
)

// scanFilter reads the query of GET /v1/scans. Agents see only their own
// scans: their filter's owner is always their key, whatever agent= says.
func scanFilter(c echo.Context) (scanlog.Filter, error) {
	q := c.QueryParams()
	f := scanlog.Filter{Decision: q.Get("decision"), RuleID: q.Get("rule"), ToolName: q.Get("tool"),
		OwnerKeyID: q.Get("agent"), Cursor: q.Get("cursor")}
	switch f.Decision {
	case "", "allow", "deny", "needs_human_review":
	default:
		return f, service.BadField("decision", "want allow, deny or needs_human_review")
	}
	for _, t := range []struct {
		name string
		dst  *time.Time
	}{{"since", &f.Since}, {"until", &f.Until}} {
		if v := q.Get(t.name); v != "" {
			tm, err := time.Parse(time.RFC3339Nano, v)
			if err != nil {
				return f, service.BadField(t.name, "want an RFC 3339 time such as 2026-01-02T15:04:05Z")
			}
			*t.dst = tm
		}
	}
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return f, service.BadField("limit", "want an integer >= 1 (at most "+strconv.Itoa(scanlog.MaxQueryLimit)+")")
		}
		f.Limit = n
	}
	if !seesAll(c) {
		f.OwnerKeyID = keyOf(c).ID
	}
	return f, nil
}

func (s *Server) scanLogOn() error {
	if s.cfg.ScanLog == nil {
		return apiError(http.StatusNotFound, "scanlog_disabled", "the scan log is disabled (scanlog.enabled: false)")
	}
	return nil
}

// listScans is GET /v1/scans: recent scans, newest first, filtered and paged.
func (s *Server) listScans(c echo.Context) error {
	if err := s.scanLogOn(); err != nil {
		return err
	}
	f, err := scanFilter(c)
	if err != nil {
		return err
	}
	entries, next, err := s.cfg.ScanLog.Query(c.Request().Context(), f)
	if errors.Is(err, scanlog.ErrBadCursor) {
		return service.BadField("cursor", "not a cursor this API returned")
	}
	if err != nil {
		return apiError(http.StatusServiceUnavailable, "store_unavailable", "scan log unavailable; retry later: "+err.Error())
	}
	if entries == nil {
		entries = []scanlog.Entry{}
	}
	return c.JSON(http.StatusOK, map[string]any{"scans": entries, "next_cursor": next})
}

// getScan is GET /v1/scans/{id}. Someone else's scan is not found for an
// agent, so ids cannot be probed.
func (s *Server) getScan(c echo.Context) error {
	if err := s.scanLogOn(); err != nil {
		return err
	}
	e, err := s.cfg.ScanLog.Get(c.Request().Context(), c.Param("id"))
	if errors.Is(err, scanlog.ErrNotFound) || (err == nil && !seesAll(c) && e.OwnerKeyID != keyOf(c).ID) {
		return apiError(http.StatusNotFound, "not_found", "scan not found (or past the scan log's retention)")
	}
	if err != nil {
		return apiError(http.StatusServiceUnavailable, "store_unavailable", "scan log unavailable; retry later: "+err.Error())
	}
	return c.JSON(http.StatusOK, e)
}
