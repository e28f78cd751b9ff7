package workspace

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// ErrBusy reports that a workspace has a run in progress (in this or
// another process), so it was not removed.
var ErrBusy = errors.New("workspace: in use by a run")

// Open marks a run as using the workspace of (conversationID,
// executionID), ensures the workspace exists and returns it with the
// release function the run calls when it is over. While held, neither
// Remove nor Sweep removes the workspace, in any process sharing the root.
func (m *Manager) Open(conversationID, executionID string) (*Workspace, func(), error) {
	name := Name(conversationID, executionID)
	unlock, err := m.lockFile(m.lockPath(name), lockShared)
	if err != nil {
		return nil, nil, err
	}
	return m.opened(name, conversationID, executionID, unlock)
}

// OpenExclusive is Open for a run that executes files of its workspace
// (`python3 x.py`, `bash x.sh`, `import mod`): it holds the workspace
// alone, so no other run can change those files between the executor's
// check of what was scanned and the interpreter reading them. Runs of one
// conversation share a uid, so nothing but this lock could stop one of
// them rewriting the file in that window. It waits up to wait for the runs
// in progress to end (runs that start meanwhile wait for it in Open) and
// then returns ErrBusy: the caller refuses the run rather than run code
// that another run may have swapped.
func (m *Manager) OpenExclusive(conversationID, executionID string, wait time.Duration) (*Workspace, func(), error) {
	name := Name(conversationID, executionID)
	deadline := time.Now().Add(wait)
	for {
		unlock, err := m.lockFile(m.lockPath(name), lockExclusive|lockNonBlock)
		if err == nil {
			return m.opened(name, conversationID, executionID, unlock)
		}
		if !errors.Is(err, ErrBusy) || !time.Now().Before(deadline) {
			return nil, nil, err
		}
		time.Sleep(exclusivePoll)
	}
}

// exclusivePoll is how often OpenExclusive retries while other runs hold
// the workspace.
const exclusivePoll = 20 * time.Millisecond

// opened finishes Open and OpenExclusive once the lock is held: the
// workspace is ensured, and the release function touches it, unlocks and
// performs a removal requested meanwhile.
func (m *Manager) opened(name, conversationID, executionID string, unlock func()) (*Workspace, func(), error) {
	ws, err := m.Ensure(conversationID, executionID)
	if err != nil {
		unlock()
		return nil, nil, err
	}
	release := func() {
		m.touch(name)
		unlock()
		if _, err := os.Lstat(m.doomPath(name)); err == nil {
			// Removal was requested while this run held it: the last run
			// out removes it (ErrBusy while others still hold it).
			_ = m.Remove(name)
		}
	}
	return ws, release, nil
}

// Remove deletes the named workspace unless a run holds it; then it
// returns ErrBusy and the workspace is removed when the last run releases
// it. Removing a workspace that does not exist is not an error.
func (m *Manager) Remove(name string) error {
	if !validName(name) {
		return fmt.Errorf("workspace: %q is not a workspace name", name)
	}
	unlock, err := m.lockFile(m.lockPath(name), lockExclusive|lockNonBlock)
	if errors.Is(err, ErrBusy) {
		f, ferr := os.OpenFile(m.doomPath(name), os.O_CREATE|os.O_WRONLY|oNoFollow, 0o600)
		if ferr != nil {
			return fmt.Errorf("workspace: mark %s for removal: %w", name, ferr)
		}
		_ = f.Close()
		return ErrBusy
	}
	if err != nil {
		return err
	}
	defer unlock()
	// os.RemoveAll does not follow symlinks: a link a run left inside
	// removes the link, never its target.
	if err := os.RemoveAll(filepath.Join(m.cfg.Root, name)); err != nil {
		return fmt.Errorf("workspace: remove %s: %w", name, err)
	}
	_ = os.Remove(m.doomPath(name))
	// The lock file goes last, while still locked; a waiter re-checks the
	// inode (lockFile) and locks a fresh file.
	_ = os.Remove(m.lockPath(name))
	return nil
}

// RemoveConversation removes the workspace of a conversation (deferred to
// the end of its runs in progress, see Remove).
func (m *Manager) RemoveConversation(conversationID string) error {
	if conversationID == "" {
		return errors.New("workspace: no conversation id")
	}
	err := m.Remove(Name(conversationID, ""))
	if errors.Is(err, ErrBusy) {
		return nil
	}
	return err
}

func (m *Manager) doomPath(name string) string {
	return filepath.Join(m.cfg.Root, metaDir, name+".remove")
}

// Sweep removes every workspace unused for longer than the TTL at now and
// returns the names removed. Workspaces with a run in progress are kept
// whatever their age. A negative TTL keeps everything.
func (m *Manager) Sweep(now time.Time) ([]string, error) {
	if m.cfg.TTL < 0 {
		return nil, nil
	}
	entries, err := os.ReadDir(m.cfg.Root)
	if err != nil {
		return nil, fmt.Errorf("workspace: list %s: %w", m.cfg.Root, err)
	}
	var removed []string
	var errs []error
	for _, e := range entries {
		name := e.Name()
		if !validName(name) {
			continue
		}
		last := m.LastUse(name)
		if last.IsZero() {
			// No last-use record (made before one was kept): start the
			// clock now rather than removing at once.
			m.touch(name)
			continue
		}
		if now.Sub(last) < m.cfg.TTL {
			continue
		}
		switch err := m.Remove(name); {
		case err == nil:
			removed = append(removed, name)
		case errors.Is(err, ErrBusy):
		default:
			errs = append(errs, err)
		}
	}
	// Lock files of workspaces that are gone (a crash between steps).
	if metas, err := os.ReadDir(filepath.Join(m.cfg.Root, metaDir)); err == nil {
		for _, e := range metas {
			name, ok := strings.CutSuffix(e.Name(), ".lock")
			if !ok || !validName(name) {
				continue
			}
			if _, err := os.Lstat(filepath.Join(m.cfg.Root, name)); errors.Is(err, os.ErrNotExist) && now.Sub(m.LastUse(name)) > m.cfg.TTL {
				if unlock, err := m.lockFile(m.lockPath(name), lockExclusive|lockNonBlock); err == nil {
					_ = os.Remove(m.lockPath(name))
					unlock()
				}
			}
		}
	}
	return removed, errors.Join(errs...)
}
