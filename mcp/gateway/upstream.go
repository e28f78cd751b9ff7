package gateway

import (
	"context"
	"fmt"
	"sort"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
)

// Upstream is a connected upstream MCP server, as the gateway uses it.
// Cancelling CallTool's context must cancel the call on the server (MCP
// notifications/cancelled over stdio; ending the request stream over HTTP).
type Upstream interface {
	ListTools(ctx context.Context) ([]mcpgo.Tool, error)
	CallTool(ctx context.Context, name string, args map[string]any) (*mcpgo.CallToolResult, error)
	Close() error
}

// CancelConfirmer is implemented by an Upstream that can confirm that a
// cancelled call really stopped (a task status, a lease, a cancel receipt).
// Plain MCP gives no such receipt, so without it a cancelled call is
// recorded as orphaned with cleanup_unconfirmed, never as cancelled.
type CancelConfirmer interface {
	ConfirmCancelled(ctx context.Context, tool string, args map[string]any) (bool, error)
}

// Dialer connects to one configured server; tests substitute their own.
type Dialer func(ctx context.Context, cfg ServerConfig) (Upstream, error)

// Dial connects to cfg with mcp-go: a stdio subprocess for Command, a
// streamable-HTTP client for URL.
func Dial(ctx context.Context, cfg ServerConfig) (Upstream, error) {
	var c *client.Client
	var err error
	if cfg.Command != "" {
		env := make([]string, 0, len(cfg.Env))
		for k, v := range cfg.Env {
			env = append(env, k+"="+v)
		}
		sort.Strings(env)
		c, err = client.NewStdioMCPClient(cfg.Command, env, cfg.Args...)
		if err != nil {
			return nil, fmt.Errorf("start mcp server %s: %w", cfg.Name, err)
		}
	} else {
		c, err = client.NewStreamableHttpClient(cfg.URL, transport.WithHTTPHeaders(cfg.Headers))
		if err != nil {
			return nil, fmt.Errorf("mcp server %s: %w", cfg.Name, err)
		}
		if err := c.Start(ctx); err != nil {
			return nil, fmt.Errorf("connect mcp server %s: %w", cfg.Name, err)
		}
	}
	if _, err := c.Initialize(ctx, mcpgo.InitializeRequest{Params: mcpgo.InitializeParams{
		ClientInfo: mcpgo.Implementation{Name: "toolwarden-gateway", Version: "1"},
	}}); err != nil {
		_ = c.Close()
		return nil, fmt.Errorf("initialize mcp server %s: %w", cfg.Name, err)
	}
	return &clientUpstream{c: c}, nil
}

// clientUpstream adapts an mcp-go client.
type clientUpstream struct{ c *client.Client }

func (u *clientUpstream) ListTools(ctx context.Context) ([]mcpgo.Tool, error) {
	res, err := u.c.ListTools(ctx, mcpgo.ListToolsRequest{})
	if err != nil {
		return nil, err
	}
	return res.Tools, nil
}

func (u *clientUpstream) CallTool(ctx context.Context, name string, args map[string]any) (*mcpgo.CallToolResult, error) {
	return u.c.CallTool(ctx, mcpgo.CallToolRequest{Params: mcpgo.CallToolParams{Name: name, Arguments: args}})
}

func (u *clientUpstream) Close() error { return u.c.Close() }
