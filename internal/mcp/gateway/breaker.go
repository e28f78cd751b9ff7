package gateway

import (
	"errors"
	"sync"
	"time"
)

// ErrCircuitOpen is returned by Breaker.Allow while a server's circuit is
// open (or its single half-open probe is out). Refused calls are recorded
// with the reason "mcp_circuit_open".
var ErrCircuitOpen = errors.New("mcp_circuit_open")

// CircuitState is the state of one server's breaker.
type CircuitState string

// Breaker states.
const (
	CircuitClosed   CircuitState = "closed"
	CircuitOpen     CircuitState = "open"
	CircuitHalfOpen CircuitState = "half_open"
)

// Breaker is the circuit breaker of one upstream server: after threshold
// consecutive failures it refuses calls for cooldown, then lets exactly one
// probe through; the probe's success closes it, its failure opens it again.
// Every state change starts a new generation, and outcomes of calls admitted
// in an earlier generation are ignored, so a slow call that started before
// the circuit opened cannot close it (or count against it) afterwards.
type Breaker struct {
	threshold int
	cooldown  time.Duration
	now       func() time.Time

	mu       sync.Mutex
	state    CircuitState
	failures int
	openedAt time.Time
	gen      uint64
	probing  bool
}

// Ticket is the admission of one call; hand it back to Done or Release.
type Ticket struct {
	gen   uint64
	probe bool
}

// NewBreaker returns a closed breaker. now is the clock (time.Now when nil);
// tests inject one to pass the cooldown without sleeping.
func NewBreaker(threshold int, cooldown time.Duration, now func() time.Time) *Breaker {
	if threshold < 1 {
		threshold = DefaultCircuitFailureThreshold
	}
	if now == nil {
		now = time.Now
	}
	return &Breaker{threshold: threshold, cooldown: cooldown, now: now, state: CircuitClosed}
}

// State returns the current state (an open breaker past its cooldown
// reports half_open).
func (b *Breaker) State() CircuitState {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.advance()
	return b.state
}

// advance moves an open breaker whose cooldown has passed to half-open.
func (b *Breaker) advance() {
	if b.state == CircuitOpen && !b.now().Before(b.openedAt.Add(b.cooldown)) {
		b.state = CircuitHalfOpen
		b.gen++
		b.probing = false
	}
}

// Allow admits a call or returns ErrCircuitOpen.
func (b *Breaker) Allow() (Ticket, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.advance()
	switch b.state {
	case CircuitOpen:
		return Ticket{}, ErrCircuitOpen
	case CircuitHalfOpen:
		if b.probing {
			return Ticket{}, ErrCircuitOpen
		}
		b.probing = true
		return Ticket{gen: b.gen, probe: true}, nil
	}
	return Ticket{gen: b.gen}, nil
}

// Done reports the outcome of an admitted call. Stale tickets (from an
// earlier generation) change nothing.
func (b *Breaker) Done(t Ticket, success bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if t.gen != b.gen {
		return
	}
	switch b.state {
	case CircuitClosed:
		if success {
			b.failures = 0
			return
		}
		b.failures++
		if b.failures >= b.threshold {
			b.open()
		}
	case CircuitHalfOpen:
		if !t.probe {
			return
		}
		if success {
			b.state = CircuitClosed
			b.failures = 0
			b.gen++
			b.probing = false
			return
		}
		b.open()
	}
}

// Release returns a ticket whose call ended without an outcome that says
// anything about the server (cancelled before or while it ran): a probe
// slot is freed, nothing else changes.
func (b *Breaker) Release(t Ticket) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if t.probe && t.gen == b.gen && b.state == CircuitHalfOpen {
		b.probing = false
	}
}

func (b *Breaker) open() {
	b.state = CircuitOpen
	b.openedAt = b.now()
	b.failures = 0
	b.gen++
	b.probing = false
}
