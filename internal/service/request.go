package service

import (
	"encoding/json"
	"fmt"
	"slices"
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
	// Language (key language or lang) is bash, python, auto or unknown
	// (detected), or mixed (scanned as both); it applies to command, cmd,
	// script and code. python_code and bash_code carry their own.
	Language string `json:"language"`

	Command    string          `json:"command"`
	Cmd        string          `json:"cmd"`
	Script     string          `json:"script"`
	Code       string          `json:"code"`
	CodeBlocks json.RawMessage `json:"code_blocks"`
	PythonCode string          `json:"python_code"`
	BashCode   string          `json:"bash_code"`

	// CommandArgs (key command_args, args or argv) are the arguments.
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
	// Alternatives is set on the pieces of content declared "mixed": the
	// same content scanned as each language, under one key. Such pieces
	// are judged together and never run as one execution.
	Alternatives string
	// Context is set on the pieces judged with the request but never run:
	// command_args as the command line they spell when some content takes
	// them as data (Python's sys.argv, a code block), and the shell reading
	// of a command or cmd declared as another language.
	Context bool
}

// contentField is a request key holding content, and the languages it is
// scanned as given the request's language (nil: the request's own).
type contentField struct {
	name  string
	value func(*ToolRequest) string
	// fixed is the field's own language ("" when it takes the request's).
	fixed string
	// shell says a detected ("auto") language means bash: the field is a
	// command line.
	shell bool
	// positional says command_args are given to bash content as "$@"
	// (withPositional) rather than appended to a command line (withArgs).
	positional bool
}

// contentFields are the request keys holding content, in scan order.
var contentFields = []contentField{
	{name: "command", value: func(r *ToolRequest) string { return r.Command }, shell: true},
	{name: "cmd", value: func(r *ToolRequest) string { return r.Cmd }, shell: true},
	{name: "script", value: func(r *ToolRequest) string { return r.Script }, positional: true},
	{name: "code", value: func(r *ToolRequest) string { return r.Code }, positional: true},
	{name: "python_code", value: func(r *ToolRequest) string { return r.PythonCode }, fixed: "python", positional: true},
	{name: "bash_code", value: func(r *ToolRequest) string { return r.BashCode }, fixed: "bash", positional: true},
}

// Pieces extracts the content of a request with the Safety Guard's field
// mapping: command and cmd are shell command lines (declared as another
// language, they run as that language and are judged as both);
// python_code and bash_code fix their language; code and script
// take language or are detected (code is not assumed to be Python).
// Language "unknown" is detected like "auto"; "mixed" content is scanned
// as bash and as Python, and the findings aggregated.
func (r *ToolRequest) Pieces() ([]Piece, error) {
	langs, err := analyze.ScanLanguages(r.Language)
	if err != nil {
		return nil, &FieldError{"language", err.Error()}
	}
	for name := range r.Env {
		if msg := badEnvName(name); msg != "" {
			return nil, &FieldError{"env", msg}
		}
	}
	if _, err := metaLimitValues(r.ToolMetadata); err != nil {
		return nil, err
	}
	var got []Piece
	// argsAsData says some content does not take command_args on a shell
	// command line (see the command_args piece below).
	argsAsData := false
	// A content field holding only whitespace would run nothing: say so
	// rather than queue an empty run.
	for _, f := range contentFields {
		if v := f.value(r); v != "" && strings.TrimSpace(v) == "" {
			return nil, &FieldError{f.name, "holds only whitespace: nothing to scan or run"}
		}
	}
	for _, f := range contentFields {
		v := f.value(r)
		if v == "" {
			continue
		}
		fl := langs
		if f.fixed != "" {
			fl = []string{f.fixed}
		}
		for _, l := range fl {
			if f.shell && l == "auto" {
				l = "bash"
			}
			content := withArgs(v, r.CommandArgs)
			if f.positional {
				content = withPositional(v, l, r.CommandArgs)
			}
			got = append(got, Piece{Field: f.name, Language: l, Content: content, Alternatives: alternatives(f.name, fl)})
			argsAsData = argsAsData || !f.shell && l != "bash"
		}
		if f.shell && !slices.Contains(fl, "bash") && !slices.Contains(fl, "auto") {
			// A command line declared as another language (command with
			// language python) runs as that language here, but a shell
			// tool behind the scan runs it as a command line: it is judged
			// both ways, like mixed content (the parse error of the reading
			// that fails is left out when the other parses), and the
			// shell reading is never run.
			for i := len(got) - len(fl); i < len(got); i++ {
				got[i].Alternatives = f.name
			}
			got = append(got, Piece{Field: f.name, Language: "bash", Content: withArgs(v, r.CommandArgs),
				Alternatives: f.name, Context: true})
		}
	}
	if len(r.CodeBlocks) > 0 && string(r.CodeBlocks) != "null" {
		blocks, err := parseCodeBlocks(r.CodeBlocks, langs)
		if err != nil {
			return nil, err
		}
		got = append(got, blocks...)
		argsAsData = true
	}
	if len(r.CommandArgs) > 0 && (len(got) == 0 || argsAsData) {
		// No content but arguments: they are the command line. Content
		// that takes them as data may still run them (subprocess of
		// sys.argv): they are judged as the command line they spell too,
		// as the Safety Guard's scanner judges every call's arguments.
		got = append(got, Piece{Field: "command_args", Language: "bash", Content: withArgs(shellWord(r.CommandArgs[0]), r.CommandArgs[1:]),
			Context: len(got) > 0})
	}
	if len(got) == 0 {
		return nil, &FieldError{"command", "no content: set one of command, cmd, script, code, code_blocks, python_code, bash_code (or command_args)"}
	}
	return got, nil
}

