package executor

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/toolwarden/toolwarden/engine"
	"github.com/toolwarden/toolwarden/internal/engine/staged"
	"github.com/toolwarden/toolwarden/internal/execution"
	"github.com/toolwarden/toolwarden/sdk"
)

// StagedScanner scans a record's content together with the workspace files
// it runs; *engine.Engine is one. The executor uses it for records whose
// staged files the service could not scan (Redis mode, service on another
// host).
type StagedScanner interface {
	ScanStaged(ctx context.Context, req engine.Request, src staged.Source, lim engine.StagedLimits) (*engine.StagedScan, error)
}

// stagedScanTimeout bounds the executor's own staged-file scan.
const stagedScanTimeout = 30 * time.Second

// checkStaged is the last check before exec: the workspace files the
// content runs must be the ones that were scanned. For a record the
// service scanned, every recorded path is read again and compared (hash,
// size, presence). Otherwise, when the content runs a workspace file that
// exists, the executor scans the content and its files itself and refuses
// a deny (or a review under block_on_review). It returns the refusal
// reason, or "" to run.
//
// ws is the run's workspace when the executor gave it one (per-conversation
// workspaces); otherwise it is derived by workspaceOf.
func (d *Daemon) checkStaged(rec *execution.Record, ws, dir string) (string, bool) {
	root := ws
	if root == "" {
		root = d.workspaceOf(rec, dir)
	}
	src := staged.Dir{Root: root, Cwd: dir}
	if rec.StagedScan == execution.StagedScanService {
		for _, f := range rec.StagedFiles {
			want := staged.File{Path: f.Path, State: f.State, SHA256: f.SHA256, Size: f.Size}
			now := src.ReadRel(f.Path, 0).File
			if !want.Same(now) {
				return "TOOL_SAFETY_BLOCKED: workspace file " + staged.Describe(want, now) +
					"; the run is refused because the code it would run is not the code that was scanned", false
			}
		}
		return "", recordRunsFiles(rec)
	}
	// Content that runs no existing workspace file (the common case) needs
	// no second scan: one native analysis tells.
	p, present := staged.Present(rec.Language, rec.Content, src)
	if !present {
		return "", false
	}
	if d.cfg.Scanner == nil {
		return "TOOL_SAFETY_BLOCKED: the content runs workspace file " + p +
			", which the service did not scan, and this executor has no scanner configured", true
	}
	ctx, cancel := context.WithTimeout(context.Background(), stagedScanTimeout)
	defer cancel()
	res, err := d.cfg.Scanner.ScanStaged(ctx, engine.Request{
		ToolName: rec.ToolName, Language: rec.Language, Content: rec.Content, Cwd: rec.Cwd,
		Env: envNamesOnly(rec), ConversationID: rec.ConversationID, ScanID: rec.ExecutionID,
	}, src, engine.StagedLimits{})
	if err != nil {
		return "TOOL_SAFETY_BLOCKED: the executor could not scan the workspace files the content runs: " + err.Error(), true
	}
	rep := res.Report
	if rep.Decision == sdk.Deny || rep.Blocked {
		return "TOOL_SAFETY_BLOCKED: executor scan of the workspace files the content runs: " + stagedSummary(rep), true
	}
	return "", true
}

// recordRunsFiles reports whether the service's scan found that the content
// executes files present in the workspace (a staged file recorded in any
// state but absent), so the run must hold the workspace alone.
func recordRunsFiles(rec *execution.Record) bool {
	if rec.StagedScan != execution.StagedScanService {
		return false
	}
	for _, f := range rec.StagedFiles {
		if f.State != staged.StateAbsent {
			return true
		}
	}
	return false
}

// envNamesOnly gives the scan the env names (values are not the scan's
// business beyond secrets, which the service already checked).
func envNamesOnly(rec *execution.Record) map[string]string {
	if len(rec.EnvNames) == 0 {
		return nil
	}
	m := make(map[string]string, len(rec.EnvNames))
	for _, n := range rec.EnvNames {
		m[n] = ""
	}
	return m
}

// stagedSummary names the deciding findings, the files first.
func stagedSummary(rep *sdk.SafetyReport) string {
	var parts []string
	for _, f := range rep.Findings {
		if f.Decision == rep.Decision || (rep.Blocked && f.Decision != sdk.Allow) {
			parts = append(parts, fmt.Sprintf("%s (%s)", f.RuleID, f.Evidence))
		}
		if len(parts) == 3 {
			break
		}
	}
	if len(parts) == 0 {
		return rep.Summary
	}
	return strings.Join(parts, "; ")
}

// workspaceOf returns the workspace root of a run whose cwd is dir:
// Config.Workspace when set, else WorkspaceRoot when dir lies under it,
// else dir itself.
func (d *Daemon) workspaceOf(rec *execution.Record, dir string) string {
	if d.cfg.Workspace != nil {
		return d.cfg.Workspace(rec)
	}
	root := d.cfg.WorkspaceRoot
	if root == "" {
		return dir
	}
	if rel, err := filepath.Rel(root, dir); err == nil && rel != ".." && !strings.HasPrefix(rel, "../") {
		return root
	}
	return dir
}

// stagedRefused is the outcome of a run refused by checkStaged: failed
// (a running record cannot become blocked), with the reason naming the
// file.
func stagedRefused(reason string) *execution.Record {
	now := time.Now()
	return &execution.Record{
		Status:       execution.StatusFailed,
		EndedAt:      &now,
		Error:        reason,
		IsError:      true,
		StatusReason: reason,
		Cleanup:      execution.CleanupDone,
	}
}
