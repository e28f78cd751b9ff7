//go:build !linux

package isolation

import (
	"context"
	"errors"
)

var errUnsupported = errors.New("isolation: only Linux is supported")

// Open is unavailable off Linux.
func Open(ctx context.Context, cfg Config) (Backend, error) { return nil, errUnsupported }

// Check is unavailable off Linux.
func Check(ctx context.Context, cfg Config) (Report, error) {
	return Report{Mode: cfg.Mode, Reasons: []string{errUnsupported.Error()}}, nil
}

// IsShim is always false off Linux.
func IsShim() bool { return false }

// ShimMain is never reached off Linux.
func ShimMain() { panic(errUnsupported) }
