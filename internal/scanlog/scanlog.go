// Package scanlog keeps a bounded, redacted log of recent scans with the
// request content they judged, so that a new rule pack or policy can be
// replayed against real traffic (shadow runs, dry-runs) and an operator can
// search what agents asked for.
//
// What is stored is never the raw request: content, arguments, the working
// directory and metadata strings pass through the secrets redactor, content
// is cut to a bound, and environment values are dropped (only the names are
// kept). The log is bounded by entry count and by age, and appends go
// through an asynchronous bounded queue (Recorder), so a slow or failing
// log can never delay or fail a scan.
package scanlog

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/toolwarden/toolwarden/engine"
	"github.com/toolwarden/toolwarden/internal/engine/secrets"
	"github.com/toolwarden/toolwarden/sdk"
)

// Defaults of the scanlog.* configuration keys.
const (
	// DefaultMaxEntries is scanlog.max_entries: the log keeps at most this
	// many entries, the oldest dropped first.
	DefaultMaxEntries = 10000
	// DefaultRetention is scanlog.retention: older entries are dropped.
	DefaultRetention = 168 * time.Hour
	// DefaultMaxContentBytes is scanlog.max_content_bytes: stored content
	// is cut to this many bytes, so the log's size is bounded too.
	DefaultMaxContentBytes = 64 << 10
	// DefaultQueueSize is how many entries may wait for the store before
	// further ones are dropped (and counted).
	DefaultQueueSize = 1024
	// MaxQueryLimit caps Filter.Limit.
	MaxQueryLimit = 500
	// DefaultQueryLimit is the page size when Filter.Limit is zero.
	DefaultQueryLimit = 50
)

// ErrNotFound is returned by Get for an unknown (or expired) scan id.
var ErrNotFound = errors.New("scan not found")

// ErrBadCursor is returned by Query for a cursor it did not issue.
var ErrBadCursor = errors.New("invalid cursor")

// Entry is one logged scan. Request is stored redacted (see Sanitize).
type Entry struct {
	ScanID     string
	Time       time.Time
	OwnerKeyID string
	ToolName   string
	Language   string
	Decision   sdk.Decision
	RiskLevel  sdk.RiskLevel
	RuleIDs    []string
	Blocked    bool
	// Request is the scanned piece; its content is redacted by the
	// secrets redactor and bounded, and its env holds names only (every
	// value is empty). A scan of several fields logs the first one.
	Request engine.Request
	Report  *sdk.SafetyReport
}

// Filter selects entries; empty fields match everything. Results are
// newest first; Cursor continues where the previous page's next cursor
// left off.
type Filter struct {
	Decision, RuleID, ToolName, OwnerKeyID string
	Since, Until                           time.Time
	Limit                                  int
	Cursor                                 string
}

// Log is a store of scan entries.
type Log interface {
	// Append stores e (already sanitized by the caller or not: stores
	// sanitize again, so nothing unredacted is ever written).
	Append(ctx context.Context, e Entry) error
	// Recent returns the n newest entries, newest first.
	Recent(ctx context.Context, n int) ([]Entry, error)
	// Query returns one page of entries matching f and the cursor of the
	// next page ("" when there is none).
	Query(ctx context.Context, f Filter) (entries []Entry, next string, err error)
	// Get returns the entry of one scan, or ErrNotFound.
	Get(ctx context.Context, scanID string) (Entry, error)
}

// BatchAppender is a Log that stores several entries in one call (one
// transaction, one sync, one round trip). The Recorder uses it when entries
// queue up, so a burst of scans costs the store one commit rather than one
// per scan. Either every entry is stored or the call fails.
type BatchAppender interface {
	AppendBatch(ctx context.Context, es []Entry) error
}

