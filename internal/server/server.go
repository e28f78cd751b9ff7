// Package server is toolwarden's HTTP API: scan, scan-and-run with bounded
// waits, get / wait / cancel / output of executions, review decisions, API
// keys, health, readiness and metrics. It is a thin layer over the engine
// (decisions), the execution backend (queue and store) and the key store
// (who may do what); it holds no state of its own, so any number of servers
// can share one Redis backend.
package server

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"
	"golang.org/x/time/rate"

	"github.com/toolwarden/toolwarden/engine"
	"github.com/toolwarden/toolwarden/internal/auth"
	"github.com/toolwarden/toolwarden/internal/execution"
	"github.com/toolwarden/toolwarden/internal/plugins"
	"github.com/toolwarden/toolwarden/internal/policystore"
	"github.com/toolwarden/toolwarden/internal/scanlog"
	"github.com/toolwarden/toolwarden/internal/service"
)

// Config configures the API server. Zero values take the defaults noted.
type Config struct {
	// Listen is the address to bind; DefaultListen (loopback) when empty.
	// Binding elsewhere is an explicit choice of the operator.
	Listen string
	// BodyLimit caps request bodies ("2M" when empty).
	BodyLimit string
	// RatePerSecond and RateBurst limit requests per API key (20/s, burst
	// 100 when zero); a negative rate disables the limit.
	RatePerSecond float64
	RateBurst     int
	// WaitTimeout is tool_wait_timeout_seconds: the bounded wait of
	// POST /v1/executions when the request gives none (30s).
	WaitTimeout time.Duration
	// MaxWait caps any requested wait (300s).
	MaxWait time.Duration
	// ReductionRoot is where spilled outputs live, for the output endpoint.
	ReductionRoot string
	// MaxResultBytes is reduction_max_length_for_trunc: results are
	// re-capped to it on read (service.Service.MaxResultBytes).
	MaxResultBytes int
	// Workspaces locates run workspaces, so that an execution's cwd is
	// judged against the workspace it will run in (service.Service); nil
	// accepts only relative cwds.
	Workspaces interface {
		Path(conversationID, executionID string) string
	}
	// QueueStaleAfter is how long queued work may wait before /readyz
	// fails (DefaultQueueStaleAfter when zero, never when negative).
	QueueStaleAfter time.Duration
	// MaxTimeout is agent.tool_timeout_minutes: requested timeouts are
	// clamped to it (and to the policy's max_timeout_seconds).
	MaxTimeout time.Duration
	// ConversationCancelled, when set, is called for every owner whose
	// executions of a conversation a cancel covered, after they were
	// cancelled: the embedded executor removes that conversation's
	// workspace (deferred while a run still holds it).
	ConversationCancelled func(ctx context.Context, ownerKeyID, conversationID string)
	// Sessions, when set, lets the /v1 routes accept the web panel's
	// session cookie as well as API keys (webui.Sessions).
	Sessions SessionAuth
	// UI, when set, is the web panel: served at /ui/ without an API key
	// (its sign-in is the way to get a session), and / redirects to it.
	UI http.Handler
	// Plugins manages uploaded rule plugins (the /v1/plugins routes and
	// the plugin_set readiness check); nil: the routes answer 503.
	Plugins *plugins.Manager
	// PluginMaxModuleBytes is plugins.max_module_bytes: POST /v1/plugins
	// takes bodies up to it (plus a manifest and a signature) instead of
	// BodyLimit.
	PluginMaxModuleBytes int
	// Policies, when set, manages the active policy as versioned revisions
	// behind /v1/policy (see policy.go); nil: those routes answer 404.
	Policies *policystore.Store
	// RecentScans returns up to n recorded scans, newest first, for policy
	// dry runs; nil: the scan log's (ScanLog), and without one dry runs
	// answer 404 scanlog_disabled.
	RecentScans func(ctx context.Context, n int) ([]ReplayScan, error)
	// ScanLog, when set, receives every scan (REST, executions, MCP through
	// Service) and serves GET /v1/scans; nil: the scan log is disabled and
	// those routes answer 404 scanlog_disabled.
	ScanLog *scanlog.Recorder
}

// DefaultListen is the loopback address the server binds by default.
const DefaultListen = "127.0.0.1:8080"

func (c *Config) defaults() {
	if c.Listen == "" {
		c.Listen = DefaultListen
	}
	if c.BodyLimit == "" {
		c.BodyLimit = "2M"
	}
	if c.RatePerSecond == 0 {
		c.RatePerSecond = 20
	}
	if c.RateBurst == 0 {
		c.RateBurst = 100
	}
	if c.WaitTimeout == 0 {
		c.WaitTimeout = execution.DefaultWait
	}
	if c.MaxWait == 0 {
		c.MaxWait = 300 * time.Second
	}
	if c.QueueStaleAfter == 0 {
		c.QueueStaleAfter = DefaultQueueStaleAfter
	}
}

