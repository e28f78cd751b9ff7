package engine

// Request is one piece of content to scan, with what the caller said about
// the execution it wants. The server, the CLI and the MCP entry points all
// build a Request from their own input shapes.
type Request struct {
	// ScanID identifies the scan in the report and audit log; a random
	// UUID is used when empty.
	ScanID string
	// ToolName is the calling tool's name, reported as tool_name.
	ToolName string
	// Language is "bash", "python" or "auto"/"" to detect.
	Language string
	// Content is the command line, script or code block.
	Content string
	// Cwd is the requested working directory.
	Cwd string
	// TimeoutSeconds is the requested timeout, 0 when not given.
	TimeoutSeconds float64
	// MaxOutputBytes is the requested output budget, 0 when not given.
	MaxOutputBytes int64
	// CommandArgs are extra arguments appended to the command.
	CommandArgs []string
	// Env is the requested environment; only its names reach rule plugins,
	// its values are checked for secrets.
	Env map[string]string
	// Metadata is the caller's tool metadata.
	Metadata map[string]any
	// ConversationID groups executions of one agent conversation.
	ConversationID string
}
