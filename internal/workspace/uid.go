package workspace

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
)

// create makes the workspace directory under the allocation lock and
// returns its uid. The directory's owner is the allocation record: the used
// set is read from the root's entries — what every process sharing the root
// sees, and what survives restarts — and cached while nothing says it
// changed (see uidCache).
func (m *Manager) create(name, path string) (int, error) {
	unlock, err := m.lockFile(filepath.Join(m.cfg.Root, metaDir, "uid.lock"), lockExclusive)
	if err != nil {
		return 0, err
	}
	defer unlock()
	// Another process may have created it while this one waited.
	if st, err := os.Lstat(path); err == nil {
		return m.check(path, st)
	}
	uid := m.selfID
	if m.chown {
		if uid, err = m.freeUID(name); err != nil {
			return 0, err
		}
		// Other processes learn that the used set changed before the
		// directory exists, so none reuses a cached set without it.
		if err := m.bumpGeneration(); err != nil {
			return 0, err
		}
	}
	if err := os.Mkdir(path, 0o700); err != nil {
		return 0, fmt.Errorf("workspace: create %s: %w", path, err)
	}
	fail := func(step string, err error) (int, error) {
		_ = os.Remove(path)
		return 0, fmt.Errorf("workspace: %s %s: %w", step, path, err)
	}
	if m.chown {
		if err := os.Lchown(path, uid, uid); err != nil {
			return fail("chown", err)
		}
	}
	if err := os.Chmod(path, 0o700); err != nil {
		return fail("chmod", err)
	}
	if m.chown {
		m.noteAllocated(uid)
	}
	return uid, nil
}

// freeUID picks a uid of the range no workspace under the root owns,
// starting from a hash of the name so that allocations spread over the
// range instead of piling up at its start.
func (m *Manager) freeUID(name string) (int, error) {
	used, err := m.cachedUsedUIDs()
	if err != nil {
		return 0, err
	}
	span := m.cfg.UIDMax - m.cfg.UIDMin + 1
	if len(used) >= span {
		// The cache may still count workspaces removed since: look again.
		if used, err = m.scanUsedUIDs(); err != nil {
			return 0, err
		}
	}
	if len(used) >= span {
		return 0, fmt.Errorf("workspace: all %d uids of [%d, %d] are in use; raise security.workspace.uid_range or lower the ttl",
			span, m.cfg.UIDMin, m.cfg.UIDMax)
	}
	h := fnv.New64a()
	_, _ = h.Write([]byte(name))
	start := int(h.Sum64() % uint64(span))
	for i := 0; i < span; i++ {
		uid := m.cfg.UIDMin + (start+i)%span
		if !used[uid] {
			return uid, nil
		}
	}
	return 0, errors.New("workspace: no free uid")
}

// usedUIDs is the set of uids owning a workspace under the root.
func (m *Manager) usedUIDs() (map[int]bool, error) {
	entries, err := os.ReadDir(m.cfg.Root)
	if err != nil {
		return nil, fmt.Errorf("workspace: list %s: %w", m.cfg.Root, err)
	}
	used := make(map[int]bool, len(entries))
	for _, e := range entries {
		if !validName(e.Name()) {
			continue
		}
		info, err := e.Info()
		if err != nil {
			continue // removed meanwhile
		}
		used[ownerOf(info)] = true
	}
	return used, nil
}

// uidCache is the used set of the last scan plus this Manager's own
// allocations since, with what made it valid: the allocation generation
// (.meta/uid.gen, rewritten by every allocator under the allocation lock) and
// the root directory's stamp, taken before the scan and after each own
// allocation. Allocations happen only under the allocation lock, so while
// both are unchanged no other process has allocated since; removals only
// free uids, which at worst leaves one unused a while longer. Scanning the
// root on every allocation cost milliseconds per run with a few hundred
// workspaces (an lstat per entry).
type uidCache struct {
	gen   string
	stamp dirStamp
	used  map[int]bool
}

// dirStamp is what changes in a directory's inode when an entry is added
// or removed.
type dirStamp struct {
	mtime, ctime int64
	nlink        uint64
	size         int64
	ino          uint64
}

// genPath is the allocation generation file.
func (m *Manager) genPath() string { return filepath.Join(m.cfg.Root, metaDir, "uid.gen") }

// readGeneration returns the current allocation generation ("" when no
// allocator has written one yet).
func (m *Manager) readGeneration() (string, error) {
	b, err := os.ReadFile(m.genPath())
	if errors.Is(err, os.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("workspace: read %s: %w", m.genPath(), err)
	}
	return string(b), nil
}

// bumpGeneration writes a new allocation generation; caller holds the
// allocation lock.
func (m *Manager) bumpGeneration() error {
	var buf [8]byte
	if _, err := rand.Read(buf[:]); err != nil {
		return fmt.Errorf("workspace: allocation generation: %w", err)
	}
	gen := hex.EncodeToString(buf[:])
	tmp := m.genPath() + ".tmp"
	if err := os.WriteFile(tmp, []byte(gen), 0o600); err != nil {
		return fmt.Errorf("workspace: write %s: %w", tmp, err)
	}
	if err := os.Rename(tmp, m.genPath()); err != nil {
		return fmt.Errorf("workspace: write %s: %w", m.genPath(), err)
	}
	m.mu.Lock()
	if m.uids != nil {
		m.uids.gen = gen
	}
	m.mu.Unlock()
	return nil
}

// cachedUsedUIDs returns the used set, from the cache when neither the
// generation nor the root changed since it was taken; caller holds the
// allocation lock.
func (m *Manager) cachedUsedUIDs() (map[int]bool, error) {
	gen, err := m.readGeneration()
	if err != nil {
		return nil, err
	}
	st, err := m.rootStamp()
	if err != nil {
		return nil, err
	}
	m.mu.Lock()
	c := m.uids
	m.mu.Unlock()
	if c != nil && c.gen == gen && c.stamp == st {
		return c.used, nil
	}
	used, err := m.usedUIDs()
	if err != nil {
		return nil, err
	}
	m.mu.Lock()
	m.uids = &uidCache{gen: gen, stamp: st, used: used}
	m.mu.Unlock()
	return used, nil
}

// scanUsedUIDs rescans the root and replaces the cache.
func (m *Manager) scanUsedUIDs() (map[int]bool, error) {
	m.mu.Lock()
	m.uids = nil
	m.mu.Unlock()
	return m.cachedUsedUIDs()
}

// noteAllocated adds this Manager's new allocation to the cache with the
// root's stamp after it; caller holds the allocation lock.
func (m *Manager) noteAllocated(uid int) {
	st, err := m.rootStamp()
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.uids == nil || err != nil {
		m.uids = nil
		return
	}
	m.uids.used[uid] = true
	m.uids.stamp = st
}
