// Package reduction bounds tool output. Whatever a command prints, the
// result an agent, the store and the panel see is at most MaxLength bytes:
// the output itself when it fits, otherwise a <persisted-output> block with
// a head and a tail preview and the absolute path of a file holding the full,
// byte-identical output ("spill" file). Memory stays bounded whatever the
// output size, because the Writer keeps only a head buffer and a tail ring
// and streams everything past the cap to disk.
//
// Layout on disk (dirs 0700, files 0600):
//
//	<Root>/conversations/<conversation>/trunc/<execution_id>
//
// The ids are sanitized into safe single path components, so an id can
// never address a file outside its own directory.
package reduction

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// Defaults from the execution-governance design: reduction_max_length_for_trunc
// is 50000 bytes, partial previews default to a 4096-byte tail and never
// exceed 65536 bytes.
const (
	DefaultMaxLength       = 50000
	DefaultRoot            = "tmp/reduction"
	DefaultPartialBytes    = 4096
	MaxPartialBytes        = 65536
	MinMaxLength           = 1024
	defaultConversationDir = "_"
)

// DefaultMaxSpillBytes bounds one run's spill file (256 MiB): without a
// bound a run printing for its whole timeout fills the host's disk.
const DefaultMaxSpillBytes int64 = 256 << 20

// Config selects the cap and where the full output of an oversized run is
// persisted.
type Config struct {
	// MaxLength is the cap on the canonical result in bytes
	// (reduction_max_length_for_trunc); DefaultMaxLength when zero. Values
	// below MinMaxLength are rejected: the <persisted-output> block itself
	// needs room for its path and previews.
	MaxLength int
	// Root is reduction_root; DefaultRoot (relative to the working
	// directory) when empty. It is made absolute so the path in the result
	// can be read back from anywhere.
	Root string
	// ConversationID groups spill files of one conversation; "_" when empty.
	ConversationID string
	// ExecutionID names the spill file; required, since two executions
	// must never share one file.
	ExecutionID string
	// MaxSpillBytes bounds the spill file; DefaultMaxSpillBytes when zero,
	// no bound when negative. An output past it is not saved at all: the
	// file is removed and the result says so (its head and tail previews
	// and byte count stay), so the host's disk holds at most this much per
	// run.
	MaxSpillBytes int64
}

// withDefaults fills zero fields and validates the rest.
func (c Config) withDefaults() (Config, error) {
	if c.MaxLength == 0 {
		c.MaxLength = DefaultMaxLength
	}
	if c.MaxSpillBytes == 0 {
		c.MaxSpillBytes = DefaultMaxSpillBytes
	}
	if c.MaxLength < MinMaxLength {
		return c, fmt.Errorf("reduction: max length %d is below the minimum %d", c.MaxLength, MinMaxLength)
	}
	if c.Root == "" {
		c.Root = DefaultRoot
	}
	root, err := filepath.Abs(c.Root)
	if err != nil {
		return c, fmt.Errorf("reduction: resolve root %q: %w", c.Root, err)
	}
	c.Root = root
	if c.ExecutionID == "" {
		return c, errors.New("reduction: execution id is required")
	}
	return c, nil
}

// SpillPath is where the full output of execution executionID in
// conversation conversationID is persisted under root. Both ids are
// sanitized with SafeComponent.
func SpillPath(root, conversationID, executionID string) (string, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return "", fmt.Errorf("reduction: resolve root %q: %w", root, err)
	}
	conv := conversationID
	if conv == "" {
		conv = defaultConversationDir
	}
	return filepath.Join(abs, "conversations", SafeComponent(conv), "trunc", SafeComponent(executionID)), nil
}

// maxComponent bounds a sanitized id so the path stays well under PATH_MAX.
const maxComponent = 96

// SafeComponent maps an arbitrary id to one safe path component: only
// [A-Za-z0-9._-] survive, anything else becomes '_', and "", "." and ".."
// cannot result. When the id had to change, a short hash of the original is
// appended so that two different ids never collide on one file.
func SafeComponent(id string) string {
	var b strings.Builder
	for i := 0; i < len(id); i++ {
		c := id[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '-', c == '_', c == '.':
			b.WriteByte(c)
		default:
			b.WriteByte('_')
		}
	}
	s := b.String()
	if len(s) > maxComponent {
		s = s[:maxComponent]
	}
	if s == id && s != "" && strings.Trim(s, ".") != "" {
		return s
	}
	sum := sha256.Sum256([]byte(id))
	s = strings.ReplaceAll(s, ".", "_")
	return s + "-" + hex.EncodeToString(sum[:6])
}

