package catalog

import (
	"math/bits"
	"sync"

	"github.com/toolwarden/toolwarden/sdk"
)

// index holds what the packs need to know about one facts document, built
// once per scan instead of on every call: the commands of each Kind (every
// pack walks those instead of every command), and, lazily, a lookup of
// commands by ID (Feeders runs once per command, so rebuilding it each time
// made a scan quadratic in the script's length) and the file-to-writers map
// of FileSources.
//
// An index is immutable after construction except for the sync.Once-guarded
// lazy parts, so one index may serve concurrent scans of the same facts.
type index struct {
	facts *sdk.Facts
	// cmds and n identify the Commands slice the index was built from, so
	// a document whose command list was replaced or appended to since is
	// never answered from a stale index.
	cmds *sdk.Command
	n    int

	// byKind[start[k]:start[k+1]] are the positions of the commands of
	// Kind k, in document order. Small documents keep them in small, so
	// that indexing one costs a single allocation.
	start  [maxKinds + 1]int32
	byKind []int32
	small  [128]int32
	// kinds are the kinds of each command, by position.
	kinds      []uint64
	smallKinds [64]uint64

	idOnce sync.Once
	// dense is the by-ID lookup when IDs are small non-negative integers
	// (what the analyzers emit); sparse is the fallback for any other IDs.
	dense  []*sdk.Command
	sparse map[int]*sdk.Command

	filesOnce sync.Once
	files     map[string][]*sdk.Command
}

// indexOf returns the index of f that the current scan built (see Begin
// and Env.Init), or builds one and makes it current when f is not the
// current scan's document, so that helpers called with the facts alone
// (FileSources, Feeders) index a document once. A scan starts with Begin or
// Init, which never reuse an index of an earlier scan: the guest kit
// decodes each scan into the same memory, so only the start of a scan tells
// that the document changed.
func indexOf(f *sdk.Facts) *index {
	s := current.Load()
	if s != nil && s.x != nil && s.x.facts == f && s.x.n == len(f.Commands) &&
		(s.x.n == 0 || s.x.cmds == &f.Commands[0]) {
		return s.x
	}
	x := buildIndex(f)
	current.Store(&memo{x: x})
	return x
}

func buildIndex(f *sdk.Facts) *index {
	x := &index{facts: f, n: len(f.Commands)}
	if x.n == 0 {
		return x
	}
	x.cmds = &f.Commands[0]
	// Classify every command once; most belong to no kind at all.
	kinds := x.smallKinds[:0]
	if x.n > len(x.smallKinds) {
		kinds = make([]uint64, 0, x.n)
	}
	var count [maxKinds]int32
	total := 0
	for i := range f.Commands {
		k := commandKinds(&f.Commands[i])
		kinds = append(kinds, k)
		for b := k; b != 0; b &= b - 1 {
			count[bits.TrailingZeros64(b)]++
			total++
		}
	}
	// Only registered kinds are ever asked about (commandsOf).
	for k := 0; k < nKinds; k++ {
		x.start[k+1] = x.start[k] + count[k]
	}
	if total <= len(x.small) {
		x.byKind = x.small[:total]
	} else {
		x.byKind = make([]int32, total)
	}
	x.kinds = kinds
	next := x.start
	for i, k := range kinds {
		for b := k; b != 0; b &= b - 1 {
			t := bits.TrailingZeros64(b)
			x.byKind[next[t]] = int32(i)
			next[t]++
		}
	}
	return x
}

// commandsOf returns the positions of the commands of kind k.
func (x *index) commandsOf(k Kind) []int32 {
	return x.byKind[x.start[k]:x.start[k+1]]
}

// buildIDs fills the by-ID lookup.
func (x *index) buildIDs() {
	f := x.facts
	maxID, dense := 0, true
	for i := range f.Commands[:x.n] {
		id := f.Commands[i].ID
		if id < 0 || id > 4*x.n+64 {
			dense = false
			break
		}
		maxID = max(maxID, id)
	}
	if dense {
		x.dense = make([]*sdk.Command, maxID+1)
		for i := range f.Commands[:x.n] {
			x.dense[f.Commands[i].ID] = &f.Commands[i]
		}
		return
	}
	x.sparse = make(map[int]*sdk.Command, x.n)
	for i := range f.Commands[:x.n] {
		x.sparse[f.Commands[i].ID] = &f.Commands[i]
	}
}

// byID returns the command with the given ID (the last one when IDs
// repeat), or nil.
func (x *index) byID(id int) *sdk.Command {
	if x.n == 0 {
		return nil
	}
	x.idOnce.Do(x.buildIDs)
	if x.dense != nil {
		if id >= 0 && id < len(x.dense) {
			return x.dense[id]
		}
		return nil
	}
	return x.sparse[id]
}
