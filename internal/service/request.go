package service

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/toolwarden/toolwarden/engine"
	"github.com/toolwarden/toolwarden/internal/engine/analyze"
)

// ToolRequest is the body of /v1/scan and /v1/executions: the fields the
// Safety Guard's filter extracts from a tool call, plus what an execution
// needs. Every content field that is set is scanned, field by field, and
// the findings are aggregated (deny wins): whatever could run is judged.
type ToolRequest struct {
	ToolName string `json:"tool_name"`
	// Language is bash, python or auto; it applies to command, cmd,
	// script and code. python_code and bash_code carry their own.
	Language string `json:"language"`

	Command    string          `json:"command"`
	Cmd        string          `json:"cmd"`
	Script     string          `json:"script"`
	Code       string          `json:"code"`
	CodeBlocks json.RawMessage `json:"code_blocks"`
	PythonCode string          `json:"python_code"`
	BashCode   string          `json:"bash_code"`

	CommandArgs    []string          `json:"command_args"`
	Cwd            string            `json:"cwd"`
	Env            map[string]string `json:"env"`
	ToolMetadata   map[string]any    `json:"tool_metadata"`
	ConversationID string            `json:"conversation_id"`
	// TimeoutSeconds is the requested hard timeout of the run.
	TimeoutSeconds float64 `json:"timeout_seconds"`
	// MaxOutputBytes is the requested output budget.
	MaxOutputBytes int64 `json:"max_output_bytes"`
	// WaitSeconds bounds how long POST /v1/executions waits for the result
	// (tool_wait_timeout_seconds when absent).
	WaitSeconds *float64 `json:"wait_seconds"`
}

// codeBlock is one element of code_blocks: {"language": "...", "code": "..."}
// or a bare string.
type codeBlock struct {
	Language string `json:"language"`
	Code     string `json:"code"`
}

// FieldError is a bad request that names the offending field.
type FieldError struct {
	Field, Msg string
}

// Error names the field and what is wrong with it.
func (e *FieldError) Error() string { return fmt.Sprintf("field %q: %s", e.Field, e.Msg) }

// Piece is one unit of content to scan and run.
type Piece struct {
	Field    string
	Language string
	Content  string
}

// Pieces extracts the content of a request with the Safety Guard's field
// mapping: command and cmd are shell command lines unless language says
// otherwise; python_code and bash_code fix their language; code and script
// take language or are detected (code is not assumed to be Python).
func (r *ToolRequest) Pieces() ([]Piece, error) {
	lang, err := analyze.NormalizeLanguage(r.Language)
	if err != nil {
		return nil, &FieldError{"language", err.Error()}
	}
	for name := range r.Env {
		if msg := badEnvName(name); msg != "" {
			return nil, &FieldError{"env", msg}
		}
	}
	var got []Piece
	add := func(field, language, content string) {
		if content != "" {
			got = append(got, Piece{field, language, content})
		}
	}
	// A content field holding only whitespace would run nothing: say so
	// rather than queue an empty run.
	for _, f := range []struct{ name, v string }{{"command", r.Command}, {"cmd", r.Cmd}, {"script", r.Script},
		{"code", r.Code}, {"python_code", r.PythonCode}, {"bash_code", r.BashCode}} {
		if f.v != "" && strings.TrimSpace(f.v) == "" {
			return nil, &FieldError{f.name, "holds only whitespace: nothing to scan or run"}
		}
	}
	cmdLang := lang
	if cmdLang == "auto" {
		cmdLang = "bash"
	}
	add("command", cmdLang, withArgs(r.Command, r.CommandArgs))
	add("cmd", cmdLang, withArgs(r.Cmd, r.CommandArgs))
	add("script", lang, withPositional(r.Script, lang, r.CommandArgs))
	add("code", lang, withPositional(r.Code, lang, r.CommandArgs))
	add("python_code", "python", r.PythonCode)
	add("bash_code", "bash", withPositional(r.BashCode, "bash", r.CommandArgs))
	if len(r.CodeBlocks) > 0 && string(r.CodeBlocks) != "null" {
		blocks, err := parseCodeBlocks(r.CodeBlocks, lang)
		if err != nil {
			return nil, err
		}
		got = append(got, blocks...)
	}
	if len(got) == 0 && len(r.CommandArgs) > 0 {
		// No content but arguments: they are the command line.
		add("command_args", "bash", withArgs(shellWord(r.CommandArgs[0]), r.CommandArgs[1:]))
	}
	if len(got) == 0 {
		return nil, &FieldError{"command", "no content: set one of command, cmd, script, code, code_blocks, python_code, bash_code (or command_args)"}
	}
	return got, nil
}

