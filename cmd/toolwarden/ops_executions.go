package main

import (
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/toolwarden/toolwarden/sdk/client"
)

func init() { subcommands = append(subcommands, newExecutionsCmd) }

func newExecutionsCmd() *cobra.Command {
	var o opsFlags
	cmd := &cobra.Command{
		Use:   "executions",
		Short: "List, inspect, wait for, cancel and read executions on a server (--server, TOOLWARDEN_KEY)",
	}
	o.register(cmd)

	var lo client.ListOptions
	list := &cobra.Command{
		Use:   "list",
		Short: "List executions, newest first",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := o.client()
			if err != nil {
				return err
			}
			p, err := c.List(cmd.Context(), lo)
			if err != nil {
				return apiFailure(err)
			}
			return o.emit(cmd.OutOrStdout(), p, func(tw *tabwriter.Writer) {
				executionRows(tw, p.Executions)
				if p.NextCursor != "" {
					fmt.Fprintf(tw, "(more: --cursor %s)\n", p.NextCursor)
				}
			})
		},
	}
	list.Flags().StringVar(&lo.ConversationID, "conversation", "", "only this conversation's executions")
	list.Flags().StringVar(&lo.Status, "status", "", "only executions in this status")
	list.Flags().IntVar(&lo.Limit, "limit", 50, "page size")
	list.Flags().StringVar(&lo.Cursor, "cursor", "", "continue a previous listing")

	get := &cobra.Command{
		Use:   "get ID",
		Short: "Show one execution",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := o.client()
			if err != nil {
				return err
			}
			e, err := c.Get(cmd.Context(), args[0])
			if err != nil {
				return apiFailure(err)
			}
			return o.emit(cmd.OutOrStdout(), e, func(tw *tabwriter.Writer) { executionDetail(tw, e) })
		},
	}

	var timeout, step time.Duration
	wait := &cobra.Command{
		Use:   "wait ID",
		Short: "Wait for an execution to finish, with a progress line on stderr",
		Long: `wait waits in bounded steps (--step) until the execution finishes or --timeout passes,
printing a progress line on stderr per step. It exits 0 when the execution completed, 1 when it
ended otherwise (failed, blocked, cancelled, hard_timeout) and 124 when --timeout passed first.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := o.client()
			if err != nil {
				return err
			}
			ctx := cmd.Context()
			if timeout > 0 {
				var cancel func()
				ctx, cancel = contextWithTimeout(ctx, timeout)
				defer cancel()
			}
			began := time.Now()
			stderr := cmd.ErrOrStderr()
			e, err := c.Wait(ctx, args[0], step, func(e *client.Execution) { progressLine(stderr, e, began) })
			if err != nil && e == nil {
				if ctx.Err() != nil && cmd.Context().Err() == nil {
					return &exitError{code: exitTimeout, err: fmt.Errorf("execution %s not finished after %s", args[0], timeout)}
				}
				return apiFailure(err)
			}
			if err := o.emit(cmd.OutOrStdout(), e, func(tw *tabwriter.Writer) { executionDetail(tw, e) }); err != nil {
				return err
			}
			switch {
			case !e.Terminal():
				return &exitError{code: exitTimeout, err: fmt.Errorf("execution %s still %s after %s", e.ExecutionID, e.Status, timeout)}
			case e.Status != client.StatusCompleted:
				return &exitError{code: 1}
			}
			return nil
		},
	}
	wait.Flags().DurationVar(&timeout, "timeout", 0, "give up after this long (0: wait until it ends)")
	wait.Flags().DurationVar(&step, "step", 10*time.Second, "longest single wait request")

	var reason string
	cancel := &cobra.Command{
		Use:   "cancel ID",
		Short: "Cancel an execution",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := o.client()
			if err != nil {
				return err
			}
			e, err := c.Cancel(cmd.Context(), args[0], reason)
			if err != nil {
				return apiFailure(err)
			}
			return o.emit(cmd.OutOrStdout(), e, func(tw *tabwriter.Writer) { executionDetail(tw, e) })
		},
	}
	cancel.Flags().StringVar(&reason, "reason", "", "why (recorded)")

	output := &cobra.Command{
		Use:   "output ID",
		Short: "Print the full output of a finished execution (the persisted file when it was reduced)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := o.client()
			if err != nil {
				return err
			}
			if _, err := io.Copy(cmd.OutOrStdout(), c.OutputReader(cmd.Context(), args[0], 0)); err != nil {
				return apiFailure(err)
			}
			return nil
		},
	}
	cmd.AddCommand(list, get, wait, cancel, output)
	return cmd
}

// progressLine tells the operator what a wait sees, one line per step.
func progressLine(w io.Writer, e *client.Execution, began time.Time) {
	line := fmt.Sprintf("toolwarden: %s %s after %s", e.ExecutionID, e.Status, time.Since(began).Round(time.Second))
	if e.PartialOutputBytes > 0 {
		line += fmt.Sprintf(", %d bytes of output", e.PartialOutputBytes)
	}
	fmt.Fprintln(w, line)
}
