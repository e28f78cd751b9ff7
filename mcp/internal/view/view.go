// Package view renders an execution record as the JSON text the MCP tools
// return: the API's record shape with the partial-output preview cut to
// the caller's bound and the worker bookkeeping left out.
package view

import (
	"encoding/json"

	"github.com/toolwarden/toolwarden/execution"
)

// Record returns r as a JSON object. Partial output is kept only while r
// runs and include is set, cut to maxPartial bytes (see
// execution.Record.PartialTail). extra fields (wait_timed_out, message)
// are added at the top level.
func Record(r *execution.Record, include bool, maxPartial int, extra map[string]any) string {
	c := r.Public()
	if include && !c.Status.Terminal() {
		c.PartialOutput, c.PartialOutputTruncated = c.PartialTail(maxPartial)
	} else {
		c.PartialOutput = ""
	}
	b, err := json.Marshal(c)
	if err != nil {
		return `{"error":"record cannot be encoded"}`
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return string(b)
	}
	for _, k := range []string{"worker_id", "lease_expires_at", "heartbeat_at"} {
		delete(m, k)
	}
	for k, v := range extra {
		m[k] = v
	}
	out, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return string(b)
	}
	return string(out)
}
