// Package guard is the Safety Guard's entry points for Go agents: every
// script, command or code block is scanned by toolwarden before it runs,
// and what is denied (or, with BlockOnReview, held for review) never
// starts. It mirrors the design's entry points:
//
//   - Guard.Run is the generic wrapper (ToolSafetyGuard.run): scan, then
//     call execute only when the scan does not block.
//   - Guard.RunCommand runs a shell command (BashTool) and Guard.RunCode a
//     Python or bash code block (the local code executor) on this host
//     after the scan.
//   - Workspace guards a Skill's workspace: commands run with the
//     workspace as their directory, each one scanned first.
//   - Package mcpguard is mcp-go middleware for the client side (scan a
//     tool call before it leaves) and the server side (before a handler
//     runs), attaching the safety_report to results as the design's filter
//     does.
//
// A scan that fails (toolwarden unreachable, a bad request) is an error and
// nothing runs: the guard fails closed. needs_human_review runs by default
// with the report attached; BlockOnReview blocks it like deny.
//
// The local runs here are not isolated: they run as the calling process.
// To run under toolwarden's isolation instead, submit the call with
// client.Client.Submit.
package guard

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"

	"github.com/toolwarden/toolwarden/sdk"
	"github.com/toolwarden/toolwarden/sdk/client"
)

// Scanner scans a tool call; *client.Client is one.
type Scanner interface {
	Scan(ctx context.Context, req client.ToolRequest) (*sdk.SafetyReport, error)
}

// BlockedPrefix starts the error of every blocked call, as the design's
// tool responses say it (TOOL_SAFETY_BLOCKED: …).
const BlockedPrefix = "TOOL_SAFETY_BLOCKED: "

// BlockedError is returned when the scan blocks a call; it carries the
// report so the caller can show the rule ids and the fix.
type BlockedError struct {
	Report *sdk.SafetyReport
}

// Error is "TOOL_SAFETY_BLOCKED: " and the report's summary.
func (e *BlockedError) Error() string {
	if e.Report == nil {
		return BlockedPrefix + "blocked"
	}
	return BlockedPrefix + string(e.Report.Decision) + ": " + e.Report.Summary
}

// IsBlocked reports whether err is (or wraps) a BlockedError, and returns
// its report.
func IsBlocked(err error) (*sdk.SafetyReport, bool) {
	var be *BlockedError
	if errors.As(err, &be) {
		return be.Report, true
	}
	return nil, false
}

// Guard scans tool calls before they run.
type Guard struct {
	// Scanner is toolwarden (a *client.Client).
	Scanner Scanner
	// BlockOnReview blocks needs_human_review like deny (default: it runs
	// with the report attached).
	BlockOnReview bool
	// ToolName is sent as tool_name when a request has none.
	ToolName string
}

// Check scans req and decides. It returns the report and, when the call
// must not run, a *BlockedError (or the scan's own error: fail closed).
func (g *Guard) Check(ctx context.Context, req client.ToolRequest) (*sdk.SafetyReport, error) {
	if g == nil || g.Scanner == nil {
		return nil, errors.New("guard: no scanner configured; refusing to run unscanned")
	}
	if req.ToolName == "" {
		req.ToolName = g.ToolName
	}
	rep, err := g.Scanner.Scan(ctx, req)
	if err != nil {
		return nil, fmt.Errorf("guard: scan %s: %w", req.ToolName, err)
	}
	if rep == nil {
		return nil, fmt.Errorf("guard: scan %s: no safety report", req.ToolName)
	}
	if g.blocks(rep) {
		blocked := *rep
		blocked.Blocked = true
		return &blocked, &BlockedError{Report: &blocked}
	}
	return rep, nil
}

// blocks reports whether rep stops the call: deny always (and any value
// that is not a known decision: fail closed), review with BlockOnReview,
// and whatever the server already marked blocked.
func (g *Guard) blocks(rep *sdk.SafetyReport) bool {
	switch {
	case rep.Blocked, rep.Decision == sdk.Deny, !rep.Decision.Valid():
		return true
	case rep.Decision == sdk.NeedsHumanReview:
		return g.BlockOnReview
	}
	return false
}

