package wasmhost

import (
	"context"
	"os"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/toolwarden/toolwarden/internal/engine/analyze"
	"github.com/toolwarden/toolwarden/internal/engine/builtin"
	"github.com/toolwarden/toolwarden/internal/policies"
	"github.com/toolwarden/toolwarden/sdk"
)

// threadCPU is the CPU time of the calling OS thread (RUSAGE_THREAD).
func threadCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(1 /* RUSAGE_THREAD */, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkGuestScan times the built-in core module's scan_v2 call alone —
// no analyzer, no host encoding, no goroutine hand-off — on the bounded
// runtime, as thread CPU per call (cpu-µs/op), which the load of a shared
// machine moves far less than wall time. "warm" calls back to back;
// "evicted" writes 8 MiB between calls, as the analyzer and the report do
// between two guest calls of a real scan, so the guest starts with cold
// caches. The difference between the two is the share of a scan's guest
// time that is fetching its code and data (see BENCHMARKS.md). Skipped
// without the built-in packs (go tool task rules).
func BenchmarkGuestScan(b *testing.B) {
	all, err := builtin.Packs()
	if err != nil {
		b.Skip(err)
	}
	one, err := os.ReadFile("../../../engine/testdata/bench_1k.sh")
	if err != nil {
		b.Fatal(err)
	}
	// The engine's 1 KB benchmark script: whole lines up to 1 KiB.
	var kb strings.Builder
	for _, l := range strings.SplitAfter(string(one), "\n") {
		if kb.Len()+len(l) > 1024 {
			break
		}
		kb.WriteString(l)
	}
	h := newHost(b, Options{PoolSize: 1})
	p, err := h.LoadBounded(context.Background(), "core", all[0].Wasm)
	if err != nil {
		b.Fatal(err)
	}
	cfg := NewConfig(policies.Default())
	for _, c := range []struct{ name, content string }{
		{"short", "cd /srv/app && git status --short && go test ./... 2>&1 | tail -n 20"},
		{"1KB", kb.String()},
	} {
		f, err := analyze.Analyze("bash", c.content, analyze.Options{})
		if err != nil {
			b.Fatal(err)
		}
		in := &Input{Scan: &sdk.ScanInput{Facts: f, Content: c.content, Language: "bash"}, Config: cfg}
		lay, err := in.Layout(p.sel)
		if err != nil {
			b.Fatal(err)
		}
		for _, evict := range []bool{false, true} {
			name := c.name + "/warm"
			if evict {
				name = c.name + "/evicted"
			}
			b.Run(name, func(b *testing.B) {
				ctx := context.Background()
				inst, err := p.acquire(ctx)
				if err != nil {
					b.Fatal(err)
				}
				defer p.release(inst, false)
				if err := p.ensureConfigured(ctx, inst, cfg); err != nil {
					b.Fatal(err)
				}
				ptr, n, err := p.stage(ctx, ctx, inst, lay)
				if err != nil {
					b.Fatal(err)
				}
				var junk []byte
				if evict {
					junk = make([]byte, 8<<20)
				}
				runtime.LockOSThread()
				defer runtime.UnlockOSThread()
				var cpu time.Duration
				for b.Loop() {
					for i := 0; i < len(junk); i += 64 {
						junk[i]++
					}
					t0 := threadCPU()
					res, err := inst.scanV2.Call(ctx, uint64(ptr), uint64(n))
					cpu += threadCPU() - t0
					if err != nil || res[0] == 0 {
						b.Fatalf("scan_v2: %v", err)
					}
				}
				b.ReportMetric(float64(cpu.Microseconds())/float64(b.N), "cpu-µs/op")
			})
		}
	}
}
