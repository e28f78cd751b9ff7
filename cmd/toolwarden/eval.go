package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"runtime"
	"sort"
	"time"

	"github.com/spf13/cobra"

	"github.com/toolwarden/toolwarden/engine"
	"github.com/toolwarden/toolwarden/sdk"
)

func init() { subcommands = append(subcommands, newEvalCmd) }

// evalCase is one line of a corpus file.
type evalCase struct {
	ID       string `json:"id"`
	Language string `json:"language"`
	Content  string `json:"content"`
	Expect   string `json:"expect"`
	Evasion  bool   `json:"evasion"`
}

// evalResult is the line eval prints per case.
type evalResult struct {
	ID        string   `json:"id"`
	Decision  string   `json:"decision"`
	RiskLevel string   `json:"risk_level"`
	RuleIDs   []string `json:"rule_ids"`
	ElapsedMS float64  `json:"elapsed_ms"`
	Expect    string   `json:"expect,omitempty"`
	Error     string   `json:"error,omitempty"`
}

// EvalSummary aggregates a corpus run: the confusion matrix (expected →
// decided → count) and the figures the project's bars are stated in.
type EvalSummary struct {
	Cases     int                       `json:"cases"`
	Labelled  int                       `json:"labelled"`
	Errors    int                       `json:"errors"`
	Confusion map[string]map[string]int `json:"confusion"`
	// ExactAgreement is the share of labelled cases decided as labelled.
	ExactAgreement float64 `json:"exact_agreement"`
	// DenyRecall is the share of deny-labelled cases decided deny.
	DenyRecall float64 `json:"deny_recall"`
	// EvasionDenyRecall is DenyRecall over evasion cases only.
	EvasionDenyRecall float64 `json:"evasion_deny_recall"`
	// FalseDenyRate is the share of allow-labelled cases decided deny.
	FalseDenyRate float64 `json:"false_deny_rate"`
	// Mismatches lists the ids decided otherwise than labelled.
	Mismatches []string `json:"mismatches,omitempty"`
	P50MS      float64  `json:"p50_ms"`
	P99MS      float64  `json:"p99_ms"`
}

