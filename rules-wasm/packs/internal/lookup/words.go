package lookup

// Scanning strings eight bytes at a time. Inside Go-compiled Wasm every
// taken branch costs an exit to the host (the interrupt check), so a loop
// over a string's bytes costs a few branches per byte; these helpers look at
// a whole 64-bit word per step and decide with arithmetic, not branches.

const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
	lows  = 0x7F7F7F7F7F7F7F7F
)

// Word returns the eight bytes of s at i, little-endian: byte i is the low
// byte. It needs i+8 <= len(s).
func Word(s string, i int) uint64 {
	_ = s[i+7]
	return uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
		uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
}

// Tail returns the bytes of s from i to its end (fewer than eight) as a
// word, the missing high bytes zero, and the mask (0x80 per byte) of the
// bytes that are s's.
func Tail(s string, i int) (w, valid uint64) {
	if len(s) >= 8 {
		// The last full word, shifted past the bytes already seen.
		drop := 8 * uint(8-(len(s)-i))
		return Word(s, len(s)-8) >> drop, highs >> drop
	}
	for k := 0; i+k < len(s); k++ {
		w |= uint64(s[i+k]) << (8 * k)
		valid |= 0x80 << (8 * k)
	}
	return w, valid
}

// Eq returns the mask (0x80 per byte) of the bytes of w equal to c,
// exactly: no byte is marked because of a neighbour.
func Eq(w uint64, c byte) uint64 {
	x := w ^ (ones * uint64(c))
	return ^((x&lows + lows) | x | lows)
}
