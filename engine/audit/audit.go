// Package audit appends one JSON line per scan to an audit log, the
// AuditEvent of the Safety Guard design: who asked (tool_name), what was
// decided (decision, risk_level, rule_ids, blocked) and whether evidence
// had to be redacted. The log holds no content and no evidence, so it can
// be shipped to a SIEM without leaking what agents ran.
package audit

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"syscall"

	"github.com/toolwarden/toolwarden/sdk"
)

// Event is one audit line.
type Event struct {
	ScanID    string        `json:"scan_id"`
	Timestamp string        `json:"timestamp"`
	ToolName  string        `json:"tool_name"`
	Language  string        `json:"language"`
	Decision  sdk.Decision  `json:"decision"`
	RiskLevel sdk.RiskLevel `json:"risk_level"`
	// RuleIDs are the distinct rule IDs in report order; never null.
	RuleIDs   []string `json:"rule_ids"`
	ElapsedMS float64  `json:"elapsed_ms"`
	Sanitized bool     `json:"sanitized"`
	Blocked   bool     `json:"blocked"`
}

// EventFrom builds the audit event of a report.
func EventFrom(r *sdk.SafetyReport) Event {
	ids := r.RuleIDs()
	if ids == nil {
		ids = []string{}
	}
	return Event{
		ScanID:    r.ScanID,
		Timestamp: r.Timestamp,
		ToolName:  r.ToolName,
		Language:  r.Language,
		Decision:  r.Decision,
		RiskLevel: r.RiskLevel,
		RuleIDs:   ids,
		ElapsedMS: r.ElapsedMS,
		Sanitized: r.Sanitized,
		Blocked:   r.Blocked,
	}
}

// ErrClosed is returned by Write after Close.
var ErrClosed = errors.New("audit log closed")

// Writer appends audit events to a JSONL file. It is safe for concurrent
// use: each event is written with a single write(2) on a file opened with
// O_APPEND, so lines never interleave, even with other processes appending
// to the same file. Lines are not fsynced one by one; Sync or Close flushes.
type Writer struct {
	mu   sync.Mutex
	f    *os.File
	path string
}

// Open opens (creating if needed, mode 0600, parent directories 0700) the
// audit log at path for appending. An existing file keeps its mode.
func Open(path string) (*Writer, error) {
	if path == "" {
		return nil, errors.New("open audit log: empty path")
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("open audit log %s: %w", path, err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open audit log %s: %w", path, err)
	}
	return &Writer{f: f, path: path}, nil
}

// Path returns the file the writer appends to.
func (w *Writer) Path() string { return w.path }

// Write appends the audit event of r as one line.
func (w *Writer) Write(r *sdk.SafetyReport) error {
	if r == nil {
		return errors.New("write audit event: nil report")
	}
	line, err := json.Marshal(EventFrom(r))
	if err != nil {
		return fmt.Errorf("write audit event %s: %w", r.ScanID, err)
	}
	line = append(line, '\n')
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.f == nil {
		return fmt.Errorf("write audit event %s: %w", r.ScanID, ErrClosed)
	}
	if _, err := w.f.Write(line); err != nil {
		return fmt.Errorf("write audit event %s to %s: %w", r.ScanID, w.path, err)
	}
	return nil
}

// Sync flushes written events to stable storage.
func (w *Writer) Sync() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.f == nil {
		return ErrClosed
	}
	if err := w.f.Sync(); err != nil {
		return fmt.Errorf("sync audit log %s: %w", w.path, err)
	}
	return nil
}

// Close flushes and closes the log. Closing twice is not an error.
func (w *Writer) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.f == nil {
		return nil
	}
	f := w.f
	w.f = nil
	syncErr := f.Sync()
	if errors.Is(syncErr, syscall.EINVAL) || errors.Is(syncErr, syscall.ENOTSUP) {
		syncErr = nil // a pipe or terminal (/dev/stdout) cannot be synced
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("close audit log %s: %w", w.path, err)
	}
	if syncErr != nil {
		return fmt.Errorf("close audit log %s: sync: %w", w.path, syncErr)
	}
	return nil
}
