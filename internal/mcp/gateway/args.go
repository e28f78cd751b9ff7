package gateway

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/toolwarden/toolwarden/internal/service"
)

// contentFields are the argument names whose values are scanned, in the
// scan API's order: the same fields the Safety Guard's filter extracts.
var contentFields = []string{"command", "cmd", "script", "code", "code_blocks", "python_code", "bash_code"}

// scanInput is what the gateway scans for one tools/call: the request with
// its non-content fields, and one piece per content field found.
type scanInput struct {
	req    *service.ToolRequest
	pieces []service.Piece
}

// decodeArguments reads a tools/call's arguments leniently into a
// service.ToolRequest: unknown arguments are the upstream tool's business
// and are ignored, non-content fields of the wrong type are ignored, but a
// content field the scan cannot read (an object where a command should be)
// is an error, so that nothing unscanned is forwarded. Every content field
// present is scanned — an upstream tool may take several — with the scan
// API's language rules for each.
func decodeArguments(toolName string, args map[string]any) (*scanInput, error) {
	req := &service.ToolRequest{ToolName: toolName}
	if v, ok := args["language"].(string); ok {
		req.Language = v
	}
	if v, ok := args["cwd"].(string); ok {
		req.Cwd = v
	}
	if v, ok := args["conversation_id"].(string); ok {
		req.ConversationID = v
	}
	if v, ok := args["timeout_seconds"].(float64); ok && v >= 0 {
		req.TimeoutSeconds = v
	}
	if v, ok := args["command_args"].([]any); ok {
		for _, a := range v {
			if s, ok := a.(string); ok {
				req.CommandArgs = append(req.CommandArgs, s)
			}
		}
	}
	if env, ok := args["env"].(map[string]any); ok {
		req.Env = map[string]string{}
		for k, v := range env {
			req.Env[k] = fmt.Sprint(v)
		}
	}
	in := &scanInput{req: req}
	for _, field := range contentFields {
		v, ok := args[field]
		if !ok || v == nil {
			continue
		}
		one := &service.ToolRequest{Language: req.Language, CommandArgs: req.CommandArgs}
		switch field {
		case "code_blocks":
			raw, err := json.Marshal(v)
			if err != nil {
				return nil, fmt.Errorf("argument %q: %w", field, err)
			}
			one.CodeBlocks = raw
		default:
			s, err := contentString(field, v)
			if err != nil {
				return nil, err
			}
			if strings.TrimSpace(s) == "" {
				continue
			}
			switch field {
			case "command":
				one.Command = s
			case "cmd":
				one.Cmd = s
			case "script":
				one.Script = s
			case "code":
				one.Code = s
			case "python_code":
				one.PythonCode = s
			case "bash_code":
				one.BashCode = s
			}
		}
		pieces, err := one.Pieces()
		if err != nil {
			return nil, fmt.Errorf("argument %q: %w", field, err)
		}
		in.pieces = append(in.pieces, pieces...)
	}
	return in, nil
}

// contentString reads a content argument: a string, or for command and cmd
// an argv list, which is shell-quoted into the command line it stands for.
func contentString(field string, v any) (string, error) {
	switch x := v.(type) {
	case string:
		return x, nil
	case []any:
		if field != "command" && field != "cmd" {
			break
		}
		parts := make([]string, 0, len(x))
		for _, a := range x {
			s, ok := a.(string)
			if !ok {
				return "", fmt.Errorf("argument %q: argv element %v is not a string; the call cannot be scanned", field, a)
			}
			parts = append(parts, shellQuote(s))
		}
		return strings.Join(parts, " "), nil
	}
	return "", fmt.Errorf("argument %q: a %T cannot be scanned as content; the call is not forwarded", field, v)
}

// shellQuote quotes s for a POSIX shell unless it is a plain word.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r == '-' || r == '_' || r == '.' || r == '/' || r == '=' || r == ':' || r == ',' || r == '+' ||
			(r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9'))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