// Server is the HTTP API. Create it with New, serve it with Start or use
// Handler in tests.
type Server struct {
	cfg     Config
	eng     *engine.Engine
	backend execution.Backend
	keys    *auth.Store
	e       *echo.Echo
	metrics *metrics
	svc     *service.Service
	limiter echo.MiddlewareFunc
	// Ready reports extra readiness conditions (e.g. the embedded executor
	// runs); nil means none.
	Ready func(ctx context.Context) error
}

// New builds the server and its routes.
func New(cfg Config, eng *engine.Engine, backend execution.Backend, keys *auth.Store) *Server {
	cfg.defaults()
	s := &Server{cfg: cfg, eng: eng, backend: backend, keys: keys, metrics: newMetrics(backend),
		svc: &service.Service{Engine: eng, Backend: backend, MaxTimeout: cfg.MaxTimeout,
			ConversationCancelled: cfg.ConversationCancelled,
			MaxResultBytes:        cfg.MaxResultBytes, ReductionRoot: cfg.ReductionRoot}}
	if cfg.Workspaces != nil {
		s.svc.Workspaces = cfg.Workspaces
	}
	if cfg.ScanLog != nil {
		s.svc.ScanLog = cfg.ScanLog
	}
	e := echo.New()
	e.HideBanner = true
	e.HidePort = true
	e.HTTPErrorHandler = s.errorHandler
	e.Use(middleware.Recover())
	e.Use(middleware.BodyLimitWithConfig(middleware.BodyLimitConfig{
		Limit: cfg.BodyLimit,
		// A module upload has its own, larger limit (uploadPlugin).
		Skipper: func(c echo.Context) bool {
			return c.Request().Method == http.MethodPost && c.Path() == "/v1/plugins"
		},
	}))
	e.Use(s.metrics.middleware)

	e.GET("/healthz", s.healthz)
	e.GET("/readyz", s.readyz)
	e.GET("/metrics", echo.WrapHandler(s.metrics.handler()))
	e.GET("/v1/openapi.json", s.openapi)
	if cfg.UI != nil {
		ui := echo.WrapHandler(cfg.UI)
		e.Any("/ui", ui)
		e.Any("/ui/*", ui)
		e.GET("/", func(c echo.Context) error { return c.Redirect(http.StatusFound, "/ui/") })
	}

	// The /v1 routes take their middleware per route rather than through
	// Group.Use, which would add catch-all routes answering 404 to a wrong
	// method on a real path; the router then answers 405 as it should.
	v1mw := []echo.MiddlewareFunc{s.authenticate}
	if cfg.RatePerSecond > 0 {
		s.limiter = middleware.RateLimiterWithConfig(middleware.RateLimiterConfig{
			Store: middleware.NewRateLimiterMemoryStoreWithConfig(middleware.RateLimiterMemoryStoreConfig{
				Rate: rate.Limit(cfg.RatePerSecond), Burst: cfg.RateBurst, ExpiresIn: 3 * time.Minute,
			}),
			IdentifierExtractor: func(c echo.Context) (string, error) { return keyOf(c).ID, nil },
			ErrorHandler: func(c echo.Context, err error) error {
				return apiError(http.StatusForbidden, "forbidden", err.Error())
			},
			DenyHandler: func(c echo.Context, id string, err error) error {
				// Retry-After tells clients when a token is back (at least
				// one second: the header counts whole seconds).
				c.Response().Header().Set("Retry-After", strconv.Itoa(retryAfterSeconds(cfg.RatePerSecond)))
				return apiError(http.StatusTooManyRequests, "rate_limited", fmt.Sprintf("too many requests for this API key (limit %g/s, burst %d); retry after the Retry-After seconds", cfg.RatePerSecond, cfg.RateBurst))
			},
		})
		v1mw = append(v1mw, s.limiter)
	}
	v1 := &routes{e: e, prefix: "/v1", mw: v1mw}
	agent, reviewer, admin := require(auth.RoleAgent), require(auth.RoleReviewer), require(auth.RoleAdmin)
	v1.POST("/scan", s.scan, agent)
	v1.POST("/executions", s.createExecution, agent)
	v1.GET("/executions", s.listExecutions, agent)
	v1.GET("/executions/events", s.executionEvents, agent)
	v1.GET("/executions/:id", s.getExecution, agent)
	v1.POST("/executions/:id/wait", s.waitExecution, agent)
	v1.POST("/executions/:id/cancel", s.cancelExecution, agent)
	v1.GET("/executions/:id/output", s.executionOutput, agent)
	v1.POST("/executions/:id/approve", s.approveExecution, reviewer)
	v1.POST("/executions/:id/reject", s.rejectExecution, reviewer)
	v1.POST("/conversations/:id/cancel", s.cancelConversation, agent)
	s.policyRoutes(v1, reviewer, admin)
	v1.GET("/scans", s.listScans, agent)
	v1.GET("/scans/:id", s.getScan, agent)
	v1.POST("/keys", s.createKey, admin)
	v1.GET("/keys", s.listKeys, admin)
	v1.DELETE("/keys/:id", s.deleteKey, admin)
	v1.POST("/plugins", s.uploadPlugin, admin)
	v1.GET("/plugins", s.listPlugins, admin)
	v1.GET("/plugins/:name", s.getPlugin, admin)
	v1.POST("/plugins/:name/activate", s.activatePlugin, admin)
	v1.POST("/plugins/:name/deactivate", s.deactivatePlugin, admin)
	v1.POST("/plugins/:name/rollback", s.rollbackPlugin, admin)
	v1.POST("/plugins/:name/shadow", s.shadowPlugin, admin)
	v1.DELETE("/plugins/:name/revisions/:digest", s.deletePluginRevision, admin)
	s.e = e
	return s
}

