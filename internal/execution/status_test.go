package execution_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/toolwarden/toolwarden/internal/execution"
	"github.com/toolwarden/toolwarden/sdk"
)

func TestTransitionTable(t *testing.T) {
	allowed := map[string]bool{
		"pending_review→queued": true, "pending_review→blocked": true, "pending_review→cancelled": true,
		"queued→running": true, "queued→cancelled": true,
		"running→completed": true, "running→failed": true, "running→cancelled": true,
		"running→hard_timeout": true, "running→orphaned": true,
	}
	for _, from := range execution.AllStatuses() {
		for _, to := range execution.AllStatuses() {
			key := string(from) + "→" + string(to)
			got := execution.CanTransition(from, to)
			if got != allowed[key] {
				t.Errorf("CanTransition(%s) = %v, want %v", key, got, allowed[key])
			}
			err := execution.CheckTransition(from, to)
			if (err == nil) != allowed[key] || (err != nil && !errors.Is(err, execution.ErrInvalidTransition)) {
				t.Errorf("CheckTransition(%s) = %v", key, err)
			}
			if from.Terminal() && got {
				t.Errorf("terminal %s has an outgoing transition to %s", from, to)
			}
		}
	}
	if err := execution.CheckTransition(execution.StatusQueued, "exploded"); !errors.Is(err, execution.ErrInvalidRecord) {
		t.Errorf("unknown target status: %v", err)
	}
}

func TestStatusClasses(t *testing.T) {
	var terminal, initial []string
	for _, s := range execution.AllStatuses() {
		if !s.Valid() {
			t.Errorf("%s not valid", s)
		}
		if s.Terminal() {
			terminal = append(terminal, string(s))
		}
		if s.Initial() {
			initial = append(initial, string(s))
		}
	}
	sort.Strings(terminal)
	sort.Strings(initial)
	if got := strings.Join(terminal, ","); got != "blocked,cancelled,completed,failed,hard_timeout,orphaned" {
		t.Errorf("terminal statuses: %s", got)
	}
	if got := strings.Join(initial, ","); got != "blocked,pending_review,queued" {
		t.Errorf("initial statuses: %s", got)
	}
	if execution.Status("background_running").Valid() {
		t.Errorf("a display-only status must not be storable")
	}
}

func TestRecordJSONNames(t *testing.T) {
	code := 1
	now := time.Now()
	r := &execution.Record{ExitCode: &code, StartedAt: &now, SafetyReport: &sdk.SafetyReport{}}
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"execution_id", "status", "tool_name", "conversation_id", "created_at", "started_at",
		"ended_at", "duration_ms", "exit_code", "result", "error", "is_error", "partial_output", "partial_output_bytes",
		"partial_output_truncated", "partial_output_updated_at", "safety_report", "isolation_backend", "cleanup",
		"language", "content", "attempt", "revision"} {
		if _, ok := m[k]; !ok {
			t.Errorf("JSON lacks %q: %s", k, b)
		}
	}
}

func TestCloneIsDeep(t *testing.T) {
	code := 2
	now := time.Now()
	col := 4
	r := &execution.Record{ExitCode: &code, StartedAt: &now, EnvNames: []string{"A"},
		SafetyReport: &sdk.SafetyReport{Findings: []sdk.Finding{{RuleID: "R", Column: &col, Metadata: map[string]any{"k": "v"}}}}}
	c := r.Clone()
	*c.ExitCode = 9
	*c.StartedAt = now.Add(time.Hour)
	c.EnvNames[0] = "B"
	c.SafetyReport.Findings[0].Metadata["k"] = "changed"
	*c.SafetyReport.Findings[0].Column = 7
	if *r.ExitCode != 2 || !r.StartedAt.Equal(now) || r.EnvNames[0] != "A" ||
		r.SafetyReport.Findings[0].Metadata["k"] != "v" || *r.SafetyReport.Findings[0].Column != 4 {
		t.Fatalf("Clone shares memory with the original: %+v", r)
	}
	if (*execution.Record)(nil).Clone() != nil {
		t.Fatalf("Clone of nil")
	}
}

func TestCursorRoundTripAndOrder(t *testing.T) {
	c := execution.EncodeCursor(1700000000123456, "exe_a:b")
	us, id, ok, err := execution.DecodeCursor(c)
	if err != nil || !ok || us != 1700000000123456 || id != "exe_a:b" {
		t.Fatalf("DecodeCursor: %d %q %v %v", us, id, ok, err)
	}
	if _, _, ok, err := execution.DecodeCursor(""); ok || err != nil {
		t.Fatalf("empty cursor: %v %v", ok, err)
	}
	for _, bad := range []string{"!!", "bm90LWEtY3Vyc29y", execution.EncodeCursor(1, "")[:2]} {
		if _, _, _, err := execution.DecodeCursor(bad); !errors.Is(err, execution.ErrInvalidRecord) {
			t.Errorf("DecodeCursor(%q) = %v, want ErrInvalidRecord", bad, err)
		}
	}
	if !execution.After(5, "z", 6, "a") || execution.After(6, "a", 5, "z") ||
		!execution.After(5, "a", 5, "b") || execution.After(5, "b", 5, "b") {
		t.Fatalf("After does not order newest first with id tie-break")
	}
}