// Config is the scanlog.* configuration.
type Config struct {
	// Enabled turns the log on (default true).
	Enabled bool `koanf:"enabled"`
	// MaxEntries bounds the number of entries (default 10000).
	MaxEntries int `koanf:"max_entries"`
	// Retention bounds their age (default 168h).
	Retention time.Duration `koanf:"retention"`
	// MaxContentBytes bounds the stored content of one entry (default 64 KiB).
	MaxContentBytes int `koanf:"max_content_bytes"`
}

// DefaultConfig is the configuration when none is given.
func DefaultConfig() Config {
	return Config{Enabled: true, MaxEntries: DefaultMaxEntries, Retention: DefaultRetention, MaxContentBytes: DefaultMaxContentBytes}
}

// WithDefaults fills zero fields with the defaults (Enabled is kept).
func (c Config) WithDefaults() Config {
	if c.MaxEntries == 0 {
		c.MaxEntries = DefaultMaxEntries
	}
	if c.Retention == 0 {
		c.Retention = DefaultRetention
	}
	if c.MaxContentBytes == 0 {
		c.MaxContentBytes = DefaultMaxContentBytes
	}
	return c
}

// Validate names the scanlog.* key that is out of range.
func (c Config) Validate() error {
	var errs []error
	if c.MaxEntries < 0 {
		errs = append(errs, errors.New("config scanlog.max_entries: must be > 0"))
	}
	if c.Retention < 0 {
		errs = append(errs, errors.New("config scanlog.retention: must be > 0"))
	}
	if c.MaxContentBytes < 0 {
		errs = append(errs, errors.New("config scanlog.max_content_bytes: must be > 0"))
	}
	return errors.Join(errs...)
}

// truncatedMarker ends content cut to the bound.
const truncatedMarker = "\n[TRUNCATED by scanlog]"

// Sanitize returns e as it may be stored: content, arguments, cwd and
// metadata strings redacted, content cut to maxContent bytes (at a rune
// boundary), environment values dropped (names kept), and the report's
// evidence redacted again (it already is; redaction is idempotent).
func Sanitize(e Entry, maxContent int) Entry {
	if maxContent <= 0 {
		maxContent = DefaultMaxContentBytes
	}
	r := e.Request
	r.Content = redact(r.Content)
	if len(r.Content) > maxContent {
		cut := maxContent
		for cut > 0 && !utf8.RuneStart(r.Content[cut]) {
			cut--
		}
		// Cutting may split a secret the redactor saw whole; redact
		// the cut text again so a half-token never survives.
		r.Content = redact(r.Content[:cut]) + truncatedMarker
	}
	r.Cwd = redact(r.Cwd)
	if r.CommandArgs != nil {
		args := make([]string, len(r.CommandArgs))
		for i, a := range r.CommandArgs {
			args[i] = redact(a)
		}
		r.CommandArgs = args
	}
	if r.Env != nil {
		names := make(map[string]string, len(r.Env))
		for k := range r.Env {
			names[k] = ""
		}
		r.Env = names
	}
	if r.Metadata != nil {
		r.Metadata, _ = redactValue(r.Metadata).(map[string]any)
	}
	e.Request = r
	if e.Report != nil {
		rep := *e.Report
		rep.Summary = redact(rep.Summary)
		rep.Findings = make([]sdk.Finding, len(e.Report.Findings))
		for i, f := range e.Report.Findings {
			f.Evidence = redact(f.Evidence)
			f.Message = redact(f.Message)
			rep.Findings[i] = f
		}
		rep.TelemetryAttributes = nil
		e.Report = &rep
	}
	if e.RuleIDs == nil && e.Report != nil {
		e.RuleIDs = e.Report.RuleIDs()
	}
	return e
}

// sanitizedAppender is a store that can take entries the Recorder has
// already sanitized (Record sanitizes before queueing) without sanitizing
// them a second time. Unexported, so only the Recorder's own queue — which
// holds nothing else — uses it.
type sanitizedAppender interface {
	appendSanitized(ctx context.Context, es []Entry) error
}

