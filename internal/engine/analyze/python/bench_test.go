package python

import (
	"strings"
	"testing"

	"github.com/toolwarden/toolwarden/internal/engine/facts"
)

// benchSource builds about n bytes of realistic Python from the corpus
// cases, each wrapped in its own function so names do not collide.
func benchSource(b *testing.B, n int) string {
	var sb strings.Builder
	cases := loadCases(b)
	for i := 0; sb.Len() < n; i++ {
		c := cases[i%len(cases)]
		if strings.Contains(c.Content, "PRIVATE KEY") {
			continue
		}
		sb.WriteString("def case_")
		sb.WriteString(strings.NewReplacer("-", "_").Replace(c.ID))
		sb.WriteString("():\n")
		for _, line := range strings.Split(c.Content, "\n") {
			sb.WriteString("    ")
			sb.WriteString(line)
			sb.WriteByte('\n')
		}
		sb.WriteByte('\n')
	}
	return sb.String()
}

func benchAnalyze(b *testing.B, n int) {
	src := benchSource(b, n)
	fb := &fakeBash{}
	// check the source is valid so the benchmark measures the full walk
	f, _ := analyzeSrc(src)
	if len(f.ParseErrors) > 0 {
		b.Fatalf("bench source does not parse: %+v", f.ParseErrors)
	}
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		fb.got = fb.got[:0]
		bd := newTestBuilder(fb)
		Analyze(bd, src, facts.Top)
	}
}

// BenchmarkAnalyze1KB measures a 1 KB script (target: under 100 µs).
func BenchmarkAnalyze1KB(b *testing.B) { benchAnalyze(b, 1024) }

// BenchmarkAnalyze20KB measures a 20 KB script (target: under 2 ms).
func BenchmarkAnalyze20KB(b *testing.B) { benchAnalyze(b, 20*1024) }
