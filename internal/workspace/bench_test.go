package workspace

import (
	"fmt"
	"path/filepath"
	"testing"
)

// BenchmarkOpenNewWorkspace opens a new workspace (uid allocation, create,
// lock) in a root that already holds 0 or 600 workspaces: the allocation
// must not cost more with every workspace kept.
func BenchmarkOpenNewWorkspace(b *testing.B) {
	for _, n := range []int{0, 600} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			m, err := New(Config{Root: filepath.Join(b.TempDir(), "workspaces")})
			if err != nil {
				b.Fatal(err)
			}
			for i := 0; i < n; i++ {
				_, rel, err := m.Open("", fmt.Sprintf("exe_pre_%d", i))
				if err != nil {
					b.Fatal(err)
				}
				rel()
			}
			i := 0
			for b.Loop() {
				i++
				_, rel, err := m.Open("", fmt.Sprintf("exe_b_%d", i))
				if err != nil {
					b.Fatal(err)
				}
				rel()
			}
		})
	}
}
