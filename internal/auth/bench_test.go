package auth

import (
	"path/filepath"
	"testing"
)

// BenchmarkAuthenticate is the per-request cost of checking a bearer token
// against the file key store: the token's SHA-256, one map lookup and a
// constant-time compare (a created key), or a compare against every key
// (an imported token, which carries no id).
func BenchmarkAuthenticate(b *testing.B) {
	s, err := Open(filepath.Join(b.TempDir(), "keys.json"))
	if err != nil {
		b.Fatal(err)
	}
	token, _, err := s.Create("agent", RoleAgent)
	if err != nil {
		b.Fatal(err)
	}
	imported := "imported-admin-token-0123456789abcdef"
	if _, err := s.Import("bootstrap", "admin", imported, RoleAdmin); err != nil {
		b.Fatal(err)
	}
	for _, tc := range []struct{ name, token string }{{"created", token}, {"imported", imported}} {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := s.Authenticate(tc.token); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