// Mount serves h under prefix (e.g. "/mcp") behind the same API-key
// authentication, per-key rate limit and role check as the REST API. The
// authenticated key reaches h through KeyFromContext.
func (s *Server) Mount(prefix string, h http.Handler, need auth.Role) {
	wrapped := echo.WrapHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(w, r)
	}))
	handler := func(c echo.Context) error {
		k := keyOf(c)
		c.SetRequest(c.Request().WithContext(context.WithValue(c.Request().Context(), keyContextKey{}, k)))
		return wrapped(c)
	}
	mw := []echo.MiddlewareFunc{s.authenticate}
	if s.limiter != nil {
		mw = append(mw, s.limiter)
	}
	mw = append(mw, require(need))
	s.e.Any(prefix, handler, mw...)
	s.e.Any(prefix+"/*", handler, mw...)
}

type keyContextKey struct{}

// KeyFromContext returns the API key that authenticated a request served
// by a Mount-ed handler.
func KeyFromContext(ctx context.Context) (auth.Key, bool) {
	k, ok := ctx.Value(keyContextKey{}).(auth.Key)
	return k, ok
}

// Handler returns the server as an http.Handler.
func (s *Server) Handler() http.Handler { return s.e }

// Serve serves on ln until ctx ends, then shuts down gracefully.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	srv := &http.Server{Handler: s.e, ReadHeaderTimeout: 10 * time.Second}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
		sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := srv.Shutdown(sctx); err != nil {
			return fmt.Errorf("shut down http server: %w", err)
		}
		return nil
	}
}

// Listen binds the configured address.
func (s *Server) Listen() (net.Listener, error) {
	ln, err := net.Listen("tcp", s.cfg.Listen)
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w", s.cfg.Listen, err)
	}
	return ln, nil
}

// apiErr is the JSON error body: {"error": {"code", "message", "field"?}}.
type apiErr struct {
	Status  int    `json:"-"`
	Code    string `json:"code"`
	Message string `json:"message"`
	Field   string `json:"field,omitempty"`
}

func (e *apiErr) Error() string { return e.Message }

func apiError(status int, code, msg string) error {
	return &apiErr{Status: status, Code: code, Message: msg}
}

// errorHandler renders every error as JSON with a status that says what
// went wrong; store outages are 503 so clients retry rather than give up.
func (s *Server) errorHandler(err error, c echo.Context) {
	if c.Response().Committed {
		return
	}
	var ae *apiErr
	var fe *service.FieldError
	var he *echo.HTTPError
	var tl *service.TooLargeError
	switch {
	case errors.As(err, &ae):
	case errors.As(err, &tl):
		ae = &apiErr{Status: http.StatusRequestEntityTooLarge, Code: "content_too_large", Message: tl.Error(), Field: tl.Field}
	case errors.As(err, &fe):
		ae = &apiErr{Status: http.StatusBadRequest, Code: "invalid_request", Message: fe.Error(), Field: fe.Field}
	case errors.Is(err, execution.ErrNotFound):
		ae = &apiErr{Status: http.StatusNotFound, Code: "not_found", Message: "execution not found"}
	case execution.IsUnavailable(err):
		ae = &apiErr{Status: http.StatusServiceUnavailable, Code: "store_unavailable", Message: "execution store unavailable; retry later: " + err.Error()}
	case errors.Is(err, execution.ErrInvalidTransition), errors.Is(err, execution.ErrAlreadyFinished):
		ae = &apiErr{Status: http.StatusConflict, Code: "conflict", Message: err.Error()}
	case errors.As(err, &he):
		msg := fmt.Sprint(he.Message)
		code := "error"
		switch he.Code {
		case http.StatusRequestEntityTooLarge:
			code = "body_too_large"
			msg = bodyTooLargeMsg(s.cfg.BodyLimit)
		case http.StatusNotFound:
			code = "not_found"
		case http.StatusMethodNotAllowed:
			code = "method_not_allowed"
			msg = "method " + c.Request().Method + " is not allowed on " + c.Request().URL.Path
		case http.StatusBadRequest:
			code = "invalid_request"
		}
		ae = &apiErr{Status: he.Code, Code: code, Message: msg}
	default:
		c.Logger().Error(err)
		ae = &apiErr{Status: http.StatusInternalServerError, Code: "internal", Message: err.Error()}
	}
	if c.Request().Method == http.MethodHead {
		_ = c.NoContent(ae.Status)
		return
	}
	_ = c.JSON(ae.Status, map[string]any{"error": ae})
}

// Service returns the tool-call service the API submits through, so other
// front doors (the MCP server) decide and record exactly alike.
func (s *Server) Service() *service.Service { return s.svc }
