package main

import (
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/toolwarden/toolwarden/sdk/client"
)

func init() { subcommands = append(subcommands, newReviewCmd) }

func newReviewCmd() *cobra.Command {
	var o opsFlags
	cmd := &cobra.Command{
		Use:   "review",
		Short: "List, approve and reject executions held for review (reviewer key in TOOLWARDEN_KEY)",
	}
	o.register(cmd)
	var limit int
	list := &cobra.Command{
		Use:   "list",
		Short: "List executions pending review",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := o.client()
			if err != nil {
				return err
			}
			p, err := c.List(cmd.Context(), client.ListOptions{Status: client.StatusPendingReview, Limit: limit})
			if err != nil {
				return apiFailure(err)
			}
			return o.emit(cmd.OutOrStdout(), p, func(tw *tabwriter.Writer) { executionRows(tw, p.Executions) })
		},
	}
	list.Flags().IntVar(&limit, "limit", 50, "page size")
	decide := func(use, short string, approve bool) *cobra.Command {
		var reason string
		c := &cobra.Command{
			Use:   use + " ID",
			Short: short,
			Args:  cobra.ExactArgs(1),
			RunE: func(cmd *cobra.Command, args []string) error {
				c, err := o.client()
				if err != nil {
					return err
				}
				do := c.Reject
				if approve {
					do = c.Approve
				}
				e, err := do(cmd.Context(), args[0], reason)
				if err != nil {
					return apiFailure(err)
				}
				return o.emit(cmd.OutOrStdout(), e, func(tw *tabwriter.Writer) { executionDetail(tw, e) })
			},
		}
		c.Flags().StringVar(&reason, "reason", "", "why (recorded)")
		return c
	}
	cmd.AddCommand(list, decide("approve", "Approve a held execution: it is queued", true),
		decide("reject", "Reject a held execution: it ends blocked", false))
	return cmd
}
