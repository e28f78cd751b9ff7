package execution

import (
	"encoding/json"
	"time"

	"github.com/toolwarden/toolwarden/sdk"
)

// Cleanup is the outcome of reclaiming an execution's processes and
// resources. It is stored beside the status, never folded into it, so a run
// that completed but left something behind stays visible as such.
type Cleanup string

// Cleanup outcomes.
const (
	// CleanupNone: no cleanup has been reported (yet).
	CleanupNone Cleanup = ""
	// CleanupDone: every process and resource of the run is confirmed gone.
	CleanupDone Cleanup = "cleaned"
	// CleanupFailed: cleanup was attempted and failed; something may still run.
	CleanupFailed Cleanup = "cleanup_failed"
	// CleanupUnconfirmed: cleanup was requested but its effect cannot be
	// confirmed (for example a remote MCP server without cancel receipts).
	CleanupUnconfirmed Cleanup = "cleanup_unconfirmed"
)

// Valid reports whether c is a known cleanup outcome.
func (c Cleanup) Valid() bool {
	switch c {
	case CleanupNone, CleanupDone, CleanupFailed, CleanupUnconfirmed:
		return true
	}
	return false
}

// Record is one execution: the request, its lifecycle state and, once
// terminal, the canonical (already reduced) result that the caller, the store
// and the panel all see. The JSON names are the API's.
type Record struct {
	ExecutionID    string     `json:"execution_id"`
	Status         Status     `json:"status"`
	ToolName       string     `json:"tool_name"`
	ConversationID string     `json:"conversation_id"`
	CreatedAt      time.Time  `json:"created_at"`
	StartedAt      *time.Time `json:"started_at"`
	EndedAt        *time.Time `json:"ended_at"`
	DurationMS     int64      `json:"duration_ms"`
	ExitCode       *int       `json:"exit_code"`
	// Result is the canonical reduced result (a <persisted-output> preview
	// when the full output was spilled to SpillPath).
	Result  string `json:"result"`
	Error   string `json:"error"`
	IsError bool   `json:"is_error"`

	// Partial output is a bounded tail preview of what a running workload has
	// produced so far; it is not the result.
	PartialOutput          string     `json:"partial_output"`
	PartialOutputBytes     int64      `json:"partial_output_bytes"`
	PartialOutputTruncated bool       `json:"partial_output_truncated"`
	PartialOutputUpdatedAt *time.Time `json:"partial_output_updated_at"`

	SafetyReport     *sdk.SafetyReport `json:"safety_report"`
	IsolationBackend string            `json:"isolation_backend"`
	Cleanup          Cleanup           `json:"cleanup"`
	// CleanupDetail says what failed or could not be confirmed (cgroup path,
	// process group, worker id) so an operator can finish the job.
	CleanupDetail string `json:"cleanup_detail,omitempty"`
	// StatusReason explains a status the caller did not choose: why a record
	// was orphaned, blocked or cancelled.
	StatusReason string `json:"status_reason,omitempty"`

	// The request.
	Language string `json:"language"`
	Content  string `json:"content"`
	Cwd      string `json:"cwd,omitempty"`
	// EnvNames are the names of environment variables passed to the workload;
	// values are never stored because they may be secrets.
	EnvNames []string `json:"env_names,omitempty"`
	// Env holds the values of the requested environment for the workload.
	// They may be secrets: backends never store them in plain text (the
	// embedded store keeps them in memory, Redis seals them with AES-GCM)
	// and hand them over only with the record Claim returns; they are
	// dropped when the record is claimed or ends, and never returned by the
	// API or the MCP tools (see Public).
	Env       map[string]string `json:"env,omitempty"`
	TimeoutMS int64             `json:"timeout_ms,omitempty"`
	// NetworkUse records that the scan found network use in the content;
	// without it the executor runs the workload in a private network
	// namespace (least privilege: what the scan did not see, it need not
	// reach).
	NetworkUse bool `json:"network_use"`
	// AllowedDomains is the policy's allowed_domains when the scan judged
	// the request: the executor's egress proxy enforces this list, not its
	// own policy, so a remote executor applies what judged the scan. Nil
	// (a record from before this field) gives the run no way out.
	AllowedDomains []string `json:"allowed_domains,omitempty"`
	// NetworkConnections lists the connections the run asked its egress
	// proxy for (the first ones; NetworkConnectionsOmitted counts the
	// rest), allowed or refused, with the bytes each moved.
	NetworkConnections        []NetworkConnection `json:"network_connections,omitempty"`
	NetworkConnectionsOmitted int                 `json:"network_connections_omitted,omitempty"`
	OwnerKeyID                string              `json:"owner_key_id,omitempty"`
	// StagedFiles are the workspace files the scan read because the content
	// runs or loads them (`python3 x.py`, `./x`, `source f`, `make`,
	// imports), and the paths it looked for and found absent. The executor
	// checks each again right before exec and refuses the run if one
	// changed, appeared or disappeared.
	StagedFiles []StagedFile `json:"staged_files,omitempty"`
	// StagedScan is StagedScanService when the service read the run's
	// workspace and scanned those files; empty when it could not (another
	// host, no workspace wiring), in which case the executor scans them
	// itself before exec, with the same engine and policy, and refuses the
	// run on a deny (or a review under block_on_review).
	StagedScan string `json:"staged_scan,omitempty"`
	// SpillPath is where the full output went when it exceeded the result limit.
	SpillPath string `json:"spill_path,omitempty"`

	// Workspace names the run's workspace: its directory name under the
	// executor's workspace root (c-<hash> for a conversation, e-<hash> for a
	// run without one). The host path is not recorded: it says nothing a
	// caller needs and tells an attacker where the data dir lives.
	Workspace string `json:"workspace,omitempty"`
	// WorkspaceUID is the uid the run executed as (its workspace's owner);
	// 0 when the executor was not root and kept its own uid.
	WorkspaceUID int `json:"workspace_uid,omitempty"`
	// EffectiveTimeoutMS is the hard timeout the run gets: the requested
	// timeout clamped to the policy's max_timeout_seconds and the
	// executor's agent.tool_timeout_minutes (the default when none was
	// requested).
	EffectiveTimeoutMS int64 `json:"effective_timeout_ms,omitempty"`
	// StopReason is the machine-readable cause of a run the executor
	// stopped for breaking a bound (StopWorkspaceLimit).
	StopReason string `json:"stop_reason,omitempty"`

	// Worker bookkeeping, written only through Claim, Heartbeat and Finish.
	WorkerID       string     `json:"worker_id,omitempty"`
	LeaseExpiresAt *time.Time `json:"lease_expires_at,omitempty"`
	HeartbeatAt    *time.Time `json:"heartbeat_at,omitempty"`
	Attempt        int        `json:"attempt"`

	// CancelRequested is set when a cancel arrives while a worker runs the
	// workload; the worker sees it (Watch or CancelRequested) and stops.
	CancelRequested bool   `json:"cancel_requested,omitempty"`
	CancelReason    string `json:"cancel_reason,omitempty"`

	// Revision increases by one with every stored change; watchers use it to
	// skip duplicates and callers can use it as an ETag.
	Revision int64 `json:"revision"`
}

