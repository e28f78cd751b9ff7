package mcp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/toolwarden/toolwarden/engine"
	"github.com/toolwarden/toolwarden/internal/execution"
	"github.com/toolwarden/toolwarden/internal/execution/embedded"
	"github.com/toolwarden/toolwarden/internal/isolation"
	"github.com/toolwarden/toolwarden/internal/mcp/gateway"
	"github.com/toolwarden/toolwarden/internal/policies"
	"github.com/toolwarden/toolwarden/internal/service"
)

// upstreamBin is the dry-run upstream MCP server, built once by TestMain.
var upstreamBin string

// waitFor bounds every wait for a state; no assertion depends on speed.
const waitFor = 60 * time.Second

// TestMain lets the test binary act as the isolation shim (as
// cmd/toolwarden does) and builds the test upstream server.
func TestMain(m *testing.M) {
	if isolation.IsShim() {
		isolation.ShimMain()
	}
	dir, err := os.MkdirTemp("", "toolwarden-mcp-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	upstreamBin = filepath.Join(dir, "testupstream")
	out, err := exec.Command("go", "build", "-o", upstreamBin, "./internal/testupstream").CombinedOutput()
	if err != nil {
		fmt.Fprintf(os.Stderr, "build test upstream: %v\n%s", err, out)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// newService returns a service over the default policy's native rule packs
// and an embedded store.
func newService(t *testing.T) *service.Service {
	t.Helper()
	pol, err := policies.Builtin("default")
	if err != nil {
		t.Fatal(err)
	}
	eng, err := engine.New(context.Background(), engine.Options{Policy: pol, Packs: engine.NativePacks()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close(context.Background()) })
	return &service.Service{Engine: eng, Backend: openStore(t)}
}

func openStore(t *testing.T) execution.Backend {
	t.Helper()
	b, err := embedded.Open(t.TempDir(), embedded.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	return b
}

// upstreamConfig is one server entry running the test upstream.
func upstreamConfig(name string) gateway.ServerConfig {
	return gateway.ServerConfig{Name: name, Command: upstreamBin}
}

// newGateway connects a gateway with its own store to cfg's servers.
func newGateway(t *testing.T, svc *service.Service, cfg gateway.Config, opts gateway.Options) *gateway.Gateway {
	t.Helper()
	opts.Scanner = svc
	if opts.Store == nil {
		opts.Store = openStore(t)
	}
	g, err := gateway.New(cfg, opts)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), waitFor)
	defer cancel()
	if err := g.Connect(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.Close() })
	return g
}

// text returns the concatenated text content of a result.
func text(res *mcpgo.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := mcpgo.AsTextContent(c); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// object decodes the (single) JSON text of a result.
func object(t *testing.T, res *mcpgo.CallToolResult) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(text(res)), &m); err != nil {
		t.Fatalf("result is not one JSON object: %v\n%s", err, text(res))
	}
	return m
}

// call calls a tool through an mcp-go client.
func call(t *testing.T, c *client.Client, name string, args map[string]any) *mcpgo.CallToolResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitFor)
	defer cancel()
	res, err := c.CallTool(ctx, mcpgo.CallToolRequest{Params: mcpgo.CallToolParams{Name: name, Arguments: args}})
	if err != nil {
		t.Fatalf("call %s: %v", name, err)
	}
	return res
}

// decision returns safety_report.decision of a JSON object.
func decision(m map[string]any) string {
	rep, _ := m["safety_report"].(map[string]any)
	d, _ := rep["decision"].(string)
	return d
}
