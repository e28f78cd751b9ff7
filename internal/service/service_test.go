package service_test

import (
	"context"
	"slices"
	"testing"

	"github.com/toolwarden/toolwarden/engine"
	"github.com/toolwarden/toolwarden/internal/execution"
	"github.com/toolwarden/toolwarden/internal/execution/embedded"
	"github.com/toolwarden/toolwarden/internal/policies"
	"github.com/toolwarden/toolwarden/internal/service"
	"github.com/toolwarden/toolwarden/sdk"
)

func newService(t *testing.T) *service.Service {
	t.Helper()
	eng, err := engine.New(context.Background(), engine.Options{Policy: policies.Default(), Packs: engine.NativePacks()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close(context.Background()) })
	b, err := embedded.Open(t.TempDir(), embedded.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	return &service.Service{Engine: eng, Backend: b}
}

// TestSubmitRecordsNetworkUse: the record says whether the scan saw network
// use, which decides whether the run gets a network at all.
func TestSubmitRecordsNetworkUse(t *testing.T) {
	s := newService(t)
	cases := map[string]bool{
		"echo hi": false,
		"curl -fsS https://github.com/x/y -o y.txt": true,
		"git clone https://github.com/org/repo":     true,
	}
	for cmd, want := range cases {
		rec, _, err := s.Submit(context.Background(), &service.ToolRequest{Command: cmd}, "agent", 0)
		if err != nil {
			t.Fatalf("%s: %v", cmd, err)
		}
		if rec.Status != execution.StatusQueued || rec.NetworkUse != want {
			t.Errorf("%s: status %s network_use %v, want queued and %v", cmd, rec.Status, rec.NetworkUse, want)
		}
	}
	py, _, err := s.Submit(context.Background(), &service.ToolRequest{PythonCode: "import requests\nrequests.get('https://pypi.org/simple/')"}, "agent", 0)
	if err != nil || !py.NetworkUse {
		t.Fatalf("python requests: %+v %v", py, err)
	}
}

// TestSubmitStoresAllowedDomains: the record carries the policy's
// allowed_domains as the scan saw them, in the store too, so an executor on
// another host enforces the list that judged the scan.
func TestSubmitStoresAllowedDomains(t *testing.T) {
	s := newService(t)
	rec, _, err := s.Submit(context.Background(), &service.ToolRequest{Command: "curl -fsS https://github.com/x/y -o y.txt"}, "agent", 0)
	if err != nil {
		t.Fatal(err)
	}
	want := policies.Default().AllowedDomains
	stored, err := s.Backend.Get(context.Background(), rec.ExecutionID)
	if err != nil {
		t.Fatal(err)
	}
	if len(want) == 0 || !slices.Equal(rec.AllowedDomains, want) || !slices.Equal(stored.AllowedDomains, want) {
		t.Fatalf("record %v, stored %v, want %v", rec.AllowedDomains, stored.AllowedDomains, want)
	}
	// The record's list is a copy: editing it does not edit the policy.
	rec.AllowedDomains[0] = "evil.test"
	if s.Engine.Policy().AllowedDomains[0] == "evil.test" {
		t.Fatal("record shares the policy's slice")
	}
}

// TestSubmitDeniedIsBlocked: a denied call is stored blocked and never
// queued.
func TestSubmitDeniedIsBlocked(t *testing.T) {
	s := newService(t)
	rec, done, err := s.Submit(context.Background(), &service.ToolRequest{Command: "rm -rf /", Env: map[string]string{"T": "x"}}, "agent", 0)
	if err != nil || !done || rec.Status != execution.StatusBlocked || rec.Env != nil || rec.SafetyReport == nil {
		t.Fatalf("denied: %+v done=%v err=%v", rec, done, err)
	}
}

// scanOf scans req through the service and returns the merged report.
func scanOf(t *testing.T, s *service.Service, req *service.ToolRequest) *sdk.SafetyReport {
	t.Helper()
	pieces, err := req.Pieces()
	if err != nil {
		t.Fatalf("Pieces: %v", err)
	}
	rep, err := s.Scan(context.Background(), req, pieces)
	if err != nil {
		t.Fatalf("Scan: %v", err)
	}
	return rep
}

// TestScanEveryContentField: several content fields are each scanned and
// aggregated, deny wins, findings repeated across fields appear once.
func TestScanEveryContentField(t *testing.T) {
	s := newService(t)
	rep := scanOf(t, s, &service.ToolRequest{Script: "echo hi", Command: "rm -rf ~"})
	if rep.Decision != sdk.Deny {
		t.Errorf("script+command: %s %v, want deny from the command", rep.Decision, rep.RuleIDs())
	}
	rep = scanOf(t, s, &service.ToolRequest{PythonCode: "import shutil\nshutil.rmtree('/')", Command: "ls"})
	if rep.Decision != sdk.Deny {
		t.Errorf("python_code+command: %s %v, want deny from the code", rep.Decision, rep.RuleIDs())
	}
	rep = scanOf(t, s, &service.ToolRequest{Script: "ls | wc -l", Cmd: "ls | wc -l"})
	n := 0
	for _, f := range rep.Findings {
		if f.RuleID == "BASH_SHELL_FEATURE_REVIEW" {
			n++
		}
	}
	if n != 1 {
		t.Errorf("the same pipe in two fields reported %d times, want once: %v", n, rep.RuleIDs())
	}
}

// TestCommandArgsApply: command_args are judged whatever the content field:
// as the command line when there is no content, as a shell script's
// positional parameters otherwise.
func TestCommandArgsApply(t *testing.T) {
	s := newService(t)
	if rep := scanOf(t, s, &service.ToolRequest{CommandArgs: []string{"rm", "-rf", "/"}}); rep.Decision != sdk.Deny {
		t.Errorf("command_args alone: %s %v, want deny", rep.Decision, rep.RuleIDs())
	}
	rep := scanOf(t, s, &service.ToolRequest{Language: "bash", Script: "\"$@\"", CommandArgs: []string{"rm", "-rf", "/"}})
	if rep.Decision != sdk.Deny {
		t.Errorf(`script "$@" with args: %s %v, want deny`, rep.Decision, rep.RuleIDs())
	}
}

// TestToolMetadataBudget: tool_metadata.timeout and max_output_bytes are
// judged like the top-level fields.
func TestToolMetadataBudget(t *testing.T) {
	s := newService(t)
	rep := scanOf(t, s, &service.ToolRequest{Command: "ls", ToolMetadata: map[string]any{"timeout": float64(1e6), "max_output_bytes": "999999999999"}})
	ids := rep.RuleIDs()
	if !slices.Contains(ids, "RESOURCE_TIMEOUT_LIMIT_EXCEEDED") || !slices.Contains(ids, "RESOURCE_OUTPUT_LIMIT_EXCEEDED") {
		t.Errorf("tool_metadata budget: %v, want both limit findings", ids)
	}
}
