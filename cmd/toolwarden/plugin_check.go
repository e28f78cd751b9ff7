package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/toolwarden/toolwarden/engine"
	"github.com/toolwarden/toolwarden/internal/policies"
	"github.com/toolwarden/toolwarden/sdk"
)

// pluginCase is one line of a plugin test corpus (JSON Lines): content to
// scan and the decision and rule ids the plugin must produce for it. The
// same shape is a manifest's self-test case.
type pluginCase struct {
	// Name labels the case in the output (default: its line number).
	Name     string `json:"name,omitempty"`
	Content  string `json:"content"`
	Language string `json:"language,omitempty"`
	// Decision is allow, needs_human_review or deny; Expect is the same
	// under the name a manifest's tests use, so cases move between the two.
	Decision sdk.Decision `json:"decision"`
	Expect   sdk.Decision `json:"expect,omitempty"`
	// Rules are the rule ids the scan must report, as a set: order and
	// repeats do not matter, a missing or an extra id is a mismatch.
	Rules []string `json:"rules"`
}

// readPluginCorpus reads a JSON Lines corpus strictly: an unknown field or a
// missing decision is an error naming the line, so a typo cannot turn a
// case into one that always passes.
func readPluginCorpus(path string) ([]pluginCase, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("corpus: %w", err)
	}
	defer f.Close()
	var cases []pluginCase
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 8<<20)
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 || line[0] == '#' {
			continue
		}
		var c pluginCase
		dec := json.NewDecoder(bytes.NewReader(line))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&c); err != nil {
			return nil, fmt.Errorf("corpus %s line %d: %w", path, n, err)
		}
		if c.Decision == "" {
			c.Decision = c.Expect
		} else if c.Expect != "" && c.Expect != c.Decision {
			return nil, fmt.Errorf("corpus %s line %d: decision %q and expect %q disagree", path, n, c.Decision, c.Expect)
		}
		if !c.Decision.Valid() {
			return nil, fmt.Errorf("corpus %s line %d: field \"decision\": want allow, needs_human_review or deny, got %q", path, n, c.Decision)
		}
		if c.Name == "" {
			c.Name = fmt.Sprintf("line %d", n)
		}
		cases = append(cases, c)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("corpus %s: %w", path, err)
	}
	if len(cases) == 0 {
		return nil, fmt.Errorf("corpus %s: no cases", path)
	}
	return cases, nil
}

// pluginEngineFlags choose what a plugin is judged beside and under.
type pluginEngineFlags struct {
	policy   string
	builtins bool
}

func (f *pluginEngineFlags) register(cmd *cobra.Command) {
	cmd.Flags().StringVar(&f.policy, "policy", "default", "policy: an embedded name (default, strict) or a file")
	cmd.Flags().BoolVar(&f.builtins, "with-builtins", false, "run the built-in packs too (decisions then include their findings)")
}

// engine builds an engine that runs the module under test with the same
// host, limits and aggregation as the server: only the plugin, or the
// plugin beside the built-in packs.
func (f *pluginEngineFlags) engine(ctx context.Context, wasm []byte) (*engine.Engine, error) {
	pol, err := policies.Builtin(f.policy)
	if err != nil {
		if pol, err = policies.Load(f.policy); err != nil {
			return nil, fmt.Errorf("--policy: %w", err)
		}
	}
	opts := engine.Options{Policy: pol, Plugins: map[string][]byte{"plugin-under-test": wasm}, AuditLogPath: ""}
	pol.AuditLogPath = ""
	if !f.builtins {
		opts.Packs = []engine.Pack{}
	}
	eng, err := engine.New(ctx, opts)
	if err != nil {
		return nil, fmt.Errorf("load plugin: %w", err)
	}
	return eng, nil
}

// ruleSet is the sorted, de-duplicated rule ids of a report's findings.
func ruleSet(rep *sdk.SafetyReport) []string {
	ids := []string{}
	for _, f := range rep.Findings {
		ids = append(ids, f.RuleID)
	}
	sort.Strings(ids)
	return slices.Compact(ids)
}

func sortedSet(ids []string) []string {
	out := append([]string{}, ids...)
	sort.Strings(out)
	return slices.Compact(out)
}

