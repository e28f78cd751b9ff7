package gateway

import (
	"encoding/json"
	"strings"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/toolwarden/toolwarden/sdk"
)

// attachReport puts the call's safety_report (and execution id) into a
// forwarded call's result, as the Safety Guard's after-filter does: a
// structured (object) result gets a top-level safety_report, every text
// item that is a JSON object gets it written back into the JSON, and a
// result with neither gets one extra text item carrying it, so the agent
// always sees the verdict in the tool response itself.
func attachReport(res *mcpgo.CallToolResult, rep *sdk.SafetyReport, executionID string) *mcpgo.CallToolResult {
	out := *res
	out.Content = append([]mcpgo.Content(nil), res.Content...)
	wrote := false
	structured := res.StructuredContent
	if len(res.RawStructuredContent) > 0 {
		structured = res.RawStructuredContent
	}
	if m, ok := asObject(structured); ok {
		m["safety_report"] = rep
		m["execution_id"] = executionID
		out.StructuredContent = m
		out.RawStructuredContent = nil // it would be encoded instead of m
		wrote = true
	}
	for i, c := range out.Content {
		tc, ok := mcpgo.AsTextContent(c)
		if !ok {
			continue
		}
		text := strings.TrimSpace(tc.Text)
		if !strings.HasPrefix(text, "{") {
			continue
		}
		var m map[string]any
		if json.Unmarshal([]byte(text), &m) != nil {
			continue
		}
		m["safety_report"] = rep
		m["execution_id"] = executionID
		b, err := json.Marshal(m)
		if err != nil {
			continue
		}
		nt := *tc
		nt.Text = string(b)
		out.Content[i] = nt
		wrote = true
	}
	if !wrote {
		b, _ := json.Marshal(map[string]any{"execution_id": executionID, "safety_report": rep})
		out.Content = append(out.Content, mcpgo.NewTextContent(string(b)))
	}
	return &out
}

// asObject returns v as a JSON object (a fresh map), when it is one.
func asObject(v any) (map[string]any, bool) {
	if v == nil {
		return nil, false
	}
	b, err := json.Marshal(v)
	if err != nil || len(b) == 0 || b[0] != '{' {
		return nil, false
	}
	var m map[string]any
	if json.Unmarshal(b, &m) != nil {
		return nil, false
	}
	return m, true
}
