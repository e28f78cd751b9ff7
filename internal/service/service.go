// Package service is what toolwarden does with one tool call, whatever the
// door it came through (REST, MCP, the MCP gateway): extract the content,
// scan it, store the decision as an execution record, queue what is
// allowed, and wait a bounded time for the result. The HTTP API and the MCP
// server are thin adapters over it, so both decide and record alike.
package service

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/toolwarden/toolwarden/engine"
	"github.com/toolwarden/toolwarden/internal/engine/analyze"
	"github.com/toolwarden/toolwarden/internal/engine/report"
	"github.com/toolwarden/toolwarden/internal/engine/staged"
	"github.com/toolwarden/toolwarden/internal/execution"
	"github.com/toolwarden/toolwarden/internal/scanlog"
	"github.com/toolwarden/toolwarden/internal/workspace"
	"github.com/toolwarden/toolwarden/sdk"
)

// Service submits tool calls. It holds no state beyond its dependencies.
type Service struct {
	Engine  *engine.Engine
	Backend execution.Backend
	// Workspaces locates the workspace a run will get, to judge its cwd:
	// a relative cwd is joined to the workspace, an absolute one must lie
	// under it (symlinks resolved when the workspace is on this host).
	// When nil, only relative cwds (and none) are accepted for executions.
	Workspaces WorkspaceLocator
	// MaxTimeout is the configured hard timeout (agent.tool_timeout_minutes):
	// the run's timeout when none is requested and the cap of a requested
	// one, with the policy's max_timeout_seconds. Zero: not known here (the
	// executor still clamps).
	MaxTimeout time.Duration
	// StagedLimits bound the staged-file scan (zero: engine defaults).
	StagedLimits engine.StagedLimits
	// MaxResultBytes is reduction_max_length_for_trunc: every record the
	// operations return has its result re-capped to it on read (see
	// reduction.Recap), so a result stored under a larger cap, or imported
	// past the writer, never reaches a caller over today's cap. Zero:
	// reduction.DefaultMaxLength.
	MaxResultBytes int
	// ReductionRoot is where oversized results are persisted
	// (default reduction.DefaultRoot).
	ReductionRoot string
	// ScanLog, when set, is given every scan this service makes (REST,
	// MCP, executions alike); it must not block (scanlog.Recorder queues
	// and stores in the background).
	ScanLog ScanRecorder
	// Others are further stores whose records the operations find (get,
	// wait, cancel, conversation cancel): the MCP gateway's, which must not
	// be the executors' queue.
	Others []execution.Backend
	// ConversationCancelled, when set, is called by CancelConversation for
	// every owner whose runs of the conversation were cancelled (each
	// owner's runs of a conversation share a workspace of their own), so
	// the workspace can be removed.
	ConversationCancelled func(ctx context.Context, ownerKeyID, conversationID string)
}

// ScanRecorder takes the entry of each scan; scanlog.Recorder is one.
type ScanRecorder interface {
	Record(scanlog.Entry)
}

// record hands the scan of req to the scan log, if any. The first piece is
// logged (an execution has exactly one); the report is the merged one.
func (s *Service) record(req *ToolRequest, pieces []Piece, rep *sdk.SafetyReport, owner string) {
	if s.ScanLog == nil || rep == nil || len(pieces) == 0 {
		return
	}
	er := req.EngineRequest(pieces[0])
	er.ScanID = rep.ScanID
	s.ScanLog.Record(scanlog.FromReport(owner, er, rep))
}

// WorkspaceLocator maps a run to its workspace directory on this host;
// workspace.Manager is one. The service uses it to judge a run's cwd and to
// read the workspace files the content runs (`python3 x.py`, `./x`,
// `source f`, `make`, imports), so that they are judged too. When nil, only
// relative cwds are accepted and the executor scans those files itself.
type WorkspaceLocator interface {
	Path(conversationID, executionID string) string
}

// TooLargeError reports content over the scan size bound, naming the field.
type TooLargeError struct {
	Field string
	Err   error
}

// Error names the field whose content is over the bound.
func (e *TooLargeError) Error() string { return fmt.Sprintf("field %q: %v", e.Field, e.Err) }

// Unwrap returns the analyzer's size error.
func (e *TooLargeError) Unwrap() error { return e.Err }

// Scan scans every piece of req and merges the reports into one: the
// decision over several code blocks is that of all their findings together.
//
// With Workspaces set and a conversation id, the workspace files the content
// runs are scanned too (a conversation's runs share its workspace).
func (s *Service) Scan(ctx context.Context, req *ToolRequest, pieces []Piece) (*sdk.SafetyReport, error) {
	return s.ScanFor(ctx, req, pieces, "")
}