// NetworkConnection is one connection a run asked its egress proxy for.
type NetworkConnection struct {
	Host      string    `json:"host"`
	Port      int       `json:"port"`
	BytesUp   int64     `json:"bytes_up"`
	BytesDown int64     `json:"bytes_down"`
	Allowed   bool      `json:"allowed"`
	Reason    string    `json:"reason,omitempty"`
	StartedAt time.Time `json:"started_at"`
}

// StagedScanService marks a record whose staged files the service scanned.
const StagedScanService = "service"

// StagedFile is one workspace path the scan looked at: its path relative to
// the workspace root, what it was ("file", "absent", "outside" for a
// symlink out of the workspace, "unreadable"), and for a file its SHA-256
// and size.
type StagedFile struct {
	Path   string `json:"path"`
	State  string `json:"state"`
	SHA256 string `json:"sha256,omitempty"`
	Size   int64  `json:"size,omitempty"`
}

// Clone returns a deep copy, so that a backend never hands out a pointer into
// its own state and a caller's later edits never leak into the store.
func (r *Record) Clone() *Record {
	if r == nil {
		return nil
	}
	c := *r
	c.StartedAt = cloneTime(r.StartedAt)
	c.EndedAt = cloneTime(r.EndedAt)
	c.PartialOutputUpdatedAt = cloneTime(r.PartialOutputUpdatedAt)
	c.LeaseExpiresAt = cloneTime(r.LeaseExpiresAt)
	c.HeartbeatAt = cloneTime(r.HeartbeatAt)
	if r.ExitCode != nil {
		v := *r.ExitCode
		c.ExitCode = &v
	}
	if r.EnvNames != nil {
		c.EnvNames = append([]string(nil), r.EnvNames...)
	}
	if r.AllowedDomains != nil {
		c.AllowedDomains = append([]string(nil), r.AllowedDomains...)
	}
	if r.NetworkConnections != nil {
		c.NetworkConnections = append([]NetworkConnection(nil), r.NetworkConnections...)
	}
	if r.StagedFiles != nil {
		c.StagedFiles = append([]StagedFile(nil), r.StagedFiles...)
	}
	if r.Env != nil {
		c.Env = make(map[string]string, len(r.Env))
		for k, v := range r.Env {
			c.Env[k] = v
		}
	}
	if r.SafetyReport != nil {
		// The report holds maps of arbitrary values; a JSON round trip is the
		// simplest complete deep copy and the report is always JSON-safe.
		var rep sdk.SafetyReport
		if b, err := json.Marshal(r.SafetyReport); err == nil && json.Unmarshal(b, &rep) == nil {
			c.SafetyReport = &rep
		}
	}
	return &c
}

// Public returns a copy of r fit for callers: without environment values
// (they may be secrets) and without worker bookkeeping.
func (r *Record) Public() *Record {
	c := r.Clone()
	c.Env = nil
	c.WorkerID, c.LeaseExpiresAt, c.HeartbeatAt = "", nil, nil
	return c
}

// Marshal encodes r as the JSON document backends store.
func (r *Record) Marshal() ([]byte, error) { return json.Marshal(r) }

// Unmarshal decodes a stored JSON document.
func Unmarshal(b []byte) (*Record, error) {
	var r Record
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, err
	}
	return &r, nil
}

func cloneTime(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	v := *t
	return &v
}

func timePtr(t time.Time) *time.Time { return &t }

// StopWorkspaceLimit is the StopReason of a run stopped (or refused)
// because its workspace passed workspace_max_bytes.
const StopWorkspaceLimit = "workspace_limit_exceeded"
