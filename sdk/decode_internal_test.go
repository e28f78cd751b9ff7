package sdk

import (
	"encoding/binary"
	"math/bits"
	"math/rand/v2"
	"testing"
)

// TestSpecialLowestFlagIsExact checks the word-at-a-time scan against a
// byte loop: the lowest flagged byte must be the first special byte, and no
// flag may appear in a word without one.
func TestSpecialLowestFlagIsExact(t *testing.T) {
	isSpecial := func(c byte) bool { return c == '"' || c == '\\' || c < 0x20 || c >= 0x80 }
	// Bytes near every boundary of the tests, so borrows are exercised.
	pool := []byte{0x00, 0x01, 0x1f, 0x20, 0x21, '"', '"' + 1, '"' - 1, '\\', '\\' + 1, '\\' - 1, 'a', 0x7f, 0x80, 0xff}
	r := rand.New(rand.NewPCG(1, 2))
	var w [8]byte
	for n := 0; n < 200000; n++ {
		for i := range w {
			if r.IntN(2) == 0 {
				w[i] = pool[r.IntN(len(pool))]
			} else {
				w[i] = byte(r.IntN(256))
			}
		}
		want := -1
		for i, c := range w {
			if isSpecial(c) {
				want = i
				break
			}
		}
		m := special(binary.LittleEndian.Uint64(w[:]))
		got := -1
		if m != 0 {
			got = bits.TrailingZeros64(m) / 8
		}
		if got != want {
			t.Fatalf("word % x: lowest flag at %d, first special byte at %d", w, got, want)
		}
	}
}

// TestSameBytesMatchesEquality checks the word-wise comparison against ==
// for every length up to three words, with strings differing in one byte.
func TestSameBytesMatchesEquality(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for n := 0; n <= 24; n++ {
		for k := 0; k < 200; k++ {
			a := make([]byte, n)
			for i := range a {
				a[i] = byte(r.IntN(256))
			}
			b := append([]byte(nil), a...)
			if n > 0 && r.IntN(2) == 0 {
				b[r.IntN(n)] ^= byte(1 + r.IntN(255))
			}
			if got, want := sameBytes(string(a), string(b)), string(a) == string(b); got != want {
				t.Fatalf("sameBytes(% x, % x) = %v, want %v", a, b, got, want)
			}
		}
	}
}
