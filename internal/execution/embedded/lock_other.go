//go:build !unix

package embedded

import (
	"fmt"
	"os"
)

// lockDir creates the lock file exclusively where flock is unavailable; a
// stale file after a crash must be removed by the operator.
func lockDir(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_RDWR, 0o600)
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w: %w", path, ErrLocked, err)
	}
	return f, nil
}
