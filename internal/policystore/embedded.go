package policystore

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// Embedded stores revisions as files in a directory of the data dir, one
// per version (<version>.json, mode 0600, written atomically); the active
// revision is the newest. It serves one process, like the embedded queue.
type Embedded struct {
	dir string
	key []byte
	mu  sync.Mutex
}

// OpenEmbedded opens (creating, mode 0700) the revision directory dir.
// macKey, when set, authenticates every record (see ErrTampered).
func OpenEmbedded(dir string, macKey []byte) (*Embedded, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("policystore: create %s: %w", dir, err)
	}
	return &Embedded{dir: dir, key: macKey}, nil
}

func (e *Embedded) versions() ([]int, error) {
	entries, err := os.ReadDir(e.dir)
	if err != nil {
		return nil, fmt.Errorf("policystore: list %s: %w", e.dir, err)
	}
	var vs []int
	for _, en := range entries {
		name, ok := strings.CutSuffix(en.Name(), ".json")
		if !ok {
			continue
		}
		if v, err := strconv.Atoi(name); err == nil && v > 0 {
			vs = append(vs, v)
		}
	}
	sort.Sort(sort.Reverse(sort.IntSlice(vs)))
	return vs, nil
}

func (e *Embedded) path(v int) string { return filepath.Join(e.dir, fmt.Sprintf("%08d.json", v)) }

// Append stores rev as the newest version.
func (e *Embedded) Append(_ context.Context, rev Revision) (Revision, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	vs, err := e.versions()
	if err != nil {
		return Revision{}, err
	}
	rev.Version = 1
	if len(vs) > 0 {
		rev.Version = vs[0] + 1
	}
	data, err := seal(e.key, rev)
	if err != nil {
		return Revision{}, err
	}
	tmp, err := os.CreateTemp(e.dir, ".rev-*")
	if err != nil {
		return Revision{}, fmt.Errorf("policystore: %w", err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return Revision{}, fmt.Errorf("policystore: write revision %d: %w", rev.Version, err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return Revision{}, fmt.Errorf("policystore: sync revision %d: %w", rev.Version, err)
	}
	if err := tmp.Close(); err != nil {
		return Revision{}, fmt.Errorf("policystore: write revision %d: %w", rev.Version, err)
	}
	if err := os.Rename(tmp.Name(), e.path(rev.Version)); err != nil {
		return Revision{}, fmt.Errorf("policystore: store revision %d: %w", rev.Version, err)
	}
	if d, err := os.Open(e.dir); err == nil {
		_ = d.Sync()
		d.Close()
	}
	return rev, nil
}

// Active returns the newest revision.
func (e *Embedded) Active(ctx context.Context) (Revision, error) {
	e.mu.Lock()
	vs, err := e.versions()
	e.mu.Unlock()
	if err != nil {
		return Revision{}, err
	}
	if len(vs) == 0 {
		return Revision{}, ErrNotFound
	}
	return e.Get(ctx, vs[0])
}

// Get reads one revision.
func (e *Embedded) Get(_ context.Context, version int) (Revision, error) {
	data, err := os.ReadFile(e.path(version))
	if errors.Is(err, fs.ErrNotExist) {
		return Revision{}, fmt.Errorf("version %d: %w", version, ErrNotFound)
	}
	if err != nil {
		return Revision{}, fmt.Errorf("policystore: read version %d: %w", version, err)
	}
	rev, err := unseal(e.key, data)
	if err != nil {
		return Revision{}, fmt.Errorf("policystore: version %d: %w", version, err)
	}
	return rev, nil
}

// History returns up to limit revisions, newest first.
func (e *Embedded) History(ctx context.Context, limit int) ([]Revision, error) {
	e.mu.Lock()
	vs, err := e.versions()
	e.mu.Unlock()
	if err != nil {
		return nil, err
	}
	if limit > 0 && len(vs) > limit {
		vs = vs[:limit]
	}
	out := make([]Revision, 0, len(vs))
	for _, v := range vs {
		rev, err := e.Get(ctx, v)
		if err != nil {
			return nil, err
		}
		out = append(out, rev)
	}
	return out, nil
}

// Changes returns nil: one process writes the directory and applies its
// own writes.
func (e *Embedded) Changes(context.Context) <-chan struct{} { return nil }

// Close does nothing.
func (e *Embedded) Close() error { return nil }
