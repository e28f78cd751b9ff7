package server

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/toolwarden/toolwarden/internal/execution"
	"github.com/toolwarden/toolwarden/internal/service"
)

// eventsPoll is how often the events stream looks at the store. The
// backends' Watch follows one record; a list has no such facility in both
// backends, so the stream compares the newest page with the last one.
const eventsPoll = 700 * time.Millisecond

// eventsKeepAlive is how often an idle stream sends a comment, so proxies
// do not close it.
const eventsKeepAlive = 15 * time.Second

// listFilter reads the list filters shared by GET /v1/executions and its
// events stream: status, conversation_id and agent (the owner's key id;
// agents are always limited to their own).
func listFilter(c echo.Context) (execution.Filter, error) {
	f := execution.Filter{ConversationID: c.QueryParam("conversation_id")}
	if v := c.QueryParam("status"); v != "" {
		st := execution.Status(v)
		if !st.Valid() {
			return f, service.BadField("status", "unknown status "+strconv.Quote(v))
		}
		f.Status = st
	}
	f.Owner = c.QueryParam("agent")
	if !seesAll(c) {
		f.Owner = keyOf(c).ID
	}
	return f, nil
}

// signature is what makes a record changed for the stream.
func signature(r *execution.Record) string {
	ended := ""
	if r.EndedAt != nil {
		ended = r.EndedAt.String()
	}
	return fmt.Sprintf("%s|%d|%s|%s|%s", r.Status, r.PartialOutputBytes, ended, r.StatusReason, r.Cleanup)
}

// executionEvents streams server-sent events: "ready" once, then an
// "execution" event (the record as GET /v1/executions lists it) whenever a
// record of the newest page matching the filters appears or changes state
// or output. The web panel's lists refresh from it.
func (s *Server) executionEvents(c echo.Context) error {
	f, err := listFilter(c)
	if err != nil {
		return err
	}
	f.Limit = 200
	ctx := c.Request().Context()
	recs, _, err := s.svc.List(ctx, f, caller(c))
	if err != nil {
		return err
	}
	seen := make(map[string]string, len(recs))
	for _, r := range recs {
		seen[r.ExecutionID] = signature(r)
	}
	w := c.Response()
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	if _, err := fmt.Fprint(w, "retry: 2000\nevent: ready\ndata: {}\n\n"); err != nil {
		return nil
	}
	w.Flush()
	tick := time.NewTicker(eventsPoll)
	defer tick.Stop()
	idle := time.Now()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
		}
		recs, _, err := s.svc.List(ctx, f, caller(c))
		if err != nil {
			// The store is away: say so and let the browser reconnect.
			fmt.Fprintf(w, "event: error\ndata: %s\n\n", mustJSON(map[string]string{"message": "execution store unavailable: " + err.Error()}))
			w.Flush()
			return nil
		}
		sent := false
		// Only the current page is remembered, so a long stream holds
		// a bounded map.
		next := make(map[string]string, len(recs))
		for i := len(recs) - 1; i >= 0; i-- {
			r := recs[i]
			sig := signature(r)
			next[r.ExecutionID] = sig
			if seen[r.ExecutionID] == sig {
				continue
			}
			if _, err := fmt.Fprintf(w, "event: execution\ndata: %s\n\n", mustJSON(service.View(r, false, 0))); err != nil {
				return nil
			}
			sent = true
		}
		seen = next
		if !sent && time.Since(idle) > eventsKeepAlive {
			fmt.Fprint(w, ": keep-alive\n\n")
			sent = true
		}
		if sent {
			idle = time.Now()
			w.Flush()
		}
	}
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		return []byte(`{}`)
	}
	return b
}
