package bash

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
	// size is the length of the next block; it doubles up to maxSlabBlock
	// so short scripts allocate little and long ones few blocks.
	size int
}

// Block sizes of a slab, in elements.
const (
	minSlabBlock = 32
	maxSlabBlock = 1024
)

// take returns an empty slice with room for n elements.
func (s *slab[T]) take(n int) []T {
	if n <= 0 {
		return nil
	}
	if n > cap(s.block) {
		if s.size < minSlabBlock {
			s.size = minSlabBlock
		} else if s.size < maxSlabBlock {
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
