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

	"github.com/toolwarden/toolwarden/engine"
	"github.com/toolwarden/toolwarden/internal/config"
	"github.com/toolwarden/toolwarden/internal/datadir"
	"github.com/toolwarden/toolwarden/internal/execution"
	"github.com/toolwarden/toolwarden/internal/execution/redisq"
	"github.com/toolwarden/toolwarden/internal/executor"
)

func init() {
	subcommands = append(subcommands, newExecutorCmd)
}

// executorFlags are the flags of `toolwarden executor`. Empty or zero
// values leave the configuration file (and its TOOLWARDEN_* environment
// overrides) in charge, so servers and executors read one file the same way.
type executorFlags struct {
	// config is the YAML configuration file (the one serve reads).
	config string
	// redis is the shared store's URL (redis://host:port/db); required here,
	// from the flag, redis_url or TOOLWARDEN_REDIS_URL.
	redis string
	// prefix is prepended to every Redis key; servers and executors of one
	// deployment must agree on it (redis_prefix).
	prefix string
	// pool is the executor pool: its stream and consumer group.
	pool string
	// dataDir holds the spilled outputs (<data-dir>/reduction unless
	// reduction_root_dir is set) and the default workspace.
	dataDir string
	// workspace is the root of the per-conversation workspaces
	// (security.workspace.root; default <data-dir>/workspaces).
	workspace   string
	workerID    string
	concurrency int
	// lease must equal the lease of every server and executor on the store.
	lease time.Duration
	// isolationMode overrides security.process_isolation.mode.
	isolationMode string
}

