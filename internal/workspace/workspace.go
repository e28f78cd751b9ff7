// Package workspace gives every conversation (or every run without one) a
// directory of its own, owned by a uid of its own, under one root.
//
// Layout under Root (default <data_dir>/workspaces):
//
//	Root/            0711 root-owned: traversable, not listable by runs
//	Root/.meta/      0700 root-owned: lock and last-use files, unreachable by runs
//	Root/c-<hash>    0700 owned by the workspace's uid: one conversation
//	Root/e-<hash>    0700 owned by the workspace's uid: one run without conversation
//
// Names are a SHA-256 of the conversation (or execution) id, so nothing a
// caller sends ever becomes a path component. The owner uid of a workspace
// directory IS its uid record: it survives restarts, is shared by every
// process on the host that uses the same root (the embedded executor and
// several executors), and is allocated under an exclusive flock on
// Root/.meta/uid.lock so two live workspaces never share a uid.
//
// A run holds a shared flock on the workspace's Root/.meta/<name>.lock for
// as long as it runs; Remove and the TTL sweep take it exclusively without
// waiting, so a workspace with a run in progress (in any process) is never
// removed: its removal is deferred until the last run releases it.
//
// When the process is not root no uid can be given away: workspaces are
// then owned by the process's uid and UID reports -1 (the isolation backend
// keeps the daemon's uid, as it does for non-root daemons).
package workspace

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// Defaults of Config fields left zero.
const (
	// DefaultUIDMin and DefaultUIDMax bound the uids given to workspaces:
	// 65536 uids from 0x70000000, a block systemd documents as unused
	// (above the nspawn container ranges, below the 2^31 boundary that
	// some tools mishandle). The often-suggested 100000-165535 is avoided
	// on purpose: it is where /etc/subuid hands out rootless-container
	// ranges, and sharing a uid with a user's container would join the two.
	DefaultUIDMin = 1879048192
	DefaultUIDMax = DefaultUIDMin + 65535
	// DefaultMaxBytes is workspace_max_bytes: 1 GiB per workspace.
	DefaultMaxBytes int64 = 1 << 30
	// DefaultTTL is how long an unused workspace is kept.
	DefaultTTL = 24 * time.Hour
	// metaDir holds lock and last-use files, out of every run's reach.
	metaDir = ".meta"
)

// Config configures a Manager (security.workspace.*).
type Config struct {
	// Root holds every workspace; created 0711 and root-owned.
	Root string
	// UIDMin and UIDMax (inclusive) bound the uids workspaces get
	// (security.workspace.uid_range; default DefaultUIDMin-DefaultUIDMax).
	UIDMin, UIDMax int
	// MaxBytes is the disk bound of one workspace
	// (security.workspace.max_bytes; default 1 GiB; negative: no bound).
	MaxBytes int64
	// TTL is how long a workspace is kept after its last use
	// (security.workspace.ttl; default 24h; negative: kept forever).
	TTL time.Duration
}

// Manager creates, measures and removes workspaces under one root. It is
// safe for concurrent use, and several Managers (in several processes) may
// share one root.
type Manager struct {
	cfg    Config
	chown  bool // running as root: workspaces get uids of their own
	selfID int

	mu sync.Mutex
	// held counts this process's runs per workspace name, with the open
	// lock file that carries their shared flock.
	held map[string]*hold
	// uids caches the used uid set between allocations (uid.go).
	uids *uidCache
}

type hold struct {
	n int
	f *os.File
}

