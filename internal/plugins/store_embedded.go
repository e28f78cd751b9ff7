package plugins

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"time"
)

// EmbeddedStore keeps revisions in a directory of the data dir (one
// server): modules/<hex>.wasm, revisions/<name>/<hex>.json and active.json,
// every file 0600 and written atomically (temp file, fsync, rename), so a
// SIGKILL never leaves a half-written active set.
type EmbeddedStore struct {
	dir string

	mu       sync.Mutex
	replicas map[string]ReplicaStatus
	subs     map[chan struct{}]struct{}
}

// OpenEmbedded opens (creating, 0700) the store at dir.
func OpenEmbedded(dir string) (*EmbeddedStore, error) {
	for _, sub := range []string{"", "modules", "revisions"} {
		if err := os.MkdirAll(filepath.Join(dir, sub), 0o700); err != nil {
			return nil, fmt.Errorf("plugin store %s: %w", dir, err)
		}
		if err := os.Chmod(filepath.Join(dir, sub), 0o700); err != nil {
			return nil, fmt.Errorf("plugin store %s: %w", dir, err)
		}
	}
	return &EmbeddedStore{dir: dir, replicas: map[string]ReplicaStatus{}, subs: map[chan struct{}]struct{}{}}, nil
}

func (s *EmbeddedStore) modulePath(h string) string {
	return filepath.Join(s.dir, "modules", h+".wasm")
}

func (s *EmbeddedStore) revPath(name, h string) string {
	return filepath.Join(s.dir, "revisions", name, h+".json")
}

// writeFile writes data to path atomically with mode 0600.
func writeFile(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".tmp-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return err
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return err
	}
	if d, err := os.Open(filepath.Dir(path)); err == nil {
		_ = d.Sync()
		d.Close()
	}
	return nil
}

// PutRevision implements Store.
func (s *EmbeddedStore) PutRevision(_ context.Context, rev Revision, module []byte) error {
	if err := checkName(rev.Name); err != nil {
		return err
	}
	h, err := digestHex(rev.Digest)
	if err != nil {
		return err
	}
	if Digest(module) != rev.Digest {
		return fmt.Errorf("put revision %s: module does not match digest %s", rev.Name, rev.Digest)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, err := os.Stat(s.modulePath(h)); err != nil {
		if err := writeFile(s.modulePath(h), module); err != nil {
			return fmt.Errorf("put revision %s: write module: %w", rev.Name, err)
		}
	}
	return s.writeRev(rev, h)
}

func (s *EmbeddedStore) writeRev(rev Revision, h string) error {
	b, err := json.Marshal(rev)
	if err != nil {
		return fmt.Errorf("put revision %s: %w", rev.Name, err)
	}
	if err := writeFile(s.revPath(rev.Name, h), b); err != nil {
		return fmt.Errorf("put revision %s: write record: %w", rev.Name, err)
	}
	return nil
}

// UpdateRevision implements Store.
func (s *EmbeddedStore) UpdateRevision(ctx context.Context, rev Revision) error {
	if _, err := s.Revision(ctx, rev.Name, rev.Digest); err != nil {
		return err
	}
	h, _ := digestHex(rev.Digest)
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.writeRev(rev, h)
}

// Module implements Store.
func (s *EmbeddedStore) Module(_ context.Context, digest string) ([]byte, error) {
	h, err := digestHex(digest)
	if err != nil {
		return nil, err
	}
	b, err := os.ReadFile(s.modulePath(h))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("module %s: %w", digest, ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("module %s: %w", digest, err)
	}
	if Digest(b) != digest {
		return nil, fmt.Errorf("module %s: stored bytes do not match the digest (corrupted or altered)", digest)
	}
	return b, nil
}

// Revision implements Store.
func (s *EmbeddedStore) Revision(_ context.Context, name, digest string) (Revision, error) {
	if err := checkName(name); err != nil {
		return Revision{}, fmt.Errorf("%w: %w", ErrNotFound, err)
	}
	h, err := digestHex(digest)
	if err != nil {
		return Revision{}, fmt.Errorf("%w: %w", ErrNotFound, err)
	}
	b, err := os.ReadFile(s.revPath(name, h))
	if errors.Is(err, fs.ErrNotExist) {
		return Revision{}, fmt.Errorf("plugin %s revision %s: %w", name, digest, ErrNotFound)
	}
	if err != nil {
		return Revision{}, fmt.Errorf("plugin %s revision %s: %w", name, digest, err)
	}
	var rev Revision
	if err := json.Unmarshal(b, &rev); err != nil {
		return Revision{}, fmt.Errorf("plugin %s revision %s: decode: %w", name, digest, err)
	}
	return rev, nil
}

// Revisions implements Store.
func (s *EmbeddedStore) Revisions(ctx context.Context, name string) ([]Revision, error) {
	if err := checkName(name); err != nil {
		return nil, nil
	}
	ents, err := os.ReadDir(filepath.Join(s.dir, "revisions", name))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("plugin %s revisions: %w", name, err)
	}
	var out []Revision
	for _, e := range ents {
		h, ok := bytes.CutSuffix([]byte(e.Name()), []byte(".json"))
		if !ok || e.Name()[0] == '.' {
			continue
		}
		rev, err := s.Revision(ctx, name, "sha256:"+string(h))
		if err != nil {
			return nil, err
		}
		out = append(out, rev)
	}
	sortRevisions(out)
	return out, nil
}

