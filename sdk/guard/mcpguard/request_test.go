package mcpguard

import (
	"math"
	"slices"
	"testing"
)

// TestRequestReadsAliases: lang, args/argv and tool_metadata are taken from
// the call's arguments as the server reads them; disagreeing names fail.
func TestRequestReadsAliases(t *testing.T) {
	req, ok, err := Request("t", map[string]any{"code": "print(1)", "lang": "python", "argv": []any{"a", float64(2)},
		"tool_metadata": map[string]any{"output_size": float64(1e12)}, "max_output_bytes": float64(1e30)})
	if err != nil || !ok {
		t.Fatalf("%v %v", ok, err)
	}
	if req.Language != "python" || !slices.Equal(req.CommandArgs, []string{"a", "2"}) || req.ToolMetadata["output_size"] != float64(1e12) {
		t.Errorf("aliases not read: %+v", req)
	}
	if req.MaxOutputBytes != math.MaxInt64 {
		t.Errorf("max_output_bytes 1e30: %d, want saturated", req.MaxOutputBytes)
	}
	for _, args := range []map[string]any{
		{"code": "ls", "language": "bash", "lang": "python"},
		{"command": "ls", "command_args": []any{"-l"}, "args": []any{"-rf", "/"}},
	} {
		if _, _, err := Request("t", args); err == nil {
			t.Errorf("%v: no error, want the call refused", args)
		}
	}
}
