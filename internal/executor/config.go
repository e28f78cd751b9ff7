package executor

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/toolwarden/toolwarden/internal/egress"
	"github.com/toolwarden/toolwarden/internal/execution"
	"github.com/toolwarden/toolwarden/internal/isolation"
	"github.com/toolwarden/toolwarden/internal/reduction"
	"github.com/toolwarden/toolwarden/internal/runner"
	wsp "github.com/toolwarden/toolwarden/internal/workspace"
)

// Defaults for Config fields left zero.
const (
	// DefaultConcurrency is how many executions one daemon runs at once.
	DefaultConcurrency = 4
	// DefaultClaimBlock bounds one blocking Claim, so the claim loop notices
	// shutdown promptly even on a backend that ignores its context.
	DefaultClaimBlock = 2 * time.Second
	// maxStoreBackoff caps the pause after a store error in the claim loop.
	maxStoreBackoff = 5 * time.Second
	// maxIsolationBackoff caps the claim pause while the isolation backend
	// keeps failing to start runs.
	maxIsolationBackoff = 30 * time.Second
)

// Config configures a Daemon. Zero values take the defaults documented on
// each field; New validates the rest.
type Config struct {
	// WorkerID names this daemon in leases and in orphan reasons; it must be
	// unique among the executors sharing a backend. Default
	// "<hostname>-<pid>-<random>".
	WorkerID string
	// Concurrency is the number of executions run at once (default 4).
	Concurrency int
	// Lease is the backend's lease TTL (default execution.DefaultLeaseTTL).
	// It must match the backend's: a run whose heartbeats have failed for a
	// whole Lease is treated as lost and killed, since reconciliation
	// elsewhere may already have orphaned it.
	Lease time.Duration
	// HeartbeatInterval is how often each run's lease is extended and its
	// cancel flag polled (default Lease/3).
	HeartbeatInterval time.Duration
	// ReconcileInterval is how often running records whose worker is gone
	// are marked orphaned (default Lease). Reconciliation also runs at start.
	ReconcileInterval time.Duration
	// ClaimBlock is how long one Claim waits for work (default 2s).
	ClaimBlock time.Duration
	// Exclusive declares this daemon the only executor of the backend (the
	// embedded store inside `toolwarden serve`). Reconciliation then orphans
	// at once every running record held by another worker id. With a
	// shared backend (Redis) it must stay false: the daemon cannot know
	// which other executors are alive, so it judges by lease expiry only.
	Exclusive bool

	// Timeout is the hard timeout of a run whose record sets none
	// (tool_timeout_minutes; default runner.DefaultTimeout, 60m).
	Timeout time.Duration
	// NoOutputTimeout kills a run silent for this long
	// (shell_no_output_timeout_seconds; default 1200s, negative disables).
	NoOutputTimeout time.Duration
	// MaxResultBytes caps the canonical result
	// (reduction_max_length_for_trunc; default 50000).
	MaxResultBytes int
	// ReductionRoot is where oversized outputs are spilled
	// (default reduction.DefaultRoot).
	ReductionRoot string
	// WorkspaceRoot is the working directory of runs whose record has no cwd
	// (default: the daemon's working directory). Used only without
	// Workspaces.
	WorkspaceRoot string
	// Workspaces, when set, gives every conversation (or every run without
	// one) a workspace of its own with a uid of its own: the run's cwd is
	// resolved inside it, it is the only read-write root, and its disk use
	// is bounded (see package workspace). serve and executor always set it.
	Workspaces *wsp.Manager
	// DiskPoll is how often a running workspace is measured against its
	// bound (default DefaultDiskPoll).
	DiskPoll time.Duration
	// JanitorInterval is how often idle workspaces are swept (default
	// DefaultJanitorInterval).
	JanitorInterval time.Duration
	// Limits and Hardening are passed to every run (zero: the isolation
	// backend's defaults).
	Limits    isolation.Limits
	Hardening isolation.Hardening
	// Egress configures the egress proxy of runs that may use the network
	// (security.network; the zero value is the safe default: ports 443
	// and 80, no host loopback).
	Egress egress.Config
	// EgressResolver resolves destination names for the egress proxies
	// (nil: the system resolver). Tests set it to control DNS answers.
	EgressResolver egress.Resolver
	// Scanner scans, right before exec, the content of a record and the
	// workspace files it runs when the service could not (its StagedScan is
	// empty: Redis mode with the service on another host). nil: such a
	// record is refused when a workspace file its content runs or imports
	// exists. The command wires the executor's own engine here.
	Scanner StagedScanner
	// Workspace returns the workspace root of a record's run (default:
	// WorkspaceRoot when the run's directory lies under it, else the run's
	// directory).
	Workspace func(rec *execution.Record) string
	// PartialInterval throttles partial-output writes to the store
	// (default runner.DefaultPartialInterval).
	PartialInterval time.Duration

	// Runners run the records of other languages than the process ones
	// (bash, python), keyed by Record.Language — the MCP gateway registers
	// its upstream tools/call runner under "mcp" — on the same duties as
	// process runs (see Runner).
	Runners map[string]Runner

	// Logger receives the daemon's events (default slog.Default()). Run
	// content and output are never logged, only ids and states.
	Logger *slog.Logger
}

