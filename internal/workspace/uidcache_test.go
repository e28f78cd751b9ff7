package workspace

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestUIDCacheSeesOtherAllocators: the used-uid cache never hides an
// allocation made elsewhere — by another Manager on the same root (another
// process), or by anything that created an owned directory in the root
// without the allocation generation — so no uid is handed out twice; and an
// allocation with nothing changed meanwhile is served without a scan.
func TestUIDCacheSeesOtherAllocators(t *testing.T) {
	needRoot(t)
	cfg := Config{UIDMin: 200000, UIDMax: 200002}
	m1 := newManager(t, cfg)
	cfg.Root = m1.Root()
	m2 := newManager(t, cfg)
	uids := map[int]string{}
	alloc := func(m *Manager, id string) {
		t.Helper()
		ws, err := m.Ensure("", id)
		if err != nil {
			t.Fatalf("Ensure %s: %v", id, err)
		}
		if other, dup := uids[ws.UID]; dup {
			t.Fatalf("uid %d given to %s and %s", ws.UID, other, id)
		}
		uids[ws.UID] = id
	}
	alloc(m1, "exe_a") // m1 scans and caches
	alloc(m2, "exe_b") // another process allocates
	// Something else creates a workspace-named directory with the last uid
	// and no generation bump.
	p := filepath.Join(m1.Root(), Name("", "exe_c"))
	if err := os.Mkdir(p, 0o700); err != nil {
		t.Fatal(err)
	}
	var last int
	for u := cfg.UIDMin; u <= cfg.UIDMax; u++ {
		if uids[u] == "" {
			last = u
		}
	}
	if err := os.Chown(p, last, last); err != nil {
		t.Fatal(err)
	}
	uids[last] = "exe_c"
	if _, err := m1.Ensure("", "exe_d"); err == nil || !strings.Contains(err.Error(), "in use") {
		t.Fatalf("a fourth workspace in a range of three: %v (uids %v)", err, uids)
	}

	// Nothing changed since m1's scan: the next allocation uses the cache.
	if err := os.RemoveAll(p); err != nil {
		t.Fatal(err)
	}
	delete(uids, last)
	alloc(m1, "exe_e")    // rescans (the root changed), caches
	const marker = 999999 // owns nothing: a scan would drop it
	m1.mu.Lock()
	m1.uids.used[marker] = true
	m1.mu.Unlock()
	if _, err := m1.cachedUsedUIDs(); err != nil {
		t.Fatal(err)
	}
	m1.mu.Lock()
	cached := m1.uids.used[marker]
	m1.mu.Unlock()
	if !cached {
		t.Error("an unchanged root was scanned again")
	}
}