// Writer captures a stream with bounded memory: a head buffer of MaxLength
// bytes, a tail ring, a byte count, and (once the output passes MaxLength)
// a spill file with the full output. It is safe for concurrent use, so one
// Writer can serve as both stdout and stderr while Partial is polled.
//
// Write never fails because of the disk: a failing spill is recorded and
// reported by Result, while capture goes on, so a child process is never
// killed by a broken pipe because the host's disk is full.
type Writer struct {
	cfg  Config
	path string

	mu       sync.Mutex
	head     []byte // first MaxLength bytes
	ring     []byte // last len(ring) bytes, circular
	ringPos  int    // next write index in ring
	total    int64
	updated  time.Time
	spill    *os.File
	spillErr error
	spilled  int64 // bytes written to spill
	closed   bool
}

// NewWriter returns a Writer for one execution. Nothing touches the disk
// until the output passes the cap.
func NewWriter(cfg Config) (*Writer, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	path, err := SpillPath(cfg.Root, cfg.ConversationID, cfg.ExecutionID)
	if err != nil {
		return nil, err
	}
	ringSize := max(cfg.MaxLength, MaxPartialBytes)
	return &Writer{
		cfg:     cfg,
		path:    path,
		head:    make([]byte, 0, min(cfg.MaxLength, 64<<10)),
		ring:    make([]byte, ringSize),
		updated: time.Now(),
	}, nil
}

// Write captures p. It always consumes all of p (see the type doc); it
// only fails after Close.
func (w *Writer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return 0, errors.New("reduction: write after close")
	}
	n := len(p)
	if n == 0 {
		return 0, nil
	}
	w.updated = time.Now()
	before := w.total
	w.total += int64(n)

	// Head: the first MaxLength bytes.
	if room := w.cfg.MaxLength - len(w.head); room > 0 {
		w.head = append(w.head, p[:min(room, n)]...)
	}
	// Spill: once past the cap, the whole output goes to disk.
	if w.total > int64(w.cfg.MaxLength) && w.spillErr == nil {
		if w.spill == nil {
			w.openSpill(before)
		}
		if w.spill != nil {
			w.writeSpill(p)
		}
	}
	// Tail ring: the last len(ring) bytes.
	q := p
	if len(q) > len(w.ring) {
		q = q[len(q)-len(w.ring):]
	}
	for len(q) > 0 {
		c := copy(w.ring[w.ringPos:], q)
		w.ringPos = (w.ringPos + c) % len(w.ring)
		q = q[c:]
	}
	return n, nil
}

// openSpill creates the spill file and writes the bytes captured before the
// current Write (all of which are still in head, since before <= MaxLength).
func (w *Writer) openSpill(before int64) {
	dir := filepath.Dir(w.path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		w.spillErr = fmt.Errorf("create spill dir %s: %w", dir, err)
		return
	}
	f, err := os.OpenFile(w.path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC|noFollow, 0o600)
	if err != nil {
		w.spillErr = fmt.Errorf("create spill file %s: %w", w.path, err)
		return
	}
	// O_CREATE keeps the mode of a file that already existed; make sure.
	if err := f.Chmod(0o600); err != nil {
		_ = f.Close()
		w.spillErr = fmt.Errorf("chmod spill file %s: %w", w.path, err)
		return
	}
	w.spill = f
	w.writeSpill(w.head[:before])
}

func (w *Writer) writeSpill(p []byte) {
	if max := w.cfg.MaxSpillBytes; max > 0 && w.spilled+int64(len(p)) > max {
		_ = w.spill.Close()
		w.spill = nil
		_ = os.Remove(w.path)
		w.spillErr = fmt.Errorf("output passed the spill bound of %d bytes and was not saved", max)
		return
	}
	w.spilled += int64(len(p))
	if _, err := w.spill.Write(p); err != nil {
		w.spillErr = fmt.Errorf("write spill file %s: %w", w.path, err)
		_ = w.spill.Close()
		w.spill = nil
	}
}

// Close flushes and closes the spill file. Result and Partial stay usable.
func (w *Writer) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return nil
	}
	w.closed = true
	if w.spill != nil {
		if err := w.spill.Close(); err != nil && w.spillErr == nil {
			w.spillErr = fmt.Errorf("close spill file %s: %w", w.path, err)
		}
		w.spill = nil
	}
	return w.spillErr
}

// TotalBytes is the number of bytes written so far.
func (w *Writer) TotalBytes() int64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.total
}

// Truncated reports whether the output passed the cap, so the result is a
// <persisted-output> block rather than the output itself.
func (w *Writer) Truncated() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.total > int64(w.cfg.MaxLength)
}

