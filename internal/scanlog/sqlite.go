package scanlog

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	_ "modernc.org/sqlite" // registers the "sqlite" database/sql driver
)

// DBFile is the scan log's database file inside the data directory.
const DBFile = "scans.db"

// SQLite is the embedded Log: one SQLite file (0600, WAL, secure_delete)
// in the data directory, pruned to the bounds on every append.
//
// The count of stored entries is kept in memory (read once at open, then
// moved by exactly what each committed append inserted and pruned), so an
// append prunes by the bound only when it is exceeded, and then deletes
// just the excess, oldest first, through the time index — instead of
// walking all max_entries rows past an OFFSET on every append. The
// database has one connection and this process is its only writer.
type SQLite struct {
	db  *sql.DB
	cfg Config
	now func() time.Time
	mu  sync.Mutex
	// count is the number of rows in scans (under mu).
	count int64
	// Prepared once (under mu; used through tx.StmtContext).
	insert, update, pruneAge, pruneOldest *sql.Stmt
}

var _ Log = (*SQLite)(nil)

const sqliteSchema = `
CREATE TABLE IF NOT EXISTS scans (
	id       TEXT PRIMARY KEY,
	time_us  INTEGER NOT NULL,
	owner    TEXT NOT NULL,
	tool     TEXT NOT NULL,
	decision TEXT NOT NULL,
	rules    TEXT NOT NULL,
	doc      BLOB NOT NULL
);
CREATE INDEX IF NOT EXISTS scans_time ON scans(time_us DESC, id DESC);
`

// OpenSQLite opens (creating if needed) <dataDir>/scans.db. now is the
// clock for retention (time.Now when nil).
func OpenSQLite(dataDir string, cfg Config, now func() time.Time) (*SQLite, error) {
	cfg = cfg.WithDefaults()
	if err := os.MkdirAll(dataDir, 0o700); err != nil {
		return nil, fmt.Errorf("open scan log: create %s: %w", dataDir, err)
	}
	path := filepath.Join(dataDir, DBFile)
	if err := privateFiles(path); err != nil {
		return nil, fmt.Errorf("open scan log %s: %w", path, err)
	}
	// secure_delete: pruned entries (their redacted content) are zeroed
	// in the file, not left in free pages. A rollback journal truncated
	// after each commit rather than WAL: a WAL keeps old page images of
	// pruned entries until a checkpoint, which secure_delete does not
	// reach. synchronous NORMAL: losing the last entries at a power cut is
	// acceptable for this log.
	dsn := "file:" + path + "?_pragma=journal_mode(TRUNCATE)&_pragma=synchronous(NORMAL)&_pragma=busy_timeout(5000)&_pragma=secure_delete(ON)"
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("open scan log %s: %w", path, err)
	}
	db.SetMaxOpenConns(1)
	if _, err := db.Exec(sqliteSchema); err != nil {
		db.Close()
		return nil, fmt.Errorf("open scan log %s: schema: %w", path, err)
	}
	if err := privateFiles(path); err != nil {
		db.Close()
		return nil, fmt.Errorf("open scan log %s: %w", path, err)
	}
	if now == nil {
		now = time.Now
	}
	s := &SQLite{db: db, cfg: cfg, now: now}
	if err := s.prepare(); err != nil {
		db.Close()
		return nil, fmt.Errorf("open scan log %s: %w", path, err)
	}
	return s, nil
}

// prepare reads the entry count and prepares the append's statements.
func (s *SQLite) prepare() error {
	if err := s.db.QueryRow(`SELECT COUNT(*) FROM scans`).Scan(&s.count); err != nil {
		return fmt.Errorf("count entries: %w", err)
	}
	for _, p := range []struct {
		dst *(*sql.Stmt)
		q   string
	}{
		// INSERT OR IGNORE then UPDATE rather than INSERT OR REPLACE: the
		// insert's rows affected then says whether the row is new, which
		// keeps count exact when a scan id is logged again.
		{&s.insert, `INSERT OR IGNORE INTO scans(id, time_us, owner, tool, decision, rules, doc) VALUES(?,?,?,?,?,?,?)`},
		{&s.update, `UPDATE scans SET time_us = ?, owner = ?, tool = ?, decision = ?, rules = ?, doc = ? WHERE id = ?`},
		{&s.pruneAge, `DELETE FROM scans WHERE time_us < ?`},
		{&s.pruneOldest, `DELETE FROM scans WHERE id IN (SELECT id FROM scans ORDER BY time_us ASC, id ASC LIMIT ?)`},
	} {
		st, err := s.db.Prepare(p.q)
		if err != nil {
			return fmt.Errorf("prepare %q: %w", p.q, err)
		}
		*p.dst = st
	}
	return nil
}

