// Package lookup is the string table the packs classify names with: command
// names into the kinds the rules ask about, path components into the
// denied patterns they may start or end. It exists because inside Wasm a
// lookup's cost is its calls and loop iterations: a Go map hashes every
// byte of the key and compares keys through runtime.memequal, while Table
// hashes the key's length and five of its bytes and compares strings only
// when the full hashes agree, which for a key it does not hold is almost
// never.
package lookup

// Table maps strings to bit sets. Build it with Add (package
// initialization, policy compilation), then only read it with Get: a Table
// that is no longer written to is safe for concurrent use.
type Table struct {
	keys []string
	vals []uint64
	// hashes holds each used slot's hash with the top bit set (zero marks
	// an empty slot): a probe compares hashes first, so a key that is not
	// in the table is told apart without comparing strings, which inside
	// Wasm costs a call into runtime.memequal each.
	hashes []uint32
	n      int
}

// hash mixes a key's length with five of its bytes (first, last, middle and
// the thirds): enough to spread the short, distinct names the tables hold,
// free of a loop over the key, and small enough to inline.
func hash(k string) uint32 {
	n := len(k)
	if n == 0 {
		return 1 << 31
	}
	h := uint32(n)*0x9E3779B1 ^ uint32(k[0])<<16 ^ uint32(k[n/2])<<8 ^ uint32(k[n-1]) ^
		uint32(k[(n-1)/3])<<24 ^ uint32(k[n-1-(n-1)/3])<<4
	h *= 0x2C1B3C6D
	return h ^ h>>15 | 1<<31
}

// Add ORs bits into the value of k, growing the table so that it stays at
// most a quarter full and probes stay short.
func (t *Table) Add(k string, bits uint64) {
	if 4*(t.n+1) > len(t.keys) {
		t.grow()
	}
	h := hash(k)
	mask := uint32(len(t.keys) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		if t.hashes[i] == 0 {
			t.keys[i], t.vals[i], t.hashes[i] = k, bits, h
			t.n++
			return
		}
		if t.hashes[i] == h && t.keys[i] == k {
			t.vals[i] |= bits
			return
		}
	}
}

func (t *Table) grow() {
	old := *t
	size := max(16, 2*len(old.keys))
	*t = Table{keys: make([]string, size), vals: make([]uint64, size), hashes: make([]uint32, size)}
	for i, h := range old.hashes {
		if h != 0 {
			t.Add(old.keys[i], old.vals[i])
		}
	}
}

// Get returns the bits of k, or 0 when k was never added. Most lookups
// end at the key's own slot, empty or holding it, so that slot is tried
// without a loop (Get is small enough to inline); only a collision walks
// on.
func (t *Table) Get(k string) uint64 {
	if t.n == 0 {
		return 0
	}
	h := hash(k)
	i := h & uint32(len(t.hashes)-1)
	switch hi := t.hashes[i]; {
	case hi == 0:
		return 0
	case hi == h && t.keys[i] == k:
		return t.vals[i]
	}
	return t.probe(k, h, i)
}

// probe continues Get's search after slot i.
func (t *Table) probe(k string, h, i uint32) uint64 {
	mask := uint32(len(t.hashes) - 1)
	for i = (i + 1) & mask; t.hashes[i] != 0; i = (i + 1) & mask {
		if t.hashes[i] == h && t.keys[i] == k {
			return t.vals[i]
		}
	}
	return 0
}

// Len returns the number of distinct keys.
func (t *Table) Len() int { return t.n }