// New checks cfg, creates the root and its metadata directory and returns
// a Manager over them.
func New(cfg Config) (*Manager, error) {
	if cfg.Root == "" {
		return nil, errors.New("workspace: no root directory")
	}
	root, err := filepath.Abs(cfg.Root)
	if err != nil {
		return nil, fmt.Errorf("workspace: root %q: %w", cfg.Root, err)
	}
	cfg.Root = root
	if cfg.UIDMin == 0 && cfg.UIDMax == 0 {
		cfg.UIDMin, cfg.UIDMax = DefaultUIDMin, DefaultUIDMax
	}
	if cfg.UIDMin < 1000 || cfg.UIDMax < cfg.UIDMin || cfg.UIDMax >= 1<<32-1 {
		return nil, fmt.Errorf("workspace: uid range [%d, %d] invalid: want 1000 <= min <= max < 4294967295", cfg.UIDMin, cfg.UIDMax)
	}
	if cfg.UIDMin <= 65534 && cfg.UIDMax >= 65534 {
		return nil, fmt.Errorf("workspace: uid range [%d, %d] contains nobody (65534)", cfg.UIDMin, cfg.UIDMax)
	}
	if cfg.MaxBytes == 0 {
		cfg.MaxBytes = DefaultMaxBytes
	}
	if cfg.TTL == 0 {
		cfg.TTL = DefaultTTL
	}
	m := &Manager{cfg: cfg, chown: os.Geteuid() == 0, selfID: os.Geteuid(), held: map[string]*hold{}}
	if err := m.ensureRoot(); err != nil {
		return nil, err
	}
	return m, nil
}

// ensureRoot creates Root 0711 and Root/.meta 0700, both owned by this
// process, and repairs their modes when they already exist.
func (m *Manager) ensureRoot() error {
	for _, d := range []struct {
		path string
		mode os.FileMode
	}{{m.cfg.Root, 0o711}, {filepath.Join(m.cfg.Root, metaDir), 0o700}} {
		if err := os.MkdirAll(d.path, d.mode); err != nil {
			return fmt.Errorf("workspace: create %s: %w", d.path, err)
		}
		st, err := os.Lstat(d.path)
		if err != nil {
			return fmt.Errorf("workspace: %w", err)
		}
		if !st.IsDir() {
			return fmt.Errorf("workspace: %s is not a directory", d.path)
		}
		if owner := ownerOf(st); owner != m.selfID {
			return fmt.Errorf("workspace: %s is owned by uid %d, want %d", d.path, owner, m.selfID)
		}
		if err := os.Chmod(d.path, d.mode); err != nil {
			return fmt.Errorf("workspace: chmod %s: %w", d.path, err)
		}
	}
	return nil
}

// Root is the directory that holds every workspace.
func (m *Manager) Root() string { return m.cfg.Root }

// MaxBytes is the disk bound of one workspace (negative: none).
func (m *Manager) MaxBytes() int64 { return m.cfg.MaxBytes }

// TTL is how long an unused workspace is kept (negative: forever).
func (m *Manager) TTL() time.Duration { return m.cfg.TTL }

// Name is the directory name of a workspace: "c-" and a hash of the
// conversation id when there is one (every run of the conversation shares
// it), else "e-" and a hash of the execution id (the run gets its own).
func Name(conversationID, executionID string) string {
	if conversationID != "" {
		return "c-" + digest(conversationID)
	}
	return "e-" + digest(executionID)
}

func digest(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:16])
}

// validName reports whether name is one Name can return, so a name read
// back from a directory listing or a caller can never address anything
// but a workspace.
func validName(name string) bool {
	if len(name) != 2+32 || (!strings.HasPrefix(name, "c-") && !strings.HasPrefix(name, "e-")) {
		return false
	}
	_, err := hex.DecodeString(name[2:])
	return err == nil
}

// Path is the host path of the workspace of a run (see Name).
func (m *Manager) Path(conversationID, executionID string) string {
	return filepath.Join(m.cfg.Root, Name(conversationID, executionID))
}

// Workspace is one ensured workspace.
type Workspace struct {
	// Name is the directory name (c-… or e-…), fit for records and logs.
	Name string
	// Path is the host path of the directory.
	Path string
	// UID and GID own the directory and are what the run executes as; -1
	// when the process is not root (runs keep the daemon's uid).
	UID, GID int
}

