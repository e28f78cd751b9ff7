package workspace

import (
	"errors"
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
)

// create makes the workspace directory under the allocation lock and
// returns its uid. The directory's owner is the allocation record, so the
// used set is read from the root's entries each time: it is what every
// process sharing the root sees, and it survives restarts.
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
	return uid, nil
}

// freeUID picks a uid of the range no workspace under the root owns,
// starting from a hash of the name so that allocations spread over the
// range instead of piling up at its start.
func (m *Manager) freeUID(name string) (int, error) {
	used, err := m.usedUIDs()
	if err != nil {
		return 0, err
	}
	span := m.cfg.UIDMax - m.cfg.UIDMin + 1
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
