package engine

import (
	"context"
	"fmt"
	"path"
	"strings"
	"time"

	"github.com/toolwarden/toolwarden/internal/engine/analyze"
	"github.com/toolwarden/toolwarden/internal/engine/analyze/bash"
	"github.com/toolwarden/toolwarden/internal/engine/report"
	"github.com/toolwarden/toolwarden/internal/engine/staged"
	"github.com/toolwarden/toolwarden/sdk"
)

// StagedFileUnscanned is the rule id of the finding for a workspace file
// the content would run that the scan could not judge: too large, binary,
// in a language without an analyzer, unreadable, a symlink out of the
// workspace, or beyond the bounds of the staged-file scan. Like
// RULE_PLUGIN_ERROR it fails closed: needs_human_review, deny under
// block_on_review.
const StagedFileUnscanned = "STAGED_FILE_UNSCANNED"

// StagedLimits bound the staged-file scan of one request. Zero fields take
// the defaults.
type StagedLimits struct {
	// MaxFileBytes is the largest file scanned (analyze.DefaultMaxBytes,
	// 1 MiB).
	MaxFileBytes int64
	// MaxTotalBytes bounds the bytes of all files scanned (8 MiB).
	MaxTotalBytes int64
	// MaxFiles bounds the paths recorded, absent ones included (256).
	MaxFiles int
	// MaxDepth bounds the chain of files that refer to files (8).
	MaxDepth int
}

func (l StagedLimits) withDefaults() StagedLimits {
	if l.MaxFileBytes <= 0 {
		l.MaxFileBytes = analyze.DefaultMaxBytes
	}
	if l.MaxTotalBytes <= 0 {
		l.MaxTotalBytes = 8 << 20
	}
	if l.MaxFiles <= 0 {
		l.MaxFiles = 256
	}
	if l.MaxDepth <= 0 {
		l.MaxDepth = 8
	}
	return l
}

// StagedScan is the outcome of ScanStaged.
type StagedScan struct {
	// Report judges the content and every file it would run together.
	Report *sdk.SafetyReport
	// Facts are the facts of the top-level content.
	Facts *sdk.Facts
	// Files are the workspace paths the scan looked at, with what it found
	// (absent ones included): the executor checks them again before exec.
	Files []StagedFile
	// Network is set when the content or any scanned file uses the
	// network.
	Network bool
}

// ScanStaged scans req like ScanWithFacts and, when src is not nil, every
// workspace file the content would run or load (`python3 x.py`, `bash
// x.sh`, `./x`, `source f`, `make`, `python -m mod`, imports of workspace
// modules, transitively), and the startup files its programs load from the
// workspace (user-site .pth and customize modules, git configs and hooks,
// package.json scripts, conftest.py; directories they are found in are
// recorded as listings): each file is read from src — never through a
// path that leaves the workspace — and scanned under the same policy, and
// its findings join the report with evidence naming the file. One report
// is observed and audited for the whole.
func (e *Engine) ScanStaged(ctx context.Context, req Request, src StagedSource, lim StagedLimits) (*StagedScan, error) {
	start := time.Now()
	rep, facts, err := e.scanWithFacts(ctx, req, src == nil)
	if err != nil {
		return nil, err
	}
	out := &StagedScan{Report: rep, Facts: facts, Network: UsesNetwork(facts)}
	if src == nil {
		return out, nil
	}
	w := stagedWalk{e: e, ctx: ctx, req: req, src: src, lim: lim.withDefaults(), pol: e.policy.Load(),
		recorded: map[string]bool{}, scanned: map[string]bool{}, sanitized: rep.Sanitized}
	base, _ := src.Rel(".")
	w.enqueue(refsOf(facts, facts.Language, req.Content, base, false), facts, stagedItem{})
	for len(w.queue) > 0 && !w.stopped {
		it := w.queue[0]
		w.queue = w.queue[1:]
		w.visit(it)
	}
	out.Files, out.Network = w.files, out.Network || w.network
	if len(w.extra) == 0 {
		e.observe(ctx, rep)
		return out, nil
	}
	all := append(append([]sdk.Finding(nil), rep.Findings...), w.extra...)
	merged := report.Build(report.Meta{ScanID: rep.ScanID, ToolName: rep.ToolName, Language: rep.Language,
		Start: start, Elapsed: time.Since(start)}, all, w.pol)
	if w.sanitized && !merged.Sanitized {
		merged.Sanitized = true
		merged.TelemetryAttributes["tool.safety.sanitized"] = true
	}
	e.observe(ctx, merged)
	out.Report = merged
	return out, nil
}

// refsOf lists what content (in lang, with facts) would run or load;
// base is the workspace-relative directory its imports resolve against.
func refsOf(facts *sdk.Facts, lang, content, base string, isFile bool) []staged.Ref {
	refs := staged.Refs(facts)
	if lang == "python" {
		refs = append(refs, staged.ImportRefs(content, base, isFile)...)
	}
	return refs
}