// ScanFor is Scan on behalf of the API key owner: a conversation's
// workspace belongs to the key that created it (workspace.Key), so the
// staged files judged are those the owner's runs would see.
func (s *Service) ScanFor(ctx context.Context, req *ToolRequest, pieces []Piece, owner string) (*sdk.SafetyReport, error) {
	var src staged.Source
	if req.ConversationID != "" {
		src = s.stagedSource(req, owner, "")
	}
	rep, _, _, err := s.scan(ctx, req, pieces, src)
	if err == nil {
		s.record(req, pieces, rep, owner)
	}
	return rep, err
}

// stagedSource is the workspace of the run executionID of req, as a
// staged-file source, or nil when the service cannot read workspaces.
func (s *Service) stagedSource(req *ToolRequest, owner, executionID string) staged.Source {
	if s.Workspaces == nil {
		return nil
	}
	ws := filepath.Clean(s.Workspaces.Path(workspace.Key(owner, req.ConversationID), executionID))
	cwd := req.Cwd
	switch {
	case cwd == "":
		cwd = ws
	case !filepath.IsAbs(cwd):
		cwd = filepath.Join(ws, cwd)
	}
	return staged.Dir{Root: ws, Cwd: filepath.Clean(cwd)}
}

// scan is Scan that also reports whether any piece (or a file it runs)
// uses the network, and the workspace files it read from src.
func (s *Service) scan(ctx context.Context, req *ToolRequest, pieces []Piece, src staged.Source) (*sdk.SafetyReport, bool, []staged.File, error) {
	var reps []*sdk.SafetyReport
	var files []staged.File
	network := false
	for _, p := range pieces {
		res, err := s.Engine.ScanStaged(ctx, req.EngineRequest(p), src, s.StagedLimits)
		if err != nil {
			var tl *analyze.TooLargeError
			if errors.As(err, &tl) {
				return nil, false, nil, &TooLargeError{Field: p.Field, Err: err}
			}
			return nil, false, nil, &FieldError{p.Field, err.Error()}
		}
		network = network || res.Network
		files = append(files, res.Files...)
		reps = append(reps, res.Report)
	}
	if len(reps) == 1 {
		return reps[0], network, files, nil
	}
	dropped := unparsedAlternatives(pieces, reps)
	var all []sdk.Finding
	var elapsed time.Duration
	type key struct {
		rule, evidence string
		line           int
	}
	seen := map[key]bool{}
	// The report's language is that of the content (a Context piece is
	// bash, whatever the content is): "mixed" when it is several.
	language := ""
	for i, r := range reps {
		switch {
		case pieces[i].Context:
		case language == "":
			language = r.Language
		case r.Language != language:
			language = analyze.Mixed
		}
		for _, f := range r.Findings {
			if dropped[i] && isParseError(f) {
				continue
			}
			// A finding repeated by several fields (the same command
			// in command and script) is reported once.
			k := key{f.RuleID, f.Evidence, f.Line}
			if seen[k] {
				continue
			}
			seen[k] = true
			all = append(all, f)
		}
		elapsed += time.Duration(r.ElapsedMS * float64(time.Millisecond))
	}
	first := reps[0]
	start, _ := time.Parse(time.RFC3339Nano, first.Timestamp)
	return report.Build(report.Meta{ScanID: first.ScanID, ToolName: first.ToolName, Language: language,
		Start: start, Elapsed: elapsed}, all, s.Engine.Policy()), network, files, nil
}

// unparsedAlternatives marks the reports whose parse-error findings are
// left out: those of a piece scanned as one language of "mixed" content
// that did not parse as that language while another alternative did (the
// content is not that language). When no alternative parses, every parse
// error stays: unparseable content is reviewed.
func unparsedAlternatives(pieces []Piece, reps []*sdk.SafetyReport) map[int]bool {
	parsed := map[string]bool{}
	for i, p := range pieces {
		if p.Alternatives != "" && !slices.ContainsFunc(reps[i].Findings, isParseError) {
			parsed[p.Alternatives] = true
		}
	}
	dropped := map[int]bool{}
	for i, p := range pieces {
		if p.Alternatives != "" && parsed[p.Alternatives] {
			dropped[i] = true
		}
	}
	return dropped
}

// isParseError says f reports content that does not parse
// (PY_PARSE_ERROR_REVIEW, BASH_PARSE_ERROR_REVIEW).
func isParseError(f sdk.Finding) bool {
	return strings.HasSuffix(f.RuleID, "_PARSE_ERROR_REVIEW")
}

