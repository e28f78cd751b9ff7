package executor

import (
	"context"
	"testing"
	"time"

	"github.com/toolwarden/toolwarden/internal/engine/telemetry"
	"github.com/toolwarden/toolwarden/internal/execution"
)

// TestEnvReachesWorkloadAndLeavesStore checks that the requested
// environment values reach the workload and are gone from the stored
// record once it has finished (they may be secrets).
func TestEnvReachesWorkloadAndLeavesStore(t *testing.T) {
	b := openEmbedded(t, 3*time.Second)
	start(t, b, openIso(t), fastConfig())
	r := &execution.Record{ToolName: "exec", Language: "bash", Content: `echo "$GREETING"`, Cwd: workspace(t),
		EnvNames: []string{"GREETING"}, Env: map[string]string{"GREETING": "hello from env"}}
	if err := b.Create(context.Background(), r); err != nil {
		t.Fatal(err)
	}
	got := waitTerminal(t, b, r.ExecutionID)
	if got.Status != execution.StatusCompleted || got.Result != "hello from env\n" {
		t.Fatalf("got %s %q (%s)", got.Status, got.Result, got.Error)
	}
	stored, err := b.Get(context.Background(), r.ExecutionID)
	if err != nil {
		t.Fatal(err)
	}
	if stored.Env != nil || len(stored.EnvNames) != 1 {
		t.Fatalf("after finish the store keeps env %v (names %v)", stored.Env, stored.EnvNames)
	}
}

// TestFinishedExecutionsAreCounted: /metrics shows executions by status.
func TestFinishedExecutionsAreCounted(t *testing.T) {
	b := openEmbedded(t, 3*time.Second)
	start(t, b, openIso(t), fastConfig())
	before := counted(t, "failed")
	r := create(t, b, "exit 4", workspace(t))
	if got := waitTerminal(t, b, r.ExecutionID); got.Status != execution.StatusFailed {
		t.Fatalf("status %s", got.Status)
	}
	// The counter is bumped once Finish has returned, which may be just
	// after the waiter woke up.
	deadline := time.Now().Add(10 * time.Second)
	for after := counted(t, "failed"); after != before+1; after = counted(t, "failed") {
		if time.Now().After(deadline) {
			t.Fatalf("failed executions counted %v → %v, want one more", before, after)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func counted(t *testing.T, status string) float64 {
	t.Helper()
	mfs, err := telemetry.Registry().Gather()
	if err != nil {
		t.Fatal(err)
	}
	total := 0.0
	for _, mf := range mfs {
		if mf.GetName() != "toolwarden_executions_finished_total" {
			continue
		}
		for _, m := range mf.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "status" && l.GetValue() == status {
					total += m.GetCounter().GetValue()
				}
			}
		}
	}
	return total
}