// privateFiles creates the database 0600 before SQLite opens it and fixes
// the modes of it and its -wal/-shm companions.
func privateFiles(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	f.Close()
	for _, p := range []string{path, path + "-wal", path + "-shm", path + "-journal"} {
		if err := os.Chmod(p, 0o600); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
	}
	return nil
}

// Close closes the database.
func (s *SQLite) Close() error {
	for _, st := range []*sql.Stmt{s.insert, s.update, s.pruneAge, s.pruneOldest} {
		if st != nil {
			st.Close()
		}
	}
	return s.db.Close()
}

// Append stores e (sanitized) and prunes entries past the bounds.
func (s *SQLite) Append(ctx context.Context, e Entry) error {
	return s.AppendBatch(ctx, []Entry{e})
}

var _ BatchAppender = (*SQLite)(nil)

// AppendBatch stores es (sanitized) in one transaction and prunes entries
// past the bounds once: one commit (and its sync) for the whole batch.
func (s *SQLite) AppendBatch(ctx context.Context, es []Entry) error {
	return s.appendBatch(ctx, es, false)
}

var _ sanitizedAppender = (*SQLite)(nil)

// appendSanitized is AppendBatch of entries the Recorder sanitized.
func (s *SQLite) appendSanitized(ctx context.Context, es []Entry) error {
	return s.appendBatch(ctx, es, true)
}