func sortRevisions(revs []Revision) {
	sort.SliceStable(revs, func(i, j int) bool {
		if !revs[i].UploadedAt.Equal(revs[j].UploadedAt) {
			return revs[i].UploadedAt.Before(revs[j].UploadedAt)
		}
		return revs[i].Digest < revs[j].Digest
	})
}

// Names implements Store.
func (s *EmbeddedStore) Names(_ context.Context) ([]string, error) {
	ents, err := os.ReadDir(filepath.Join(s.dir, "revisions"))
	if err != nil {
		return nil, fmt.Errorf("plugin names: %w", err)
	}
	var out []string
	for _, e := range ents {
		if !e.IsDir() {
			continue
		}
		sub, _ := os.ReadDir(filepath.Join(s.dir, "revisions", e.Name()))
		for _, f := range sub {
			if filepath.Ext(f.Name()) == ".json" && f.Name()[0] != '.' {
				out = append(out, e.Name())
				break
			}
		}
	}
	sort.Strings(out)
	return out, nil
}

// DeleteRevision implements Store.
func (s *EmbeddedStore) DeleteRevision(ctx context.Context, name, digest string) error {
	if _, err := s.Revision(ctx, name, digest); err != nil {
		return err
	}
	h, _ := digestHex(digest)
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := os.Remove(s.revPath(name, h)); err != nil {
		return fmt.Errorf("delete plugin %s revision %s: %w", name, digest, err)
	}
	// Keep the module while another plugin's revision uses the same bytes.
	names, _ := os.ReadDir(filepath.Join(s.dir, "revisions"))
	for _, n := range names {
		if _, err := os.Stat(s.revPath(n.Name(), h)); err == nil {
			return nil
		}
	}
	if err := os.Remove(s.modulePath(h)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("delete module %s: %w", digest, err)
	}
	return nil
}

func (s *EmbeddedStore) readSet() (Set, error) {
	b, err := os.ReadFile(filepath.Join(s.dir, "active.json"))
	if errors.Is(err, fs.ErrNotExist) {
		return Set{Active: map[string]string{}, History: map[string][]string{}}, nil
	}
	if err != nil {
		return Set{}, fmt.Errorf("read active plugin set: %w", err)
	}
	var set Set
	if err := json.Unmarshal(b, &set); err != nil {
		return Set{}, fmt.Errorf("decode active plugin set %s: %w", filepath.Join(s.dir, "active.json"), err)
	}
	return set.clone(), nil
}

// ActiveSet implements Store.
func (s *EmbeddedStore) ActiveSet(_ context.Context) (Set, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.readSet()
}

// UpdateActive implements Store.
func (s *EmbeddedStore) UpdateActive(_ context.Context, fn func(*Set) error) (Set, error) {
	s.mu.Lock()
	set, err := s.readSet()
	if err != nil {
		s.mu.Unlock()
		return Set{}, err
	}
	if err := fn(&set); err != nil {
		s.mu.Unlock()
		return Set{}, err
	}
	set.Generation++
	b, err := json.Marshal(set)
	if err == nil {
		err = writeFile(filepath.Join(s.dir, "active.json"), b)
	}
	subs := make([]chan struct{}, 0, len(s.subs))
	for c := range s.subs {
		subs = append(subs, c)
	}
	s.mu.Unlock()
	if err != nil {
		return Set{}, fmt.Errorf("write active plugin set: %w", err)
	}
	for _, c := range subs {
		select {
		case c <- struct{}{}:
		default:
		}
	}
	return set, nil
}

// ReportReplica implements Store (in memory: one process).
func (s *EmbeddedStore) ReportReplica(_ context.Context, st ReplicaStatus) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	st.UpdatedAt = time.Now().UTC()
	s.replicas[st.ID] = st
	return nil
}

// Replicas implements Store.
func (s *EmbeddedStore) Replicas(_ context.Context) ([]ReplicaStatus, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]ReplicaStatus, 0, len(s.replicas))
	for _, r := range s.replicas {
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out, nil
}

// Subscribe implements Store.
func (s *EmbeddedStore) Subscribe(ctx context.Context) (<-chan struct{}, error) {
	c := make(chan struct{}, 1)
	s.mu.Lock()
	s.subs[c] = struct{}{}
	s.mu.Unlock()
	go func() {
		<-ctx.Done()
		s.mu.Lock()
		delete(s.subs, c)
		s.mu.Unlock()
	}()
	return c, nil
}
