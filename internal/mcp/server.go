// Package mcp is toolwarden's MCP front door: an MCP server whose tools
// (scan, exec, run_python, get_tool_execution, wait_tool_execution,
// cancel_tool_execution) go through the same service as the REST API, so
// a call decides, records and runs exactly as POST /v1/executions does; and,
// when upstream MCP servers are configured, their tools under a
// per-server prefix, guarded by the gateway (package gateway).
//
// The server is served over streamable HTTP at /mcp behind the API's keys
// and roles (HTTPHandler, HTTPIdentity) and over stdio (ServeStdio with a
// FixedIdentity). Every result is the execution record as JSON text. A wait
// that ends before the run is a normal result saying the run is still
// running; only a refused or failed call is an error result.
package mcp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/toolwarden/toolwarden/internal/auth"
	"github.com/toolwarden/toolwarden/internal/execution"
	"github.com/toolwarden/toolwarden/internal/mcp/gateway"
	"github.com/toolwarden/toolwarden/internal/mcp/internal/view"
	twserver "github.com/toolwarden/toolwarden/internal/server"
	"github.com/toolwarden/toolwarden/internal/service"
)

// Config is the `mcp:` section of the service configuration (the gateway's
// upstream servers and limits).
type Config = gateway.Config

// Caller is who makes an MCP call: the API key id that owns the records it
// creates, and whether it may see every record (reviewers, admins) or
// only its own (agents). It is the service's Caller: both doors name the
// caller alike.
type Caller = service.Caller

// IdentifyFunc names the caller of a request; an error refuses it.
type IdentifyFunc func(ctx context.Context) (Caller, error)

// ErrNoIdentity is returned when a request carries no authenticated key.
var ErrNoIdentity = errors.New("no authenticated API key on this request")

type callerKey struct{}

// HTTPIdentity reads the caller that HTTPHandler took from the API key
// server.Mount authenticated.
func HTTPIdentity(ctx context.Context) (Caller, error) {
	if c, ok := ctx.Value(callerKey{}).(Caller); ok {
		return c, nil
	}
	return Caller{}, ErrNoIdentity
}

// FixedIdentity is the identity of a stdio session: whoever can start the
// process acts as c.
func FixedIdentity(c Caller) IdentifyFunc {
	return func(context.Context) (Caller, error) { return c, nil }
}

// Options configure the server.
type Options struct {
	// Service decides, records and queues calls (required).
	Service *service.Service
	// Gateway, when set, adds the guarded upstream tools; its records are
	// found by the get/wait/cancel tools too.
	Gateway *gateway.Gateway
	// Identify names the caller (HTTPIdentity over HTTP).
	Identify IdentifyFunc
	// Wait is the default bounded wait of exec, run_python and
	// wait_tool_execution (tool_wait_timeout_seconds, default 30s).
	Wait time.Duration
	// MaxWait caps wait_seconds and timeout_seconds (default 10 minutes), so
	// a request cannot hold a connection open indefinitely.
	MaxWait time.Duration
	// CancelWait bounds how long cancel_tool_execution waits to report the
	// final state (default 10s); the cancel itself is not bounded by it.
	CancelWait time.Duration
	// Version is reported to clients.
	Version string
}

// Server is toolwarden's MCP server.
type Server struct {
	opts Options
	mcp  *server.MCPServer
}

// NewServer builds the server and registers the tools.
func NewServer(opts Options) (*Server, error) {
	if opts.Service == nil || opts.Service.Backend == nil || opts.Service.Engine == nil {
		return nil, errors.New("mcp server: a service with engine and backend is required")
	}
	if opts.Identify == nil {
		opts.Identify = HTTPIdentity
	}
	if opts.Wait <= 0 {
		opts.Wait = execution.DefaultWait
	}
	if opts.MaxWait <= 0 {
		opts.MaxWait = 10 * time.Minute
	}
	if opts.CancelWait <= 0 {
		opts.CancelWait = 10 * time.Second
	}
	if opts.Version == "" {
		opts.Version = "dev"
	}
	if opts.Gateway != nil {
		// The gateway's records are found by every operation of the
		// service — MCP's get/wait/cancel and the REST API's alike.
		opts.Service.AddStore(opts.Gateway.Store())
	}
	s := &Server{opts: opts}
	s.mcp = server.NewMCPServer("toolwarden", opts.Version,
		server.WithToolCapabilities(false),
		server.WithRecovery(),
		server.WithInstructions("toolwarden scans every command and script before it runs and runs allowed ones under OS isolation. "+
			"exec and run_python wait a bounded time; a run still going returns its execution_id: follow it with "+
			"wait_tool_execution, get_tool_execution or cancel_tool_execution. Denied calls return their safety_report and run nothing."))
	s.registerTools()
	if opts.Gateway != nil {
		ident := func(ctx context.Context) (string, error) {
			c, err := opts.Identify(ctx)
			return c.ID, err
		}
		s.mcp.AddTools(opts.Gateway.Tools(ident)...)
	}
	return s, nil
}