// appendBatch is AppendBatch; sanitized says the entries have been through
// Sanitize already (see resanitize).
func (s *SQLite) appendBatch(ctx context.Context, es []Entry, sanitized bool) error {
	docs := make([][]byte, len(es))
	for i := range es {
		if es[i].ScanID == "" {
			return errors.New("scan log append: scan_id is empty")
		}
		if sanitized {
			es[i] = resanitize(es[i], s.cfg.MaxContentBytes)
		} else {
			es[i] = Sanitize(es[i], s.cfg.MaxContentBytes)
		}
		doc, err := es[i].encode()
		if err != nil {
			return fmt.Errorf("scan log append %s: encode: %w", es[i].ScanID, err)
		}
		docs[i] = doc
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("scan log append %s: %w", es[0].ScanID, err)
	}
	defer tx.Rollback()
	ins, upd := tx.StmtContext(ctx, s.insert), tx.StmtContext(ctx, s.update)
	count := s.count
	for i, e := range es {
		us, rules := e.Time.UnixMicro(), ","+strings.Join(e.RuleIDs, ",")+","
		res, err := ins.ExecContext(ctx, e.ScanID, us, e.OwnerKeyID, e.ToolName, string(e.Decision), rules, docs[i])
		if err != nil {
			return fmt.Errorf("scan log append %s: %w", e.ScanID, err)
		}
		n, err := res.RowsAffected()
		if err != nil {
			return fmt.Errorf("scan log append %s: %w", e.ScanID, err)
		}
		if n == 0 {
			// Logged before: the newer entry replaces it.
			if _, err := upd.ExecContext(ctx, us, e.OwnerKeyID, e.ToolName, string(e.Decision), rules, docs[i], e.ScanID); err != nil {
				return fmt.Errorf("scan log append %s: %w", e.ScanID, err)
			}
		}
		count += n
	}
	res, err := tx.StmtContext(ctx, s.pruneAge).ExecContext(ctx, s.now().Add(-s.cfg.Retention).UnixMicro())
	if err != nil {
		return fmt.Errorf("scan log prune by retention: %w", err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return fmt.Errorf("scan log prune by retention: %w", err)
	}
	count -= n
	if excess := count - int64(s.cfg.MaxEntries); excess > 0 {
		res, err := tx.StmtContext(ctx, s.pruneOldest).ExecContext(ctx, excess)
		if err != nil {
			return fmt.Errorf("scan log prune by max_entries: %w", err)
		}
		n, err := res.RowsAffected()
		if err != nil {
			return fmt.Errorf("scan log prune by max_entries: %w", err)
		}
		count -= n
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("scan log append %s: commit: %w", es[0].ScanID, err)
	}
	s.count = count
	return nil
}

// Recent returns the n newest entries.
func (s *SQLite) Recent(ctx context.Context, n int) ([]Entry, error) {
	if n <= 0 {
		return nil, nil
	}
	out, _, err := s.query(ctx, Filter{}, n)
	return out, err
}

// Query returns one page of f, newest first.
func (s *SQLite) Query(ctx context.Context, f Filter) ([]Entry, string, error) {
	return s.query(ctx, f, f.limit())
}

func (s *SQLite) query(ctx context.Context, f Filter, limit int) ([]Entry, string, error) {
	cur, hasCur, err := parseCursor(f.Cursor)
	if err != nil {
		return nil, "", err
	}
	var where []string
	var args []any
	add := func(cond string, a ...any) { where = append(where, cond); args = append(args, a...) }
	add("time_us >= ?", s.now().Add(-s.cfg.Retention).UnixMicro())
	if f.Decision != "" {
		add("decision = ?", f.Decision)
	}
	if f.ToolName != "" {
		add("tool = ?", f.ToolName)
	}
	if f.OwnerKeyID != "" {
		add("owner = ?", f.OwnerKeyID)
	}
	if f.RuleID != "" {
		add("instr(rules, ?) > 0", ","+f.RuleID+",")
	}
	if !f.Since.IsZero() {
		add("time_us >= ?", f.Since.UnixMicro())
	}
	if !f.Until.IsZero() {
		add("time_us < ?", f.Until.UnixMicro())
	}
	if hasCur {
		add("(time_us < ? OR (time_us = ? AND id < ?))", cur.us, cur.us, cur.id)
	}
	q := `SELECT time_us, id, doc FROM scans WHERE ` + strings.Join(where, " AND ") + ` ORDER BY time_us DESC, id DESC LIMIT ?`
	args = append(args, limit+1)
	rows, err := s.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, "", fmt.Errorf("scan log query: %w", err)
	}
	defer rows.Close()
	var out []Entry
	var last cursor
	for rows.Next() {
		var us int64
		var id string
		var doc []byte
		if err := rows.Scan(&us, &id, &doc); err != nil {
			return nil, "", fmt.Errorf("scan log query: %w", err)
		}
		if len(out) == limit {
			return out, last.String(), nil
		}
		var e Entry
		if err := json.Unmarshal(doc, &e); err != nil {
			return nil, "", fmt.Errorf("scan log query: decode %s: %w", id, err)
		}
		out = append(out, e)
		last = cursor{us, id}
	}
	if err := rows.Err(); err != nil {
		return nil, "", fmt.Errorf("scan log query: %w", err)
	}
	return out, "", nil
}

// Get returns one entry, or ErrNotFound (also once it is past retention).
func (s *SQLite) Get(ctx context.Context, scanID string) (Entry, error) {
	var doc []byte
	var us int64
	err := s.db.QueryRowContext(ctx, `SELECT time_us, doc FROM scans WHERE id = ?`, scanID).Scan(&us, &doc)
	if errors.Is(err, sql.ErrNoRows) || (err == nil && us < s.now().Add(-s.cfg.Retention).UnixMicro()) {
		return Entry{}, fmt.Errorf("scan %s: %w", scanID, ErrNotFound)
	}
	if err != nil {
		return Entry{}, fmt.Errorf("scan log get %s: %w", scanID, err)
	}
	var e Entry
	if err := json.Unmarshal(doc, &e); err != nil {
		return Entry{}, fmt.Errorf("scan log get %s: decode: %w", scanID, err)
	}
	return e, nil
}
