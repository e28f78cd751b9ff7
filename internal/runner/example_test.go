package runner

import (
	"context"
	"fmt"
	"os"
	"time"
)

// ExampleRun runs a command line and prints its status and reduced output.
// pgBackend is a test-only backend; real callers pass the backend
// isolation.Open returned.
func ExampleRun() {
	dir, _ := os.MkdirTemp("", "runner-example")
	defer os.RemoveAll(dir)
	res, err := Run(context.Background(), pgBackend{}, Options{
		Command:       `echo "hello from $HOME" | sed "s|$PWD|the workspace|"; exit 2`,
		Dir:           dir,
		ReductionRoot: dir,
		Timeout:       time.Minute,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Status, res.ExitCode)
	fmt.Print(res.Output)
	// Output:
	// failed 2
	// hello from the workspace
}

// ExampleStart shows the executor's view: start, preview, cancel, wait.
func ExampleStart() {
	dir, _ := os.MkdirTemp("", "runner-example")
	defer os.RemoveAll(dir)
	h, err := Start(context.Background(), pgBackend{}, Options{
		Command: "echo ready; sleep 60",
		Dir:     dir, ReductionRoot: dir,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	for h.Partial(0).TotalBytes == 0 {
		time.Sleep(10 * time.Millisecond)
	}
	fmt.Printf("%q\n", h.Partial(0).Text)
	h.Cancel()
	res := h.Wait()
	fmt.Println(res.Status)
	// Output:
	// "ready\n"
	// cancelled
}