// Run is the generic wrapper: it scans req and calls execute only when the
// scan does not block. It returns the report (also when blocked) and the
// error of the block, of the scan or of execute.
func (g *Guard) Run(ctx context.Context, req client.ToolRequest, execute func(ctx context.Context) error) (*sdk.SafetyReport, error) {
	rep, err := g.Check(ctx, req)
	if err != nil {
		return rep, err
	}
	return rep, execute(ctx)
}

// Result is the outcome of a guarded local run.
type Result struct {
	// Output is the run's combined stdout and stderr.
	Output []byte
	// ExitCode is the process's exit code (-1 when it did not start or
	// was killed by a signal).
	ExitCode int
	// Report is the scan's safety report.
	Report *sdk.SafetyReport
}

// RunOptions tune a local run.
type RunOptions struct {
	// Dir is the working directory (the current one when empty).
	Dir string
	// Env is the environment (the process's when nil). Its names are sent
	// with the scan and its values checked for secrets.
	Env map[string]string
	// ConversationID groups the scans of one conversation.
	ConversationID string
	// Metadata is sent as tool_metadata.
	Metadata map[string]any
}

// RunCommand scans command as a bash command line and, unless blocked,
// runs it with bash -c.
func (g *Guard) RunCommand(ctx context.Context, command string, opt RunOptions) (*Result, error) {
	req := client.ToolRequest{ToolName: g.toolName("bash"), Command: command, Language: "bash",
		Env: opt.Env, ToolMetadata: opt.Metadata, ConversationID: opt.ConversationID}
	return g.runLocal(ctx, req, opt, "bash", "-c", command)
}

// RunCode scans code (language "python" or "bash") and, unless blocked,
// runs it with python3 -c or bash -c.
func (g *Guard) RunCode(ctx context.Context, language, code string, opt RunOptions) (*Result, error) {
	req := client.ToolRequest{ToolName: g.toolName("code_executor"), Env: opt.Env, ToolMetadata: opt.Metadata,
		ConversationID: opt.ConversationID}
	var prog string
	switch language {
	case "python", "python3":
		req.PythonCode, prog = code, "python3"
	case "bash", "sh", "shell":
		req.BashCode, prog = code, "bash"
	default:
		return nil, fmt.Errorf("guard: language %q: want python or bash", language)
	}
	return g.runLocal(ctx, req, opt, prog, "-c", code)
}

func (g *Guard) toolName(def string) string {
	if g.ToolName != "" {
		return g.ToolName
	}
	return def
}

func (g *Guard) runLocal(ctx context.Context, req client.ToolRequest, opt RunOptions, name string, args ...string) (*Result, error) {
	res := &Result{ExitCode: -1}
	rep, err := g.Run(ctx, req, func(ctx context.Context) error {
		cmd := exec.CommandContext(ctx, name, args...)
		cmd.Dir = opt.Dir
		if opt.Env != nil {
			for k, v := range opt.Env {
				cmd.Env = append(cmd.Env, k+"="+v)
			}
		}
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		err := cmd.Run()
		res.Output = out.Bytes()
		var ee *exec.ExitError
		switch {
		case err == nil:
			res.ExitCode = 0
		case errors.As(err, &ee):
			res.ExitCode = ee.ExitCode()
			return nil // a non-zero exit is a result, not an error
		default:
			return fmt.Errorf("guard: run %s: %w", name, err)
		}
		return nil
	})
	res.Report = rep
	return res, err
}

// Workspace guards a Skill's workspace: every command runs in Dir, after
// its scan. The scan is told the skill (tool_metadata.skill) and the
// command's directory relative to the workspace, never the host path.
type Workspace struct {
	// Guard scans the commands.
	Guard *Guard
	// Dir is the workspace directory.
	Dir string
	// Skill names the skill (tool_name skill_run when empty).
	Skill string
	// Env is the environment of the commands (the process's when nil).
	Env map[string]string
}

// Run scans command and, unless blocked, runs it with bash -c in the
// workspace.
func (w *Workspace) Run(ctx context.Context, command string) (*Result, error) {
	if w.Dir == "" {
		return nil, errors.New("guard: workspace has no Dir")
	}
	meta := map[string]any{"skill": w.Skill}
	req := client.ToolRequest{ToolName: "skill_run", Command: command, Language: "bash", Env: w.Env, ToolMetadata: meta}
	return w.Guard.runLocal(ctx, req, RunOptions{Dir: w.Dir, Env: w.Env}, "bash", "-c", command)
}