// Runnable returns the pieces an execution would run: all but the
// Context ones.
func Runnable(pieces []Piece) []Piece {
	var out []Piece
	for _, p := range pieces {
		if !p.Context {
			out = append(out, p)
		}
	}
	return out
}

// alternatives is the Alternatives key of content under key scanned as
// langs: key when there is more than one language, else "".
func alternatives(key string, langs []string) string {
	if len(langs) > 1 {
		return key
	}
	return ""
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

func parseCodeBlocks(raw json.RawMessage, langs []string) ([]Piece, error) {
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
		bl := langs
		if strings.TrimSpace(b.Language) != "" {
			nl, err := analyze.ScanLanguages(b.Language)
			if err != nil {
				return nil, &FieldError{fmt.Sprintf("code_blocks[%d].language", i), err.Error()}
			}
			bl = nl
		}
		if b.Code == "" {
			continue
		}
		for _, l := range bl {
			out = append(out, Piece{Field: "code_blocks", Language: l, Content: b.Code,
				Alternatives: alternatives(fmt.Sprintf("code_blocks[%d]", i), bl)})
		}
	}
	if len(out) == 0 {
		return nil, &FieldError{"code_blocks", "no non-empty block"}
	}
	return out, nil
}

// EngineRequest builds the engine request for one piece. The requested
// budget is the largest of the top-level fields and the tool_metadata keys
// in metaLimits (where the Safety Guard's scanner reads them): a limit is
// judged by what is asked anywhere. Pieces has refused a malformed one.
func (r *ToolRequest) EngineRequest(p Piece) engine.Request {
	meta, _ := metaLimitValues(r.ToolMetadata)
	return engine.Request{
		ToolName:       r.ToolName,
		Language:       p.Language,
		Content:        p.Content,
		Cwd:            r.Cwd,
		TimeoutSeconds: max(r.TimeoutSeconds, meta["timeout"]),
		MaxOutputBytes: max(r.MaxOutputBytes, saturateInt64(meta["output"])),
		CommandArgs:    r.CommandArgs,
		Env:            r.Env,
		Metadata:       r.ToolMetadata,
		ConversationID: r.ConversationID,
	}
}

// BadField returns a FieldError: the request's field is wrong, and msg says
// how.
func BadField(field, msg string) error { return &FieldError{Field: field, Msg: msg} }

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