// resanitize returns e as Sanitize(e, maxContent) would, for an entry that
// has already been through Sanitize: every redaction is idempotent (see
// secrets.Redact), so only content longer than the bound has anything left
// to do, and then Sanitize runs again.
func resanitize(e Entry, maxContent int) Entry {
	if maxContent <= 0 {
		maxContent = DefaultMaxContentBytes
	}
	if len(e.Request.Content) > maxContent {
		return Sanitize(e, maxContent)
	}
	return e
}

func redact(s string) string {
	out, _ := secrets.Redact(s)
	return out
}

func redactValue(v any) any {
	switch x := v.(type) {
	case string:
		return redact(x)
	case map[string]any:
		m := make(map[string]any, len(x))
		for k, vv := range x {
			m[k] = redactValue(vv)
		}
		return m
	case []any:
		s := make([]any, len(x))
		for i, vv := range x {
			s[i] = redactValue(vv)
		}
		return s
	default:
		return v
	}
}

// FromReport builds the entry of one scan.
func FromReport(owner string, req engine.Request, rep *sdk.SafetyReport) Entry {
	e := Entry{OwnerKeyID: owner, Request: req, Report: rep, Time: time.Now().UTC()}
	if rep != nil {
		e.ScanID = rep.ScanID
		e.ToolName = rep.ToolName
		e.Language = rep.Language
		e.Decision = rep.Decision
		e.RiskLevel = rep.RiskLevel
		e.Blocked = rep.Blocked
		e.RuleIDs = rep.RuleIDs()
		if t, err := time.Parse(time.RFC3339Nano, rep.Timestamp); err == nil {
			e.Time = t.UTC()
		}
	}
	if e.ToolName == "" {
		e.ToolName = req.ToolName
	}
	return e
}

// requestDoc is the stored and API shape of a logged request.
type requestDoc struct {
	ToolName       string         `json:"tool_name,omitempty"`
	Language       string         `json:"language,omitempty"`
	Content        string         `json:"content"`
	Cwd            string         `json:"cwd,omitempty"`
	TimeoutSeconds float64        `json:"timeout_seconds,omitempty"`
	MaxOutputBytes int64          `json:"max_output_bytes,omitempty"`
	CommandArgs    []string       `json:"command_args,omitempty"`
	EnvNames       []string       `json:"env_names,omitempty"`
	Metadata       map[string]any `json:"tool_metadata,omitempty"`
	ConversationID string         `json:"conversation_id,omitempty"`
}

// entryDoc is the stored and API shape of an entry.
type entryDoc struct {
	ScanID     string            `json:"scan_id"`
	Time       time.Time         `json:"time"`
	OwnerKeyID string            `json:"owner_key_id"`
	ToolName   string            `json:"tool_name"`
	Language   string            `json:"language"`
	Decision   sdk.Decision      `json:"decision"`
	RiskLevel  sdk.RiskLevel     `json:"risk_level"`
	RuleIDs    []string          `json:"rule_ids"`
	Blocked    bool              `json:"blocked"`
	Request    requestDoc        `json:"request"`
	Report     *sdk.SafetyReport `json:"safety_report,omitempty"`
}

// MarshalJSON writes the entry in its snake_case shape; env values are
// never written, only names.
func (e Entry) MarshalJSON() ([]byte, error) {
	return e.encode()
}