type stagedItem struct {
	ref   staged.Ref
	depth int
	// line is the line of the top-level content that leads to the file.
	line int
	// from is the file that refers to this one ("" for the content).
	from string
}

type stagedWalk struct {
	e         *Engine
	ctx       context.Context
	req       Request
	src       staged.Source
	lim       StagedLimits
	pol       *sdk.Policy
	queue     []stagedItem
	files     []staged.File
	recorded  map[string]bool
	scanned   map[string]bool
	total     int64
	extra     []sdk.Finding
	network   bool
	sanitized bool
	stopped   bool
}

func (w *stagedWalk) visit(it stagedItem) {
	for _, cand := range it.ref.Candidates {
		rel := cand
		if !it.ref.Rooted {
			var ok bool
			if rel, ok = w.src.Rel(cand); !ok {
				if it.ref.All() {
					continue // each candidate stands alone
				}
				return // a system path, not a staged file
			}
		} else if staged.IsListing(rel) {
			rel = path.Clean(rel) + "/"
		} else {
			rel = path.Clean(rel)
		}
		if w.scanned[rel] {
			if !it.ref.All() {
				return
			}
			continue
		}
		r := w.src.ReadRel(rel, w.lim.MaxFileBytes)
		if r.State == staged.StateDir {
			continue
		}
		if !w.recorded[rel] {
			if len(w.files) >= w.lim.MaxFiles {
				w.unscanned(it, rel, fmt.Sprintf("the content refers to more than %d workspace paths; the rest were not scanned", w.lim.MaxFiles))
				w.stopped = true
				return
			}
			w.recorded[rel] = true
			w.files = append(w.files, r.File)
		}
		if r.State == staged.StateAbsent {
			continue
		}
		w.scanned[rel] = true
		w.judge(it, rel, r)
		if !it.ref.All() {
			return
		}
	}
}

// judge scans one file found for it.
func (w *stagedWalk) judge(it stagedItem, rel string, r staged.Read) {
	switch r.State {
	case staged.StateOutside:
		if it.ref.Kind != staged.KindExec {
			w.unscanned(it, rel, "it is a symlink that leads out of the workspace; it was not followed")
		}
		return
	case staged.StateUnreadable:
		w.unscanned(it, rel, "it is not a regular readable file of at most 256 MiB")
		return
	}
	if r.State == staged.StateListing {
		w.listed(it, rel, string(r.Content))
		return
	}
	lang := staged.FileLanguage(it.ref, r.Content)
	switch {
	case r.Truncated:
		w.unscanned(it, rel, fmt.Sprintf("it is %d bytes, over the %d-byte bound of one scanned file", r.Size, w.lim.MaxFileBytes))
		return
	case w.total+r.Size > w.lim.MaxTotalBytes:
		w.unscanned(it, rel, fmt.Sprintf("the files the content runs exceed %d bytes together", w.lim.MaxTotalBytes))
		return
	case lang == "":
		w.unscanned(it, rel, "it is a binary or written for an interpreter the scan has no analyzer for")
		return
	case lang == staged.LangGitFile:
		w.unscanned(it, rel, "it is a gitdir pointer (a worktree or submodule); the config and hooks it points to are not scanned")
		return
	}
	w.total += r.Size
	content, scanLang := string(r.Content), lang
	switch lang {
	case staged.LangMake:
		content, scanLang = staged.MakeToShell(content), "bash"
	case staged.LangPth:
		content, scanLang = staged.PthToPython(content), staged.LangPython
	case staged.LangPackageJSON:
		sh, ok := staged.PackageScripts(content)
		if !ok {
			w.unscanned(it, rel, "it is not a JSON document the scan can read its scripts from")
			return
		}
		content, scanLang = sh, "bash"
	case staged.LangGitConfig:
		g := staged.GitConfigToShell(content, func(k string) bool { return staged.GitCommandKey(k, bash.IsGitCommandKey) })
		for _, k := range g.Unscanned {
			w.unscanned(it, rel, fmt.Sprintf("its key %s makes git load or run files the scan does not follow", k))
		}
		content, scanLang = g.Shell, "bash"
	}
	sub, facts, err := w.e.scanWithFacts(w.ctx, Request{
		ScanID: w.req.ScanID, ToolName: w.req.ToolName, Language: scanLang, Content: content, Cwd: w.req.Cwd,
	}, false)
	if err != nil {
		w.unscanned(it, rel, fmt.Sprintf("it could not be scanned: %v", err))
		return
	}
	w.network = w.network || UsesNetwork(facts)
	w.sanitized = w.sanitized || sub.Sanitized
	for _, f := range sub.Findings {
		w.extra = append(w.extra, fileFinding(f, rel, it))
	}
	refs := refsOf(facts, scanLang, content, path.Dir(rel), true)
	if it.ref.Language == staged.LangShebang && lang == staged.LangPython {
		// `./tool` with a python shebang starts python: the user site loads.
		refs = append(refs, staged.UserSite(it.ref.Via, it.ref.Line)...)
	}
	if it.depth >= w.lim.MaxDepth {
		if len(refs) > 0 {
			w.unscanned(it, rel, fmt.Sprintf("files it runs are nested deeper than %d levels and were not scanned", w.lim.MaxDepth))
		}
		return
	}
	parent := it
	parent.from = rel
	w.enqueue(refs, facts, parent)
}

