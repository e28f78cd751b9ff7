package executor

import (
	"fmt"
	"time"

	"github.com/toolwarden/toolwarden/internal/execution"
	"github.com/toolwarden/toolwarden/internal/isolation"
	"github.com/toolwarden/toolwarden/internal/runner"
	wsp "github.com/toolwarden/toolwarden/internal/workspace"
)

// stagedExclusiveWait (a variable for tests) bounds how long a run that executes workspace files
// waits for the other runs of its conversation to end before it is
// refused (see Daemon.openWorkspace).
var stagedExclusiveWait = 30 * time.Second

// workspaceBusyReason refuses a run that executes workspace files when the
// conversation's other runs kept its workspace for all of
// stagedExclusiveWait.
const workspaceBusyReason = "TOOL_SAFETY_BLOCKED: the content runs workspace files, and other runs of this conversation " +
	"kept the workspace busy past the wait; a run that executes workspace files needs the workspace to itself, " +
	"so no other run can change them between the check and the run"

// runWorkspace is the workspace a run executes in, held for the run.
type runWorkspace struct {
	ws      *wsp.Workspace
	release func()
}

// openWorkspace holds the record's workspace (its conversation's, or one
// of its own), places the run in it and gives the run the workspace's uid:
// Dir is the request's cwd resolved inside the workspace — lexically, then
// again with symlinks resolved, so a link a run planted cannot move a later
// run out — and Workspace is the only read-write root. It refuses a
// workspace already over workspace_max_bytes. With no workspace manager
// configured it leaves opts as the legacy Dir/WorkspaceRoot rules made them.
//
// exclusive holds the workspace alone (workspace.Manager.OpenExclusive),
// for a run that executes workspace files: it waits up to
// stagedExclusiveWait for the conversation's other runs to end.
func (d *Daemon) openWorkspace(rec *execution.Record, opts *runner.Options, exclusive bool) (*runWorkspace, error) {
	m := d.cfg.Workspaces
	if m == nil {
		return nil, nil
	}
	key := wsp.Key(rec.OwnerKeyID, rec.ConversationID)
	var (
		ws      *wsp.Workspace
		release func()
		err     error
	)
	if exclusive {
		ws, release, err = m.OpenExclusive(key, rec.ExecutionID, stagedExclusiveWait)
	} else {
		ws, release, err = m.Open(key, rec.ExecutionID)
	}
	if err != nil {
		return nil, fmt.Errorf("workspace: %w", err)
	}
	ok := false
	defer func() {
		if !ok {
			release()
		}
	}()
	dir, err := wsp.ResolveCwd(ws.Path, rec.Cwd)
	if err != nil {
		return nil, err
	}
	if dir, err = wsp.CheckCwd(ws.Path, dir); err != nil {
		return nil, err
	}
	if max := m.MaxBytes(); max > 0 {
		used, _, err := wsp.Usage(ws.Path, max)
		if err != nil {
			return nil, fmt.Errorf("workspace: measure: %w", err)
		}
		if used > max {
			return nil, &limitError{used: used, max: max}
		}
	}
	opts.Dir, opts.Workspace = dir, ws.Path
	// The backend takes a Spec's hardening whole when any field is set,
	// so the uid goes onto the configured set (or the defaults), never
	// onto an otherwise empty one that would turn every layer off.
	if ws.UID > 0 {
		h := d.cfg.Hardening
		if h == (isolation.Hardening{}) {
			h = isolation.DefaultHardening()
		}
		h.UID, h.GID = ws.UID, ws.GID
		opts.Hardening = h
	}
	ok = true
	return &runWorkspace{ws: ws, release: release}, nil
}

// limitError is a workspace over workspace_max_bytes.
type limitError struct{ used, max int64 }

func (e *limitError) Error() string {
	return fmt.Sprintf("workspace uses %d bytes, over workspace_max_bytes %d", e.used, e.max)
}

// stamp records the workspace on an outcome.
func (w *runWorkspace) stamp(f *execution.Record) {
	if w == nil {
		return
	}
	f.Workspace = w.ws.Name
	if w.ws.UID > 0 {
		f.WorkspaceUID = w.ws.UID
	}
}

func (w *runWorkspace) close() {
	if w != nil {
		w.release()
	}
}
