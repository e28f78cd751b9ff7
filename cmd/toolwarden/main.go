// Command toolwarden is the one binary of toolwarden: the server, the
// executor daemon, and the scan, eval, run and policy tools. Each
// subcommand lives in its own file of this package.
package main

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/toolwarden/toolwarden/internal/version"
)

// Exit codes shared by the subcommands. scan uses them for its decision;
// every command uses exitUsage for bad flags, unreadable input and load
// errors.
const (
	exitAllow  = 0
	exitReview = 1
	exitDeny   = 2
	exitUsage  = 3
)

// exitError carries a process exit code through cobra's error return.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit %d", e.code)
	}
	return e.err.Error()
}

func (e *exitError) Unwrap() error { return e.err }

// usageErr wraps err as a usage or load error (exit 3).
func usageErr(err error) error { return &exitError{code: exitUsage, err: err} }

func newRoot() *cobra.Command {
	root := &cobra.Command{
		Use:           "toolwarden",
		Short:         "Scan, queue and run AI agents' tool calls under policy and OS isolation",
		SilenceUsage:  true,
		SilenceErrors: true,
		// --version prints the build's module version and VCS revision
		// (runtime/debug.ReadBuildInfo), so reports name the exact code.
		Version: version.Get().String(),
	}
	root.SetVersionTemplate("toolwarden {{.Version}}\n")
	for _, add := range subcommands {
		root.AddCommand(add())
	}
	return root
}

// flushTraces exports the spans still queued, bounded so a collector that
// is down cannot hold the exit.
func flushTraces(shutdown func(context.Context) error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := shutdown(ctx); err != nil {
		fmt.Fprintln(os.Stderr, "toolwarden: flush traces:", err)
	}
}

// subcommands is filled by each subcommand file's init.
var subcommands []func() *cobra.Command

func main() {
	shutdown, err := startTracing(context.Background())
	if err != nil {
		fmt.Fprintln(os.Stderr, "toolwarden:", err)
		os.Exit(exitUsage)
	}
	err = newRoot().Execute()
	flushTraces(shutdown)
	if err == nil {
		return
	}
	code := exitUsage
	if ee, ok := err.(*exitError); ok {
		code = ee.code
		if ee.err == nil {
			os.Exit(code)
		}
	}
	fmt.Fprintln(os.Stderr, "toolwarden:", err)
	os.Exit(code)
}