// listed queues the entries of the listed directory rel (names, one a
// line) that its ref's Entries rule says the program loads.
func (w *stagedWalk) listed(it stagedItem, rel, names string) {
	if it.ref.Entries == nil || names == "" {
		return
	}
	if it.depth >= w.lim.MaxDepth {
		w.unscanned(it, rel, fmt.Sprintf("files it holds are nested deeper than %d levels and were not scanned", w.lim.MaxDepth))
		return
	}
	for _, name := range strings.Split(names, "\n") {
		e := it.ref.Entries(name)
		if !e.Load {
			continue
		}
		ref := staged.Ref{Kind: staged.KindStartup, Language: e.Language, Candidates: []string{rel + name}}
		switch {
		case strings.HasSuffix(e.Sub, "/"):
			ref = staged.Ref{Kind: staged.KindListing, Candidates: []string{rel + name + "/" + e.Sub}, Entries: e.Rule}
		case e.Sub != "":
			ref.Candidates = []string{rel + name + "/" + e.Sub}
		}
		ref.Rooted, ref.Via, ref.Line = true, it.ref.Via, it.ref.Line
		w.queue = append(w.queue, stagedItem{ref: ref, depth: it.depth + 1, line: it.line, from: it.from})
	}
}

// enqueue queues the refs found in the content of parent (the top-level
// content when parent.depth is 0), resolved against the directories the
// content may cd to as well. A cd the scan cannot follow before a file
// named relative to the cwd fails closed.
func (w *stagedWalk) enqueue(refs []staged.Ref, facts *sdk.Facts, parent stagedItem) {
	bases, unknown := staged.CdBases(facts)
	if unknown && staged.Relative(refs) {
		for _, r := range refs {
			if !r.Rooted {
				w.unscanned(stagedItem{ref: r, depth: parent.depth + 1, line: lineOf(parent, r), from: parent.from},
					r.Candidates[0], "the content changes to a directory the scan cannot name, so the file it runs cannot be located")
				break
			}
		}
	}
	for _, r := range staged.WithBases(refs, bases) {
		w.queue = append(w.queue, stagedItem{ref: r, depth: parent.depth + 1, line: lineOf(parent, r), from: parent.from})
	}
}

// lineOf is the top-level line a ref of parent's content leads from.
func lineOf(parent stagedItem, r staged.Ref) int {
	if parent.depth == 0 {
		return r.Line
	}
	return parent.line
}

// fileFinding places a finding of a referenced file in the report: at the
// line of the content that leads to the file, with evidence and metadata
// naming the file and its own line.
func fileFinding(f sdk.Finding, rel string, it stagedItem) sdk.Finding {
	meta := make(map[string]any, len(f.Metadata)+4)
	for k, v := range f.Metadata {
		meta[k] = v
	}
	meta["file"] = rel
	meta["file_line"] = f.Line
	meta["staged_via"] = it.ref.Via
	if it.from != "" {
		meta["staged_from"] = it.from
	}
	f.Metadata = meta
	f.Evidence = fmt.Sprintf("%s:%d: %s", rel, f.Line, f.Evidence)
	f.Message = fmt.Sprintf("In workspace file %s (run by `%s`): %s", rel, it.ref.Via, f.Message)
	f.Line, f.Column = it.line, nil
	return f
}

// unscanned records the fail-closed finding for a file the scan could not
// judge.
func (w *stagedWalk) unscanned(it stagedItem, rel, why string) {
	dec := sdk.NeedsHumanReview
	if w.pol != nil && w.pol.BlockOnReview {
		dec = sdk.Deny
	}
	meta := map[string]any{"file": rel, "staged_via": it.ref.Via, "staged_kind": it.ref.Kind}
	if it.from != "" {
		meta["staged_from"] = it.from
	}
	w.extra = append(w.extra, sdk.Finding{
		RuleID:    StagedFileUnscanned,
		RiskType:  sdk.RiskTypeUnknown,
		RiskLevel: sdk.RiskMedium,
		Decision:  dec,
		Evidence:  rel,
		Line:      it.line,
		Message:   fmt.Sprintf("The content runs workspace file %s (via `%s`), which the scan could not judge: %s.", rel, it.ref.Via, why),
		Metadata:  meta,
		Recommendation: "Keep files that tool calls run small text scripts inside the workspace, " +
			"or review this one manually.",
	})
}
