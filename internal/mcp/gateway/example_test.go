package gateway_test

import (
	"fmt"
	"time"

	"github.com/toolwarden/toolwarden/internal/mcp/gateway"
)

// A server's breaker opens after the configured number of consecutive
// failures, refuses calls during the cooldown, and lets one probe through
// afterwards; the probe's success closes it.
func ExampleBreaker() {
	now := time.Unix(0, 0)
	b := gateway.NewBreaker(3, time.Minute, func() time.Time { return now })
	for i := 0; i < 3; i++ {
		t, _ := b.Allow()
		b.Done(t, false)
	}
	_, err := b.Allow()
	fmt.Println(b.State(), err)

	now = now.Add(time.Minute)
	probe, _ := b.Allow()
	_, err = b.Allow()
	fmt.Println(b.State(), err)

	b.Done(probe, true)
	fmt.Println(b.State())
	// Output:
	// open mcp_circuit_open
	// half_open mcp_circuit_open
	// closed
}
