//go:build unix

package workspace

import (
	"errors"
	"testing"
	"time"
)

// TestOpenExclusiveWaitsForRunsAndHoldsThemOff: an exclusive hold is
// refused (ErrBusy) while another run holds the workspace, granted once it
// releases, and a run that opens meanwhile waits until the hold ends.
func TestOpenExclusiveWaitsForRunsAndHoldsThemOff(t *testing.T) {
	m := newManager(t, Config{})
	_, releaseA, err := m.Open("conv", "e1")
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := m.OpenExclusive("conv", "e2", 50*time.Millisecond); !errors.Is(err, ErrBusy) {
		t.Fatalf("exclusive beside a run in progress: %v, want ErrBusy", err)
	}
	// Another conversation is not held up.
	if _, rel, err := m.OpenExclusive("other", "e3", 0); err != nil {
		t.Fatalf("another conversation: %v", err)
	} else {
		rel()
	}
	go func() { time.Sleep(100 * time.Millisecond); releaseA() }()
	_, releaseX, err := m.OpenExclusive("conv", "e2", 5*time.Second)
	if err != nil {
		t.Fatalf("exclusive after the run released: %v", err)
	}
	opened := make(chan struct{})
	go func() {
		_, rel, err := m.Open("conv", "e4")
		if err == nil {
			rel()
		}
		close(opened)
	}()
	select {
	case <-opened:
		t.Fatal("a run opened the workspace while another held it alone")
	case <-time.After(200 * time.Millisecond):
	}
	releaseX()
	select {
	case <-opened:
	case <-time.After(5 * time.Second):
		t.Fatal("the waiting run never got the workspace after the exclusive hold ended")
	}
}
