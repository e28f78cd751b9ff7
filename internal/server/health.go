package server

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"
)

func (s *Server) healthz(c echo.Context) error {
	return c.JSON(http.StatusOK, map[string]string{"status": "ok"})
}

// readyz answers 200 only when the store and queue answer, the rule plugins
// are loaded and healthy (no built-in pack instance stuck past its
// deadline), any extra condition (the embedded executor) holds, and no
// queued work has waited longer than Config.QueueStaleAfter, and the
// managed policy's active revision is the one applied here.
func (s *Server) readyz(c echo.Context) error {
	ctx, cancel := context.WithTimeout(c.Request().Context(), 3*time.Second)
	defer cancel()
	checks := map[string]string{}
	ok := true
	if _, _, err := s.backend.List(ctx, executionProbe); err != nil {
		checks["store"] = err.Error()
		ok = false
	} else {
		checks["store"] = "ok"
	}
	if n := len(s.eng.Plugins()); n == 0 {
		checks["plugins"] = "no rule plugins loaded"
		ok = false
	} else {
		checks["plugins"] = "ok"
	}
	if err := s.eng.Health(); err != nil {
		checks["rules"] = "degraded: " + err.Error()
		ok = false
	} else {
		checks["rules"] = "ok"
	}
	if s.Ready != nil {
		if err := s.Ready(ctx); err != nil {
			checks["executor"] = err.Error()
			ok = false
		} else {
			checks["executor"] = "ok"
		}
	} else {
		checks["executor"] = "none embedded: executors elsewhere are judged by the queue"
	}
	degraded := false
	if m := s.cfg.Plugins; m != nil {
		// A replica that could not load the active plugin set serves its
		// previous one: still safe to send scans to, so degraded (200)
		// rather than not ready.
		if err := m.Health(); err != nil {
			checks["plugin_set"] = "degraded: " + err.Error()
			degraded = true
		} else {
			checks["plugin_set"] = "ok"
		}
	}
	if ps := s.cfg.Policies; ps != nil {
		if err := ps.Status(); err != nil {
			checks["policy"] = fmt.Sprintf("degraded: serving version %d: %v", ps.Active().Version, err)
			ok = false
		} else {
			checks["policy"] = fmt.Sprintf("ok (version %d)", ps.Active().Version)
		}
	}
	msg, qok := s.queueCheck(ctx)
	checks["queue"] = msg
	ok = ok && qok
	status := http.StatusOK
	state := "ready"
	if !ok {
		status, state = http.StatusServiceUnavailable, "not_ready"
	} else if degraded {
		state = "degraded"
	}
	return c.JSON(status, map[string]any{"status": state, "checks": checks})
}
