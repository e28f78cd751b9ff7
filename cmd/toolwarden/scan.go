package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/toolwarden/toolwarden/engine"
	"github.com/toolwarden/toolwarden/internal/policies"
	"github.com/toolwarden/toolwarden/internal/service"
	"github.com/toolwarden/toolwarden/sdk"
)

func init() { subcommands = append(subcommands, newScanCmd, newPolicyCmd) }

func newScanCmd() *cobra.Command {
	var language, policyPath, toolName, cwd, requestPath string
	var timeout float64
	var maxOutput int64
	var commandArgs, envNames []string
	cmd := &cobra.Command{
		Use:   "scan [flags] FILE|-",
		Short: "Scan a command, script or code file and print its SafetyReport",
		Long: `Scan reads content from FILE (or standard input for "-"), scans it with the built-in rule packs under
the policy, and prints the SafetyReport as JSON. It judges exactly what the API judges: the request context
(--cwd, --timeout, --max-output-bytes, --command-args, --env NAME) or a whole tool request (--request FILE.json,
the body of POST /v1/scan, every content field scanned).

Exit codes: 0 allow, 1 needs_human_review, 2 deny, 3 usage or load error.`,
		Args: cobra.RangeArgs(0, 1),
		RunE: func(cmd *cobra.Command, args []string) error {
			var req service.ToolRequest
			switch {
			case requestPath != "":
				data, err := readInput(requestPath, cmd.InOrStdin())
				if err != nil {
					return usageErr(err)
				}
				dec := json.NewDecoder(bytes.NewReader(data))
				dec.DisallowUnknownFields()
				if err := dec.Decode(&req); err != nil {
					return usageErr(fmt.Errorf("request %s: %w", requestPath, err))
				}
				if len(args) == 1 {
					return usageErr(fmt.Errorf("give either FILE or --request, not both"))
				}
			case len(args) == 1:
				content, err := readInput(args[0], cmd.InOrStdin())
				if err != nil {
					return usageErr(err)
				}
				req = service.ToolRequest{Language: language, Script: string(content)}
				if toolName == "" && args[0] != "-" {
					toolName = args[0]
				}
			default:
				return usageErr(fmt.Errorf("give FILE (or - for standard input) or --request FILE.json"))
			}
			// Flags set on the command line add to (or override) the
			// request's context.
			if toolName != "" {
				req.ToolName = toolName
			}
			if cmd.Flags().Changed("cwd") {
				req.Cwd = cwd
			}
			if cmd.Flags().Changed("timeout") {
				req.TimeoutSeconds = timeout
			}
			if cmd.Flags().Changed("max-output-bytes") {
				req.MaxOutputBytes = maxOutput
			}
			if cmd.Flags().Changed("command-args") {
				req.CommandArgs = commandArgs
			}
			for _, n := range envNames {
				if req.Env == nil {
					req.Env = map[string]string{}
				}
				if _, ok := req.Env[n]; !ok {
					req.Env[n] = "" // names only: values never pass the command line
				}
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
			var rep *sdk.SafetyReport
			if req.Script == "" && len(args) == 1 && len(req.CommandArgs) == 0 {
				// Empty content: scanned as such (the engine's answer for
				// nothing to run).
				rep, err = eng.Scan(ctx, engine.Request{ToolName: req.ToolName, Language: language, Content: "",
					Cwd: req.Cwd, TimeoutSeconds: req.TimeoutSeconds, MaxOutputBytes: req.MaxOutputBytes, Env: req.Env})
			} else {
				svc := &service.Service{Engine: eng}
				pieces, perr := req.Pieces()
				if perr != nil {
					return usageErr(perr)
				}
				rep, err = svc.Scan(ctx, &req, pieces)
			}
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
	cmd.Flags().StringVar(&language, "language", "auto", "language of the content: bash, python, auto (or unknown: detected) or mixed (scanned as both)")
	cmd.Flags().StringVar(&policyPath, "policy", "", "policy file (default: the built-in default policy)")
	cmd.Flags().StringVar(&toolName, "tool-name", "", "tool name to record in the report (default: the file name)")
	cmd.Flags().StringVar(&cwd, "cwd", "", "working directory the call would run in (judged like the API's cwd)")
	cmd.Flags().Float64Var(&timeout, "timeout", 0, "requested timeout in seconds")
	cmd.Flags().Int64Var(&maxOutput, "max-output-bytes", 0, "requested output budget in bytes")
	cmd.Flags().StringSliceVar(&commandArgs, "command-args", nil, "arguments the content is run with (comma-separated or repeated)")
	cmd.Flags().StringArrayVar(&envNames, "env", nil, "name of an environment variable the call sets (names only; repeatable)")
	cmd.Flags().StringVar(&requestPath, "request", "", "a whole tool request (JSON body of POST /v1/scan; - for standard input)")
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
