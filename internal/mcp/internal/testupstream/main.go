// Command testupstream is a dry-run stdio MCP server for the gateway's
// tests, like the Safety Guard demo's local server: it echoes the commands
// it receives and never runs them. It also has a failing tool (for the
// circuit breaker), a slow tool that records when each call ran (for the
// concurrency caps) and whether it was cancelled, and a stats tool.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

type interval struct {
	Start int64 `json:"start"`
	End   int64 `json:"end"`
}

type stats struct {
	mu        sync.Mutex
	current   int
	max       int
	calls     []interval
	cancelled int
}

func main() {
	st := &stats{}
	s := server.NewMCPServer("testupstream", "1.0.0")
	s.AddTool(mcp.NewTool("run_shell_command", mcp.WithDescription("dry run: returns the command as JSON, runs nothing"),
		mcp.WithString("command", mcp.Required())),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			b, _ := json.Marshal(map[string]any{"dry_run": true, "command": req.GetString("command", "")})
			return mcp.NewToolResultText(string(b)), nil
		})
	s.AddTool(mcp.NewTool("echo_text", mcp.WithDescription("dry run: returns the command as plain text"),
		mcp.WithString("command", mcp.Required())),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText("dry-run: " + req.GetString("command", "")), nil
		})
	s.AddTool(mcp.NewTool("fail", mcp.WithDescription("always fails with a protocol error")),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return nil, errors.New("upstream failure")
		})
	s.AddTool(mcp.NewTool("slow", mcp.WithDescription("sleeps for seconds, or until cancelled"),
		mcp.WithNumber("seconds")),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			st.mu.Lock()
			st.current++
			if st.current > st.max {
				st.max = st.current
			}
			start := time.Now().UnixNano()
			st.mu.Unlock()
			d := time.Duration(req.GetFloat("seconds", 1) * float64(time.Second))
			var err error
			select {
			case <-time.After(d):
			case <-ctx.Done():
				err = ctx.Err()
			}
			st.mu.Lock()
			st.current--
			st.calls = append(st.calls, interval{start, time.Now().UnixNano()})
			if err != nil {
				st.cancelled++
			}
			st.mu.Unlock()
			if err != nil {
				return nil, err
			}
			return mcp.NewToolResultText(fmt.Sprintf("slept %s", d)), nil
		})
	s.AddTool(mcp.NewTool("crash", mcp.WithDescription("exits the server process")),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			os.Exit(3)
			return nil, nil
		})
	s.AddTool(mcp.NewTool("stats", mcp.WithDescription("concurrency and cancellation counters")),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			st.mu.Lock()
			defer st.mu.Unlock()
			b, _ := json.Marshal(map[string]any{"max": st.max, "current": st.current, "calls": st.calls, "cancelled": st.cancelled})
			return mcp.NewToolResultText(string(b)), nil
		})
	if err := server.ServeStdio(s); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
