package executor_test

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/toolwarden/toolwarden/internal/execution"
	"github.com/toolwarden/toolwarden/internal/execution/embedded"
	"github.com/toolwarden/toolwarden/internal/executor"
	"github.com/toolwarden/toolwarden/internal/isolation"
)

// A daemon on the embedded store: the API side creates a record, the daemon
// claims and runs it under isolation, and a bounded wait reads the
// canonical result the daemon finished it with.
func Example() {
	dir, _ := os.MkdirTemp("", "executor-example-")
	defer os.RemoveAll(dir)
	store, err := embedded.Open(dir, embedded.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer store.Close()
	iso, err := isolation.Open(context.Background(), isolation.Config{Mode: isolation.ModeProcessGroup})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer iso.Close()

	d, err := executor.New(store, iso, executor.Config{
		Concurrency:   2,
		Exclusive:     true, // the embedded store has no other executor
		ReductionRoot: dir + "/reduction",
		WorkspaceRoot: os.TempDir(),
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	done := make(chan error, 1)
	go func() { done <- d.Run(ctx) }()

	r := &execution.Record{ToolName: "exec", Language: "bash", Content: "echo hello; exit 3"}
	if err := store.Create(context.Background(), r); err != nil {
		fmt.Println(err)
		return
	}
	got, finished, err := execution.Wait(context.Background(), store, r.ExecutionID, time.Minute)
	fmt.Println(finished, err)
	fmt.Printf("%s exit=%d %q %s\n", got.Status, *got.ExitCode, got.Result, got.Error)

	stop()
	fmt.Println(<-done)
	// Output:
	// true <nil>
	// failed exit=3 "hello\n" exit code 3
	// <nil>
}
