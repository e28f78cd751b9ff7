// Package mcpguard is mcp-go middleware that scans a tool call with
// toolwarden before it runs: on the client side before the call leaves
// (Client), on the server side before a handler runs (Middleware).
//
// The script is taken from the call's arguments as the design's filter
// does: script, code, command, cmd, python_code, bash_code or code_blocks
// (with language or lang, cwd, env, tool_metadata, timeout_seconds,
// max_output_bytes and command_args, args or argv when given). A call without any of them is not a script and
// passes unscanned. A blocked call is answered with an error result —
// {"success": false, "error": "TOOL_SAFETY_BLOCKED: …", "safety_report": …}
// — and never reaches the server or the handler; a call that runs gets the
// same safety_report attached to its result: into a text content that is a
// JSON object, into a structuredContent object, and always into _meta.
// A scan that fails blocks the call (fail closed).
package mcpguard

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"

	mcpclient "github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/toolwarden/toolwarden/sdk"
	"github.com/toolwarden/toolwarden/sdk/client"
	"github.com/toolwarden/toolwarden/sdk/guard"
)

// ReportKey is the field the safety report is attached under.
const ReportKey = "safety_report"

// commandArgsKeys are the argument names read as command_args, in the
// server's order.
var commandArgsKeys = []string{"command_args", "args", "argv"}

// contentFields are the argument names that carry a script.
var contentFields = []string{"script", "code", "command", "cmd", "python_code", "bash_code", "code_blocks"}

// Request extracts the scan request of a tool call from its arguments; ok
// is false when the call carries no script.
func Request(tool string, args map[string]any) (req client.ToolRequest, ok bool, err error) {
	req.ToolName = tool
	str := func(k string) (string, error) {
		v, present := args[k]
		if !present || v == nil {
			return "", nil
		}
		s, isStr := v.(string)
		if !isStr {
			return "", fmt.Errorf("argument %q: want a string", k)
		}
		return s, nil
	}
	for _, f := range []struct {
		name string
		dst  *string
	}{{"script", &req.Script}, {"code", &req.Code}, {"command", &req.Command}, {"cmd", &req.Cmd},
		{"python_code", &req.PythonCode}, {"bash_code", &req.BashCode}, {"language", &req.Language}, {"cwd", &req.Cwd},
		{"conversation_id", &req.ConversationID}} {
		s, err := str(f.name)
		if err != nil {
			return req, true, err
		}
		*f.dst = s
	}
	if v, present := args["code_blocks"]; present && v != nil {
		b, err := json.Marshal(v)
		if err != nil {
			return req, true, fmt.Errorf("argument %q: %w", "code_blocks", err)
		}
		req.CodeBlocks = b
	}
	if v, present := args["env"].(map[string]any); present {
		req.Env = map[string]string{}
		for k, val := range v {
			req.Env[k] = fmt.Sprint(val)
		}
	}
	// The language and the arguments are read under each name the
	// server reads them; two names that disagree fail the call (one of
	// them would go unjudged).
	if s, isStr := args["lang"].(string); isStr && strings.TrimSpace(s) != "" {
		if l := strings.TrimSpace(req.Language); l != "" && !strings.EqualFold(l, strings.TrimSpace(s)) {
			return req, true, fmt.Errorf("argument %q: language %q conflicts with %q", "lang", s, req.Language)
		}
		req.Language = s
	}
	var argsKey string
	for _, k := range commandArgsKeys {
		v, present := args[k].([]any)
		if !present {
			continue
		}
		var got []string
		for _, a := range v {
			got = append(got, fmt.Sprint(a))
		}
		if argsKey != "" && !slices.Equal(got, req.CommandArgs) {
			return req, true, fmt.Errorf("argument %q conflicts with %q: send the arguments once", k, argsKey)
		}
		argsKey, req.CommandArgs = k, got
	}
	if v, present := args["tool_metadata"].(map[string]any); present {
		req.ToolMetadata = v
	}
	if v, present := args["timeout_seconds"].(float64); present {
		req.TimeoutSeconds = v
	}
	if v, present := args["max_output_bytes"].(float64); present {
		// Saturate: a budget past the int64 range must stay over the
		// limit, never wrap to a small number.
		req.MaxOutputBytes = math.MaxInt64
		if v < math.MaxInt64 {
			req.MaxOutputBytes = int64(v)
		}
	}
	for _, f := range contentFields {
		if v, present := args[f]; present && v != nil && v != "" {
			return req, true, nil
		}
	}
	return req, false, nil
}

