package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/toolwarden/toolwarden/engine"
	"github.com/toolwarden/toolwarden/policies"
	"github.com/toolwarden/toolwarden/sdk"
)

func init() { subcommands = append(subcommands, newScanCmd, newPolicyCmd) }

func newScanCmd() *cobra.Command {
	var language, policyPath, toolName string
	cmd := &cobra.Command{
		Use:   "scan [flags] FILE|-",
		Short: "Scan a command, script or code file and print its SafetyReport",
		Long: `Scan reads content from FILE (or standard input for "-"), scans it with the built-in rule packs under
the policy, and prints the SafetyReport as JSON.

Exit codes: 0 allow, 1 needs_human_review, 2 deny, 3 usage or load error.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			content, err := readInput(args[0], cmd.InOrStdin())
			if err != nil {
				return usageErr(err)
			}
			pol, err := loadPolicy(policyPath)
			if err != nil {
				return usageErr(err)
			}
			ctx := cmd.Context()
			eng, err := engine.New(ctx, engine.Options{Policy: pol})
			if err != nil {
				return usageErr(err)
			}
			defer eng.Close(context.Background())
			if toolName == "" && args[0] != "-" {
				toolName = args[0]
			}
			rep, err := eng.Scan(ctx, engine.Request{ToolName: toolName, Language: language, Content: string(content)})
			if err != nil {
				return usageErr(err)
			}
			enc := json.NewEncoder(cmd.OutOrStdout())
			enc.SetIndent("", "  ")
			if err := enc.Encode(rep); err != nil {
				return usageErr(err)
			}
			return decisionExit(rep.Decision)
		},
	}
	cmd.Flags().StringVar(&language, "language", "auto", "language of the content: bash, python or auto")
	cmd.Flags().StringVar(&policyPath, "policy", "", "policy file (default: the built-in default policy)")
	cmd.Flags().StringVar(&toolName, "tool-name", "", "tool name to record in the report (default: the file name)")
	return cmd
}

// decisionExit maps a decision to scan's exit code.
func decisionExit(d sdk.Decision) error {
	switch d {
	case sdk.Allow:
		return nil
	case sdk.NeedsHumanReview:
		return &exitError{code: exitReview}
	}
	return &exitError{code: exitDeny}
}

// readInput reads a file, or standard input for "-".
func readInput(name string, stdin io.Reader) ([]byte, error) {
	if name == "-" {
		b, err := io.ReadAll(stdin)
		if err != nil {
			return nil, fmt.Errorf("read standard input: %w", err)
		}
		return b, nil
	}
	b, err := os.ReadFile(name)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	return b, nil
}

// loadPolicy loads the policy file, or the built-in default when path is
// empty; "default" and "strict" name the built-in documents.
//
// TOOLWARDEN_* overrides apply to the built-in documents too, as they do to
// a file: an operator who sets TOOLWARDEN_BLOCK_ON_REVIEW=true must get a
// blocking scan whichever policy the command line names.
func loadPolicy(path string) (*sdk.Policy, error) {
	switch path {
	case "", "default", "strict":
		name := path
		if name == "" {
			name = "default"
		}
		p, err := policies.Builtin(name)
		if err != nil {
			return nil, err
		}
		return policies.ApplyEnv(p)
	}
	return policies.Load(path)
}

func newPolicyCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "policy", Short: "Work with policy documents"}
	cmd.AddCommand(&cobra.Command{
		Use:   "validate FILE",
		Short: "Check a policy file strictly; exit 3 with the offending file and field on error",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if _, err := policies.Load(args[0]); err != nil {
				return usageErr(err)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "policy %s: ok\n", args[0])
			return nil
		},
	})
	return cmd
}
