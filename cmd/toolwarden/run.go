package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/toolwarden/toolwarden/engine"
	"github.com/toolwarden/toolwarden/internal/isolation"
	"github.com/toolwarden/toolwarden/internal/reduction"
	"github.com/toolwarden/toolwarden/internal/runner"
	"github.com/toolwarden/toolwarden/sdk"
)

// Exit codes of `toolwarden run` beyond the command's own: they follow the
// shell's conventions (timeout(1) uses 124, a shell 126 for "cannot
// execute"), so scripts wrapping toolwarden run read them as usual.
const (
	exitBlocked   = 126
	exitTimeout   = 124
	exitCancelled = 130
)

func init() {
	// The isolation backends re-execute this binary as their workload shim,
	// supervisor and watchdog; those processes must never reach the CLI.
	if isolation.IsShim() {
		isolation.ShimMain()
	}
	subcommands = append(subcommands, newRunCmd)
}

// runFlags are the flags of `toolwarden run`.
type runFlags struct {
	policy          string
	language        string
	command         string
	timeout         time.Duration
	noOutputTimeout time.Duration
	maxOutput       int
	cwd             string
	reductionRoot   string
	isolationMode   string
	// timeoutSet and maxOutputSet record that the user asked for a value,
	// which is then part of the scanned request (a default is not).
	timeoutSet, maxOutputSet bool
}

