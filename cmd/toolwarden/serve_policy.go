package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"

	"github.com/toolwarden/toolwarden/engine"
	"github.com/toolwarden/toolwarden/internal/config"
	"github.com/toolwarden/toolwarden/internal/policies"
	"github.com/toolwarden/toolwarden/internal/policystore"
	"github.com/toolwarden/toolwarden/internal/redisconn"
	"github.com/toolwarden/toolwarden/internal/secrets"
	"github.com/toolwarden/toolwarden/internal/server"
)

// openPolicyStore opens the managed policy of a server: revisions in
// <data_dir>/policy (embedded) or under <redis_prefix>:policy: (shared by
// every server), sealed under a key derived from the master key. The
// stored active revision, when there is one, replaces the configured
// policy at once; the configured one is version 0 until then. The returned
// store keeps the engine on the active revision until ctx ends.
func openPolicyStore(ctx context.Context, cfg config.Config, eng *engine.Engine, log *slog.Logger) (*policystore.Store, func(), error) {
	master, err := masterKey(cfg)
	if err != nil {
		return nil, nil, err
	}
	macKey, err := secrets.Derive(master, "policy-records")
	if err != nil {
		return nil, nil, fmt.Errorf("policy store key: %w", err)
	}
	var b policystore.Backend
	closeFn := func() {}
	if cfg.RedisURL == "" {
		if b, err = policystore.OpenEmbedded(filepath.Join(cfg.DataDir, "policy"), macKey); err != nil {
			return nil, nil, err
		}
	} else {
		c, err := redisconn.NewClient(redisconn.Options{URL: cfg.RedisURL, TLSCAFile: cfg.RedisTLSCAFile})
		if err != nil {
			return nil, nil, err
		}
		if b, err = policystore.OpenRedis(ctx, c, cfg.RedisKeyPrefix()+"policy:", macKey); err != nil {
			c.Close()
			return nil, nil, fmt.Errorf("%w (redis %s)", err, redisconn.Redact(cfg.RedisURL))
		}
		closeFn = func() { c.Close() }
	}
	initial := policystore.Revision{UpdatedBy: "config", Comment: "configured policy " + cfg.Policy}
	if slices.Contains(policies.Names, cfg.Policy) {
		data, _ := policies.BuiltinYAML(cfg.Policy)
		initial.YAML = string(data)
	} else if data, err := os.ReadFile(cfg.Policy); err == nil {
		initial.YAML = string(data)
	}
	ps, err := policystore.Open(ctx, b, policystore.Options{Validate: server.PolicyValidator(eng), Apply: eng.SetPolicy,
		Initial: initial, Log: log})
	if err != nil {
		closeFn()
		return nil, nil, err
	}
	if err := ps.Status(); err != nil {
		log.Error("managed policy not applied; serving the configured policy", "err", err)
	} else if v := ps.Active().Version; v > 0 {
		log.Info("managed policy applied", "version", v, "digest", ps.Active().Digest)
	}
	go ps.Run(ctx)
	return ps, closeFn, nil
}
