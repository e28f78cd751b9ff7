package main

import (
	"fmt"
	"log/slog"

	"github.com/toolwarden/toolwarden/internal/config"
	"github.com/toolwarden/toolwarden/internal/redisconn"
	"github.com/toolwarden/toolwarden/internal/scanlog"
)

// openScanLog opens the scan log of scanlog.*: in Redis (keys
// <redis_prefix>:scans:…) when the deployment shares one, else scans.db in
// the data directory. Disabled: nil and a no-op close.
func openScanLog(cfg config.Config, log *slog.Logger) (*scanlog.Recorder, func(), error) {
	if !cfg.ScanLog.Enabled {
		return nil, func() {}, nil
	}
	var l scanlog.Log
	var closeLog func()
	if cfg.RedisURL != "" {
		c, err := redisconn.NewClient(redisconn.Options{URL: cfg.RedisURL, TLSCAFile: cfg.RedisTLSCAFile})
		if err != nil {
			return nil, nil, fmt.Errorf("scanlog: %w", err)
		}
		l = scanlog.NewRedis(c, cfg.RedisKeyPrefix()+scanlog.RedisKeyspace, cfg.ScanLog, nil)
		closeLog = func() { c.Close() }
	} else {
		s, err := scanlog.OpenSQLite(cfg.DataDir, cfg.ScanLog, nil)
		if err != nil {
			return nil, nil, fmt.Errorf("scanlog: %w", err)
		}
		l = s
		closeLog = func() { s.Close() }
	}
	rec := scanlog.NewRecorder(l, cfg.ScanLog, 0, log)
	return rec, func() { rec.Close(); closeLog() }, nil
}
