package main

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"

	"github.com/toolwarden/toolwarden/internal/auth"
	"github.com/toolwarden/toolwarden/internal/config"
	"github.com/toolwarden/toolwarden/internal/execution/redisq"
	"github.com/toolwarden/toolwarden/internal/redisconn"
	"github.com/toolwarden/toolwarden/internal/secrets"
)

// SecretsKeyFile is where an embedded deployment keeps its generated master
// key when security.secrets_key is not configured.
const SecretsKeyFile = "secrets.key"

// masterKey returns the deployment's master key. With Redis it must be
// configured (servers and executors must share it, and a process without
// it would store env values in plain text or trust unsigned key records):
// its absence is a start-up error naming the key. Embedded, an unset key
// is generated once into <data_dir>/secrets.key (0600).
func masterKey(cfg config.Config) ([]byte, error) {
	if cfg.Security.SecretsKey != "" {
		return secrets.ParseKey(cfg.Security.SecretsKey)
	}
	if cfg.RedisURL != "" {
		return nil, fmt.Errorf("redis mode: %w", secrets.ErrNoKey)
	}
	return secrets.LoadOrCreateKeyFile(filepath.Join(cfg.DataDir, SecretsKeyFile))
}

// redisOptions is the one redisq configuration every command opens Redis
// with: URL (auth and TLS included), CA bundle, prefix and master key.
// Every key of the deployment is <redis_prefix>:<name> (toolwarden:rec:…,
// toolwarden:keys, toolwarden:scans:…); keys earlier versions wrote with no
// separator (toolwardenrec:…) are moved at start-up.
func redisOptions(cfg config.Config, master []byte) redisq.Options {
	return redisq.Options{URL: cfg.RedisURL, TLSCAFile: cfg.RedisTLSCAFile, Prefix: cfg.RedisKeyPrefix(), SecretsKey: master,
		LegacyPrefix: cfg.RedisPrefix, Migrated: func(n int) {
			if n > 0 {
				slog.Default().Info("moved execution keys to the current key names", "from", cfg.RedisPrefix+"…", "to", cfg.RedisKeyPrefix()+"…", "keys", n)
			}
		}}
}

// openKeys opens the API key store: in Redis when the deployment shares one
// (every server then accepts the same keys), else keys.json in the data
// directory. Records are signed and verified under the master key.
func openKeys(ctx context.Context, cfg config.Config) (*auth.Store, error) {
	master, err := masterKey(cfg)
	if err != nil {
		return nil, err
	}
	if cfg.RedisURL == "" {
		return auth.Open(filepath.Join(cfg.DataDir, "keys.json"), auth.WithSecretsKey(master))
	}
	c, err := redisconn.NewClient(redisconn.Options{URL: cfg.RedisURL, TLSCAFile: cfg.RedisTLSCAFile})
	if err != nil {
		return nil, err
	}
	// Earlier versions kept the keys under <redis_prefix>:keys whatever the
	// prefix ended in (toolwarden:prod::keys); move them to the one-separator
	// name first.
	if n, err := auth.MoveRedis(ctx, c, cfg.RedisPrefix+":", cfg.RedisKeyPrefix()); err != nil {
		c.Close()
		return nil, fmt.Errorf("%w (redis %s)", err, redisconn.Redact(cfg.RedisURL))
	} else if n > 0 {
		slog.Default().Info("moved API keys to the current key name", "to", cfg.RedisKeyPrefix()+"keys", "keys", n)
	}
	s, err := auth.OpenRedis(ctx, c, cfg.RedisKeyPrefix(), auth.WithSecretsKey(master))
	if err != nil {
		c.Close()
		return nil, fmt.Errorf("%w (redis %s)", err, redisconn.Redact(cfg.RedisURL))
	}
	return s, nil
}
