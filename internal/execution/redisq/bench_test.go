package redisq_test

import (
	"context"
	"testing"

	"github.com/toolwarden/toolwarden/internal/execution"
	"github.com/toolwarden/toolwarden/internal/execution/redisq"
)

// BenchmarkLifecycle measures one create → claim → finish round trip
// against the test Redis.
func BenchmarkLifecycle(b *testing.B) {
	be, _, _ := openT(b, redisq.Options{})
	ctx := context.Background()
	code := 0
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r := &execution.Record{ToolName: "exec", Content: "echo hi"}
		if err := be.Create(ctx, r); err != nil {
			b.Fatal(err)
		}
		c, err := be.Claim(ctx, "w", 0)
		if err != nil {
			b.Fatal(err)
		}
		if err := be.Finish(ctx, "w", c.ExecutionID, &execution.Record{Status: execution.StatusCompleted, ExitCode: &code}); err != nil {
			b.Fatal(err)
		}
	}
}