// SpillPath is the absolute path of the full output, or "" while the output
// fits the cap (nothing is written then) or when spilling failed.
func (w *Writer) SpillPath() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.total <= int64(w.cfg.MaxLength) || w.spillErr != nil {
		return ""
	}
	return w.path
}

// tailLocked returns the last n bytes (n <= len(ring), n <= total) in order.
func (w *Writer) tailLocked(n int) []byte {
	out := make([]byte, n)
	start := (w.ringPos - n + len(w.ring)) % len(w.ring)
	c := copy(out, w.ring[start:])
	if c < n {
		copy(out[c:], w.ring[:n-c])
	}
	return out
}

// Result returns the canonical reduced result: the output itself when it is
// at most MaxLength bytes, otherwise the <persisted-output> block, never
// longer than MaxLength. When the full output could not be persisted, the
// block says so instead of naming a path, and the error is returned as
// well: the caller records it rather than presenting a path that does not
// hold the output.
func (w *Writer) Result() (string, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.total <= int64(w.cfg.MaxLength) {
		return string(w.head), nil
	}
	var line string
	if w.spillErr != nil {
		line = fmt.Sprintf("Output too large (%d). Full output could not be saved: %s", w.total, w.spillErr)
	} else {
		line = fmt.Sprintf("Output too large (%d). Full output saved to: %s", w.total, w.path)
	}
	tailAvail := int(min(w.total, int64(len(w.ring))))
	block := persistedBlock(line, w.head, w.tailLocked(tailAvail), w.cfg.MaxLength)
	return block, w.spillErr
}

// persistedBlock lays out the <persisted-output> block in at most limit
// bytes, splitting the preview budget evenly between head and tail and
// cutting both on rune boundaries.
func persistedBlock(line string, head, tail []byte, limit int) string {
	// The digits of k1 and k2 are part of the overhead; size them with the
	// largest values they can take, so shrinking a preview afterwards can
	// only make the block shorter.
	skeleton := func(k1, k2 int, h, t []byte) string {
		var b strings.Builder
		b.WriteString("<persisted-output>\n")
		b.WriteString(line)
		b.WriteString("\nUse read_file with offset/limit to read parts of the file.\n")
		b.WriteString("Preview (first " + strconv.Itoa(k1) + "):\n")
		b.Write(h)
		b.WriteString("\n\nPreview (last " + strconv.Itoa(k2) + "):\n")
		b.Write(t)
		b.WriteString("\n\n</persisted-output>")
		return b.String()
	}
	digits := len(strconv.Itoa(limit))
	overhead := len(skeleton(0, 0, nil, nil)) + 2*(digits-1)
	budget := limit - overhead
	if budget < 0 {
		budget = 0
	}
	k1 := min(budget/2, len(head))
	k2 := min(budget-k1, len(tail))
	h := cutHead(head, k1)
	t := cutTail(tail, k2)
	out := skeleton(len(h), len(t), h, t)
	if len(out) > limit {
		// Only a pathological root path can get here; the cap still wins.
		out = string(cutHead([]byte(out), limit))
	}
	return out
}

// cutHead returns the longest prefix of b of at most n bytes that does not
// end inside a multi-byte rune.
func cutHead(b []byte, n int) []byte {
	if n >= len(b) {
		return b
	}
	b = b[:n]
	// Look back at most UTFMax-1 bytes for the start of the last rune.
	for i := len(b) - 1; i >= 0 && i >= len(b)-utf8.UTFMax; i-- {
		if utf8.RuneStart(b[i]) {
			if !utf8.FullRune(b[i:]) {
				return b[:i]
			}
			break
		}
	}
	return b
}

// cutTail returns the longest suffix of b of at most n bytes that does not
// start inside a multi-byte rune.
func cutTail(b []byte, n int) []byte {
	if n >= len(b) {
		return b
	}
	b = b[len(b)-n:]
	// Skip the continuation bytes of a rune that started before the cut
	// (at most UTFMax-1 of them).
	i := 0
	for i < len(b) && i < utf8.UTFMax-1 && !utf8.RuneStart(b[i]) {
		i++
	}
	return b[i:]
}

// Reduce applies the cap to an output that is already complete (an MCP
// tool's result, a record written before the cap was lowered): the same
// canonical result the Writer would give for the same bytes.
func Reduce(cfg Config, output []byte) (string, error) {
	w, err := NewWriter(cfg)
	if err != nil {
		return "", err
	}
	_, _ = w.Write(output)
	cerr := w.Close()
	res, rerr := w.Result()
	if rerr != nil {
		return res, rerr
	}
	return res, cerr
}
