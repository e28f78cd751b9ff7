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
	"strings"
	"sync"
	"sync/atomic"
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
	// MonitorRuleIDs are the rules of monitor-mode plugins (and failures
	// of fail-open ones) that matched without deciding.
	MonitorRuleIDs []string `json:"monitor_rule_ids,omitempty"`
}

// attrMonitorRuleIDs is engine.AttrMonitorRuleIDs (the engine imports
// this package, so the key is repeated here).
const attrMonitorRuleIDs = "tool.safety.monitor_rule_ids"

// EventFrom builds the audit event of a report.
func EventFrom(r *sdk.SafetyReport) Event {
	ids := r.RuleIDs()
	if ids == nil {
		ids = []string{}
	}
	var monitor []string
	if s, _ := r.TelemetryAttributes[attrMonitorRuleIDs].(string); s != "" {
		monitor = strings.Split(s, ",")
	}
	return Event{
		MonitorRuleIDs: monitor,
		ScanID:         r.ScanID,
		Timestamp:      r.Timestamp,
		ToolName:       r.ToolName,
		Language:       r.Language,
		Decision:       r.Decision,
		RiskLevel:      r.RiskLevel,
		RuleIDs:        ids,
		ElapsedMS:      r.ElapsedMS,
		Sanitized:      r.Sanitized,
		Blocked:        r.Blocked,
	}
}

// ErrClosed is returned by Write after Close.
var ErrClosed = errors.New("audit log closed")

// QueueSize is how many encoded events may wait for the background writer.
// A scan that finds the queue full waits for room (backpressure): events are
// never dropped, and a burst larger than the queue slows scans down to the
// disk's pace instead of losing lines.
const QueueSize = 1024

// maxBatch bounds the bytes the background writer joins into one write(2).
const maxBatch = 256 << 10

// Writer appends audit events to a JSONL file. It is safe for concurrent
// use. Write encodes the event and hands it to a background goroutine,
// which appends every event waiting at that moment with a single write(2)
// on a file opened with O_APPEND, so lines never interleave, even with
// other processes appending to the same file, and a scan does not wait for
// the disk. Lines are not fsynced one by one; Sync or Close writes every
// event handed over before it and flushes to stable storage. Events still
// queued when the process dies without Close (at most QueueSize, normally
// none: the writer drains in microseconds) are the bounded cost of not
// writing on the scan's path; write errors are counted (Stats) and
// reported on standard error, never silently skipped.
type Writer struct {
	// mu guards closed and the sends on queue against Close.
	mu     sync.RWMutex
	closed bool
	queue  chan item
	done   chan struct{}
	f      *os.File
	path   string

	written atomic.Int64
	failed  atomic.Int64
}

// item is one queued event line, or (line nil) a flush request answered on
// flushed once every line before it is written.
type item struct {
	line    []byte
	flushed chan error
}

// Stats counts the events the background writer appended (Written) and
// those it could not write (Failed, each also reported on standard error).
type Stats struct {
	Written int64
	Failed  int64
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
	w := &Writer{f: f, path: path, queue: make(chan item, QueueSize), done: make(chan struct{})}
	go w.run()
	return w, nil
}

// Path returns the file the writer appends to.
func (w *Writer) Path() string { return w.path }

// Stats returns the writer's counters.
func (w *Writer) Stats() Stats { return Stats{Written: w.written.Load(), Failed: w.failed.Load()} }

// Write queues the audit event of r as one line. It blocks only while the
// queue is full; it fails only for a nil report or after Close.
func (w *Writer) Write(r *sdk.SafetyReport) error {
	if r == nil {
		return errors.New("write audit event: nil report")
	}
	line, err := json.Marshal(EventFrom(r))
	if err != nil {
		return fmt.Errorf("write audit event %s: %w", r.ScanID, err)
	}
	line = append(line, '\n')
	w.mu.RLock()
	defer w.mu.RUnlock()
	if w.closed {
		return fmt.Errorf("write audit event %s: %w", r.ScanID, ErrClosed)
	}
	w.queue <- item{line: line}
	return nil
}

// run is the background writer: it takes the next item, joins every line
// already waiting behind it, and appends them with one write.
func (w *Writer) run() {
	defer close(w.done)
	var batch []byte
	var n int64
	var flushes []chan error
	for it := range w.queue {
		batch, n, flushes = batch[:0], 0, flushes[:0]
		add := func(it item) {
			if it.line == nil {
				flushes = append(flushes, it.flushed)
				return
			}
			batch = append(batch, it.line...)
			n++
		}
		add(it)
	more:
		for len(batch) < maxBatch {
			select {
			case it, ok := <-w.queue:
				if !ok {
					break more
				}
				add(it)
			default:
				break more
			}
		}
		w.flush(batch, n)
		for _, c := range flushes {
			c <- w.sync()
		}
		if cap(batch) > maxBatch*2 {
			batch = nil
		}
	}
}

// flush appends batch (n events) to the file, counting the outcome.
func (w *Writer) flush(batch []byte, n int64) {
	if n == 0 {
		return
	}
	if _, err := w.f.Write(batch); err != nil {
		w.failed.Add(n)
		fmt.Fprintf(os.Stderr, "toolwarden: audit log %s: %d events not written: %v\n", w.path, n, err)
		return
	}
	w.written.Add(n)
}

// sync fsyncs the file; a pipe or terminal (/dev/stdout) cannot be synced,
// which is not an error.
func (w *Writer) sync() error {
	err := w.f.Sync()
	if errors.Is(err, syscall.EINVAL) || errors.Is(err, syscall.ENOTSUP) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("sync audit log %s: %w", w.path, err)
	}
	return nil
}

// Sync writes every event queued before it and flushes the file to stable
// storage.
func (w *Writer) Sync() error {
	c := make(chan error, 1)
	w.mu.RLock()
	if w.closed {
		w.mu.RUnlock()
		return ErrClosed
	}
	w.queue <- item{flushed: c}
	w.mu.RUnlock()
	return <-c
}

// Close writes every queued event, flushes and closes the log. Closing
// twice is not an error.
func (w *Writer) Close() error {
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		return nil
	}
	w.closed = true
	close(w.queue)
	w.mu.Unlock()
	<-w.done
	syncErr := w.sync()
	if err := w.f.Close(); err != nil {
		return fmt.Errorf("close audit log %s: %w", w.path, err)
	}
	if syncErr != nil {
		return fmt.Errorf("close audit log %s: %w", w.path, syncErr)
	}
	if n := w.failed.Load(); n > 0 {
		return fmt.Errorf("close audit log %s: %d events could not be written", w.path, n)
	}
	return nil
}
