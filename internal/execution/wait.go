package execution

import (
	"context"
	"errors"
	"fmt"
	"time"
	"unicode/utf8"
)

// Wait observes id for at most timeout and returns the newest record. done is
// true when the record reached a terminal status. A wait that times out is a
// successful observation (done false, err nil), not a failure of the
// execution — the caller reports "still running" and may wait again.
// Cancelling ctx is an error; so is a store error (fail closed).
func Wait(ctx context.Context, b Backend, id string, timeout time.Duration) (r *Record, done bool, err error) {
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	ch, err := b.Watch(wctx, id)
	if err != nil {
		return nil, false, fmt.Errorf("wait %s: %w", id, err)
	}
	var timer <-chan time.Time
	if timeout > 0 {
		t := time.NewTimer(timeout)
		defer t.Stop()
		timer = t.C
	}
	for {
		select {
		case next, ok := <-ch:
			if !ok {
				if err := ctx.Err(); err != nil {
					return r, false, fmt.Errorf("wait %s: %w", id, err)
				}
				if r != nil && r.Status.Terminal() {
					return r, true, nil
				}
				// The watch ended without a terminal record: the record
				// vanished or the backend closed. Read once more to report why.
				last, gerr := b.Get(ctx, id)
				if gerr != nil {
					return r, false, fmt.Errorf("wait %s: %w", id, gerr)
				}
				return last, last.Status.Terminal(), nil
			}
			r = next
			if r.Status.Terminal() {
				return r, true, nil
			}
			if timeout <= 0 {
				return r, false, nil
			}
		case <-timer:
			if r == nil {
				last, gerr := b.Get(ctx, id)
				if gerr != nil {
					return nil, false, fmt.Errorf("wait %s: %w", id, gerr)
				}
				return last, last.Status.Terminal(), nil
			}
			return r, false, nil
		case <-ctx.Done():
			return r, false, fmt.Errorf("wait %s: %w", id, ctx.Err())
		}
	}
}

// Limits for the partial-output preview a get or wait returns.
const (
	DefaultPartialOutputMaxBytes = 4096
	MaxPartialOutputMaxBytes     = 65536
)

// PartialTail returns the last maxBytes bytes of the partial output
// (maxBytes ≤ 0 means the default, capped at the maximum), cut on a UTF-8
// boundary, and whether anything was left out — by this cut or earlier by
// the worker.
func (r *Record) PartialTail(maxBytes int) (string, bool) {
	if maxBytes <= 0 {
		maxBytes = DefaultPartialOutputMaxBytes
	}
	if maxBytes > MaxPartialOutputMaxBytes {
		maxBytes = MaxPartialOutputMaxBytes
	}
	s := r.PartialOutput
	if len(s) <= maxBytes {
		return s, r.PartialOutputTruncated
	}
	cut := len(s) - maxBytes
	for cut < len(s) && !utf8.RuneStart(s[cut]) {
		cut++
	}
	return s[cut:], true
}

// errorsIsAny reports whether err matches any of targets.
func errorsIsAny(err error, targets ...error) bool {
	for _, t := range targets {
		if errors.Is(err, t) {
			return true
		}
	}
	return false
}

// IsUnavailable reports whether err means the store could not be reached
// (answer 503 and retry later) rather than a decision about the record.
func IsUnavailable(err error) bool { return errorsIsAny(err, ErrUnavailable, ErrClosed) }
