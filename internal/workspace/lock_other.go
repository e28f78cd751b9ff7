//go:build !unix

package workspace

import (
	"errors"
	"os"
)

// errNoFlock is why workspaces refuse off Unix: the run markers that keep
// Remove and Sweep from deleting a workspace in use are flock(2) locks
// shared by every process on the root, and there is no equal here yet.
var errNoFlock = errors.New("workspace: per-conversation workspaces need a Unix host (flock)")

// Lock modes for lockFile (unused off Unix: lockFile refuses).
const (
	lockShared    = 1
	lockExclusive = 2
	lockNonBlock  = 4
	oNoFollow     = 0
)

// lockFile refuses: without a shared lock a workspace in use could be
// removed under a run, so the manager fails closed.
func (m *Manager) lockFile(path string, how int) (func(), error) { return nil, errNoFlock }

// ownerOf is -1: the platform reports no Unix owner.
func ownerOf(fi os.FileInfo) int { return -1 }