func newRunCmd() *cobra.Command {
	var f runFlags
	cmd := &cobra.Command{
		Use:   "run [flags] (-c 'COMMAND LINE' | FILE)",
		Short: "Scan a command or script, then run it under OS isolation with timeouts and bounded output",
		Long: `run scans the command line (-c) or script FILE with the safety rules first.
A blocked call prints its SafetyReport as JSON on stderr and exits 126 without
running anything. Otherwise the command runs under the strongest isolation
backend available, stdout and stderr merged; the reduced result (at most
--max-output bytes, the full output persisted to a file when larger) is
printed on stdout, and run exits with the command's exit code (124 on a hard
or no-output timeout, 130 when interrupted, 128+N when killed by signal N).`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			f.timeoutSet = cmd.Flags().Changed("timeout")
			f.maxOutputSet = cmd.Flags().Changed("max-output")
			return runRun(cmd.Context(), f, args, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.policy, "policy", "", "policy file (default: the built-in default policy)")
	fl.StringVar(&f.language, "language", "", "bash or python (default bash; python for a .py FILE)")
	fl.StringVarP(&f.command, "command", "c", "", "command line to run instead of a FILE")
	fl.DurationVar(&f.timeout, "timeout", runner.DefaultTimeout, "hard timeout")
	fl.DurationVar(&f.noOutputTimeout, "no-output-timeout", runner.DefaultNoOutputTimeout, "kill the run after this long without output")
	fl.IntVar(&f.maxOutput, "max-output", reduction.DefaultMaxLength, "cap on the printed result in bytes")
	fl.StringVar(&f.cwd, "cwd", "", "working directory and workspace (default: the current directory)")
	fl.StringVar(&f.reductionRoot, "reduction-root", reduction.DefaultRoot, "where oversized outputs are persisted")
	fl.StringVar(&f.isolationMode, "isolation", isolation.ModeAuto, "isolation mode: auto, required or process_group")
	return cmd
}

// runRun is the body of `toolwarden run`: scan, then run, then report.
func runRun(ctx context.Context, f runFlags, args []string, stdout, stderr io.Writer) error {
	if ctx == nil {
		ctx = context.Background()
	}
	content, lang, script, err := runContent(f, args)
	if err != nil {
		return usageErr(err)
	}
	cwd := f.cwd
	if cwd == "" {
		if cwd, err = os.Getwd(); err != nil {
			return usageErr(fmt.Errorf("working directory: %w", err))
		}
	}
	if cwd, err = filepath.Abs(cwd); err != nil {
		return usageErr(fmt.Errorf("working directory %q: %w", f.cwd, err))
	}

	pol, err := loadPolicy(f.policy)
	if err != nil {
		return usageErr(err)
	}

	// Without --timeout the run gets the default, but never more than the
	// policy allows; an explicit --timeout is scanned like any request.
	req := engine.Request{ToolName: "toolwarden run", Language: lang, Content: content, Cwd: cwd}
	if f.timeoutSet {
		req.TimeoutSeconds = f.timeout.Seconds()
	} else if max := time.Duration(pol.MaxTimeoutSeconds * float64(time.Second)); max > 0 && max < f.timeout {
		f.timeout = max
	}
	if f.maxOutputSet {
		req.MaxOutputBytes = int64(f.maxOutput)
	}
	if f.timeout <= 0 || f.noOutputTimeout < 0 || f.maxOutput < reduction.MinMaxLength {
		return usageErr(fmt.Errorf("--timeout must be positive, --no-output-timeout not negative, --max-output at least %d", reduction.MinMaxLength))
	}

	// Scan first; nothing runs unless the scan says so.
	report, _, err := scanForRun(ctx, pol, req)
	if err != nil {
		// Fail closed: a scan that could not finish blocks the run.
		return &exitError{code: exitBlocked, err: fmt.Errorf("scan failed, not running: %w", err)}
	}
	if report.Blocked {
		enc := json.NewEncoder(stderr)
		enc.SetIndent("", "  ")
		if err := enc.Encode(report); err != nil {
			return &exitError{code: exitBlocked, err: fmt.Errorf("blocked; print report: %w", err)}
		}
		return &exitError{code: exitBlocked}
	}
	if report.Decision != sdk.Allow {
		// Reviewed but not blocked: it runs, and the reasons are shown.
		fmt.Fprintf(stderr, "toolwarden: %s (%s), running anyway under policy %q\n", report.Decision, report.RiskLevel, pol.Name)
		for _, fd := range report.Findings {
			fmt.Fprintf(stderr, "toolwarden:   %s: %s\n", fd.RuleID, fd.Message)
		}
	}

	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	// A root of its own, so that several `toolwarden run` and a daemon can
	// work side by side on one host.
	backend, err := openIsolation(ctx, isolation.Config{Mode: f.isolationMode, CgroupRoot: fmt.Sprintf("auto:run-%d", os.Getpid())})
	if err != nil {
		return &exitError{code: exitBlocked, err: fmt.Errorf("open isolation (%s): %w", f.isolationMode, err)}
	}
	if r, ok := backend.(isolation.Reasoner); ok && len(r.Reasons()) > 0 {
		// Never downgrade silently: say which backend runs and why.
		fmt.Fprintf(stderr, "toolwarden: isolation backend %s (best effort): %s\n", backend.Name(), strings.Join(r.Reasons(), "; "))
	}
	defer func() {
		if err := backend.Close(); err != nil {
			fmt.Fprintf(stderr, "toolwarden: close isolation: %v\n", err)
		}
	}()

	// As root the workload runs as an unprivileged uid: it works in a
	// private copy of the directory, with a private HOME and caches, and
	// its changes are brought back owned by the caller (runplace.go).
	dir, workspace := cwd, ""
	var env map[string]string
	if os.Geteuid() == 0 {
		place, err := newRunPlace(cwd)
		if err != nil {
			return &exitError{code: exitBlocked, err: err}
		}
		defer func() {
			if err := place.Close(); err != nil {
				fmt.Fprintf(stderr, "toolwarden: remove run place: %v\n", err)
			}
		}()
		defer func() {
			if err := place.copyBack(); err != nil {
				fmt.Fprintf(stderr, "toolwarden: copy changes back into %s: %v\n", cwd, err)
			}
		}()
		dir, workspace, env = place.work, place.base, place.Env()
	}
	opts := runner.Options{
		Language:        lang,
		Dir:             dir,
		Workspace:       workspace,
		Env:             env,
		Stdin:           os.Stdin,
		Timeout:         f.timeout,
		NoOutputTimeout: f.noOutputTimeout,
		MaxResultBytes:  f.maxOutput,
		ReductionRoot:   f.reductionRoot,
		ExecutionID:     report.ScanID,
	}
	if script {
		opts.Script = content
	} else {
		opts.Command = content
	}
	res, err := runner.Run(ctx, backend, opts)
	if err != nil {
		return &exitError{code: exitBlocked, err: err}
	}
	if _, err := io.WriteString(stdout, res.Output); err != nil {
		return &exitError{code: exitUsage, err: fmt.Errorf("print result: %w", err)}
	}
	if res.SpillError != "" {
		fmt.Fprintf(stderr, "toolwarden: full output not persisted: %s\n", res.SpillError)
	}
	if res.Cleanup != "" {
		fmt.Fprintf(stderr, "toolwarden: cleanup: %s\n", res.Cleanup)
	}
	code := runExitCode(res)
	if res.Status != runner.StatusCompleted && res.Status != runner.StatusFailed {
		why := res.Status
		if res.NoOutputTimeout {
			why = fmt.Sprintf("%s (no output for %s)", why, f.noOutputTimeout)
		}
		return &exitError{code: code, err: errors.New(why)}
	}
	if code != 0 {
		return &exitError{code: code}
	}
	return nil
}

// scanForRun scans req with a fresh engine under pol.
func scanForRun(ctx context.Context, pol *sdk.Policy, req engine.Request) (*sdk.SafetyReport, *sdk.Facts, error) {
	eng, err := engine.New(ctx, engine.Options{Policy: pol})
	if err != nil {
		return nil, nil, fmt.Errorf("start engine: %w", err)
	}
	defer eng.Close(context.WithoutCancel(ctx))
	report, facts, err := eng.ScanWithFacts(ctx, req)
	if err != nil {
		return nil, nil, fmt.Errorf("scan: %w", err)
	}
	if report == nil {
		return nil, nil, errors.New("scan: no report")
	}
	return report, facts, nil
}

// runContent returns what to run: the -c command line, or the FILE's body
// as a script ("-" reads the script from stdin).
func runContent(f runFlags, args []string) (content, lang string, script bool, err error) {
	lang = strings.ToLower(f.language)
	switch {
	case f.command != "" && len(args) > 0:
		return "", "", false, errors.New("give either -c COMMAND or FILE, not both")
	case f.command != "":
		content = f.command
	case len(args) == 1:
		var data []byte
		if args[0] == "-" {
			data, err = io.ReadAll(os.Stdin)
		} else {
			data, err = os.ReadFile(args[0])
		}
		if err != nil {
			return "", "", false, fmt.Errorf("read script %s: %w", args[0], err)
		}
		content, script = string(data), true
		if lang == "" && strings.EqualFold(filepath.Ext(args[0]), ".py") {
			lang = runner.LanguagePython
		}
	default:
		return "", "", false, errors.New("nothing to run: give -c COMMAND or a script FILE")
	}
	if strings.TrimSpace(content) == "" {
		return "", "", false, errors.New("nothing to run: the command is empty")
	}
	switch lang {
	case "", runner.LanguageBash:
		lang = runner.LanguageBash
	case runner.LanguagePython, "python3":
		lang = runner.LanguagePython
	default:
		return "", "", false, fmt.Errorf("unsupported --language %q (want bash or python)", f.language)
	}
	return content, lang, script, nil
}

// runExitCode maps a Result to the process exit code of `toolwarden run`.
func runExitCode(res *runner.Result) int {
	switch res.Status {
	case runner.StatusCompleted:
		return 0
	case runner.StatusHardTimeout:
		return exitTimeout
	case runner.StatusCancelled:
		return exitCancelled
	}
	if res.ExitCode > 0 {
		return res.ExitCode
	}
	if res.Signal != "" {
		if n := signalNum(res.Signal); n != 0 {
			return 128 + int(n)
		}
	}
	return 1
}
