package workspace

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// needRoot skips without root, except under CI=true where root is given.
func needRoot(t *testing.T) {
	t.Helper()
	if os.Geteuid() != 0 {
		if os.Getenv("CI") == "true" {
			t.Fatal("CI=true: this test needs root")
		}
		t.Skip("needs root to give workspaces uids of their own")
	}
}

func newManager(t *testing.T, cfg Config) *Manager {
	t.Helper()
	if cfg.Root == "" {
		cfg.Root = filepath.Join(t.TempDir(), "workspaces")
	}
	m, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func owner(t *testing.T, p string) (uid int, mode os.FileMode) {
	t.Helper()
	st, err := os.Lstat(p)
	if err != nil {
		t.Fatal(err)
	}
	return ownerOf(st), st.Mode().Perm()
}

func TestNamesAreHashesNeverPaths(t *testing.T) {
	for _, id := range []string{"../../etc", "/", "a/b", "..", "x\x00y", strings.Repeat("z", 5000)} {
		n := Name(id, "")
		if !validName(n) || strings.ContainsAny(n, "/.") && !strings.HasPrefix(n, "c-") {
			t.Errorf("Name(%q) = %q: not a plain workspace name", id, n)
		}
		if strings.Contains(n, "/") || strings.Contains(n, "..") {
			t.Errorf("Name(%q) = %q contains a separator or ..", id, n)
		}
	}
	if Name("conv", "e1") != Name("conv", "e2") {
		t.Error("runs of one conversation must share a workspace")
	}
	if Name("", "e1") == Name("", "e2") {
		t.Error("runs without a conversation must get their own workspaces")
	}
	if Name("x", "") == Name("", "x") {
		t.Error("a conversation id and an execution id with the same text must not share a workspace")
	}
}

func TestRootModes(t *testing.T) {
	m := newManager(t, Config{})
	if _, mode := owner(t, m.Root()); mode != 0o711 {
		t.Errorf("root mode %o, want 711", mode)
	}
	if _, mode := owner(t, filepath.Join(m.Root(), metaDir)); mode != 0o700 {
		t.Errorf(".meta mode %o, want 700", mode)
	}
	// A root made loose by someone else is tightened again.
	if err := os.Chmod(m.Root(), 0o777); err != nil {
		t.Fatal(err)
	}
	m2 := newManager(t, Config{Root: m.Root()})
	if _, mode := owner(t, m2.Root()); mode != 0o711 {
		t.Errorf("root mode after reopen %o, want 711", mode)
	}
}

func TestConfigRejectsBadRanges(t *testing.T) {
	for _, r := range [][2]int{{10, 20}, {70000, 60000}, {60000, 70000}} {
		if _, err := New(Config{Root: t.TempDir(), UIDMin: r[0], UIDMax: r[1]}); err == nil {
			t.Errorf("uid range %v accepted", r)
		}
	}
}

func TestEnsureGivesEachWorkspaceItsOwnUID(t *testing.T) {
	needRoot(t)
	m := newManager(t, Config{UIDMin: 200000, UIDMax: 200002})
	a, err := m.Ensure("conv-a", "e1")
	if err != nil {
		t.Fatal(err)
	}
	b, err := m.Ensure("conv-b", "e2")
	if err != nil {
		t.Fatal(err)
	}
	if a.UID == b.UID || a.UID < 200000 || a.UID > 200002 || b.UID < 200000 || b.UID > 200002 {
		t.Fatalf("uids %d and %d: want two different uids in [200000, 200002]", a.UID, b.UID)
	}
	for _, ws := range []*Workspace{a, b} {
		if uid, mode := owner(t, ws.Path); uid != ws.UID || mode != 0o700 {
			t.Errorf("%s: owner %d mode %o, want %d 700", ws.Name, uid, mode, ws.UID)
		}
	}
	// The directory owner is the record: a new Manager (a restart, or
	// another executor on the host) sees the same uid, and never reuses it.
	m2 := newManager(t, Config{Root: m.Root(), UIDMin: 200000, UIDMax: 200002})
	again, err := m2.Ensure("conv-a", "e9")
	if err != nil {
		t.Fatal(err)
	}
	if again.UID != a.UID || again.Path != a.Path {
		t.Errorf("after restart conv-a got %d at %s, want %d at %s", again.UID, again.Path, a.UID, a.Path)
	}
	c, err := m2.Ensure("", "e3")
	if err != nil {
		t.Fatal(err)
	}
	if c.UID == a.UID || c.UID == b.UID {
		t.Errorf("third workspace got uid %d, already used by %d/%d", c.UID, a.UID, b.UID)
	}
	if _, err := m2.Ensure("", "e4"); err == nil || !strings.Contains(err.Error(), "in use") {
		t.Errorf("fourth workspace in a range of three: err %v, want the range exhausted", err)
	}
	// A directory in the root not owned by a range uid is refused, not
	// adopted.
	foreign := m.Path("conv-x", "")
	if err := os.Mkdir(foreign, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Ensure("conv-x", ""); err == nil {
		t.Error("a root-owned directory in the root was adopted as a workspace")
	}
}

func TestEnsureWithoutRootKeepsOwnUID(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("checks the non-root mode")
	}
	m := newManager(t, Config{})
	ws, err := m.Ensure("c", "e")
	if err != nil {
		t.Fatal(err)
	}
	if ws.UID != -1 {
		t.Errorf("uid %d, want -1 (keep the daemon's)", ws.UID)
	}
	if _, mode := owner(t, ws.Path); mode != 0o700 {
		t.Errorf("mode %o, want 700", mode)
	}
}

func TestResolveCwd(t *testing.T) {
	ws := "/data/workspaces/c-1"
	ok := map[string]string{
		"":             ws,
		".":            ws,
		"src":          ws + "/src",
		"src/../lib":   ws + "/lib",
		ws:             ws,
		ws + "/":       ws,
		ws + "/a/b":    ws + "/a/b",
		"./a//b/":      ws + "/a/b",
		ws + "/a/../b": ws + "/b",
		"a/..":         ws,
		"..foo":        ws + "/..foo",
	}
	for in, want := range ok {
		got, err := ResolveCwd(ws, in)
		if err != nil || got != want {
			t.Errorf("ResolveCwd(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"/", "/etc", "..", "../..", "../c-2", "a/../../..", ws + "/../c-2", ws + "x", "/data/workspaces", "a\x00b"} {
		if got, err := ResolveCwd(ws, in); err == nil {
			t.Errorf("ResolveCwd(%q) = %q accepted", in, got)
		}
	}
}

func TestCheckCwdRefusesSymlinkOut(t *testing.T) {
	ws := t.TempDir()
	if err := os.Mkdir(filepath.Join(ws, "in"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/etc", filepath.Join(ws, "out")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("in", filepath.Join(ws, "inlink")); err != nil {
		t.Fatal(err)
	}
	if _, err := CheckCwd(ws, filepath.Join(ws, "out")); err == nil {
		t.Error("a symlink to /etc was accepted as cwd")
	}
	if got, err := CheckCwd(ws, filepath.Join(ws, "inlink")); err != nil || !strings.HasSuffix(got, "/in") {
		t.Errorf("a symlink inside the workspace: %q, %v", got, err)
	}
}

func TestUsageCountsHardLinksOnceAndSkipsSymlinkTargets(t *testing.T) {
	ws := t.TempDir()
	big := filepath.Join(ws, "big")
	if err := os.WriteFile(big, make([]byte, 4<<20), 0o600); err != nil {
		t.Fatal(err)
	}
	base, _, err := Usage(ws, 0)
	if err != nil {
		t.Fatal(err)
	}
	if base < 4<<20 {
		t.Fatalf("usage %d, want at least the 4 MiB file", base)
	}
	for i := 0; i < 5; i++ {
		if err := os.Link(big, filepath.Join(ws, "link"+string(rune('a'+i)))); err != nil {
			t.Fatal(err)
		}
	}
	// A symlink to a big file outside: the target is not counted (nor
	// walked into when it is a directory).
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "huge"), make([]byte, 8<<20), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(ws, "dirlink")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "huge"), filepath.Join(ws, "filelink")); err != nil {
		t.Fatal(err)
	}
	got, entries, err := Usage(ws, 0)
	if err != nil {
		t.Fatal(err)
	}
	if got > base+64<<10 {
		t.Errorf("usage %d after hard links and symlinks, want about %d (each counted once, targets not followed)", got, base)
	}
	if entries != 1+1+5+2 {
		t.Errorf("walked %d entries, want 9", entries)
	}
	// stopAt ends the walk early once over.
	if got, _, _ := Usage(ws, 1024); got <= 1024 {
		t.Errorf("Usage with stopAt 1024 = %d, want over it", got)
	}
}

func TestRemoveWaitsForRunsInProgress(t *testing.T) {
	m := newManager(t, Config{})
	ws, release, err := m.Open("conv", "e1")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws.Path, "f"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := m.Remove(ws.Name); !errors.Is(err, ErrBusy) {
		t.Fatalf("Remove with a run in progress: %v, want ErrBusy", err)
	}
	if _, err := os.Stat(ws.Path); err != nil {
		t.Fatalf("workspace gone while its run holds it: %v", err)
	}
	// A second Manager (another executor on the host) sees the hold too.
	m2 := newManager(t, Config{Root: m.Root()})
	if removed, err := m2.Sweep(time.Now().Add(1000 * time.Hour)); err != nil || len(removed) != 0 {
		t.Fatalf("Sweep removed %v (err %v) while a run holds it", removed, err)
	}
	release()
	if _, err := os.Stat(ws.Path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("workspace still there after its last run released it (removal was requested): %v", err)
	}
}

func TestSweepRemovesIdleOnly(t *testing.T) {
	m := newManager(t, Config{TTL: time.Hour})
	idle, err := m.Ensure("idle", "")
	if err != nil {
		t.Fatal(err)
	}
	fresh, err := m.Ensure("fresh", "")
	if err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-2 * time.Hour)
	if err := os.Chtimes(m.lockPath(idle.Name), old, old); err != nil {
		t.Fatal(err)
	}
	// The run cannot keep its workspace alive by touching it: the clock is
	// kept out of its reach.
	future := time.Now().Add(100 * time.Hour)
	if err := os.Chtimes(idle.Path, future, future); err != nil {
		t.Fatal(err)
	}
	removed, err := m.Sweep(time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if len(removed) != 1 || removed[0] != idle.Name {
		t.Fatalf("Sweep removed %v, want only %s", removed, idle.Name)
	}
	if _, err := os.Stat(fresh.Path); err != nil {
		t.Errorf("fresh workspace removed: %v", err)
	}
}
