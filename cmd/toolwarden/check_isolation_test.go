package main

import (
	"os"
	"slices"
	"strings"
	"testing"
	"time"
)

// isolationReport is the JSON check-isolation prints.
type isolationReport struct {
	Checked     bool     `json:"checked"`
	Backend     string   `json:"backend"`
	Mode        string   `json:"mode"`
	Layers      []string `json:"layers"`
	Reasons     []string `json:"reasons"`
	RequiredMet bool     `json:"required_met"`
}

// backends are the backend names check-isolation may report.
var backends = []string{"cgroup2", "hybrid", "process_group"}

// strong reports whether backend is a cgroup backend (what mode required
// asks for).
func strong(backend string) bool { return backend == "cgroup2" || backend == "hybrid" }

// checkIsolation runs check-isolation ARGS and parses its report. The probe
// holds one fixed sibling cgroup root for its moment of work, so a check
// running at the same time elsewhere on the host makes it report that root
// busy; that is retried a few times rather than read as the host's answer.
func checkIsolation(t *testing.T, in invocation, args ...string) (result, isolationReport) {
	t.Helper()
	var r result
	var rep isolationReport
	for attempt := 0; ; attempt++ {
		r = in.run(t, append([]string{"check-isolation"}, args...)...)
		rep = isolationReport{}
		decodeJSON(t, "check-isolation output", r.stdout, &rep)
		if attempt == 4 || !slices.ContainsFunc(rep.Reasons, func(s string) bool { return strings.Contains(s, busyRoot) }) {
			break
		}
		t.Logf("probe root busy, retrying: %v", rep.Reasons)
		time.Sleep(500 * time.Millisecond)
	}
	if !rep.Checked {
		t.Errorf("checked is false:\n%s", r)
	}
	return r, rep
}

func TestCheckIsolationReportsBackend(t *testing.T) {
	r, rep := checkIsolation(t, invocation{})
	wantCode(t, r, 0)
	if !slices.Contains(backends, rep.Backend) {
		t.Fatalf("backend %q, want one of %v:\n%s", rep.Backend, backends, r)
	}
	if rep.Mode != "auto" || !rep.RequiredMet || len(rep.Layers) == 0 {
		t.Errorf("mode %q required_met %v layers %v, want auto, true and the probe's layers", rep.Mode, rep.RequiredMet, rep.Layers)
	}
	if !strong(rep.Backend) && len(rep.Reasons) == 0 {
		t.Errorf("fell back to %s without saying why", rep.Backend)
	}
	if os.Geteuid() != 0 && strong(rep.Backend) {
		t.Errorf("not root, yet the cgroup backend %s was reported usable", rep.Backend)
	}
}

func TestCheckIsolationProcessGroupMode(t *testing.T) {
	r, rep := checkIsolation(t, invocation{}, "--mode", "process_group")
	wantCode(t, r, 0)
	if rep.Backend != "process_group" || rep.Mode != "process_group" || !rep.RequiredMet {
		t.Errorf("backend %q mode %q required_met %v, want process_group, process_group, true", rep.Backend, rep.Mode, rep.RequiredMet)
	}
}

func TestCheckIsolationRequiredOnCapableHost(t *testing.T) {
	_, auto := checkIsolation(t, invocation{})
	if !strong(auto.Backend) {
		t.Skipf("this host has no cgroup backend (auto picks %s): the unmet branch is covered by TestCheckIsolationRequiredUnmet", auto.Backend)
	}
	r, rep := checkIsolation(t, invocation{}, "--mode", "required")
	wantCode(t, r, 0)
	if rep.Backend != auto.Backend || !rep.RequiredMet || rep.Mode != "required" {
		t.Errorf("required: backend %q required_met %v mode %q, want %s, true, required", rep.Backend, rep.RequiredMet, rep.Mode, auto.Backend)
	}
}

func TestCheckIsolationRequiredUnmet(t *testing.T) {
	// Without root there is no cgroup backend. As root, run the check as an
	// unprivileged uid to reach the same branch on a capable host.
	in := invocation{}
	if os.Geteuid() == 0 {
		in.uid = 65534
	}
	r, rep := checkIsolation(t, in, "--mode", "required")
	if r.code == 0 {
		t.Fatalf("mode required met without root:\n%s", r)
	}
	if r.code != 1 {
		t.Errorf("exit %d, want 1", r.code)
	}
	if rep.RequiredMet || strong(rep.Backend) || len(rep.Reasons) == 0 {
		t.Errorf("required_met %v backend %q reasons %v, want false, no cgroup backend, and the reasons", rep.RequiredMet, rep.Backend, rep.Reasons)
	}
	wantContains(t, "stderr", r.stderr, "required")

	// auto on the same host falls back instead of failing.
	r, rep = checkIsolation(t, in)
	wantCode(t, r, 0)
	if rep.Backend != "process_group" || !rep.RequiredMet {
		t.Errorf("auto without root: backend %q required_met %v, want process_group, true", rep.Backend, rep.RequiredMet)
	}
}

func TestCheckIsolationBadMode(t *testing.T) {
	r := tw(t, "check-isolation", "--mode", "maximum")
	wantCode(t, r, 3)
	wantContains(t, "stderr", r.stderr, "maximum")
}
