package isolation

import (
	"context"
	"errors"
	"sync"
)

// runSet holds the runs of one backend that have not ended: Start adds
// each run, its monitor removes it, Close kills what is left. The zero
// value is an open, empty set. It is the bookkeeping every backend without
// a registry of its own (process_group, process_group_lite, job_object)
// shares.
type runSet[P interface {
	comparable
	Kill() error
}] struct {
	mu     sync.Mutex
	live   map[P]struct{}
	closed bool
}

// isClosed reports whether closeAll has been called.
func (s *runSet[P]) isClosed() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closed
}

// add records a started run.
func (s *runSet[P]) add(p P) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.live == nil {
		s.live = map[P]struct{}{}
	}
	s.live[p] = struct{}{}
}

// remove forgets a run that has ended.
func (s *runSet[P]) remove(p P) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.live, p)
}

// closeAll marks the set closed and kills every run still live, joining
// their errors.
func (s *runSet[P]) closeAll() error {
	s.mu.Lock()
	s.closed = true
	live := make([]P, 0, len(s.live))
	for p := range s.live {
		live = append(live, p)
	}
	s.mu.Unlock()
	var errs []error
	for _, p := range live {
		errs = append(errs, p.Kill())
	}
	return errors.Join(errs...)
}

// killOnCancel kills a run when ctx ends before the run does (done
// closed): Start's promise that cancelling its context kills the tree.
func killOnCancel(ctx context.Context, kill func() error, done <-chan struct{}) {
	go func() {
		select {
		case <-ctx.Done():
			_ = kill()
		case <-done:
		}
	}()
}
