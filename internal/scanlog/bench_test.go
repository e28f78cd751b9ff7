package scanlog

import (
	"context"
	"fmt"
	"syscall"
	"testing"
	"time"

	"github.com/toolwarden/toolwarden/sdk"
)

// BenchmarkSQLiteAppendBatch is the Recorder's store call under load: a
// batch of 16 sanitized entries into a log already at its bound (10 000
// entries), so every batch also prunes 16. Reported per batch, with the
// process's CPU time per batch (cpu-us; wall time is mostly the commit's
// sync).
func BenchmarkSQLiteAppendBatch(b *testing.B) {
	c := newClock()
	s, err := OpenSQLite(b.TempDir(), DefaultConfig(), c.now)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	n := 0
	batch := func() []Entry {
		es := make([]Entry, 16)
		for i := range es {
			es[i] = Sanitize(entry(fmt.Sprintf("s%08d", n), c.now(), "k1", "bash", sdk.Allow, "r.one"), DefaultMaxContentBytes)
			n++
			c.add(time.Millisecond)
		}
		return es
	}
	for n < DefaultMaxEntries {
		if err := s.appendSanitized(ctx, batch()); err != nil {
			b.Fatal(err)
		}
	}
	cpu0 := processCPU(b)
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		es := batch()
		b.StartTimer()
		if err := s.appendSanitized(ctx, es); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64((processCPU(b)-cpu0).Microseconds())/float64(b.N), "cpu-us")
}

// processCPU is the process's user and system time so far. The batches
// built between timed calls count too; they are the same in every build.
func processCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
