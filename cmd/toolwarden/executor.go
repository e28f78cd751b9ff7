package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/toolwarden/toolwarden/execution"
	"github.com/toolwarden/toolwarden/execution/redisq"
	"github.com/toolwarden/toolwarden/executor"
	"github.com/toolwarden/toolwarden/isolation"
)

func init() {
	subcommands = append(subcommands, newExecutorCmd)
}

// executorFlags are the flags of `toolwarden executor`; `toolwarden serve`
// reuses them (without Redis) for its embedded executor.
type executorFlags struct {
	// redis is the shared store's URL (redis://host:port/db).
	redis string
	// prefix is prepended to every Redis key of the store.
	prefix string
	// pool is the executor pool: its stream and consumer group.
	pool string
	// config is the YAML configuration file (agent.*, multi_agent.*,
	// security.process_isolation.*); "" uses the defaults.
	config string
	// dataDir holds the spilled full outputs under <data-dir>/reduction.
	dataDir string
	// workspace is the working directory of runs whose request has no cwd.
	workspace   string
	workerID    string
	concurrency int
	// lease must equal the lease of every other executor and server on the
	// same store.
	lease time.Duration
	// isolationMode overrides security.process_isolation.mode when set.
	isolationMode string
}

func newExecutorCmd() *cobra.Command {
	var f executorFlags
	cmd := &cobra.Command{
		Use:   "executor --redis redis://HOST:PORT/DB [flags]",
		Short: "Run the executor daemon: claim queued executions from Redis and run them under OS isolation",
		Long: `executor claims queued executions from the shared Redis store, runs each one
under the strongest OS isolation backend available (hard and no-output
timeouts, cancellation, bounded reduced output), heartbeats its leases and
writes the canonical result back. Many executors on many hosts can share one
Redis; records of an executor that dies are marked orphaned by the others.
SIGINT or SIGTERM cancels the runs in progress, records them as cancelled
("executor shutdown") and exits.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runExecutor(cmd.Context(), f, cmd.ErrOrStderr())
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.redis, "redis", "", "Redis URL of the shared execution store (required), e.g. redis://127.0.0.1:6379/0")
	fl.StringVar(&f.prefix, "redis-prefix", redisq.DefaultPrefix, "prefix of every Redis key (the same on servers and executors)")
	fl.StringVar(&f.pool, "pool", redisq.DefaultPool, "executor pool (Redis stream and consumer group)")
	fl.StringVar(&f.config, "config", "", "YAML configuration file (agent.*, multi_agent.*, security.process_isolation.*)")
	fl.StringVar(&f.dataDir, "data-dir", "", "data directory; oversized outputs are spilled under DIR/reduction (default ./tmp/reduction)")
	fl.StringVar(&f.workspace, "workspace", "", "working directory of runs that request none (default: the current directory)")
	fl.StringVar(&f.workerID, "worker-id", "", "worker id, unique per executor (default hostname-pid-random)")
	fl.IntVar(&f.concurrency, "concurrency", executor.DefaultConcurrency, "executions run at once")
	fl.DurationVar(&f.lease, "lease", execution.DefaultLeaseTTL, "lease TTL; must be the same on every executor and server of the store")
	fl.StringVar(&f.isolationMode, "isolation", "", "isolation mode override: auto, required or process_group")
	return cmd
}

// executorConfigFromFlags turns the flags and the configuration file into
// the daemon's and the isolation backend's configuration. It does not open
// anything, so `serve` can build its embedded executor the same way.
func executorConfigFromFlags(f executorFlags, logger *slog.Logger) (executor.Config, isolation.Config, error) {
	var cfg executor.Config
	var iso isolation.Config
	if f.config != "" {
		var err error
		if cfg, err = executor.LoadConfigFile(f.config); err != nil {
			return cfg, iso, err
		}
		if iso, err = isolation.LoadConfigFile(f.config); err != nil {
			return cfg, iso, err
		}
	}
	if f.isolationMode != "" {
		iso.Mode = f.isolationMode
	}
	if f.concurrency <= 0 {
		return cfg, iso, fmt.Errorf("--concurrency must be positive, got %d", f.concurrency)
	}
	if f.lease <= 0 {
		return cfg, iso, fmt.Errorf("--lease must be positive, got %s", f.lease)
	}
	cfg.Concurrency = f.concurrency
	cfg.Lease = f.lease
	cfg.WorkerID = f.workerID
	if f.dataDir != "" {
		cfg.ReductionRoot = filepath.Join(f.dataDir, "reduction")
	}
	if f.workspace != "" {
		ws, err := filepath.Abs(f.workspace)
		if err != nil {
			return cfg, iso, fmt.Errorf("--workspace %q: %w", f.workspace, err)
		}
		cfg.WorkspaceRoot = ws
	}
	cfg.Logger = logger
	return cfg, iso, nil
}

// runExecutor is the body of `toolwarden executor`.
func runExecutor(ctx context.Context, f executorFlags, stderr io.Writer) error {
	if ctx == nil {
		ctx = context.Background()
	}
	if f.redis == "" {
		return usageErr(errors.New("executor: --redis is required (remote executors share one Redis)"))
	}
	logger := slog.New(slog.NewTextHandler(stderr, nil))
	cfg, isoCfg, err := executorConfigFromFlags(f, logger)
	if err != nil {
		return usageErr(fmt.Errorf("executor: %w", err))
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()

	store, err := redisq.Open(ctx, redisq.Options{URL: f.redis, Prefix: f.prefix, Pool: f.pool, LeaseTTL: cfg.Lease})
	if err != nil {
		return fmt.Errorf("executor: %w", err)
	}
	defer store.Close()
	iso, err := isolation.Open(ctx, isoCfg)
	if err != nil {
		return fmt.Errorf("executor: open isolation (%s): %w", isoCfg.Mode, err)
	}
	defer func() {
		if err := iso.Close(); err != nil {
			logger.Error("close isolation", "err", err)
		}
	}()
	if r, ok := iso.(interface{ Reasons() []string }); ok {
		for _, why := range r.Reasons() {
			logger.Warn("isolation downgraded", "backend", iso.Name(), "reason", why)
		}
	}
	d, err := executor.New(store, iso, cfg)
	if err != nil {
		return usageErr(fmt.Errorf("executor: %w", err))
	}
	if err := d.Run(ctx); err != nil {
		return fmt.Errorf("executor: %w", err)
	}
	return nil
}