// MCPServer returns the underlying mcp-go server (to serve it on another
// transport).
func (s *Server) MCPServer() *server.MCPServer { return s.mcp }

// HTTPHandler serves the server over streamable HTTP. Mount it with
// server.Mount("/mcp", h, auth.RoleAgent): the key Mount authenticated
// becomes the caller of every tool call of the request.
func (s *Server) HTTPHandler() http.Handler {
	return server.NewStreamableHTTPServer(s.mcp,
		server.WithHTTPContextFunc(func(ctx context.Context, r *http.Request) context.Context {
			if k, ok := twserver.KeyFromContext(r.Context()); ok {
				return context.WithValue(ctx, callerKey{}, Caller{ID: k.ID, SeesAll: k.Role.Allows(auth.RoleReviewer)})
			}
			return ctx
		}))
}

// ServeStdio serves the server on in/out (a process's stdin and stdout)
// until ctx ends or in closes.
func (s *Server) ServeStdio(ctx context.Context, in io.Reader, out io.Writer) error {
	if err := server.NewStdioServer(s.mcp).Listen(ctx, in, out); err != nil && !errors.Is(err, context.Canceled) {
		return fmt.Errorf("serve mcp on stdio: %w", err)
	}
	return nil
}

// seconds reads an optional non-negative number of seconds, capped at max.
func seconds(req mcpgo.CallToolRequest, name string, def, max time.Duration) (time.Duration, error) {
	v, ok := req.GetArguments()[name]
	if !ok || v == nil {
		return def, nil
	}
	f, ok := v.(float64)
	if !ok || f < 0 || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, service.BadField(name, "must be a number of seconds >= 0")
	}
	d := time.Duration(f * float64(time.Second))
	if d > max {
		d = max
	}
	return d, nil
}

// partialArgs reads include_partial_output (default true) and
// partial_output_max_bytes (default 4096, 1 to 65536).
func partialArgs(req mcpgo.CallToolRequest) (bool, int, error) {
	include := req.GetBool("include_partial_output", true)
	max := execution.DefaultPartialOutputMaxBytes
	if v, ok := req.GetArguments()["partial_output_max_bytes"]; ok && v != nil {
		f, ok := v.(float64)
		if !ok || f != math.Trunc(f) || f < 1 || f > execution.MaxPartialOutputMaxBytes {
			return false, 0, service.BadField("partial_output_max_bytes",
				fmt.Sprintf("must be an integer from 1 to %d", execution.MaxPartialOutputMaxBytes))
		}
		max = int(f)
	}
	return include, max, nil
}

// errorResult is an isError result for a call that could not be made.
func errorResult(err error) *mcpgo.CallToolResult {
	var fe *service.FieldError
	switch {
	case errors.As(err, &fe):
		return mcpgo.NewToolResultError("bad request: " + fe.Error())
	case errors.Is(err, execution.ErrNotFound):
		return mcpgo.NewToolResultError("execution not found")
	case execution.IsUnavailable(err):
		return mcpgo.NewToolResultError("execution store unavailable; retry later: " + err.Error())
	}
	return mcpgo.NewToolResultError(err.Error())
}

// recordResult is a record as a tool result.
func recordResult(r *execution.Record, isError bool, include bool, max int, extra map[string]any) *mcpgo.CallToolResult {
	res := mcpgo.NewToolResultText(view.Record(r, include, max, extra))
	res.IsError = isError
	return res
}

// failedStatus reports whether a terminal record means the call did not do
// its job.
func failedStatus(r *execution.Record) bool {
	switch r.Status {
	case execution.StatusBlocked, execution.StatusFailed, execution.StatusCancelled,
		execution.StatusHardTimeout, execution.StatusOrphaned:
		return true
	}
	return r.IsError
}
