package gateway

import (
	"errors"
	"testing"
	"time"
)

type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time          { return c.t }
func (c *fakeClock) advance(d time.Duration) { c.t = c.t.Add(d) }

func TestBreakerOpensAfterThresholdAndClosesAfterProbe(t *testing.T) {
	clk := &fakeClock{t: time.Unix(1000, 0)}
	b := NewBreaker(3, 60*time.Second, clk.now)
	for i := 0; i < 3; i++ {
		tk, err := b.Allow()
		if err != nil {
			t.Fatalf("call %d refused while closed: %v", i, err)
		}
		b.Done(tk, false)
	}
	if b.State() != CircuitOpen {
		t.Fatalf("state %s after 3 failures", b.State())
	}
	if _, err := b.Allow(); !errors.Is(err, ErrCircuitOpen) {
		t.Fatalf("open breaker admitted a call: %v", err)
	}
	clk.advance(59 * time.Second)
	if _, err := b.Allow(); !errors.Is(err, ErrCircuitOpen) {
		t.Fatal("admitted before the cooldown ended")
	}
	clk.advance(time.Second)
	probe, err := b.Allow()
	if err != nil || b.State() != CircuitHalfOpen {
		t.Fatalf("no probe after cooldown: %v %s", err, b.State())
	}
	if _, err := b.Allow(); !errors.Is(err, ErrCircuitOpen) {
		t.Fatal("a second call was admitted while the single probe is out")
	}
	b.Done(probe, true)
	if b.State() != CircuitClosed {
		t.Fatalf("state %s after a good probe", b.State())
	}
	if _, err := b.Allow(); err != nil {
		t.Fatal(err)
	}
}

func TestBreakerFailedProbeReopens(t *testing.T) {
	clk := &fakeClock{t: time.Unix(1000, 0)}
	b := NewBreaker(1, 10*time.Second, clk.now)
	tk, _ := b.Allow()
	b.Done(tk, false)
	clk.advance(10 * time.Second)
	probe, err := b.Allow()
	if err != nil {
		t.Fatal(err)
	}
	b.Done(probe, false)
	if b.State() != CircuitOpen {
		t.Fatalf("state %s after a failed probe", b.State())
	}
	clk.advance(9 * time.Second)
	if _, err := b.Allow(); !errors.Is(err, ErrCircuitOpen) {
		t.Fatal("a failed probe must restart the cooldown")
	}
}

// A call admitted before the circuit opened that completes afterwards must
// not close it (nor count again); a released probe frees the probe slot.
func TestBreakerIgnoresStaleCompletions(t *testing.T) {
	clk := &fakeClock{t: time.Unix(1000, 0)}
	b := NewBreaker(2, 10*time.Second, clk.now)
	slow, _ := b.Allow()
	for i := 0; i < 2; i++ {
		tk, _ := b.Allow()
		b.Done(tk, false)
	}
	if b.State() != CircuitOpen {
		t.Fatal("not open")
	}
	b.Done(slow, true)
	if b.State() != CircuitOpen {
		t.Fatalf("a stale success changed the state to %s", b.State())
	}
	clk.advance(10 * time.Second)
	probe, _ := b.Allow()
	b.Done(slow, false)
	if b.State() != CircuitHalfOpen {
		t.Fatalf("a stale failure changed the state to %s", b.State())
	}
	b.Release(probe)
	if _, err := b.Allow(); err != nil {
		t.Fatalf("released probe slot not reusable: %v", err)
	}
	// Failures below the threshold are reset by a success.
	b2 := NewBreaker(2, time.Second, clk.now)
	tk, _ := b2.Allow()
	b2.Done(tk, false)
	tk, _ = b2.Allow()
	b2.Done(tk, true)
	tk, _ = b2.Allow()
	b2.Done(tk, false)
	if b2.State() != CircuitClosed {
		t.Fatal("failures must be consecutive to open the circuit")
	}
}
