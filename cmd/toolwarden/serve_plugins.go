package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/toolwarden/toolwarden/engine"
	"github.com/toolwarden/toolwarden/internal/config"
	"github.com/toolwarden/toolwarden/internal/plugins"
	"github.com/toolwarden/toolwarden/internal/redisconn"
	"github.com/toolwarden/toolwarden/internal/scanlog"
)

// openPlugins opens the plugin store (the data dir's plugins/ directory,
// or Redis when the deployment shares one), loads the stored active set
// into the engine and starts the reconcile loop (until ctx ends). It
// returns nil when plugins.enabled is false. recent feeds shadow runs
// (nil: none).
func openPlugins(ctx context.Context, cfg config.Config, eng *engine.Engine, recent plugins.RecentScans, log *slog.Logger) (*plugins.Manager, func(), error) {
	pc := cfg.Plugins
	if !pc.Enabled {
		return nil, func() {}, nil
	}
	verifier, err := plugins.NewVerifier(pc.TrustedKeys, pc.RequireSignature)
	if err != nil {
		return nil, nil, err
	}
	var store plugins.Store
	closeStore := func() {}
	if cfg.RedisURL != "" {
		master, err := masterKey(cfg)
		if err != nil {
			return nil, nil, err
		}
		c, err := redisconn.NewClient(redisconn.Options{URL: cfg.RedisURL, TLSCAFile: cfg.RedisTLSCAFile})
		if err != nil {
			return nil, nil, err
		}
		rs, err := plugins.OpenRedis(c, strings.TrimSuffix(cfg.RedisKeyPrefix(), ":"), master)
		if err != nil {
			c.Close()
			return nil, nil, err
		}
		store, closeStore = rs, func() { c.Close() }
	} else {
		es, err := plugins.OpenEmbedded(filepath.Join(cfg.DataDir, "plugins"))
		if err != nil {
			return nil, nil, err
		}
		store = es
	}
	overrides := map[string]plugins.Manifest{}
	for name, o := range pc.Overrides {
		overrides[name] = plugins.Manifest{Deadline: plugins.Duration(o.Deadline), MemoryPages: o.MemoryPages,
			PoolSize: o.PoolSize, Mode: o.Mode, FailurePolicy: o.FailurePolicy}
	}
	m, err := plugins.NewManager(plugins.Config{
		Store: store, Engine: eng, Verifier: verifier, Recent: recent, Logger: log,
		ReconcileEvery: pc.ReconcileInterval, RequireShadow: pc.RequireShadow,
		Limits: plugins.Limits{
			MaxModuleBytes: pc.MaxModuleBytes, Deadline: pc.DefaultDeadline,
			MemoryBytes: uint64(pc.DefaultMemoryPages) * 65536, PoolSize: pc.DefaultPoolSize,
			CacheDir: pluginCacheDir(), AllowRuleOverride: pc.AllowRuleOverride, AllowFailOpen: pc.AllowFailOpen,
			Overrides: overrides,
		},
	})
	if err != nil {
		closeStore()
		return nil, nil, fmt.Errorf("plugins: %w", err)
	}
	m.Start(ctx)
	return m, closeStore, nil
}

// pluginCacheDir is wazero's compilation cache for uploaded plugins, beside
// the engine's (os.UserCacheDir()/toolwarden/wasm-plugins), so a restart
// loads the active set without recompiling it.
func pluginCacheDir() string {
	dir, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "toolwarden", "wasm-plugins")
}

// recentScans feeds plugin shadow runs from the scan log (nil when the
// scan log is disabled: shadow runs then answer that they need it).
func recentScans(rec *scanlog.Recorder) plugins.RecentScans {
	if rec == nil {
		return nil
	}
	return func(ctx context.Context, n int) ([]plugins.Recorded, error) {
		es, err := rec.Recent(ctx, n)
		if err != nil {
			return nil, err
		}
		out := make([]plugins.Recorded, len(es))
		for i, e := range es {
			out[i] = plugins.Recorded{ScanID: e.ScanID, Time: e.Time, Request: e.Request, Decision: e.Decision, RuleIDs: e.RuleIDs}
		}
		return out, nil
	}
}
