// Package view renders an execution record as the JSON text the MCP tools
// return: service.View — the one record view the REST API returns too —
// with the tool's extra fields (wait_timed_out, message) beside it.
package view

import (
	"encoding/json"

	"github.com/toolwarden/toolwarden/internal/execution"
	"github.com/toolwarden/toolwarden/internal/service"
)

// Record returns r as a JSON object: service.View(r, include, maxPartial)
// with extra fields added at the top level.
func Record(r *execution.Record, include bool, maxPartial int, extra map[string]any) string {
	b, err := json.Marshal(service.View(r, include, maxPartial))
	if err != nil {
		return `{"error":"record cannot be encoded"}`
	}
	if len(extra) == 0 {
		return indent(b)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return string(b)
	}
	for k, v := range extra {
		m[k] = v
	}
	out, err := json.Marshal(m)
	if err != nil {
		return string(b)
	}
	return indent(out)
}

func indent(b []byte) string {
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return string(b)
	}
	out, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return string(b)
	}
	return string(out)
}
