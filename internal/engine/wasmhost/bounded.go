package wasmhost

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// ErrInputTooLarge is wrapped by the error of a bounded plugin's scan whose
// input exceeds Options.MaxBoundedInputBytes: the plugin's time is bounded
// only over capped input, so a larger one is refused (the engine fails
// closed) rather than judged without the interrupt check.
var ErrInputTooLarge = errors.New("input exceeds the bounded plugin's input cap")

// ErrQuarantineFull is wrapped by the error of a bounded plugin's scan
// while Options.MaxStuckInstances instances are stuck past their
// deadlines: each holds a core and its memory, so bounded plugins take no
// more work until one returns rather than let a pathological input pin
// every core.
var ErrQuarantineFull = errors.New("too many instances stuck past their deadline")

// testHookAbandoned, set only by tests, sees each abandoned instance (so a
// test can let a deliberately stuck guest return).
var testHookAbandoned func(*instance)

// boundedAdmit refuses a scan a bounded plugin must not run.
func (p *Plugin) boundedAdmit(n int) error {
	if max := p.host.opts.MaxBoundedInputBytes; n > max {
		return fmt.Errorf("%w: %d bytes, cap %d", ErrInputTooLarge, n, max)
	}
	if stuck, max := p.host.stuck.Load(), p.host.opts.MaxStuckInstances; stuck >= int64(max) {
		return fmt.Errorf("%w: %d, cap %d", ErrQuarantineFull, stuck, max)
	}
	return nil
}

// boundedCall runs one scan of a bounded plugin, whose code has no
// interrupt check and so cannot be stopped. The input is copied into the
// instance on the caller's goroutine (so nothing reads the caller's buffer
// after it returns); the guest call runs on a goroutine of its own while
// the caller waits for its result, its context or the deadline. At the
// deadline the caller gets an ErrCallTimeout error at once and the
// instance is abandoned: abandoned reports true, the caller must not touch
// or pool the instance again, and the goroutine closes it whenever the
// call returns. Until then it counts in Stats.Stuck.
func (p *Plugin) boundedCall(ctx context.Context, inst *instance, input []byte) (raw []byte, err error, abandoned bool) {
	timeout := p.host.opts.CallTimeout
	if inst.deadline == nil {
		inst.deadline = time.NewTimer(timeout)
	} else {
		inst.deadline.Reset(timeout)
	}
	defer inst.deadline.Stop()
	// Staging calls into the guest only when the input outgrows the
	// instance's buffer; only then does it need a context with the
	// deadline.
	cctx := ctx
	if uint64(len(input)) > uint64(inst.inCap) {
		var cancel context.CancelFunc
		cctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	in, n, err := p.stage(ctx, cctx, inst, input)
	if err != nil {
		return nil, err, false
	}
	inst.state.Store(callRunning)
	go p.runDetached(inst, in, n)
	// cause is what a context with the deadline would report as its Err.
	var cause error
	select {
	case r := <-inst.done:
		return r.raw, r.err, false
	case <-inst.deadline.C:
		cause = context.DeadlineExceeded
	case <-ctx.Done():
		cause = ctx.Err()
	}
	// Counted as stuck before the hand-over is decided, so that the
	// goroutine's decrement can never come first.
	p.stuck.Add(1)
	p.host.stuck.Add(1)
	if !inst.state.CompareAndSwap(callRunning, callAbandoned) {
		// The call finished in the meantime: its result is (or is about
		// to be) in done.
		p.stuck.Add(-1)
		p.host.stuck.Add(-1)
		r := <-inst.done
		return r.raw, r.err, false
	}
	p.quarantined.Add(1)
	if testHookAbandoned != nil {
		testHookAbandoned(inst)
	}
	if f := p.host.opts.OnQuarantine; f != nil {
		f(p.name)
	}
	return nil, deadlineErr(ctx, cause, "scan", fmt.Errorf("instance quarantined while still running: %w", cause)), true
}

// deadlineErr is callErr for a call timed by a timer instead of a context:
// cause is context.DeadlineExceeded when the call's own deadline passed,
// else the caller's context's error.
func deadlineErr(parent context.Context, cause error, what string, err error) error {
	err = firstLine{err}
	if parent.Err() == nil && errors.Is(cause, context.DeadlineExceeded) {
		return fmt.Errorf("%s: %w: %w", what, ErrCallTimeout, err)
	}
	return fmt.Errorf("%s: %w", what, err)
}

// runDetached is the goroutine of a bounded call: it runs scan, then hands
// the result to the waiting caller, or, when the caller has abandoned the
// call, closes the instance and leaves the stuck count.
func (p *Plugin) runDetached(inst *instance, in, n uint32) {
	bg := context.Background()
	raw, err := p.run(bg, bg, inst, in, n)
	if inst.state.CompareAndSwap(callRunning, callFinished) {
		inst.done <- callResult{raw: raw, err: err}
		return
	}
	inst.close()
	p.stuck.Add(-1)
	p.host.stuck.Add(-1)
}
