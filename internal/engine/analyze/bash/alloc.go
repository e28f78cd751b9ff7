package bash

import "unsafe"

// slab hands out small slices carved from larger blocks. The analyzer makes
// many short slices per command (the fields of its words, its Args, the IDs
// feeding it); allocating each on its own made the allocator and the
// garbage collector the largest cost of a scan. A slab turns a few hundred
// of those allocations into a handful.
//
// A slice from take has len 0 and cap n; appending beyond n reallocates as
// usual, so a slice can never grow into its neighbour's memory. Blocks are
// never reused while the analysis runs, so a slice stays valid as long as
// anything refers to it (facts keep theirs after the analysis ends).
type slab[T any] struct {
	block []T
	// size is the length of the last block; the next one doubles it up
	// to maxSlabBytes, so short scripts allocate little and long ones few
	// blocks.
	size int
	// hint is the length reserve asked for, made on the first take so
	// that a slab an analysis never uses costs nothing.
	hint int
}

// Block sizes of a slab, in bytes: the first block (unless reserve sized
// it) and the largest.
const (
	minSlabBytes = 512
	maxSlabBytes = 32 << 10
)

// reserve makes the next block hold n elements, when the caller knows
// about how many the analysis will take (see treeScan). The block is made
// when the slab is first used.
func (s *slab[T]) reserve(n int) {
	if n > cap(s.block) {
		s.hint = n
	}
}

// take returns an empty slice with room for n elements.
func (s *slab[T]) take(n int) []T {
	if n <= 0 {
		return nil
	}
	if h := s.hint; h > 0 && n > cap(s.block) {
		s.hint = 0
		if n <= h {
			s.block = make([]T, h)
			s.size = h
		}
	}
	if n > cap(s.block) {
		var zero T
		elem := max(int(unsafe.Sizeof(zero)), 1)
		switch {
		case s.size == 0:
			s.size = max(minSlabBytes/elem, 4)
		case s.size*elem < maxSlabBytes:
			s.size *= 2
		}
		if n > s.size/4 {
			// Large requests get their own block rather than wasting
			// the rest of the current one.
			return make([]T, 0, n)
		}
		s.block = make([]T, s.size)
	}
	out := s.block[:0:n]
	s.block = s.block[n:]
	return out
}

// copyOf returns a slab copy of src (nil when src is empty), for slices
// that outlive the buffer they were built in.
func (s *slab[T]) copyOf(src []T) []T {
	if len(src) == 0 {
		return nil
	}
	return append(s.take(len(src)), src...)
}

// fieldStack hands out the []field slices of word expansion. Unlike the
// other slabs its memory is reused: fields are working values that never
// outlive the statement whose words they hold (facts copy the strings out
// of them), so walkStmts releases everything a statement took once it is
// walked. Statements nest, and so do their marks, which keeps the fields
// of enclosing statements (a loop's words, an outer command's arguments)
// intact while inner ones come and go.
type fieldStack struct {
	chunks [][]field
	// cur is the chunk being filled and off how much of it is used.
	cur, off int
}

// stackMark is a position of a fieldStack to release to.
type stackMark struct{ cur, off int }

// Chunk sizes of a fieldStack, in fields.
const (
	minFieldChunk = 64
	maxFieldChunk = 1024
)

func (s *fieldStack) mark() stackMark { return stackMark{s.cur, s.off} }

// release makes everything taken since m available again. Slices taken
// since m must not be used afterwards.
func (s *fieldStack) release(m stackMark) { s.cur, s.off = m.cur, m.off }

// take returns an empty slice with room for n fields.
func (s *fieldStack) take(n int) []field {
	if n <= 0 {
		return nil
	}
	for {
		if s.cur < len(s.chunks) {
			c := s.chunks[s.cur]
			if s.off+n <= len(c) {
				out := c[s.off : s.off : s.off+n]
				s.off += n
				return out
			}
			if s.cur+1 < len(s.chunks) && n <= len(s.chunks[s.cur+1]) {
				s.cur, s.off = s.cur+1, 0
				continue
			}
		}
		size := minFieldChunk
		if k := len(s.chunks); k > 0 {
			size = min(2*len(s.chunks[k-1]), maxFieldChunk)
		}
		if n > size/4 {
			return make([]field, 0, n)
		}
		if len(s.chunks) > 0 {
			s.cur++
		}
		// Chunks after cur were released and are too small: the new
		// chunk goes in their place, keeping the order of use.
		s.chunks = append(s.chunks[:s.cur], make([]field, size))
		s.off = 0
	}
}
