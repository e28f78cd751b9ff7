//go:build linux

package isolation

import (
	"testing"

	"go.opentelemetry.io/otel"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

// TestStartSpans: starting a run emits a span per stage, and the shim's
// own measurements (root build, confinement) land on the shim span.
func TestStartSpans(t *testing.T) {
	l := needCgroups(t)
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	prev := otel.GetTracerProvider()
	otel.SetTracerProvider(tp)
	t.Cleanup(func() { otel.SetTracerProvider(prev) })
	b := openTest(t, testConfig(t, l))
	ws := workspace(t)
	if _, ex := runOutput(t, b, Spec{Path: "/bin/true", Args: []string{"true"}, Workspace: ws, Hardening: DefaultHardening()}); ex.Code != 0 {
		t.Fatalf("exit %+v", ex)
	}
	got := map[string]sdktrace.ReadOnlySpan{}
	for _, s := range rec.Ended() {
		got[s.Name()] = s
		t.Logf("%s %s", s.Name(), s.EndTime().Sub(s.StartTime()))
	}
	for _, name := range []string{"isolation.start", "isolation.cgroup_setup", "isolation.watchdog_register", "isolation.shim"} {
		if got[name] == nil {
			t.Errorf("no %s span", name)
		}
	}
	if sh := got["isolation.shim"]; sh != nil {
		found := map[string]bool{}
		for _, a := range sh.Attributes() {
			found[string(a.Key)] = true
			t.Logf("  %s = %v", a.Key, a.Value.AsInterface())
		}
		for _, k := range []string{"isolation.shim.root_us", "isolation.shim.confine_us"} {
			if !found[k] {
				t.Errorf("shim span lacks %s", k)
			}
		}
	}
}