func newEvalCmd() *cobra.Command {
	var corpus, policyPath string
	cmd := &cobra.Command{
		Use:   "eval --corpus FILE.jsonl [--policy FILE]",
		Short: "Scan every case of a JSONL corpus and score the decisions",
		Long: `Eval scans each line of a corpus ({"id","language","content","expect"?}) and prints one JSON line per case
({"id","decision","risk_level","rule_ids","elapsed_ms"}), then one {"summary":…} line with a confusion matrix
and agreement figures when cases carry "expect". A readable summary goes to standard error.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if corpus == "" {
				return usageErr(fmt.Errorf("--corpus is required"))
			}
			f, err := os.Open(corpus)
			if err != nil {
				return usageErr(fmt.Errorf("open corpus: %w", err))
			}
			defer f.Close()
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
			sum, err := runEval(ctx, eng, f, cmd.OutOrStdout())
			if err != nil {
				return usageErr(err)
			}
			printSummary(cmd.ErrOrStderr(), sum)
			return nil
		},
	}
	cmd.Flags().StringVar(&corpus, "corpus", "", "JSONL corpus file")
	cmd.Flags().StringVar(&policyPath, "policy", "", "policy file (default: the built-in default policy)")
	return cmd
}

// runEval scans each case of r with eng, writes the per-case lines and the
// summary line to w, and returns the summary. Cases are scanned in parallel
// by evalWorkers() workers (the engine is safe for concurrent scans), and
// the lines are written in corpus order: a bounded window of cases in
// flight keeps memory flat however long the corpus is.
func runEval(ctx context.Context, eng *engine.Engine, r io.Reader, w io.Writer) (*EvalSummary, error) {
	return runEvalWorkers(ctx, eng, r, w, evalWorkers())
}

// evalWorkers is the number of concurrent scans of eval: one per core Go
// may use.
func evalWorkers() int { return max(1, runtime.GOMAXPROCS(0)) }

// evalJob is one corpus line on its way through the workers; done is
// closed once res (or err, for a line that is not a case) is set.
type evalJob struct {
	c       evalCase
	res     evalResult
	elapsed float64
	err     error
	done    chan struct{}
}

// runEvalWorkers is runEval with a given number of workers.
func runEvalWorkers(ctx context.Context, eng *engine.Engine, r io.Reader, w io.Writer, workers int) (*EvalSummary, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	workers = max(1, workers)
	// ordered carries every job in corpus order to the writer below; its
	// capacity (with the workers' own) bounds the cases in flight.
	ordered := make(chan *evalJob, 4*workers)
	jobs := make(chan *evalJob)
	var readErr error
	go func() {
		defer close(ordered)
		defer close(jobs)
		sc := bufio.NewScanner(r)
		sc.Buffer(make([]byte, 1<<20), 16<<20)
		lineNo := 0
		for sc.Scan() {
			lineNo++
			line := bytes.TrimSpace(sc.Bytes())
			if len(line) == 0 {
				continue
			}
			j := &evalJob{done: make(chan struct{})}
			if err := json.Unmarshal(line, &j.c); err != nil {
				j.err = fmt.Errorf("corpus line %d: %w", lineNo, err)
				close(j.done)
				select {
				case ordered <- j:
				case <-ctx.Done():
				}
				return
			}
			select {
			case ordered <- j:
			case <-ctx.Done():
				return
			}
			select {
			case jobs <- j:
			case <-ctx.Done():
				return
			}
		}
		readErr = sc.Err()
	}()
	for i := 0; i < workers; i++ {
		go func() {
			for j := range jobs {
				scanCase(ctx, eng, j)
				close(j.done)
			}
		}()
	}

	sum := &EvalSummary{Confusion: map[string]map[string]int{}}
	enc := json.NewEncoder(w)
	var times []float64
	var sc evalScore
	for j := range ordered {
		<-j.done
		if j.err != nil {
			return nil, j.err
		}
		sum.Cases++
		res := j.res
		if res.Error != "" {
			sum.Errors++
		} else {
			times = append(times, j.elapsed)
		}
		if err := enc.Encode(res); err != nil {
			return nil, err
		}
		sc.add(sum, j.c, res)
	}
	// ordered is closed only after the reader stopped, so readErr is set.
	if readErr != nil {
		return nil, fmt.Errorf("read corpus: %w", readErr)
	}
	sc.finish(sum)
	sort.Float64s(times)
	sum.P50MS = percentile(times, 0.50)
	sum.P99MS = percentile(times, 0.99)
	if err := enc.Encode(map[string]any{"summary": sum}); err != nil {
		return nil, err
	}
	return sum, nil
}

// scanCase scans one case into j.res.
func scanCase(ctx context.Context, eng *engine.Engine, j *evalJob) {
	c := j.c
	j.res = evalResult{ID: c.ID, Expect: c.Expect, RuleIDs: []string{}}
	start := time.Now()
	rep, err := eng.Scan(ctx, engine.Request{ScanID: c.ID, ToolName: c.ID, Language: c.Language, Content: c.Content})
	j.elapsed = float64(time.Since(start).Microseconds()) / 1000
	if err != nil {
		j.res.Error = err.Error()
		j.res.Decision = "error"
		return
	}
	j.res.Decision = string(rep.Decision)
	j.res.RiskLevel = string(rep.RiskLevel)
	j.res.RuleIDs = append(j.res.RuleIDs, rep.RuleIDs()...)
	j.res.ElapsedMS = rep.ElapsedMS
}

// evalScore counts what the summary's rates are made of.
type evalScore struct {
	denyTotal, denyHit, evTotal, evHit, allowTotal, allowDenied, agree int
}

// add scores one labelled case (unlabelled ones count only as cases).
func (s *evalScore) add(sum *EvalSummary, c evalCase, res evalResult) {
	if c.Expect == "" {
		return
	}
	sum.Labelled++
	if sum.Confusion[c.Expect] == nil {
		sum.Confusion[c.Expect] = map[string]int{}
	}
	sum.Confusion[c.Expect][res.Decision]++
	if res.Decision == c.Expect {
		s.agree++
	} else {
		sum.Mismatches = append(sum.Mismatches, fmt.Sprintf("%s: want %s, got %s %v", c.ID, c.Expect, res.Decision, res.RuleIDs))
	}
	switch sdk.Decision(c.Expect) {
	case sdk.Deny:
		s.denyTotal++
		if res.Decision == string(sdk.Deny) {
			s.denyHit++
		}
		if c.Evasion {
			s.evTotal++
			if res.Decision == string(sdk.Deny) {
				s.evHit++
			}
		}
	case sdk.Allow:
		s.allowTotal++
		if res.Decision == string(sdk.Deny) {
			s.allowDenied++
		}
	}
}

// finish fills the summary's rates.
func (s *evalScore) finish(sum *EvalSummary) {
	sum.ExactAgreement = ratio(s.agree, sum.Labelled)
	sum.DenyRecall = ratio(s.denyHit, s.denyTotal)
	sum.EvasionDenyRecall = ratio(s.evHit, s.evTotal)
	sum.FalseDenyRate = ratio(s.allowDenied, s.allowTotal)
}

func ratio(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

func percentile(sorted []float64, p float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	i := int(p * float64(len(sorted)-1))
	return sorted[i]
}

func printSummary(w io.Writer, s *EvalSummary) {
	fmt.Fprintf(w, "cases %d, labelled %d, errors %d\n", s.Cases, s.Labelled, s.Errors)
	if s.Labelled == 0 {
		return
	}
	decs := []string{"allow", "needs_human_review", "deny", "error"}
	fmt.Fprintf(w, "%-20s", "expected \\ decided")
	for _, d := range decs {
		fmt.Fprintf(w, " %19s", d)
	}
	fmt.Fprintln(w)
	for _, e := range decs[:3] {
		fmt.Fprintf(w, "%-20s", e)
		for _, d := range decs {
			fmt.Fprintf(w, " %19d", s.Confusion[e][d])
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "exact agreement %.1f%%, deny recall %.1f%% (evasion %.1f%%), false denies on allow %.1f%%, p50 %.3f ms, p99 %.3f ms\n",
		100*s.ExactAgreement, 100*s.DenyRecall, 100*s.EvasionDenyRecall, 100*s.FalseDenyRate, s.P50MS, s.P99MS)
	for _, m := range s.Mismatches {
		fmt.Fprintln(w, "  mismatch", m)
	}
}
