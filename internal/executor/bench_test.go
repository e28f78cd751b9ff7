package executor

import (
	"testing"
	"time"
)

// BenchmarkRoundTrip measures one execution from Create to its terminal
// record — claim, an isolated `true`, Finish — on the embedded store.
func BenchmarkRoundTrip(b *testing.B) {
	store := openEmbedded(b, 3*time.Second)
	cfg := fastConfig()
	cfg.Concurrency = 1
	cfg.Logger = discardLogger()
	start(b, store, openIso(b), cfg)
	ws := workspace(b)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r := create(b, store, "true", ws)
		if got := waitTerminal(b, store, r.ExecutionID); got.Status != "completed" {
			b.Fatalf("%s: %s", got.Status, got.Error)
		}
	}
}
