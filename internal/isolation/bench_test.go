//go:build linux

package isolation

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"go.opentelemetry.io/otel"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

// BenchmarkSpawnBareExec is the floor: os/exec of /bin/true with no
// isolation at all.
func BenchmarkSpawnBareExec(b *testing.B) {
	for b.Loop() {
		if err := exec.Command("/bin/true").Run(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSpawn measures Start+Wait of /bin/true per backend and per
// hardening layer added on top of the bare uid switch.
func BenchmarkSpawn(b *testing.B) {
	l := needCgroups(b)
	layers := []struct {
		name string
		h    Hardening
	}{
		{"uid-only", bare},
		{"landlock", Hardening{UID: nobodyID, GID: nobodyID, Landlock: true}},
		{"seccomp", Hardening{UID: nobodyID, GID: nobodyID, Seccomp: true}},
		{"rlimits", Hardening{UID: nobodyID, GID: nobodyID, Rlimits: true}},
		{"default", DefaultHardening()},
	}
	for _, mode := range []string{ModeRequired, ModeProcessGroup} {
		cfg := testConfig(b, l)
		cfg.Mode = mode
		be := openTest(b, cfg)
		for _, layer := range layers {
			b.Run(be.Name()+"/"+layer.name, func(b *testing.B) {
				for b.Loop() {
					p, err := be.Start(context.Background(), Spec{Path: "/bin/true", Args: []string{"true"}, Hardening: layer.h})
					if err != nil {
						b.Fatal(err)
					}
					if ex, err := p.Wait(); err != nil || ex.Code != 0 {
						b.Fatalf("exit %+v err %v", ex, err)
					}
				}
			})
		}
	}
}

// BenchmarkKillToEmpty measures Kill (until the unit is confirmed empty
// and removed) of a run with a background child and a setsid'd sleeper,
// per backend.
func BenchmarkKillToEmpty(b *testing.B) {
	l := needCgroups(b)
	script := `(setsid sleep 1000 &); sleep 1000 & echo started; wait`
	for _, mode := range []string{ModeRequired, ModeProcessGroup} {
		cfg := testConfig(b, l)
		cfg.Mode = mode
		be := openTest(b, cfg)
		b.Run(be.Name(), func(b *testing.B) {
			for b.Loop() {
				b.StopTimer()
				r, w, err := pipe()
				if err != nil {
					b.Fatal(err)
				}
				p, err := be.Start(context.Background(), Spec{Path: "/bin/sh", Args: []string{"sh", "-c", script}, Hardening: bare, Stdout: w})
				w.Close()
				if err != nil {
					b.Fatal(err)
				}
				buf := make([]byte, 8)
				if _, err := r.Read(buf); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				if err := p.Kill(); err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				r.Close()
				b.StartTimer()
			}
		})
	}
}

func pipe() (*os.File, *os.File, error) { return os.Pipe() }

// BenchmarkEchoVsBwrap measures Start+Wait of `echo hi` with everything a
// run gets (own network, PID and mount namespaces, the built root,
// default hardening and limits) next to bubblewrap doing comparable work
// (`bwrap --unshare-all --die-with-parent --ro-bind / / --dev /dev --proc
// /proc --tmpfs /tmp /bin/echo hi`), side by side on the same machine:
// each toolwarden run follows one bwrap run, and x-bwrap-p50 is the ratio
// of the two p50s. Sub-benchmarks: the test binary as the shim, the small
// shim (as `toolwarden serve` runs it) on warm shims — stdout and stderr
// one writer, as the runner passes them — and the small shim forced onto
// fresh shims (a stdin), and `bash -c 'echo hi'` on warm shims (what a
// scan-and-run executes). The start-up stages' p50s come from their spans.
func BenchmarkEchoVsBwrap(b *testing.B) {
	l := needCgroups(b)
	bwrap, bwrapErr := exec.LookPath("bwrap")
	if bwrapErr != nil {
		b.Log("bwrap not installed: no comparison")
	}
	echo := func(be Backend, fresh bool, argv ...string) func(b *testing.B) {
		if len(argv) == 0 {
			argv = []string{"/bin/echo", "echo", "hi"}
		}
		return func(b *testing.B) {
			ws := b.TempDir()
			st := recordStages(b)
			var runs, waits, refs []time.Duration
			var cpuRef, cpuRun time.Duration
			for b.Loop() {
				if bwrapErr == nil {
					c0 := processCPU()
					t0 := time.Now()
					out, err := exec.Command(bwrap, "--unshare-all", "--die-with-parent", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp", "/bin/echo", "hi").Output()
					if err != nil || string(out) != "hi\n" {
						b.Fatalf("bwrap: %v %q", err, out)
					}
					refs = append(refs, time.Since(t0))
					cpuRef += processCPU() - c0
				}
				c0 := processCPU()
				var out bytes.Buffer
				spec := Spec{Path: argv[0], Args: argv[1:], Workspace: ws, Dir: ws, Hardening: DefaultHardening(), Stdout: &out, Stderr: &out}
				if fresh {
					spec.Stdin = bytes.NewReader(nil)
				}
				t0 := time.Now()
				p, err := be.Start(context.Background(), spec)
				if err != nil {
					b.Fatal(err)
				}
				t1 := time.Now()
				if ex, err := p.Wait(); err != nil || ex.Code != 0 || out.String() != "hi\n" {
					b.Fatalf("exit %+v err %v out %q", ex, err, out.String())
				}
				runs = append(runs, time.Since(t0))
				waits = append(waits, time.Since(t1))
				cpuRun += processCPU() - c0
			}
			st.report(b)
			b.ReportMetric(p50ms(runs), "p50-ms")
			b.ReportMetric(p50ms(waits), "wait-ms")
			// CPU of this process and its reaped children (shims and
			// workloads; warm shims are reaped with their run), per run:
			// less sensitive to the machine's load than wall time. The
			// warm pool's refill happens in the background and is counted
			// in the runs it overlaps.
			b.ReportMetric(float64(cpuRun)/float64(b.N)/float64(time.Millisecond), "cpu-ms/op")
			if len(refs) > 0 {
				b.ReportMetric(float64(cpuRef)/float64(b.N)/float64(time.Millisecond), "bwrap-cpu-ms/op")
				b.ReportMetric(p50ms(refs), "bwrap-p50-ms")
				b.ReportMetric(p50ms(runs)/p50ms(refs), "x-bwrap-p50")
			}
		}
	}
	open := func() Backend {
		cfg := testConfig(b, l)
		cfg.Limits = Limits{}
		return openTest(b, cfg)
	}
	be := open()
	// The shim is the test binary here: it pays this package's test
	// dependencies' init, less than the whole toolwarden binary does.
	b.Run("toolwarden-"+be.Name()+"-self-shim", echo(be, false))
	// The small shim of package shimbin, as `toolwarden serve` runs it.
	useShimForTest(b, buildShim(b))
	small := open()
	b.Run("toolwarden-"+be.Name()+"-small-shim", echo(small, false))
	b.Run("toolwarden-"+be.Name()+"-small-shim-fresh", echo(small, true))
	// What a scan-and-run executes: the command through bash.
	b.Run("toolwarden-"+be.Name()+"-small-shim-bash", echo(small, false, "/bin/bash", "bash", "-c", "echo hi"))
}

// spanRecorder is the process's one span recorder: OpenTelemetry's global
// provider delegates the tracers obtained before it was set only to the
// first provider installed, so every test and benchmark shares this one.
var spanRecorder = sync.OnceValue(func() *tracetest.SpanRecorder {
	rec := tracetest.NewSpanRecorder()
	otel.SetTracerProvider(sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec)))
	return rec
})

// stageRecorder collects the start-up spans of the runs of one benchmark.
type stageRecorder struct {
	rec  *tracetest.SpanRecorder
	from int
}

// recordStages starts collecting the spans that end from now on.
func recordStages(testing.TB) stageRecorder {
	rec := spanRecorder()
	return stageRecorder{rec, len(rec.Ended())}
}

// ended returns the spans ended since recordStages.
func (s stageRecorder) ended() []sdktrace.ReadOnlySpan { return s.rec.Ended()[s.from:] }

// report adds the p50 (ms) of every start-up stage and of the shim's own
// timings (root build, confinement) to b.
func (s stageRecorder) report(b *testing.B) {
	by := map[string][]time.Duration{}
	for _, sp := range s.ended() {
		by[sp.Name()] = append(by[sp.Name()], sp.EndTime().Sub(sp.StartTime()))
		for _, a := range sp.Attributes() {
			if k := string(a.Key); strings.HasSuffix(k, "_us") {
				by[k] = append(by[k], time.Duration(a.Value.AsInt64())*time.Microsecond)
			}
		}
	}
	for name, d := range by {
		if len(d) > 0 {
			b.ReportMetric(p50ms(d), name+"-ms")
		}
	}
}

// processCPU is the user and system CPU of this process and of its reaped
// children so far.
func processCPU() time.Duration {
	var self, kids syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &self)
	_ = syscall.Getrusage(syscall.RUSAGE_CHILDREN, &kids)
	tv := func(t syscall.Timeval) time.Duration { return time.Duration(t.Nano()) }
	return tv(self.Utime) + tv(self.Stime) + tv(kids.Utime) + tv(kids.Stime)
}

// p50ms is the median of d in milliseconds.
func p50ms(d []time.Duration) float64 {
	if len(d) == 0 {
		return 0
	}
	s := slices.Clone(d)
	slices.Sort(s)
	return float64(s[len(s)/2]) / float64(time.Millisecond)
}
