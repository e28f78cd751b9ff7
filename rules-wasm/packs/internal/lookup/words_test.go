package lookup

import (
	"math/rand/v2"
	"testing"
)

func TestWordHelpersAgreeWithBytes(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	alphabet := "/.*?[ab\x00\x80\xff\x7f\x01"
	for n := 0; n < 3000; n++ {
		b := make([]byte, r.IntN(20))
		for i := range b {
			b[i] = alphabet[r.IntN(len(alphabet))]
		}
		s := string(b)
		for _, c := range []byte{'/', '.', '*', 0, 0x80, 0xff, 'a'} {
			for i := 0; i+8 <= len(s); i++ {
				m := Eq(Word(s, i), c)
				for k := 0; k < 8; k++ {
					if got, want := m>>(8*k)&0xFF == 0x80, s[i+k] == c; got != want {
						t.Fatalf("Eq(Word(%q, %d), %q) byte %d = %v", s, i, c, k, got)
					}
				}
			}
			for from := len(s) - len(s)%8; from < len(s) && from >= 0; from += 8 {
				w, valid := Tail(s, from)
				m := Eq(w, c) & valid
				for k := 0; from+k < len(s); k++ {
					if got, want := m>>(8*k)&0xFF == 0x80, s[from+k] == c; got != want {
						t.Fatalf("Tail(%q, %d) byte %d = %v", s, from, k, got)
					}
				}
				if rest := len(s) - from; m>>(8*rest) != 0 {
					t.Fatalf("Tail(%q, %d) marks bytes past the end", s, from)
				}
			}
			if len(s) < 8 {
				w, valid := Tail(s, 0)
				m := Eq(w, c) & valid
				for k := 0; k < len(s); k++ {
					if got, want := m>>(8*k)&0xFF == 0x80, s[k] == c; got != want {
						t.Fatalf("Tail %q byte %d = %v", s, k, got)
					}
				}
				if m>>(8*len(s)) != 0 {
					t.Fatalf("Tail %q marks bytes past the end", s)
				}
			}
		}
	}
}
