package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/toolwarden/toolwarden/internal/execution"
	"github.com/toolwarden/toolwarden/internal/mcp/gateway"
	"github.com/toolwarden/toolwarden/internal/service"
)

// Tool names: the execution-governance design's control tools plus the
// execution tools.
const (
	ToolScan   = "scan"
	ToolExec   = "exec"
	ToolPython = "run_python"
	ToolGet    = "get_tool_execution"
	ToolWait   = "wait_tool_execution"
	ToolCancel = "cancel_tool_execution"
)

func partialOptions() []mcpgo.ToolOption {
	return []mcpgo.ToolOption{
		mcpgo.WithBoolean("include_partial_output", mcpgo.DefaultBool(true),
			mcpgo.Description("include a bounded tail preview of the output produced so far while the run goes on")),
		mcpgo.WithNumber("partial_output_max_bytes", mcpgo.DefaultNumber(execution.DefaultPartialOutputMaxBytes),
			mcpgo.Min(1), mcpgo.Max(execution.MaxPartialOutputMaxBytes),
			mcpgo.Description("bound of the partial output preview in bytes")),
	}
}

func runOptions() []mcpgo.ToolOption {
	return []mcpgo.ToolOption{
		mcpgo.WithString("cwd", mcpgo.Description("working directory (default: the executor's workspace)")),
		mcpgo.WithObject("env", mcpgo.Description("extra environment variables (names are recorded, values never)")),
		mcpgo.WithNumber("timeout_seconds", mcpgo.Min(0), mcpgo.Description("hard timeout of the run (default tool_timeout_minutes)")),
		mcpgo.WithNumber("wait_seconds", mcpgo.Min(0),
			mcpgo.Description("how long to wait for the result before returning the execution_id (default tool_wait_timeout_seconds)")),
		mcpgo.WithString("conversation_id", mcpgo.Description("groups executions so a conversation can be cancelled as a whole")),
	}
}

func (s *Server) registerTools() {
	scanOpts := []mcpgo.ToolOption{
		mcpgo.WithDescription("Scan a command, script or code without running it and return the safety_report (decision allow, needs_human_review or deny)."),
		mcpgo.WithReadOnlyHintAnnotation(true),
		mcpgo.WithString("command", mcpgo.Description("a shell command line")),
		mcpgo.WithString("cmd", mcpgo.Description("a shell command line")),
		mcpgo.WithString("script", mcpgo.Description("a script (language or detected)")),
		mcpgo.WithString("code", mcpgo.Description("code (language or detected)")),
		mcpgo.WithArray("code_blocks", mcpgo.Description("list of {language, code} blocks, judged together")),
		mcpgo.WithString("python_code", mcpgo.Description("Python code")),
		mcpgo.WithString("bash_code", mcpgo.Description("bash code")),
		mcpgo.WithString("language", mcpgo.Description("bash, python, auto or unknown (detected), or mixed (scanned as bash and as Python)")),
		mcpgo.WithString("lang", mcpgo.Description("another name for language")),
		mcpgo.WithString("cwd", mcpgo.Description("working directory the content would run in")),
		mcpgo.WithNumber("timeout_seconds", mcpgo.Min(0), mcpgo.Description("requested timeout, judged against the policy")),
		mcpgo.WithString("tool_name", mcpgo.Description("name of the tool the content belongs to, for the report")),
	}
	s.mcp.AddTool(mcpgo.NewTool(ToolScan, scanOpts...), s.scan)

	execOpts := append([]mcpgo.ToolOption{
		mcpgo.WithDescription("Run a bash command line after a safety scan, under OS isolation. Denied commands return their safety_report and run nothing. " +
			"Waits wait_seconds; a run still going returns its execution_id (status running), to follow with wait_tool_execution."),
		mcpgo.WithDestructiveHintAnnotation(true),
		mcpgo.WithString("command", mcpgo.Required(), mcpgo.Description("the bash command line")),
	}, runOptions()...)
	s.mcp.AddTool(mcpgo.NewTool(ToolExec, execOpts...), s.run(ToolExec, "command"))

	pyOpts := append([]mcpgo.ToolOption{
		mcpgo.WithDescription("Run Python code after a safety scan, under OS isolation. Denied code returns its safety_report and runs nothing. " +
			"Waits wait_seconds; a run still going returns its execution_id (status running)."),
		mcpgo.WithDestructiveHintAnnotation(true),
		mcpgo.WithString("code", mcpgo.Required(), mcpgo.Description("the Python code")),
	}, runOptions()...)
	s.mcp.AddTool(mcpgo.NewTool(ToolPython, pyOpts...), s.run(ToolPython, "code"))

	getOpts := append([]mcpgo.ToolOption{
		mcpgo.WithDescription("Read the current state of an execution: status, result once finished, partial output while running."),
		mcpgo.WithReadOnlyHintAnnotation(true),
		mcpgo.WithString("execution_id", mcpgo.Required()),
	}, partialOptions()...)
	s.mcp.AddTool(mcpgo.NewTool(ToolGet, getOpts...), s.get)

	waitOpts := append([]mcpgo.ToolOption{
		mcpgo.WithDescription("Wait up to timeout_seconds for an execution to finish. Reaching the timeout while it still runs is a normal result " +
			"(status running, wait_timed_out true), not a failure: wait again, or cancel."),
		mcpgo.WithReadOnlyHintAnnotation(true),
		mcpgo.WithString("execution_id", mcpgo.Required()),
		mcpgo.WithNumber("timeout_seconds", mcpgo.Min(0), mcpgo.Description("how long to wait (default tool_wait_timeout_seconds)")),
	}, partialOptions()...)
	s.mcp.AddTool(mcpgo.NewTool(ToolWait, waitOpts...), s.wait)

	s.mcp.AddTool(mcpgo.NewTool(ToolCancel,
		mcpgo.WithDescription("Cancel an execution. Queued or held runs end cancelled at once; a running one is stopped and its processes reclaimed. "+
			"An upstream MCP call whose server cannot confirm it stopped ends orphaned with cleanup cleanup_unconfirmed."),
		mcpgo.WithString("execution_id", mcpgo.Required()),
		mcpgo.WithString("reason", mcpgo.Description("why; recorded with the cancellation")),
		mcpgo.WithNumber("wait_seconds", mcpgo.Min(0),
			mcpgo.Description("how long to wait for the run to end and report its final state (default 10)")),
	), s.cancel)
}

