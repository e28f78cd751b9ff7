package service

import (
	"errors"
	"math"
	"os"
	"time"

	"github.com/toolwarden/toolwarden/internal/workspace"
)

// checkCwd refuses an execution's cwd unless it resolves inside the
// workspace the run will get (a 400 naming cwd). The scan still judges
// the cwd as sent (EXECUTION_DENIED_CWD); this check is what keeps a run
// from widening where it may write. When the workspace already exists on
// this host, symlinks are resolved too; the executor checks again at exec
// time either way.
func (s *Service) checkCwd(req *ToolRequest, owner, executionID string) error {
	root := "/nonexistent-workspace"
	if s.Workspaces != nil {
		root = s.Workspaces.Path(workspace.Key(owner, req.ConversationID), executionID)
	}
	dir, err := workspace.ResolveCwd(root, req.Cwd)
	if err != nil {
		return cwdError(err)
	}
	if s.Workspaces == nil || req.Cwd == "" {
		return nil
	}
	if _, err := os.Lstat(root); err != nil {
		return nil // not on this host (yet): the executor decides
	}
	if _, err := os.Lstat(dir); errors.Is(err, os.ErrNotExist) {
		return &FieldError{"cwd", "no such directory in the run's workspace"}
	}
	if _, err := workspace.CheckCwd(root, dir); err != nil {
		return cwdError(err)
	}
	return nil
}

func cwdError(err error) error {
	var ce *workspace.CwdError
	if errors.As(err, &ce) {
		return &FieldError{"cwd", ce.Msg}
	}
	return &FieldError{"cwd", err.Error()}
}

// timeouts returns the timeout stored on the record (the request's, capped
// by the policy's max_timeout_seconds and MaxTimeout; 0 when none was
// requested) and the effective hard timeout the run will get. A request
// over the policy's maximum keeps its review finding
// (RESOURCE_TIMEOUT_LIMIT_EXCEEDED) from the scan: the clamp decides how
// long it may run, not whether it is reviewed.
func (s *Service) timeouts(requestedSeconds float64) (stored, effective int64) {
	caps := []time.Duration{}
	if p := s.Engine.Policy(); p != nil && p.MaxTimeoutSeconds > 0 {
		caps = append(caps, seconds(p.MaxTimeoutSeconds))
	}
	if s.MaxTimeout > 0 {
		caps = append(caps, s.MaxTimeout)
	}
	if requestedSeconds > 0 {
		d := seconds(requestedSeconds)
		for _, c := range caps {
			d = min(d, c)
		}
		stored = max(d.Milliseconds(), 1)
		return stored, stored
	}
	if s.MaxTimeout > 0 {
		return 0, s.MaxTimeout.Milliseconds()
	}
	return 0, 0
}

// seconds converts without overflow: anything past ~292 years saturates.
func seconds(v float64) time.Duration {
	if v*float64(time.Second) >= math.MaxInt64 || math.IsInf(v, 1) || math.IsNaN(v) {
		return math.MaxInt64
	}
	return time.Duration(v * float64(time.Second))
}
