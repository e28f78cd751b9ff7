package gateway

import (
	"encoding/json"
	"fmt"
	"slices"
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
	// The language and the arguments are read under every name the scan
	// API reads them (language or lang; command_args, args or argv). A
	// value of another type is the upstream tool's own argument and is
	// left alone, but two names that disagree leave the call unscannable.
	if err := firstOf(args, service.LanguageKeys(), func(k string, v any) error {
		s, ok := v.(string)
		if !ok || strings.TrimSpace(s) == "" {
			return nil
		}
		if req.Language != "" && !strings.EqualFold(strings.TrimSpace(req.Language), strings.TrimSpace(s)) {
			return fmt.Errorf("argument %q: language %q conflicts with %q; the call cannot be scanned", k, s, req.Language)
		}
		req.Language = s
		return nil
	}); err != nil {
		return nil, err
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
	var argsKey string
	if err := firstOf(args, service.CommandArgsKeys(), func(k string, v any) error {
		list, ok := v.([]any)
		if !ok {
			return nil
		}
		var got []string
		for _, a := range list {
			switch a := a.(type) {
			case string:
				got = append(got, a)
			case float64, json.Number:
				got = append(got, fmt.Sprint(a))
			default:
				return fmt.Errorf("argument %q: element %v is not a string; the call cannot be scanned", k, a)
			}
		}
		if argsKey != "" && !slices.Equal(got, req.CommandArgs) {
			return fmt.Errorf("argument %q conflicts with %q; the call cannot be scanned", k, argsKey)
		}
		argsKey, req.CommandArgs = k, got
		return nil
	}); err != nil {
		return nil, err
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

// firstOf calls take for each of keys present in args, in order, until it
// returns an error; a key holding JSON null is absent.
func firstOf(args map[string]any, keys []string, take func(key string, v any) error) error {
	for _, k := range keys {
		v, ok := args[k]
		if !ok || v == nil {
			continue
		}
		if err := take(k, v); err != nil {
			return err
		}
	}
	return nil
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
