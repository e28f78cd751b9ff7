package client

import (
	"encoding/json"
	"time"

	"github.com/toolwarden/toolwarden/sdk"
)

// ToolRequest is a tool call to scan or execute: the body of POST /v1/scan
// and POST /v1/executions. Every content field that is set is scanned.
type ToolRequest struct {
	ToolName string `json:"tool_name,omitempty"`
	// Language is bash, python, auto (or unknown: detected) or mixed
	// (scanned as both); it applies to Command, Cmd, Script
	// and Code.
	Language   string          `json:"language,omitempty"`
	Command    string          `json:"command,omitempty"`
	Cmd        string          `json:"cmd,omitempty"`
	Script     string          `json:"script,omitempty"`
	Code       string          `json:"code,omitempty"`
	CodeBlocks json.RawMessage `json:"code_blocks,omitempty"`
	PythonCode string          `json:"python_code,omitempty"`
	BashCode   string          `json:"bash_code,omitempty"`

	CommandArgs    []string          `json:"command_args,omitempty"`
	Cwd            string            `json:"cwd,omitempty"`
	Env            map[string]string `json:"env,omitempty"`
	ToolMetadata   map[string]any    `json:"tool_metadata,omitempty"`
	ConversationID string            `json:"conversation_id,omitempty"`
	// TimeoutSeconds is the requested hard timeout of the run.
	TimeoutSeconds float64 `json:"timeout_seconds,omitempty"`
	// MaxOutputBytes is the requested output budget.
	MaxOutputBytes int64 `json:"max_output_bytes,omitempty"`
	// WaitSeconds bounds how long Submit waits for the result (the
	// server's tool_wait_timeout_seconds when nil).
	WaitSeconds *float64 `json:"wait_seconds,omitempty"`
}

// Execution statuses.
const (
	StatusPendingReview = "pending_review"
	StatusQueued        = "queued"
	StatusRunning       = "running"
	StatusCompleted     = "completed"
	StatusFailed        = "failed"
	StatusBlocked       = "blocked"
	StatusCancelled     = "cancelled"
	StatusHardTimeout   = "hard_timeout"
)

// Terminal reports whether status is final.
func Terminal(status string) bool {
	switch status {
	case StatusPendingReview, StatusQueued, StatusRunning, "":
		return false
	}
	return true
}

// Execution is an execution record as the API shows it.
type Execution struct {
	ExecutionID    string     `json:"execution_id"`
	Status         string     `json:"status"`
	ToolName       string     `json:"tool_name"`
	ConversationID string     `json:"conversation_id"`
	CreatedAt      time.Time  `json:"created_at"`
	StartedAt      *time.Time `json:"started_at"`
	EndedAt        *time.Time `json:"ended_at"`
	DurationMS     int64      `json:"duration_ms"`
	ExitCode       *int       `json:"exit_code"`
	// Result is the reduced output; Error says why the run failed.
	Result  string `json:"result"`
	Error   string `json:"error"`
	IsError bool   `json:"is_error"`
	// PartialOutput is the tail of a running execution's output.
	PartialOutput          string            `json:"partial_output"`
	PartialOutputBytes     int64             `json:"partial_output_bytes"`
	PartialOutputTruncated bool              `json:"partial_output_truncated"`
	PartialOutputUpdatedAt *time.Time        `json:"partial_output_updated_at"`
	SafetyReport           *sdk.SafetyReport `json:"safety_report"`
	IsolationBackend       string            `json:"isolation_backend"`
	Cleanup                string            `json:"cleanup"`
	CleanupDetail          string            `json:"cleanup_detail,omitempty"`
	StatusReason           string            `json:"status_reason,omitempty"`
	Language               string            `json:"language"`
	Content                string            `json:"content"`
	Cwd                    string            `json:"cwd,omitempty"`
	EnvNames               []string          `json:"env_names,omitempty"`
	TimeoutMS              int64             `json:"timeout_ms,omitempty"`
	NetworkUse             bool              `json:"network_use"`
	AllowedDomains         []string          `json:"allowed_domains,omitempty"`
	OwnerKeyID             string            `json:"owner_key_id,omitempty"`
	SpillPath              string            `json:"spill_path,omitempty"`
	Workspace              string            `json:"workspace,omitempty"`
	EffectiveTimeoutMS     int64             `json:"effective_timeout_ms,omitempty"`
	StopReason             string            `json:"stop_reason,omitempty"`
	Attempt                int               `json:"attempt"`
	CancelRequested        bool              `json:"cancel_requested,omitempty"`
	CancelReason           string            `json:"cancel_reason,omitempty"`
	Revision               int64             `json:"revision"`
	// WaitTimedOut is set by Wait answers: the wait ended before the run.
	WaitTimedOut bool `json:"wait_timed_out,omitempty"`
}

// Terminal reports whether the execution has finished.
func (e *Execution) Terminal() bool { return Terminal(e.Status) }

// ListOptions filter List.
type ListOptions struct {
	ConversationID string
	Status         string
	// Limit is the page size (server default when 0).
	Limit int
	// Cursor continues a previous page (Page.NextCursor).
	Cursor string
}

// Page is one page of List.
type Page struct {
	Executions []Execution `json:"executions"`
	// NextCursor continues the listing; "" on the last page.
	NextCursor string `json:"next_cursor"`
}

// OutputChunk is one chunk of an execution's full output.
type OutputChunk struct {
	ExecutionID string `json:"execution_id"`
	Offset      int64  `json:"offset"`
	Size        int64  `json:"size"`
	EOF         bool   `json:"eof"`
	Data        string `json:"data"`
	Persisted   bool   `json:"persisted"`
	Path        string `json:"path,omitempty"`
}

// Key is an API key's record (never its token).
type Key struct {
	ID        string    `json:"id"`
	Name      string    `json:"name"`
	Role      string    `json:"role"`
	CreatedAt time.Time `json:"created_at"`
}

// CreatedKey is a new key with its token, shown once.
type CreatedKey struct {
	Key   Key    `json:"key"`
	Token string `json:"token"`
}

// ConversationCancel is the answer of CancelConversation.
type ConversationCancel struct {
	ConversationID string   `json:"conversation_id"`
	Cancelled      []string `json:"cancelled"`
}
