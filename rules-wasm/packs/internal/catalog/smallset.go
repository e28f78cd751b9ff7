package catalog

// smallSet is a set that keeps its first elements in an array and moves to
// a map only beyond them. The sets the packs keep per scan (findings already
// reported, commands already visited on a feeder walk) hold a handful of
// elements, and inside Wasm a map costs a hash call and an allocation where
// a short array scan costs a few comparisons. The zero value is empty.
type smallSet[K comparable] struct {
	few  [16]K
	n    int
	many map[K]bool
}

// add inserts k and reports whether it was new.
func (s *smallSet[K]) add(k K) bool {
	if s.many != nil {
		if s.many[k] {
			return false
		}
		s.many[k] = true
		return true
	}
	for _, x := range s.few[:s.n] {
		if x == k {
			return false
		}
	}
	if s.n < len(s.few) {
		s.few[s.n] = k
		s.n++
		return true
	}
	s.many = make(map[K]bool, 2*len(s.few))
	for _, x := range s.few {
		s.many[x] = true
	}
	s.many[k] = true
	return true
}
