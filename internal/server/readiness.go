package server

import (
	"context"
	"fmt"
	"time"

	"github.com/toolwarden/toolwarden/internal/execution"
)

// DefaultQueueStaleAfter is how long queued work may wait for an executor
// before the server stops calling itself ready.
const DefaultQueueStaleAfter = 2 * time.Minute

// maxQueuePages bounds the work of one readiness probe: the queue is
// listed newest first, so finding the oldest entry of a long queue takes
// pages; past this many the oldest entry seen so far stands in (its age is
// a lower bound of the oldest's).
const maxQueuePages = 5

// queueCheck reports queued work older than the threshold. Queued work
// that nobody claims means no executor of the pool is alive (or none keeps
// up): a server then accepts calls that will not run, so it is not ready —
// whether its executor is embedded or runs elsewhere (--no-executor).
func (s *Server) queueCheck(ctx context.Context) (string, bool) {
	stale := s.cfg.QueueStaleAfter
	if stale < 0 {
		return "not checked (disabled)", true
	}
	f := execution.Filter{Status: execution.StatusQueued, Limit: execution.MaxListLimit}
	var oldest time.Time
	n := 0
	for page := 0; page < maxQueuePages; page++ {
		recs, next, err := s.backend.List(ctx, f)
		if err != nil {
			return "cannot list the queue: " + err.Error(), false
		}
		for _, r := range recs {
			n++
			if oldest.IsZero() || r.CreatedAt.Before(oldest) {
				oldest = r.CreatedAt
			}
		}
		if next == "" {
			break
		}
		f.Cursor = next
	}
	if n == 0 {
		return "ok (queue empty)", true
	}
	age := time.Since(oldest)
	if age > stale {
		return fmt.Sprintf("%d queued, the oldest for %s (over %s): no executor is taking work", n, age.Round(time.Second), stale), false
	}
	return fmt.Sprintf("ok (%d queued, oldest %s)", n, age.Round(time.Second)), true
}