// Ensure creates the workspace of a run if needed — 0700, owned by a uid
// allocated for it — and returns it. An existing workspace keeps its uid;
// one whose owner is outside the range (not made by a Manager) is refused.
func (m *Manager) Ensure(conversationID, executionID string) (*Workspace, error) {
	if conversationID == "" && executionID == "" {
		return nil, errors.New("workspace: neither conversation nor execution id")
	}
	name := Name(conversationID, executionID)
	path := filepath.Join(m.cfg.Root, name)
	ws := &Workspace{Name: name, Path: path, UID: -1, GID: -1}
	if st, err := os.Lstat(path); err == nil {
		uid, err := m.check(path, st)
		if err != nil {
			return nil, err
		}
		if m.chown {
			ws.UID, ws.GID = uid, uid
		}
		m.touch(name)
		return ws, nil
	} else if !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("workspace: %w", err)
	}
	uid, err := m.create(name, path)
	if err != nil {
		return nil, err
	}
	if m.chown {
		ws.UID, ws.GID = uid, uid
	}
	m.touch(name)
	return ws, nil
}

// check validates an existing workspace directory and returns its owner.
func (m *Manager) check(path string, st os.FileInfo) (int, error) {
	if !st.IsDir() {
		return 0, fmt.Errorf("workspace: %s is not a directory", path)
	}
	uid := ownerOf(st)
	if m.chown && (uid < m.cfg.UIDMin || uid > m.cfg.UIDMax) {
		return 0, fmt.Errorf("workspace: %s is owned by uid %d, outside the workspace range [%d, %d]", path, uid, m.cfg.UIDMin, m.cfg.UIDMax)
	}
	if !m.chown && uid != m.selfID {
		return 0, fmt.Errorf("workspace: %s is owned by uid %d, want %d", path, uid, m.selfID)
	}
	if st.Mode().Perm() != 0o700 {
		if err := os.Chmod(path, 0o700); err != nil {
			return 0, fmt.Errorf("workspace: chmod %s: %w", path, err)
		}
	}
	return uid, nil
}

// touch records now as the workspace's last use (Root/.meta/<name>.lock's
// mtime: out of the run's reach, so a run cannot keep its workspace alive
// forever by setting its own times).
func (m *Manager) touch(name string) {
	p := m.lockPath(name)
	f, err := os.OpenFile(p, os.O_CREATE|os.O_WRONLY, 0o600)
	if err == nil {
		_ = f.Close()
	}
	now := time.Now()
	_ = os.Chtimes(p, now, now)
}

// LastUse is when the workspace was last ensured or released (zero when
// unknown).
func (m *Manager) LastUse(name string) time.Time {
	st, err := os.Stat(m.lockPath(name))
	if err != nil {
		return time.Time{}
	}
	return st.ModTime()
}

func (m *Manager) lockPath(name string) string {
	return filepath.Join(m.cfg.Root, metaDir, name+".lock")
}

// Locator finds workspace paths under a root without creating anything:
// what the API side needs to judge a request's cwd where no Manager runs
// (a server whose executors run elsewhere, reading the same config).
type Locator struct {
	// Root is the workspace root (security.workspace.root).
	Root string
}

// Path is the host path of the workspace of a run (see Name).
func (l Locator) Path(conversationID, executionID string) string {
	return filepath.Join(l.Root, Name(conversationID, executionID))
}

// Key is the conversation key of a workspace: the owner (API key id) and
// the conversation id together, so that two callers who pick the same
// conversation id never share a workspace. "" when there is no
// conversation (the run then gets a workspace of its own). Callers pass it
// as the conversationID of Name, Path, Ensure and Open.
func Key(ownerKeyID, conversationID string) string {
	if conversationID == "" {
		return ""
	}
	return fmt.Sprintf("%d:%s:%s", len(ownerKeyID), ownerKeyID, conversationID)
}