func TestApplyFinishKeepsRequestAndIdentity(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	r := &execution.Record{ExecutionID: "exe_1", Content: "ls", OwnerKeyID: "k", AllowedDomains: []string{"pypi.org"}}
	if err := execution.PrepareNew(r, now); err != nil {
		t.Fatal(err)
	}
	if err := execution.ApplyClaim(r, "w", now, time.Minute); err != nil {
		t.Fatal(err)
	}
	code := 0
	conns := []execution.NetworkConnection{{Host: "pypi.org", Port: 443, BytesUp: 10, BytesDown: 20, Allowed: true}}
	final := &execution.Record{ExecutionID: "other", Content: "rm -rf /", OwnerKeyID: "evil", WorkerID: "x",
		Status: execution.StatusCompleted, ExitCode: &code, Result: "ok", AllowedDomains: []string{"evil.test"},
		NetworkConnections: conns, NetworkConnectionsOmitted: 3}
	if err := execution.ApplyFinish(r, "w", final, now.Add(1500*time.Millisecond)); err != nil {
		t.Fatal(err)
	}
	if r.ExecutionID != "exe_1" || r.Content != "ls" || r.OwnerKeyID != "k" || r.WorkerID != "w" ||
		r.Result != "ok" || r.DurationMS != 1500 || r.LeaseExpiresAt != nil || r.Revision != 3 {
		t.Fatalf("after finish: %+v", r)
	}
	// The connection log is the worker's to write; the allowed list is the
	// request's and stays.
	if len(r.NetworkConnections) != 1 || r.NetworkConnections[0] != conns[0] || r.NetworkConnectionsOmitted != 3 ||
		len(r.AllowedDomains) != 1 || r.AllowedDomains[0] != "pypi.org" {
		t.Fatalf("after finish: connections %+v (+%d), allowed %v", r.NetworkConnections, r.NetworkConnectionsOmitted, r.AllowedDomains)
	}
	conns[0].Host = "changed"
	if r.NetworkConnections[0].Host != "pypi.org" {
		t.Fatal("finish aliases the caller's connection log")
	}
	*final.ExitCode = 5
	if *r.ExitCode != 0 {
		t.Fatalf("finish aliases the caller's exit code")
	}
}

func TestPrepareNewRejects(t *testing.T) {
	now := time.Now()
	for name, r := range map[string]*execution.Record{
		"running":     {Status: execution.StatusRunning},
		"unknown":     {Status: "weird"},
		"bad cleanup": {Cleanup: "mostly"},
		"space in id": {ExecutionID: "a b"},
	} {
		if err := execution.PrepareNew(r, now); !errors.Is(err, execution.ErrInvalidRecord) {
			t.Errorf("%s: %v, want ErrInvalidRecord", name, err)
		}
	}
	r := &execution.Record{WorkerID: "forged", Attempt: 7, CancelRequested: true}
	if err := execution.PrepareNew(r, now); err != nil {
		t.Fatal(err)
	}
	if r.Status != execution.StatusQueued || r.WorkerID != "" || r.Attempt != 0 || r.CancelRequested ||
		!strings.HasPrefix(r.ExecutionID, "exe_") || r.CreatedAt.Location() != time.UTC {
		t.Fatalf("PrepareNew defaults: %+v", r)
	}
}

// A reviewer's decision is a status change on a held record; the table
// decides which ones exist.
func ExampleCheckTransition() {
	fmt.Println(execution.CheckTransition(execution.StatusPendingReview, execution.StatusQueued))
	fmt.Println(execution.CheckTransition(execution.StatusCompleted, execution.StatusRunning))
	fmt.Println(execution.StatusHardTimeout.Terminal())
	// Output:
	// <nil>
	// completed → running: invalid status transition
	// true
}

func TestPartialTail(t *testing.T) {
	r := &execution.Record{PartialOutput: strings.Repeat("a", 10) + "é" + "xyz"} // é is 2 bytes
	if s, trunc := r.PartialTail(100); s != r.PartialOutput || trunc {
		t.Fatalf("short output: %q %v", s, trunc)
	}
	if s, trunc := r.PartialTail(4); s != "xyz" || !trunc {
		t.Fatalf("cut inside a rune must move to the next boundary: %q %v", s, trunc)
	}
	if s, _ := r.PartialTail(5); s != "éxyz" {
		t.Fatalf("cut on a boundary: %q", s)
	}
	r.PartialOutputTruncated = true
	if _, trunc := r.PartialTail(100); !trunc {
		t.Fatalf("worker-side truncation must be reported")
	}
	big := &execution.Record{PartialOutput: strings.Repeat("b", 100000)}
	if s, _ := big.PartialTail(1 << 30); len(s) != execution.MaxPartialOutputMaxBytes {
		t.Fatalf("cap: %d", len(s))
	}
	if s, _ := big.PartialTail(0); len(s) != execution.DefaultPartialOutputMaxBytes {
		t.Fatalf("default: %d", len(s))
	}
}
