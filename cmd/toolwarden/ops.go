package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/toolwarden/toolwarden/sdk/client"
)

// The operator commands (executions, review, keys) talk to a running
// server through sdk/client: --server or TOOLWARDEN_SERVER names it, and
// the API key comes from TOOLWARDEN_KEY only, never a flag, so it does not
// show in process listings or shell history.

// defaultServer is where the operator commands look without --server.
const defaultServer = "http://127.0.0.1:8080"

// opsFlags are the flags every operator command shares.
type opsFlags struct {
	server string
	output string
}

func (o *opsFlags) register(cmd *cobra.Command) {
	pf := cmd.PersistentFlags()
	pf.StringVar(&o.server, "server", envOr("TOOLWARDEN_SERVER", defaultServer), "server URL (env TOOLWARDEN_SERVER); the API key is read from TOOLWARDEN_KEY")
	pf.StringVarP(&o.output, "output", "o", "table", "output format: table or json")
}

// client builds the API client, refusing to go on without a key.
func (o *opsFlags) client() (*client.Client, error) {
	if o.output != "table" && o.output != "json" {
		return nil, usageErr(fmt.Errorf("-o %q: want table or json", o.output))
	}
	key := os.Getenv("TOOLWARDEN_KEY")
	if key == "" {
		return nil, usageErr(errors.New("no API key: set TOOLWARDEN_KEY (a reviewer key for review, an admin key for keys)"))
	}
	c, err := client.New(o.server, key)
	if err != nil {
		return nil, usageErr(fmt.Errorf("--server: %w", err))
	}
	return c, nil
}

// apiFailure turns a client error into the command's error (exit 1 for an
// API answer, 3 for no answer at all).
func apiFailure(err error) error {
	var ae *client.APIError
	if errors.As(err, &ae) {
		return &exitError{code: 1, err: err}
	}
	return usageErr(err)
}

// emit prints v as JSON, or calls table for the table form.
func (o *opsFlags) emit(w io.Writer, v any, table func(tw *tabwriter.Writer)) error {
	if o.output == "json" {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(v)
	}
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	table(tw)
	return tw.Flush()
}

// executionRows prints executions as a table.
func executionRows(tw *tabwriter.Writer, es []client.Execution) {
	fmt.Fprintln(tw, "ID\tSTATUS\tDECISION\tCONVERSATION\tCREATED\tCOMMAND")
	for _, e := range es {
		decision := ""
		if e.SafetyReport != nil {
			decision = string(e.SafetyReport.Decision)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", e.ExecutionID, e.Status, decision, dash(e.ConversationID),
			e.CreatedAt.Local().Format(time.DateTime), oneLine(e.Content, 60))
	}
}

// executionDetail prints one execution as a table of fields.
func executionDetail(tw *tabwriter.Writer, e *client.Execution) {
	row := func(k, v string) {
		if v != "" {
			fmt.Fprintf(tw, "%s:\t%s\n", k, v)
		}
	}
	row("ID", e.ExecutionID)
	row("Status", e.Status)
	row("Reason", e.StatusReason)
	if e.SafetyReport != nil {
		row("Decision", fmt.Sprintf("%s (%s)", e.SafetyReport.Decision, e.SafetyReport.RiskLevel))
		for _, f := range e.SafetyReport.Findings {
			row("Finding", f.RuleID+": "+f.Message)
		}
	}
	row("Conversation", e.ConversationID)
	row("Language", e.Language)
	row("Content", oneLine(e.Content, 200))
	if e.ExitCode != nil {
		row("Exit code", fmt.Sprint(*e.ExitCode))
	}
	row("Error", e.Error)
	row("Isolation", e.IsolationBackend)
	if e.Result != "" {
		row("Result", oneLine(e.Result, 200))
	}
	if e.PartialOutput != "" {
		row("Partial output", oneLine(e.PartialOutput, 200))
	}
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// oneLine shortens s to one line of at most n runes.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// contextWithTimeout bounds an operator command (wait --timeout).
func contextWithTimeout(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, d)
}
