package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/spf13/pflag"

	"github.com/toolwarden/toolwarden/engine"
	"github.com/toolwarden/toolwarden/internal/config"
	"github.com/toolwarden/toolwarden/internal/datadir"
	"github.com/toolwarden/toolwarden/internal/execution"
	"github.com/toolwarden/toolwarden/internal/executor"
	wsp "github.com/toolwarden/toolwarden/internal/workspace"
	"github.com/toolwarden/toolwarden/sdk"
)

// stack is what `serve` and `mcp` both run behind their front door: the
// engine under the policy, the execution store, and — unless disabled — an
// embedded executor running allowed calls under isolation.
type stack struct {
	pol     *sdk.Policy
	eng     *engine.Engine
	backend execution.Backend
	// execDone receives the embedded executor's end; it is closed at once
	// when none runs.
	execDone chan error
	closers  []func()
	// workspaces is the embedded executor's workspace manager (nil
	// without one).
	workspaces *wsp.Manager
}

// openStack opens every part in order and undoes what it opened when a
// later part fails, so a start-up error never leaves a half-running
// process. The executor runs until ctx ends.
func openStack(ctx context.Context, cfg config.Config, log *slog.Logger) (_ *stack, err error) {
	s := &stack{execDone: make(chan error, 1)}
	defer func() {
		if err != nil {
			s.close()
		}
	}()
	// 0700 / 0600 whatever the umask; a directory left readable by others
	// is fixed here and the log says so.
	if err := datadir.Secure(cfg.DataDir, log); err != nil {
		return nil, err
	}
	if s.pol, err = openPolicy(cfg.Policy); err != nil {
		return nil, err
	}
	// The engine (compiling or loading the rule packs from the compilation
	// cache, pre-warming their pools) is most of start-up; it needs nothing
	// else opened here, so it starts while the store and the isolation
	// backend open. Nothing is served before openStack returns.
	started := time.Now()
	type engineResult struct {
		eng     *engine.Engine
		err     error
		elapsed time.Duration
	}
	engc := make(chan engineResult, 1)
	go func() {
		eng, err := engine.New(ctx, engine.Options{Policy: s.pol})
		engc <- engineResult{eng, err, time.Since(started)}
	}()
	engineWaited := false
	awaitEngine := func() error {
		engineWaited = true
		r := <-engc
		if r.err != nil {
			return r.err
		}
		s.eng = r.eng
		s.closers = append(s.closers, func() { s.eng.Close(context.Background()) })
		log.Debug("engine ready", "elapsed_ms", r.elapsed.Milliseconds())
		return nil
	}
	defer func() {
		if !engineWaited {
			// An earlier part failed: the engine must still be closed.
			if r := <-engc; r.err == nil {
				r.eng.Close(context.Background())
			}
		}
	}()
	if s.backend, err = openBackend(ctx, cfg); err != nil {
		return nil, err
	}
	s.closers = append(s.closers, func() { s.backend.Close() })
	log.Debug("execution store open", "elapsed_ms", time.Since(started).Milliseconds())
	if !cfg.EmbeddedExecutor {
		if err := awaitEngine(); err != nil {
			return nil, err
		}
		close(s.execDone)
		return s, nil
	}
	iso, err := openIsolation(ctx, cfg.IsolationConfig())
	if err != nil {
		return nil, fmt.Errorf("isolation: %w", err)
	}
	s.closers = append(s.closers, func() { iso.Close() })
	ecfg, err := executorConfig(cfg)
	if err != nil {
		return nil, err
	}
	s.workspaces = ecfg.Workspaces
	ecfg.Exclusive = cfg.RedisURL == ""
	ecfg.Logger = log
	ecfg.Scanner = s.eng // scans the workspace files of records the service did not
	d, err := executor.New(s.backend, iso, ecfg)
	if err != nil {
		return nil, err
	}
	if err := awaitEngine(); err != nil {
		return nil, err
	}
	log.Info("embedded executor", "worker", d.WorkerID(), "isolation", iso.Name(), "concurrency", cfg.Concurrency)
	go func() { s.execDone <- d.Run(ctx) }()
	return s, nil
}

// executorErr reports, without waiting, that the embedded executor has
// stopped (for readiness).
func (s *stack) executorErr() error {
	select {
	case err, ok := <-s.execDone:
		if !ok {
			return nil
		}
		s.execDone <- err
		return fmt.Errorf("embedded executor stopped: %v", err)
	default:
		return nil
	}
}

// wait waits for the embedded executor to finish after ctx ended and logs
// how it ended.
func (s *stack) wait(log *slog.Logger) {
	if err, ok := <-s.execDone; ok && err != nil && !errors.Is(err, context.Canceled) {
		log.Error("embedded executor", "err", err)
	}
}

// close releases the parts in reverse order.
func (s *stack) close() {
	for i := len(s.closers) - 1; i >= 0; i-- {
		s.closers[i]()
	}
	s.closers = nil
}

// stackFlags are the flags `serve` and `mcp` share: where the configuration,
// the data and the store are, the policy, and whether to run an executor.
type stackFlags struct {
	config, dataDir, redis, policy string
	noExecutor                     bool
}

// register adds the flags to fs; configHelp and dataDirHelp describe what
// the command reads from them.
func (f *stackFlags) register(fs *pflag.FlagSet, configHelp, dataDirHelp, redisHelp string) {
	fs.StringVar(&f.config, "config", "", configHelp)
	fs.StringVar(&f.dataDir, "data-dir", "data", dataDirHelp)
	fs.StringVar(&f.redis, "redis", "", redisHelp)
	fs.StringVar(&f.policy, "policy", "default", "policy: default, strict or a policy file")
	fs.BoolVar(&f.noExecutor, "no-executor", false, "do not run an embedded executor (executors run elsewhere)")
}

// load reads the configuration file and lays the flags the user set over
// it: flags win over the file and the environment.
func (f *stackFlags) load(fs *pflag.FlagSet) (config.Config, error) {
	cfg, err := config.Load(f.config)
	if err != nil {
		return cfg, err
	}
	if fs.Changed("data-dir") {
		cfg.DataDir = f.dataDir
	}
	if fs.Changed("redis") {
		cfg.RedisURL = f.redis
	}
	if fs.Changed("policy") {
		cfg.Policy = f.policy
	}
	if f.noExecutor {
		cfg.EmbeddedExecutor = false
	}
	return cfg, nil
}
