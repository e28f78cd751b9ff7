package executor

import (
	"context"
	"testing"
	"time"

	"github.com/toolwarden/toolwarden/execution"
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
