//go:build linux

package isolation

import (
	"strings"
	"testing"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// TestStartSpans: starting a run emits a span per stage, and the shim's
// own measurements (root build, confinement) land on the shim span — on a
// fresh shim (cgroup setup and watchdog registration on the run's path) and
// on a warm one (those done ahead; its shim span says warm).
func TestStartSpans(t *testing.T) {
	l := needCgroups(t)
	b := openTest(t, testConfig(t, l))
	ws := workspace(t)
	for _, warm := range []bool{false, true} {
		spec := Spec{Path: "/bin/true", Args: []string{"true"}, Workspace: ws, Hardening: DefaultHardening()}
		want := []string{"isolation.start", "isolation.shim"}
		if warm {
			waitWarm(t, b)
		} else {
			spec.Stdin = strings.NewReader("") // never served warm
			want = append(want, "isolation.cgroup_setup", "isolation.watchdog_register")
		}
		rec := recordStages(t)
		if _, ex := runOutput(t, b, spec); ex.Code != 0 {
			t.Fatalf("exit %+v", ex)
		}
		got := map[string]sdktrace.ReadOnlySpan{}
		for _, s := range rec.ended() {
			got[s.Name()] = s
			t.Logf("warm=%v %s %s", warm, s.Name(), s.EndTime().Sub(s.StartTime()))
		}
		for _, name := range want {
			if got[name] == nil {
				t.Errorf("warm=%v: no %s span", warm, name)
			}
		}
		sh := got["isolation.shim"]
		if sh == nil {
			continue
		}
		found := map[string]any{}
		for _, a := range sh.Attributes() {
			found[string(a.Key)] = a.Value.AsInterface()
			t.Logf("  %s = %v", a.Key, a.Value.AsInterface())
		}
		for _, k := range []string{"isolation.shim.root_us", "isolation.shim.confine_us"} {
			if found[k] == nil {
				t.Errorf("warm=%v: shim span lacks %s", warm, k)
			}
		}
		if w, _ := found["isolation.warm"].(bool); w != warm {
			t.Errorf("shim span isolation.warm = %v, want %v", found["isolation.warm"], warm)
		}
	}
}