// shellWord quotes s as one shell word.
func shellWord(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// withPositional gives a shell script its command_args as positional
// parameters ("$1", "$@"), as running it with those arguments would, so
// that the scan judges `"$@"` with the values it will have. Other languages
// receive arguments as data (sys.argv) and are left as they are.
func withPositional(content, lang string, args []string) string {
	if content == "" || len(args) == 0 || lang != "bash" {
		return content
	}
	return withArgs("set --", args) + "\n" + content
}

// withArgs appends command_args to a command line, shell-quoted, so that
// the scan judges exactly the command line that would run.
func withArgs(cmd string, args []string) string {
	if cmd == "" || len(args) == 0 {
		return cmd
	}
	var b strings.Builder
	b.WriteString(cmd)
	for _, a := range args {
		b.WriteString(" '")
		b.WriteString(strings.ReplaceAll(a, "'", `'\''`))
		b.WriteString("'")
	}
	return b.String()
}

func parseCodeBlocks(raw json.RawMessage, lang string) ([]Piece, error) {
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		return nil, &FieldError{"code_blocks", "must be a list of {language, code} objects or strings"}
	}
	var out []Piece
	for i, it := range items {
		var b codeBlock
		var s string
		if err := json.Unmarshal(it, &s); err == nil {
			b = codeBlock{Code: s}
		} else if err := json.Unmarshal(it, &b); err != nil {
			return nil, &FieldError{fmt.Sprintf("code_blocks[%d]", i), "must be a {language, code} object or a string"}
		}
		l := lang
		if b.Language != "" {
			nl, err := analyze.NormalizeLanguage(b.Language)
			if err != nil {
				return nil, &FieldError{fmt.Sprintf("code_blocks[%d].language", i), err.Error()}
			}
			l = nl
		}
		if b.Code != "" {
			out = append(out, Piece{Field: "code_blocks", Language: l, Content: b.Code})
		}
	}
	if len(out) == 0 {
		return nil, &FieldError{"code_blocks", "no non-empty block"}
	}
	return out, nil
}

// EngineRequest builds the engine request for one piece. The requested
// budget is the larger of the top-level fields and tool_metadata's
// `timeout` / `timeout_seconds` / `max_output_bytes` (where the Safety
// Guard's filter reads them): a limit is judged by what is asked anywhere.
func (r *ToolRequest) EngineRequest(p Piece) engine.Request {
	return engine.Request{
		ToolName:       r.ToolName,
		Language:       p.Language,
		Content:        p.Content,
		Cwd:            r.Cwd,
		TimeoutSeconds: max(r.TimeoutSeconds, metaNumber(r.ToolMetadata, "timeout"), metaNumber(r.ToolMetadata, "timeout_seconds")),
		MaxOutputBytes: max(r.MaxOutputBytes, int64(metaNumber(r.ToolMetadata, "max_output_bytes"))),
		CommandArgs:    r.CommandArgs,
		Env:            r.Env,
		Metadata:       r.ToolMetadata,
		ConversationID: r.ConversationID,
	}
}

// BadField returns a FieldError: the request's field is wrong, and msg says
// how.
func BadField(field, msg string) error { return &FieldError{Field: field, Msg: msg} }

// metaNumber reads a numeric tool_metadata entry (a JSON number or a numeric
// string); 0 when absent or not a number.
func metaNumber(m map[string]any, key string) float64 {
	switch v := m[key].(type) {
	case float64:
		return v
	case int:
		return float64(v)
	case int64:
		return float64(v)
	case json.Number:
		f, _ := v.Float64()
		return f
	case string:
		f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if err == nil {
			return f
		}
	}
	return 0
}

// badEnvName says why name cannot be an environment variable name ("" when
// it can): empty, or holding "=" or NUL. A name with "=" would smuggle a
// variable past the scan: "BASH_ENV=x.sh" with value "" becomes the
// environment string "BASH_ENV=x.sh=", which sets BASH_ENV while the scan
// judged a name it does not know. The executor refuses such names too
// (runner.BadEnvName).
func badEnvName(name string) string {
	switch {
	case name == "":
		return "an environment variable name is empty"
	case strings.ContainsAny(name, "=\x00"):
		return fmt.Sprintf("environment variable name %q holds \"=\" or NUL", name)
	}
	return ""
}
