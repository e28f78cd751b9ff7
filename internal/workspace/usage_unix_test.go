//go:build unix

package workspace

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// TestUsageChargesEveryEntryABlock: entries that allocate no data block
// (empty files, short symlinks) still count, one block each, so a run
// cannot exhaust the host's inodes under its byte bound.
func TestUsageChargesEveryEntryABlock(t *testing.T) {
	ws := t.TempDir()
	const n = 1000
	for i := 0; i < n; i++ {
		f := filepath.Join(ws, fmt.Sprintf("e%d", i))
		if i%2 == 0 {
			if err := os.WriteFile(f, nil, 0o600); err != nil {
				t.Fatal(err)
			}
		} else if err := os.Symlink("t", f); err != nil {
			t.Fatal(err)
		}
	}
	got, _, err := Usage(ws, 0)
	if err != nil {
		t.Fatal(err)
	}
	if got < n*minEntryBytes {
		t.Errorf("usage of %d empty files and symlinks = %d bytes, want at least %d", n, got, n*minEntryBytes)
	}
}
