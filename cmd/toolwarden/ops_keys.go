package main

import (
	"fmt"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
)

func init() { subcommands = append(subcommands, newKeysCmd) }

func newKeysCmd() *cobra.Command {
	var o opsFlags
	cmd := &cobra.Command{
		Use:   "keys",
		Short: "Create, list and revoke API keys (admin key in TOOLWARDEN_KEY)",
	}
	o.register(cmd)
	var role string
	create := &cobra.Command{
		Use:   "create NAME",
		Short: "Create an API key; its token is printed once",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := o.client()
			if err != nil {
				return err
			}
			k, err := c.CreateKey(cmd.Context(), args[0], role)
			if err != nil {
				return apiFailure(err)
			}
			return o.emit(cmd.OutOrStdout(), k, func(tw *tabwriter.Writer) {
				fmt.Fprintf(tw, "ID:\t%s\nName:\t%s\nRole:\t%s\nToken:\t%s\n", k.Key.ID, k.Key.Name, k.Key.Role, k.Token)
				fmt.Fprintln(tw, "(the token is shown once; store it now)")
			})
		},
	}
	create.Flags().StringVar(&role, "role", "agent", "agent, reviewer or admin")
	list := &cobra.Command{
		Use:   "list",
		Short: "List API keys",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := o.client()
			if err != nil {
				return err
			}
			keys, err := c.ListKeys(cmd.Context())
			if err != nil {
				return apiFailure(err)
			}
			return o.emit(cmd.OutOrStdout(), keys, func(tw *tabwriter.Writer) {
				fmt.Fprintln(tw, "ID\tNAME\tROLE\tCREATED")
				for _, k := range keys {
					fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", k.ID, k.Name, k.Role, k.CreatedAt.Local().Format(time.DateTime))
				}
			})
		},
	}
	revoke := &cobra.Command{
		Use:   "revoke ID",
		Short: "Revoke (delete) an API key",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := o.client()
			if err != nil {
				return err
			}
			if err := c.RevokeKey(cmd.Context(), args[0]); err != nil {
				return apiFailure(err)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "revoked %s\n", args[0])
			return nil
		},
	}
	cmd.AddCommand(create, list, revoke)
	return cmd
}