// scan scans without running or recording an execution.
func (s *Server) scan(ctx context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
	caller, err := s.opts.Identify(ctx)
	if err != nil {
		return errorResult(err), nil
	}
	tr, err := toolRequest(req)
	if err != nil {
		return errorResult(err), nil
	}
	if tr.ToolName == "" {
		tr.ToolName = ToolScan
	}
	pieces, err := tr.Pieces()
	if err != nil {
		return errorResult(err), nil
	}
	rep, err := s.opts.Service.ScanFor(ctx, tr, pieces, caller.ID)
	if err != nil {
		return errorResult(err), nil
	}
	b, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return errorResult(fmt.Errorf("encode safety report: %w", err)), nil
	}
	return mcpgo.NewToolResultText(string(b)), nil
}

// toolRequest decodes the arguments of scan strictly into a ToolRequest,
// so a misspelt or mistyped field is a bad request, never a silent skip.
func toolRequest(req mcpgo.CallToolRequest) (*service.ToolRequest, error) {
	var tr service.ToolRequest
	raw, err := json.Marshal(req.GetArguments())
	if err != nil {
		return nil, service.BadField("arguments", err.Error())
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&tr); err != nil {
		var fe *service.FieldError
		if errors.As(err, &fe) {
			return nil, fe
		}
		return nil, service.BadField("arguments", err.Error())
	}
	return &tr, nil
}

