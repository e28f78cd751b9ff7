package embedded_test

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/toolwarden/toolwarden/internal/execution"
	"github.com/toolwarden/toolwarden/internal/execution/embedded"
)

// The life of one execution: the API creates it, an executor claims it,
// watches for a cancel while it runs, and finishes it exactly once.
func Example() {
	dir, _ := os.MkdirTemp("", "executions")
	defer os.RemoveAll(dir)
	b, err := embedded.Open(dir, embedded.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer b.Close()
	ctx := context.Background()

	r := &execution.Record{ToolName: "exec", ConversationID: "conv-1", Language: "bash", Content: "echo hi"}
	if err := b.Create(ctx, r); err != nil {
		fmt.Println(err)
		return
	}
	job, err := b.Claim(ctx, "executor-1", time.Second)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(job.Status, job.WorkerID)

	code := 0
	err = b.Finish(ctx, "executor-1", job.ExecutionID, &execution.Record{
		Status: execution.StatusCompleted, ExitCode: &code, Result: "hi\n", Cleanup: execution.CleanupDone})
	fmt.Println(err)
	err = b.Finish(ctx, "executor-1", job.ExecutionID, &execution.Record{Status: execution.StatusFailed})
	fmt.Println(err != nil)

	done, _ := b.Get(ctx, r.ExecutionID)
	fmt.Printf("%s %q %s\n", done.Status, done.Result, done.Cleanup)
	// Output:
	// running executor-1
	// <nil>
	// true
	// completed "hi\n" cleaned
}