// withDefaults fills zero fields and rejects values that cannot work.
func (c Config) withDefaults() (Config, error) {
	if c.WorkerID == "" {
		c.WorkerID = DefaultWorkerID()
	}
	if c.Concurrency == 0 {
		c.Concurrency = DefaultConcurrency
	}
	if c.Lease == 0 {
		c.Lease = execution.DefaultLeaseTTL
	}
	if c.HeartbeatInterval == 0 {
		c.HeartbeatInterval = c.Lease / 3
	}
	if c.ReconcileInterval == 0 {
		c.ReconcileInterval = c.Lease
	}
	if c.ClaimBlock == 0 {
		c.ClaimBlock = DefaultClaimBlock
	}
	if c.Timeout == 0 {
		c.Timeout = runner.DefaultTimeout
	}
	if c.NoOutputTimeout == 0 {
		c.NoOutputTimeout = runner.DefaultNoOutputTimeout
	}
	if c.MaxResultBytes == 0 {
		c.MaxResultBytes = reduction.DefaultMaxLength
	}
	if c.ReductionRoot == "" {
		c.ReductionRoot = reduction.DefaultRoot
	}
	if c.PartialInterval == 0 {
		c.PartialInterval = runner.DefaultPartialInterval
	}
	if c.DiskPoll <= 0 {
		c.DiskPoll = DefaultDiskPoll
	}
	if c.JanitorInterval <= 0 {
		c.JanitorInterval = DefaultJanitorInterval
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	var errs []error
	if _, err := c.Egress.WithDefaults(); err != nil {
		errs = append(errs, err)
	}
	if c.Concurrency < 0 {
		errs = append(errs, fmt.Errorf("concurrency %d is negative", c.Concurrency))
	}
	if c.Lease < 0 || c.HeartbeatInterval < 0 || c.ReconcileInterval < 0 || c.ClaimBlock < 0 || c.PartialInterval < 0 {
		errs = append(errs, errors.New("lease, heartbeat, reconcile, claim and partial intervals must not be negative"))
	}
	if c.HeartbeatInterval >= c.Lease {
		errs = append(errs, fmt.Errorf("heartbeat interval %s must be shorter than the lease %s", c.HeartbeatInterval, c.Lease))
	}
	if c.Timeout < 0 {
		errs = append(errs, fmt.Errorf("timeout %s is negative", c.Timeout))
	}
	if c.MaxResultBytes < reduction.MinMaxLength {
		errs = append(errs, fmt.Errorf("max result bytes %d is below the minimum %d", c.MaxResultBytes, reduction.MinMaxLength))
	}
	if err := errors.Join(errs...); err != nil {
		return c, fmt.Errorf("executor config: %w", err)
	}
	return c, nil
}

// DefaultWorkerID returns "<hostname>-<pid>-<random>": readable in orphan
// reasons, and unique even when a restarted daemon reuses a pid.
func DefaultWorkerID() string {
	host, err := os.Hostname()
	if err != nil || host == "" {
		host = "executor"
	}
	var b [4]byte
	_, _ = rand.Read(b[:])
	return fmt.Sprintf("%s-%d-%s", host, os.Getpid(), hex.EncodeToString(b[:]))
}