// run is exec (field "command", bash) or run_python (field "code", python).
func (s *Server) run(tool, field string) func(context.Context, mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
	return func(ctx context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
		caller, err := s.opts.Identify(ctx)
		if err != nil {
			return errorResult(err), nil
		}
		content, err := req.RequireString(field)
		if err != nil {
			return errorResult(service.BadField(field, "required string")), nil
		}
		tr := &service.ToolRequest{ToolName: tool, Cwd: req.GetString("cwd", ""),
			ConversationID: req.GetString("conversation_id", "")}
		if tool == ToolExec {
			tr.Command, tr.Language = content, "bash"
		} else {
			tr.PythonCode = content
		}
		if v, ok := req.GetArguments()["timeout_seconds"]; ok && v != nil {
			f, ok := v.(float64)
			if !ok {
				return errorResult(service.BadField("timeout_seconds", "must be a number")), nil
			}
			tr.TimeoutSeconds = f
		}
		if v, ok := req.GetArguments()["env"]; ok && v != nil {
			env, ok := v.(map[string]any)
			if !ok {
				return errorResult(service.BadField("env", "must be an object of strings")), nil
			}
			tr.Env = map[string]string{}
			for k, x := range env {
				sv, ok := x.(string)
				if !ok {
					return errorResult(service.BadField("env."+k, "must be a string")), nil
				}
				tr.Env[k] = sv
			}
		}
		wait, err := seconds(req, "wait_seconds", s.opts.Wait, s.opts.MaxWait)
		if err != nil {
			return errorResult(err), nil
		}
		rec, done, err := s.opts.Service.Submit(ctx, tr, caller.ID, wait)
		if err != nil {
			if rec == nil {
				return errorResult(err), nil
			}
			// Stored, but the wait failed. A client that cancelled the
			// tools/call wants the run stopped; otherwise (store hiccup) the
			// run goes on and can be followed by its id.
			if errors.Is(ctx.Err(), context.Canceled) {
				_, _ = s.opts.Service.Backend.RequestCancel(context.WithoutCancel(ctx), rec.ExecutionID, gateway.ClientCancelledReason)
				return nil, ctx.Err()
			}
			return recordResult(rec, false, true, execution.DefaultPartialOutputMaxBytes, map[string]any{
				"message": "the execution was queued but waiting for it failed (" + err.Error() + "); follow it with get_tool_execution",
			}), nil
		}
		switch {
		case rec.Status == execution.StatusBlocked:
			return recordResult(rec, true, false, 0, map[string]any{"message": "blocked by the safety scan; nothing ran"}), nil
		case rec.Status == execution.StatusPendingReview:
			return recordResult(rec, false, false, 0, map[string]any{
				"message": "held for human review (block_on_review); it runs only if a reviewer approves it: follow it with wait_tool_execution"}), nil
		case !done:
			return recordResult(rec, false, true, execution.DefaultPartialOutputMaxBytes, stillRunning(rec)), nil
		}
		return recordResult(rec, failedStatus(rec), false, 0, nil), nil
	}
}

func stillRunning(r *execution.Record) map[string]any {
	return map[string]any{
		"wait_timed_out": true,
		"message": fmt.Sprintf("execution %s is still %s; this is not a failure. Call wait_tool_execution to wait again, "+
			"get_tool_execution to look, or cancel_tool_execution to stop it", r.ExecutionID, r.Status),
	}
}

func (s *Server) get(ctx context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
	caller, err := s.opts.Identify(ctx)
	if err != nil {
		return errorResult(err), nil
	}
	include, max, err := partialArgs(req)
	if err != nil {
		return errorResult(err), nil
	}
	r, err := s.opts.Service.Get(ctx, req.GetString("execution_id", ""), caller)
	if err != nil {
		return errorResult(err), nil
	}
	return recordResult(r, false, include, max, nil), nil
}

func (s *Server) wait(ctx context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
	caller, err := s.opts.Identify(ctx)
	if err != nil {
		return errorResult(err), nil
	}
	include, max, err := partialArgs(req)
	if err != nil {
		return errorResult(err), nil
	}
	d, err := seconds(req, "timeout_seconds", s.opts.Wait, s.opts.MaxWait)
	if err != nil {
		return errorResult(err), nil
	}
	r, done, err := s.opts.Service.Wait(ctx, req.GetString("execution_id", ""), caller, d)
	if err != nil {
		return errorResult(err), nil
	}
	if !done {
		return recordResult(r, false, include, max, stillRunning(r)), nil
	}
	return recordResult(r, false, include, max, map[string]any{"wait_timed_out": false}), nil
}

// cancel requests the cancel and waits up to wait_seconds (default
// CancelWait) for the run to end, exactly as the REST API's cancel does
// (service.Cancel).
func (s *Server) cancel(ctx context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
	caller, err := s.opts.Identify(ctx)
	if err != nil {
		return errorResult(err), nil
	}
	wait, err := seconds(req, "wait_seconds", s.opts.CancelWait, s.opts.MaxWait)
	if err != nil {
		return errorResult(err), nil
	}
	got, err := s.opts.Service.Cancel(ctx, req.GetString("execution_id", ""), caller, req.GetString("reason", ""), wait)
	if err != nil {
		return errorResult(err), nil
	}
	return recordResult(got.Record, false, false, 0, map[string]any{"message": got.Message, "wait_timed_out": !got.Done}), nil
}