// encode is MarshalJSON. The store calls it directly: json.Marshal of an
// Entry would run it and then compact and copy its output a second time.
func (e Entry) encode() ([]byte, error) {
	names := make([]string, 0, len(e.Request.Env))
	for k := range e.Request.Env {
		names = append(names, k)
	}
	sort.Strings(names)
	rules := e.RuleIDs
	if rules == nil {
		rules = []string{}
	}
	r := e.Request
	return json.Marshal(entryDoc{
		ScanID: e.ScanID, Time: e.Time, OwnerKeyID: e.OwnerKeyID, ToolName: e.ToolName, Language: e.Language,
		Decision: e.Decision, RiskLevel: e.RiskLevel, RuleIDs: rules, Blocked: e.Blocked, Report: e.Report,
		Request: requestDoc{ToolName: r.ToolName, Language: r.Language, Content: r.Content, Cwd: r.Cwd,
			TimeoutSeconds: r.TimeoutSeconds, MaxOutputBytes: r.MaxOutputBytes, CommandArgs: r.CommandArgs,
			EnvNames: names, Metadata: r.Metadata, ConversationID: r.ConversationID},
	})
}

// UnmarshalJSON reads what MarshalJSON wrote.
func (e *Entry) UnmarshalJSON(b []byte) error {
	var d entryDoc
	if err := json.Unmarshal(b, &d); err != nil {
		return err
	}
	var env map[string]string
	if len(d.Request.EnvNames) > 0 {
		env = make(map[string]string, len(d.Request.EnvNames))
		for _, n := range d.Request.EnvNames {
			env[n] = ""
		}
	}
	*e = Entry{ScanID: d.ScanID, Time: d.Time, OwnerKeyID: d.OwnerKeyID, ToolName: d.ToolName, Language: d.Language,
		Decision: d.Decision, RiskLevel: d.RiskLevel, RuleIDs: d.RuleIDs, Blocked: d.Blocked, Report: d.Report,
		Request: engine.Request{ScanID: d.ScanID, ToolName: d.Request.ToolName, Language: d.Request.Language,
			Content: d.Request.Content, Cwd: d.Request.Cwd, TimeoutSeconds: d.Request.TimeoutSeconds,
			MaxOutputBytes: d.Request.MaxOutputBytes, CommandArgs: d.Request.CommandArgs, Env: env,
			Metadata: d.Request.Metadata, ConversationID: d.Request.ConversationID}}
	return nil
}

// Matches reports whether e passes f's field filters (not its paging).
func (f Filter) Matches(e Entry) bool {
	if f.Decision != "" && string(e.Decision) != f.Decision {
		return false
	}
	if f.ToolName != "" && e.ToolName != f.ToolName {
		return false
	}
	if f.OwnerKeyID != "" && e.OwnerKeyID != f.OwnerKeyID {
		return false
	}
	if !f.Since.IsZero() && e.Time.Before(f.Since) {
		return false
	}
	if !f.Until.IsZero() && !e.Time.Before(f.Until) {
		return false
	}
	if f.RuleID != "" {
		found := false
		for _, r := range e.RuleIDs {
			if r == f.RuleID {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// limit is f.Limit clamped to [1, MaxQueryLimit].
func (f Filter) limit() int {
	switch {
	case f.Limit <= 0:
		return DefaultQueryLimit
	case f.Limit > MaxQueryLimit:
		return MaxQueryLimit
	}
	return f.Limit
}

// cursor is a position in newest-first order: entries strictly after
// (older than) the entry (us, id).
type cursor struct {
	us int64
	id string
}

func (c cursor) String() string {
	return base64.RawURLEncoding.EncodeToString([]byte(strconv.FormatInt(c.us, 10) + ":" + c.id))
}

func parseCursor(s string) (cursor, bool, error) {
	if s == "" {
		return cursor{}, false, nil
	}
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return cursor{}, false, fmt.Errorf("cursor: %w", ErrBadCursor)
	}
	us, id, ok := strings.Cut(string(b), ":")
	n, err := strconv.ParseInt(us, 10, 64)
	if !ok || err != nil || id == "" {
		return cursor{}, false, fmt.Errorf("cursor: %w", ErrBadCursor)
	}
	return cursor{n, id}, true, nil
}

// before reports whether (us, id) comes after c in newest-first order.
func (c cursor) before(us int64, id string) bool {
	return us < c.us || (us == c.us && id < c.id)
}
