package runner

import (
	"context"
	"os/exec"
	"testing"

	"github.com/toolwarden/toolwarden/internal/reduction"
)

// benchBytes is the output size of the capture benchmarks: large enough
// that the spill file and pipe throughput dominate start-up costs.
const benchBytes = 200_000_000

// BenchmarkCaptureRun200MB measures end-to-end capture: a real process
// prints 200 MB, which goes through the pipe, the reduction Writer and the
// spill file. Compare with BenchmarkCatToDevNull200MB, the floor of moving
// the same bytes through a pipe with no capture at all.
func BenchmarkCaptureRun200MB(b *testing.B) {
	b.SetBytes(benchBytes)
	for i := 0; i < b.N; i++ {
		res, err := Run(context.Background(), pgBackend{}, Options{
			Command:       "head -c 200000000 /dev/zero",
			Dir:           b.TempDir(),
			ReductionRoot: b.TempDir(),
			ExecutionID:   "bench",
		})
		if err != nil || res.Status != StatusCompleted || res.TotalBytes != benchBytes {
			b.Fatalf("run: %v %+v", err, res)
		}
	}
}

// BenchmarkCatToDevNull200MB is the baseline: the same 200 MB piped into
// cat, which writes it to /dev/null.
func BenchmarkCatToDevNull200MB(b *testing.B) {
	b.SetBytes(benchBytes)
	for i := 0; i < b.N; i++ {
		cmd := exec.Command("bash", "-c", "head -c 200000000 /dev/zero | cat > /dev/null")
		if err := cmd.Run(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkWriter200MB measures the Writer alone (head, tail ring and spill
// file), in 32 KiB writes as a pipe reader delivers them.
func BenchmarkWriter200MB(b *testing.B) {
	chunk := make([]byte, 32<<10)
	b.SetBytes(benchBytes)
	for i := 0; i < b.N; i++ {
		w, err := reduction.NewWriter(reduction.Config{Root: b.TempDir(), ExecutionID: "bench"})
		if err != nil {
			b.Fatal(err)
		}
		for n := 0; n < benchBytes; n += len(chunk) {
			w.Write(chunk[:min(len(chunk), benchBytes-n)])
		}
		if err := w.Close(); err != nil {
			b.Fatal(err)
		}
	}
}
