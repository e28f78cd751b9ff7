package catalog

import (
	"sync"
	"sync/atomic"

	"github.com/toolwarden/toolwarden/sdk"
)

// index holds what the flow helpers need about one facts document, built
// once instead of on every call: a lookup of commands by ID (Feeders runs
// once per command, so rebuilding it each time made a scan quadratic in the
// script's length) and, lazily, the file-to-writers map of FileSources.
//
// An index is immutable after construction except for the sync.Once-guarded
// file sources, so one index may serve concurrent scans of the same facts.
type index struct {
	facts *sdk.Facts
	// cmds and n identify the Commands slice the index was built from, so
	// a document whose command list was replaced or appended to since is
	// never answered from a stale index.
	cmds *sdk.Command
	n    int

	// dense is the by-ID lookup when IDs are small non-negative integers
	// (what the analyzers emit); sparse is the fallback for any other IDs.
	dense  []*sdk.Command
	sparse map[int]*sdk.Command

	filesOnce sync.Once
	files     map[string][]*sdk.Command
}

// lastIndex caches the index of the most recent facts document. Every pack
// of a scan, and every command a pack checks, asks about the same document,
// so a one-entry cache hits almost always; a miss only rebuilds.
var lastIndex atomic.Pointer[index]

// indexOf returns the index of f, building it when the cached one belongs
// to another document or to an earlier state of f's command list.
func indexOf(f *sdk.Facts) *index {
	var first *sdk.Command
	if len(f.Commands) > 0 {
		first = &f.Commands[0]
	}
	if x := lastIndex.Load(); x != nil && x.facts == f && x.cmds == first && x.n == len(f.Commands) {
		return x
	}
	x := buildIndex(f)
	lastIndex.Store(x)
	return x
}

// forgetIndex drops the cached index of f, so a new scan of a document that
// was modified in place since the last one (same pointer, same length)
// indexes it afresh.
func forgetIndex(f *sdk.Facts) {
	if x := lastIndex.Load(); x != nil && x.facts == f {
		lastIndex.CompareAndSwap(x, nil)
	}
}

func buildIndex(f *sdk.Facts) *index {
	x := &index{facts: f, n: len(f.Commands)}
	if x.n == 0 {
		return x
	}
	x.cmds = &f.Commands[0]
	maxID, dense := 0, true
	for i := range f.Commands {
		id := f.Commands[i].ID
		if id < 0 || id > 4*x.n+64 {
			dense = false
			break
		}
		maxID = max(maxID, id)
	}
	if dense {
		x.dense = make([]*sdk.Command, maxID+1)
		for i := range f.Commands {
			x.dense[f.Commands[i].ID] = &f.Commands[i]
		}
		return x
	}
	x.sparse = make(map[int]*sdk.Command, x.n)
	for i := range f.Commands {
		x.sparse[f.Commands[i].ID] = &f.Commands[i]
	}
	return x
}

// byID returns the command with the given ID (the last one when IDs
// repeat), or nil.
func (x *index) byID(id int) *sdk.Command {
	if x.dense != nil {
		if id >= 0 && id < len(x.dense) {
			return x.dense[id]
		}
		return nil
	}
	return x.sparse[id]
}
