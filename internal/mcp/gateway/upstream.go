package gateway

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"

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
// streamable-HTTP client for URL. The connection redials itself once after a
// transport failure (a crashed stdio server is restarted on the next call),
// so a server that recovers is usable again when its breaker lets a probe
// through.
func Dial(ctx context.Context, cfg ServerConfig) (Upstream, error) {
	c, err := dialClient(ctx, cfg)
	if err != nil {
		return nil, err
	}
	return &clientUpstream{cfg: cfg, c: c}, nil
}

func dialClient(ctx context.Context, cfg ServerConfig) (*client.Client, error) {
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
	return c, nil
}

// clientUpstream adapts an mcp-go client and replaces it after a transport
// failure.
type clientUpstream struct {
	cfg    ServerConfig
	mu     sync.Mutex
	c      *client.Client
	broken bool
}

// client returns the live client, redialling a broken one first.
func (u *clientUpstream) client(ctx context.Context) (*client.Client, error) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if !u.broken {
		return u.c, nil
	}
	c, err := dialClient(ctx, u.cfg)
	if err != nil {
		return nil, fmt.Errorf("reconnect: %w", err)
	}
	_ = u.c.Close()
	u.c, u.broken = c, false
	return c, nil
}

// failed marks c broken after a transport error that was not caused by
// the caller's own cancellation.
func (u *clientUpstream) failed(ctx context.Context, c *client.Client, err error) {
	var te *transport.Error
	if err == nil || ctx.Err() != nil || !errors.As(err, &te) {
		return
	}
	u.mu.Lock()
	if u.c == c {
		u.broken = true
	}
	u.mu.Unlock()
}

func (u *clientUpstream) ListTools(ctx context.Context) ([]mcpgo.Tool, error) {
	c, err := u.client(ctx)
	if err != nil {
		return nil, err
	}
	res, err := c.ListTools(ctx, mcpgo.ListToolsRequest{})
	if err != nil {
		u.failed(ctx, c, err)
		return nil, err
	}
	return res.Tools, nil
}

func (u *clientUpstream) CallTool(ctx context.Context, name string, args map[string]any) (*mcpgo.CallToolResult, error) {
	c, err := u.client(ctx)
	if err != nil {
		return nil, err
	}
	res, err := c.CallTool(ctx, mcpgo.CallToolRequest{Params: mcpgo.CallToolParams{Name: name, Arguments: args}})
	u.failed(ctx, c, err)
	return res, err
}

func (u *clientUpstream) Close() error {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.c.Close()
}
