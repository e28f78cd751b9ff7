package main

import (
	"testing"

	"github.com/toolwarden/toolwarden/internal/config"
)

// TestRedisKeysOneSeparator: the execution store, the key store and the
// scan log all live under "<redis_prefix>:" (toolwarden:rec:…), and the
// execution store migrates from the old "<redis_prefix>rec:…" names.
func TestRedisKeysOneSeparator(t *testing.T) {
	cfg := config.Default()
	o := redisOptions(cfg, nil)
	if o.Prefix != "toolwarden:" || o.LegacyPrefix != "toolwarden" {
		t.Errorf("redisq prefix %q (legacy %q), want toolwarden: (legacy toolwarden)", o.Prefix, o.LegacyPrefix)
	}
	if got := cfg.RedisKeyPrefix(); got != "toolwarden:" {
		t.Errorf("RedisKeyPrefix %q", got)
	}
}

// TestRedisKeysPrefixWithColon: a redis_prefix ending in ":" gets no
// second separator, and its execution keys (already separated) need no move.
func TestRedisKeysPrefixWithColon(t *testing.T) {
	cfg := config.Default()
	cfg.RedisPrefix = "toolwarden:prod:"
	o := redisOptions(cfg, nil)
	if o.Prefix != "toolwarden:prod:" || o.LegacyPrefix != o.Prefix {
		t.Errorf("prefix %q legacy %q, want both toolwarden:prod:", o.Prefix, o.LegacyPrefix)
	}
}