func newPluginTestCmd() *cobra.Command {
	var corpus string
	var ef pluginEngineFlags
	cmd := &cobra.Command{
		Use:   "test FILE.wasm --corpus cases.jsonl",
		Short: "Judge a corpus with a plugin and check each case's decision and rules",
		Long: `Test loads FILE.wasm in the same sandbox as the server (wazero, deadline, memory cap), scans each case
of the corpus through the native analyzers and the plugin, and compares the report's decision and the set of
rule ids with the case's. One line per case: "ok" or "FAIL" with what differed.

A corpus line is {"name", "content", "language", "decision", "rules": [ids]}.
Exit codes: 0 every case matched, 1 a case did not, 3 the module or corpus could not be loaded.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if corpus == "" {
				return usageErr(fmt.Errorf("test: --corpus is required"))
			}
			cases, err := readPluginCorpus(corpus)
			if err != nil {
				return usageErr(err)
			}
			wasm, err := readModule(args[0])
			if err != nil {
				return usageErr(err)
			}
			ctx := cmd.Context()
			eng, err := ef.engine(ctx, wasm)
			if err != nil {
				return usageErr(err)
			}
			defer eng.Close(context.Background())
			failed := runCases(ctx, eng, cases, cmd.OutOrStdout())
			fmt.Fprintf(cmd.OutOrStdout(), "%d passed, %d failed\n", len(cases)-failed, failed)
			if failed > 0 {
				return &exitError{code: exitMismatch, err: fmt.Errorf("test: %d of %d cases did not match", failed, len(cases))}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&corpus, "corpus", "", "JSON Lines file of cases (required)")
	ef.register(cmd)
	return cmd
}

// runCases scans every case and prints one line each; it returns how many
// did not match. A case the engine refuses to scan counts as failed.
func runCases(ctx context.Context, eng *engine.Engine, cases []pluginCase, w io.Writer) int {
	failed := 0
	for _, c := range cases {
		rep, err := eng.Scan(ctx, engine.Request{ToolName: "plugin-test", Language: c.Language, Content: c.Content})
		if err != nil {
			failed++
			fmt.Fprintf(w, "FAIL %s: scan: %v\n", c.Name, err)
			continue
		}
		got, want := ruleSet(rep), sortedSet(c.Rules)
		var diffs []string
		if rep.Decision != c.Decision {
			diffs = append(diffs, fmt.Sprintf("decision %s, want %s", rep.Decision, c.Decision))
		}
		if !slices.Equal(got, want) {
			diffs = append(diffs, fmt.Sprintf("rules [%s], want [%s]", strings.Join(got, " "), strings.Join(want, " ")))
		}
		if len(diffs) > 0 {
			failed++
			msg := strings.Join(diffs, "; ")
			for _, f := range rep.Findings {
				if f.RuleID == engine.RulePluginError {
					msg += "; plugin error: " + f.Message
				}
			}
			fmt.Fprintf(w, "FAIL %s: %s\n", c.Name, msg)
			continue
		}
		fmt.Fprintf(w, "ok   %s: %s [%s]\n", c.Name, rep.Decision, strings.Join(got, " "))
	}
	return failed
}

func newPluginBenchCmd() *cobra.Command {
	var corpus string
	var rounds int
	var ef pluginEngineFlags
	cmd := &cobra.Command{
		Use:   "bench FILE.wasm --corpus cases.jsonl",
		Short: "Time scans of a corpus with a plugin, beside the same scans without it",
		Long: `Bench scans each case of the corpus ROUNDS times with an engine running the plugin and with one running
no rule at all (the analyzers and aggregation only), interleaved so both see the same machine load, and prints
the median and p99 of each and what the plugin adds. Figures are per scan on this machine; compare them as
ratios, not as absolute numbers.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if corpus == "" {
				return usageErr(fmt.Errorf("bench: --corpus is required"))
			}
			if rounds < 1 {
				return usageErr(fmt.Errorf("bench: --rounds %d: want at least 1", rounds))
			}
			cases, err := readPluginCorpus(corpus)
			if err != nil {
				return usageErr(err)
			}
			wasm, err := readModule(args[0])
			if err != nil {
				return usageErr(err)
			}
			ctx := cmd.Context()
			eng, err := ef.engine(ctx, wasm)
			if err != nil {
				return usageErr(err)
			}
			defer eng.Close(context.Background())
			base, err := engine.New(ctx, engine.Options{Policy: eng.Policy(), Packs: []engine.Pack{}})
			if err != nil {
				return usageErr(fmt.Errorf("bench: baseline engine: %w", err))
			}
			defer base.Close(context.Background())
			var with, without []time.Duration
			for r := 0; r < rounds; r++ {
				for _, c := range cases {
					req := engine.Request{ToolName: "plugin-bench", Language: c.Language, Content: c.Content}
					for _, e := range []struct {
						eng *engine.Engine
						out *[]time.Duration
					}{{eng, &with}, {base, &without}} {
						start := time.Now()
						if _, err := e.eng.Scan(ctx, req); err != nil {
							return usageErr(fmt.Errorf("bench: case %s: %w", c.Name, err))
						}
						*e.out = append(*e.out, time.Since(start))
					}
				}
			}
			w := cmd.OutOrStdout()
			mw, pw := quantiles(with)
			mb, pb := quantiles(without)
			fmt.Fprintf(w, "scans: %d cases × %d rounds\n", len(cases), rounds)
			fmt.Fprintf(w, "with plugin:    median %s  p99 %s\n", mw, pw)
			fmt.Fprintf(w, "without rules:  median %s  p99 %s\n", mb, pb)
			fmt.Fprintf(w, "plugin adds:    median %s (%.2f× the rule-less scan)\n", mw-mb, float64(mw)/float64(max(mb, 1)))
			return nil
		},
	}
	cmd.Flags().StringVar(&corpus, "corpus", "", "JSON Lines file of cases (required)")
	cmd.Flags().IntVar(&rounds, "rounds", 50, "times each case is scanned")
	ef.register(cmd)
	return cmd
}

// quantiles returns the median and the 99th percentile of ds.
func quantiles(ds []time.Duration) (median, p99 time.Duration) {
	if len(ds) == 0 {
		return 0, 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2], s[min(len(s)-1, len(s)*99/100)]
}