// check scans the call; a nil report and nil result mean "not a script,
// pass". A non-nil result is the blocked answer.
func check(ctx context.Context, g *guard.Guard, req mcp.CallToolRequest) (*sdk.SafetyReport, *mcp.CallToolResult) {
	tr, ok, err := Request(req.Params.Name, req.GetArguments())
	if err != nil {
		return nil, Blocked(nil, BlockedPrefixScan+err.Error())
	}
	if !ok {
		return nil, nil
	}
	rep, err := g.Check(ctx, tr)
	if err != nil {
		if _, blocked := guard.IsBlocked(err); blocked {
			return rep, Blocked(rep, err.Error())
		}
		return nil, Blocked(nil, BlockedPrefixScan+err.Error())
	}
	return rep, nil
}

// BlockedPrefixScan starts the error of a call blocked because it could not
// be scanned.
const BlockedPrefixScan = guard.BlockedPrefix + "scan failed, not run: "

// Blocked is the error result of a blocked call.
func Blocked(rep *sdk.SafetyReport, msg string) *mcp.CallToolResult {
	body := map[string]any{"success": false, "error": msg}
	if rep != nil {
		body[ReportKey] = rep
	}
	b, _ := json.Marshal(body)
	res := &mcp.CallToolResult{Content: []mcp.Content{mcp.NewTextContent(string(b))}, StructuredContent: body, IsError: true}
	if rep != nil {
		setMeta(res, rep)
	}
	return res
}

// Attach adds rep to res: into each text content that is a JSON object,
// into a structuredContent object, and into _meta.
func Attach(res *mcp.CallToolResult, rep *sdk.SafetyReport) {
	if res == nil || rep == nil {
		return
	}
	for i, c := range res.Content {
		tc, ok := c.(mcp.TextContent)
		if !ok {
			if p, isPtr := c.(*mcp.TextContent); isPtr && p != nil {
				tc, ok = *p, true
			}
		}
		if !ok || !strings.HasPrefix(strings.TrimSpace(tc.Text), "{") {
			continue
		}
		var obj map[string]any
		if json.Unmarshal([]byte(tc.Text), &obj) != nil {
			continue
		}
		obj[ReportKey] = rep
		b, err := json.Marshal(obj)
		if err != nil {
			continue
		}
		tc.Text = string(b)
		res.Content[i] = tc
	}
	switch sc := res.StructuredContent.(type) {
	case map[string]any:
		sc[ReportKey] = rep
	case nil:
		if len(res.RawStructuredContent) > 0 {
			var obj map[string]any
			if json.Unmarshal(res.RawStructuredContent, &obj) == nil {
				obj[ReportKey] = rep
				res.StructuredContent = obj
			}
		}
	}
	setMeta(res, rep)
}

func setMeta(res *mcp.CallToolResult, rep *sdk.SafetyReport) {
	if res.Meta == nil {
		res.Meta = &mcp.Meta{}
	}
	if res.Meta.AdditionalFields == nil {
		res.Meta.AdditionalFields = map[string]any{}
	}
	res.Meta.AdditionalFields[ReportKey] = rep
}

// Middleware is the server side: each tool call is scanned before its
// handler runs (mcpserver.WithToolHandlerMiddleware(mcpguard.Middleware(g))).
func Middleware(g *guard.Guard) server.ToolHandlerMiddleware {
	return func(next server.ToolHandlerFunc) server.ToolHandlerFunc {
		return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			rep, blocked := check(ctx, g, req)
			if blocked != nil {
				return blocked, nil
			}
			res, err := next(ctx, req)
			if err == nil {
				Attach(res, rep)
			}
			return res, err
		}
	}
}

// Client is the client side: an mcp-go client whose CallTool scans the
// call before it leaves. Every other method is the wrapped client's.
type Client struct {
	mcpclient.MCPClient
	Guard *guard.Guard
}

// NewClient wraps c.
func NewClient(c mcpclient.MCPClient, g *guard.Guard) *Client { return &Client{MCPClient: c, Guard: g} }

// CallTool scans req; a blocked call is answered here (the server never
// sees it), one that runs gets the report attached to its result.
func (c *Client) CallTool(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	rep, blocked := check(ctx, c.Guard, req)
	if blocked != nil {
		return blocked, nil
	}
	res, err := c.MCPClient.CallTool(ctx, req)
	if err == nil {
		Attach(res, rep)
	}
	return res, err
}
