package reduction

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// Read limits for ReadPersisted: a read without a limit returns
// DefaultReadLimit bytes, and no read returns more than MaxReadLimit, so
// reading a spill file back cannot itself blow up a context or a response.
const (
	DefaultReadLimit = 64 << 10
	MaxReadLimit     = 1 << 20
)

// Chunk is one slice of a persisted output file.
type Chunk struct {
	// Data holds the bytes read; it may split a multi-byte rune, because
	// offsets are byte offsets into the file.
	Data []byte `json:"data"`
	// Offset is where Data starts; Size is the whole file's size.
	Offset int64 `json:"offset"`
	Size   int64 `json:"size"`
	// EOF reports that Data reaches the end of the file.
	EOF bool `json:"eof"`
}

// ErrOutsideRoot is returned for a path that is not a spill file under the
// reduction root; callers map it to "not found" or "forbidden".
var ErrOutsideRoot = errors.New("path is not a persisted output under the reduction root")

// ReadPersisted reads limit bytes at offset from a spill file (the path a
// <persisted-output> block names). It refuses anything that is not a
// regular file at <root>/conversations/<c>/trunc/<e> after resolving
// symlinks, so the output endpoint cannot be turned into a generic file
// reader.
func ReadPersisted(root, path string, offset int64, limit int) (Chunk, error) {
	if offset < 0 {
		return Chunk{}, fmt.Errorf("read persisted output: negative offset %d", offset)
	}
	if limit <= 0 {
		limit = DefaultReadLimit
	}
	limit = min(limit, MaxReadLimit)
	real, err := resolveUnder(root, path)
	if err != nil {
		return Chunk{}, err
	}
	f, err := os.OpenFile(real, os.O_RDONLY|noFollow, 0)
	if err != nil {
		return Chunk{}, fmt.Errorf("read persisted output %s: %w", path, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return Chunk{}, fmt.Errorf("read persisted output %s: %w", path, err)
	}
	if !st.Mode().IsRegular() {
		return Chunk{}, fmt.Errorf("read persisted output %s: %w", path, ErrOutsideRoot)
	}
	c := Chunk{Offset: offset, Size: st.Size()}
	if offset >= c.Size {
		c.EOF = true
		c.Data = []byte{}
		return c, nil
	}
	buf := make([]byte, min(int64(limit), c.Size-offset))
	n, err := f.ReadAt(buf, offset)
	if err != nil && !errors.Is(err, io.EOF) {
		return Chunk{}, fmt.Errorf("read persisted output %s at %d: %w", path, offset, err)
	}
	c.Data = buf[:n]
	c.EOF = offset+int64(n) >= c.Size
	return c, nil
}

// resolveUnder returns the symlink-free path of a spill file, or
// ErrOutsideRoot when path is anything else.
func resolveUnder(root, path string) (string, error) {
	if root == "" {
		root = DefaultRoot
	}
	absRoot, err := filepath.Abs(root)
	if err != nil {
		return "", fmt.Errorf("resolve reduction root %q: %w", root, err)
	}
	realRoot, err := filepath.EvalSymlinks(absRoot)
	if err != nil {
		return "", fmt.Errorf("resolve reduction root %q: %w", root, err)
	}
	if !filepath.IsAbs(path) {
		return "", fmt.Errorf("read persisted output %q: %w", path, ErrOutsideRoot)
	}
	realPath, err := filepath.EvalSymlinks(filepath.Clean(path))
	if err != nil {
		return "", fmt.Errorf("read persisted output %s: %w", path, err)
	}
	rel, err := filepath.Rel(realRoot, realPath)
	if err != nil {
		return "", fmt.Errorf("read persisted output %s: %w", path, ErrOutsideRoot)
	}
	parts := strings.Split(filepath.ToSlash(rel), "/")
	if len(parts) != 4 || parts[0] != "conversations" || parts[2] != "trunc" ||
		parts[1] == ".." || parts[3] == ".." {
		return "", fmt.Errorf("read persisted output %s: %w", path, ErrOutsideRoot)
	}
	return realPath, nil
}
