//go:build linux

package isolation

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"slices"
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
// /proc --tmpfs /tmp /bin/echo hi`), side by side on the same machine.
func BenchmarkEchoVsBwrap(b *testing.B) {
	l := needCgroups(b)
	cfg := testConfig(b, l)
	cfg.Limits = Limits{}
	echo := func(be Backend) func(b *testing.B) {
		return func(b *testing.B) {
			ws := b.TempDir()
			st := recordStages(b)
			var waits []time.Duration
			for b.Loop() {
				var out bytes.Buffer
				p, err := be.Start(context.Background(), Spec{Path: "/bin/echo", Args: []string{"echo", "hi"}, Workspace: ws, Dir: ws, Hardening: DefaultHardening(), Stdout: &out})
				if err != nil {
					b.Fatal(err)
				}
				t0 := time.Now()
				if ex, err := p.Wait(); err != nil || ex.Code != 0 || out.String() != "hi\n" {
					b.Fatalf("exit %+v err %v out %q", ex, err, out.String())
				}
				waits = append(waits, time.Since(t0))
			}
			st.report(b)
			b.ReportMetric(p50ms(waits), "wait-ms")
		}
	}
	be := openTest(b, cfg)
	// The shim is the test binary here: it pays this package's test
	// dependencies' init, less than the whole toolwarden binary does.
	b.Run("toolwarden-"+be.Name()+"-self-shim", echo(be))
	// The small shim of package shimbin, as `toolwarden serve` runs it.
	useShimForTest(b, buildShim(b))
	small := testConfig(b, l)
	small.Limits = Limits{}
	b.Run("toolwarden-"+be.Name()+"-small-shim", echo(openTest(b, small)))
	bwrap, err := exec.LookPath("bwrap")
	if err != nil {
		b.Log("bwrap not installed: no comparison")
		return
	}
	b.Run("bwrap", func(b *testing.B) {
		for b.Loop() {
			out, err := exec.Command(bwrap, "--unshare-all", "--die-with-parent", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp", "/bin/echo", "hi").Output()
			if err != nil || string(out) != "hi\n" {
				b.Fatalf("bwrap: %v %q", err, out)
			}
		}
	})
}

// stageRecorder collects the start-up spans of the runs of one benchmark.
type stageRecorder struct{ rec *tracetest.SpanRecorder }

// recordStages installs a span recorder for the rest of b.
func recordStages(b *testing.B) stageRecorder {
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	prev := otel.GetTracerProvider()
	otel.SetTracerProvider(tp)
	b.Cleanup(func() { otel.SetTracerProvider(prev) })
	return stageRecorder{rec}
}

// report adds the p50 (ms) of every start-up stage and of the shim's own
// timings (root build, confinement) to b.
func (s stageRecorder) report(b *testing.B) {
	by := map[string][]time.Duration{}
	for _, sp := range s.rec.Ended() {
		by[sp.Name()] = append(by[sp.Name()], sp.EndTime().Sub(sp.StartTime()))
		for _, a := range sp.Attributes() {
			if k := string(a.Key); len(k) > 3 && k[len(k)-3:] == "_us" {
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

// p50ms is the median of d in milliseconds.
func p50ms(d []time.Duration) float64 {
	if len(d) == 0 {
		return 0
	}
	s := slices.Clone(d)
	slices.Sort(s)
	return float64(s[len(s)/2]) / float64(time.Millisecond)
}