func newExecutorCmd() *cobra.Command {
	var f executorFlags
	cmd := &cobra.Command{
		Use:   "executor --redis redis://HOST:PORT/DB [flags]",
		Short: "Run an executor daemon: claim queued executions from Redis and run them under OS isolation",
		Long: `executor claims queued executions from the shared Redis store, runs each one
under the strongest OS isolation backend available (hard and no-output
timeouts, cancellation, bounded reduced output), heartbeats its leases and
writes the canonical result back. Many executors on many hosts can share one
Redis with the servers; records of an executor that dies are marked orphaned
by the others once its leases expire. It reads the same configuration file
as serve (agent.*, multi_agent.*, security.process_isolation.*, redis_url,
redis_prefix). SIGINT or SIGTERM cancels the runs in progress, records them
as cancelled ("executor shutdown") and exits.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			return runExecutor(ctx, f, cmd.ErrOrStderr())
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.config, "config", "", "YAML configuration file (the one serve reads)")
	fl.StringVar(&f.redis, "redis", "", "Redis URL of the shared execution store, e.g. redis://127.0.0.1:6379/0 (required here or as redis_url)")
	fl.StringVar(&f.prefix, "redis-prefix", "", "prefix of every Redis key; the same on servers and executors (default from the config: toolwarden)")
	fl.StringVar(&f.pool, "pool", redisq.DefaultPool, "executor pool (Redis stream and consumer group)")
	fl.StringVar(&f.dataDir, "data-dir", "", "data directory: spilled outputs under DIR/reduction, default workspace DIR/workspace (default from the config: data)")
	fl.StringVar(&f.workspace, "workspace", "", "root of the per-conversation workspaces (security.workspace.root; default DATA-DIR/workspaces)")
	fl.StringVar(&f.workerID, "worker-id", "", "worker id, unique per executor (default hostname-pid-random)")
	fl.IntVar(&f.concurrency, "concurrency", 0, "executions run at once (default from the config: 4)")
	fl.DurationVar(&f.lease, "lease", execution.DefaultLeaseTTL, "lease TTL; the same on every server and executor of the store")
	fl.StringVar(&f.isolationMode, "isolation", "", "isolation mode override: auto, required or process_group")
	return cmd
}

// executorConfigFromFlags loads the configuration file, applies the flags
// over it, and returns the service configuration (store and isolation
// settings) and the daemon's. It opens nothing, so other commands can build
// an executor the same way.
func executorConfigFromFlags(f executorFlags, logger *slog.Logger) (config.Config, executor.Config, error) {
	cfg, err := config.Load(f.config)
	if err != nil {
		return cfg, executor.Config{}, err
	}
	if f.redis != "" {
		cfg.RedisURL = f.redis
	}
	if f.prefix != "" {
		cfg.RedisPrefix = f.prefix
	}
	if f.dataDir != "" {
		cfg.DataDir = f.dataDir
	}
	if f.concurrency < 0 {
		return cfg, executor.Config{}, fmt.Errorf("--concurrency must be positive, got %d", f.concurrency)
	}
	if f.concurrency > 0 {
		cfg.Concurrency = f.concurrency
	}
	if f.isolationMode != "" {
		cfg.Isolation.Mode = f.isolationMode
	}
	if err := cfg.Validate(); err != nil {
		return cfg, executor.Config{}, err
	}
	if cfg.RedisURL == "" {
		return cfg, executor.Config{}, errors.New("--redis (or redis_url) is required: remote executors share one Redis with the servers")
	}
	if f.lease <= 0 {
		return cfg, executor.Config{}, fmt.Errorf("--lease must be positive, got %s", f.lease)
	}
	ecfg, err := executorConfig(cfg)
	if err != nil {
		return cfg, ecfg, err
	}
	if f.workspace != "" {
		ws, err := filepath.Abs(f.workspace)
		if err != nil {
			return cfg, ecfg, fmt.Errorf("--workspace %q: %w", f.workspace, err)
		}
		cfg.Security.Workspace.Root = ws
		if ecfg.Workspaces, err = openWorkspaces(cfg); err != nil {
			return cfg, ecfg, err
		}
	}
	ecfg.WorkerID = f.workerID
	ecfg.Lease = f.lease
	ecfg.Logger = logger
	return cfg, ecfg, nil
}

// runExecutor is the body of `toolwarden executor`: it runs until ctx ends.
func runExecutor(ctx context.Context, f executorFlags, stderr io.Writer) error {
	logger := slog.New(slog.NewTextHandler(stderr, nil))
	cfg, ecfg, err := executorConfigFromFlags(f, logger)
	if err != nil {
		return usageErr(fmt.Errorf("executor: %w", err))
	}
	master, err := masterKey(cfg)
	if err != nil {
		return usageErr(fmt.Errorf("executor: %w", err))
	}
	if err := datadir.Secure(cfg.DataDir, logger); err != nil {
		return usageErr(fmt.Errorf("executor: %w", err))
	}
	ro := redisOptions(cfg, master)
	ro.Pool, ro.LeaseTTL = f.pool, ecfg.Lease
	store, err := redisq.Open(ctx, ro)
	if err != nil {
		return usageErr(fmt.Errorf("executor: %w", err))
	}
	defer store.Close()
	iso, err := openIsolation(ctx, cfg.IsolationConfig())
	if err != nil {
		return usageErr(fmt.Errorf("executor: open isolation (%s): %w", cfg.Isolation.Mode, err))
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
	// The executor scans the workspace files a record's content runs when
	// the service (on another host) could not, with the same policy.
	pol, err := openPolicy(cfg.Policy)
	if err != nil {
		return usageErr(fmt.Errorf("executor: %w", err))
	}
	eng, err := engine.New(ctx, engine.Options{Policy: pol})
	if err != nil {
		return fmt.Errorf("executor: start scan engine: %w", err)
	}
	defer eng.Close(context.Background())
	ecfg.Scanner = eng
	d, err := executor.New(store, iso, ecfg)
	if err != nil {
		return usageErr(fmt.Errorf("executor: %w", err))
	}
	if err := d.Run(ctx); err != nil {
		return fmt.Errorf("executor: %w", err)
	}
	return nil
}