// Submit scans req and stores the decision: denied → a blocked record,
// nothing queued; held by block_on_review → pending_review; otherwise queued
// for an executor, then waited on for at most wait. done reports that the
// returned record is terminal. A wait that ends first is not an error.
func (s *Service) Submit(ctx context.Context, req *ToolRequest, owner string, wait time.Duration) (rec *execution.Record, done bool, err error) {
	pieces, err := req.Pieces()
	if err != nil {
		return nil, false, err
	}
	if run := Runnable(pieces); len(run) != 1 {
		// Every field is judged first: a deny in any of them is
		// reported as such. What is not denied still cannot run as one
		// execution (which field would run is ambiguous).
		rep, _, _, err := s.scan(ctx, req, pieces, s.stagedSource(req, owner, ""))
		if err == nil {
			s.record(req, pieces, rep, owner)
		}
		field, msg := run[1].Field, "an execution runs one content field; send one field (or one block) per execution"
		if p := run[0]; p.Alternatives != "" && run[1].Alternatives == p.Alternatives {
			field, msg = "language", "mixed content cannot run as one execution: set language to bash or python"
		}
		if err == nil && rep.Decision == sdk.Deny {
			return nil, false, &FieldError{field, "denied: " + rep.Summary}
		}
		return nil, false, &FieldError{field, msg}
	}
	if req.TimeoutSeconds < 0 {
		return nil, false, &FieldError{"timeout_seconds", "must be >= 0"}
	}
	ctx, span := otel.Tracer(TracerName).Start(ctx, SpanSubmit)
	defer span.End()
	id := execution.NewID()
	if err := s.checkCwd(req, owner, id); err != nil {
		return nil, false, err
	}
	src := s.stagedSource(req, owner, id)
	rep, network, files, err := s.scan(ctx, req, pieces, src)
	if err != nil {
		return nil, false, err
	}
	s.record(req, pieces, rep, owner)
	timeoutMS, effectiveMS := s.timeouts(req.TimeoutSeconds)
	rec = &execution.Record{
		NetworkUse:     network,
		AllowedDomains: append([]string{}, s.Engine.Policy().AllowedDomains...),
		ExecutionID:    id,
		ToolName:       req.ToolName,
		ConversationID: req.ConversationID,
		Language:       rep.Language,
		Content:        Runnable(pieces)[0].Content,
		Cwd:            req.Cwd,
		EnvNames:       sortedKeys(req.Env),
		Env:            req.Env,
		TimeoutMS:      timeoutMS,

		EffectiveTimeoutMS: effectiveMS,
		OwnerKeyID:         owner,
		SafetyReport:       rep,
	}
	if src != nil {
		rec.StagedScan = execution.StagedScanService
		for _, f := range files {
			rec.StagedFiles = append(rec.StagedFiles, execution.StagedFile{Path: f.Path, State: f.State, SHA256: f.SHA256, Size: f.Size})
		}
	}
	switch {
	case rep.Decision == sdk.Deny:
		rec.Status = execution.StatusBlocked
		rec.Env = nil // never stored for a call that cannot run
		rec.StatusReason = rep.Summary
		rec.IsError = true
		rec.Error = "TOOL_SAFETY_BLOCKED: " + rep.Summary
	case rep.Blocked:
		rec.Status = execution.StatusPendingReview
		rec.StatusReason = "held for human review (block_on_review): " + rep.Summary
	default:
		rec.Status = execution.StatusQueued
	}
	_, create := otel.Tracer(TracerName).Start(ctx, SpanStoreCreate,
		trace.WithAttributes(attribute.String("toolwarden.execution.id", rec.ExecutionID)))
	err = s.Backend.Create(ctx, rec)
	create.End()
	if err != nil {
		return nil, false, fmt.Errorf("store execution: %w", err)
	}
	span.SetAttributes(attribute.String("toolwarden.execution.id", rec.ExecutionID))
	if rec.Status != execution.StatusQueued {
		return rec, rec.Status.Terminal(), nil
	}
	_, waitSpan := otel.Tracer(TracerName).Start(ctx, SpanWait)
	got, done, err := execution.Wait(ctx, s.Backend, rec.ExecutionID, wait)
	waitSpan.End()
	if err != nil {
		return rec, false, err
	}
	if got == nil {
		got = rec
	}
	got, err = s.capped(got)
	return got, done, err
}

func sortedKeys(m map[string]string) []string {
	if len(m) == 0 {
		return nil
	}
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
