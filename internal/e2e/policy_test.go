package e2e

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/toolwarden/toolwarden/sdk"
	twclient "github.com/toolwarden/toolwarden/sdk/client"
)

// denyLongSleep turns the long-sleep rule (needs_human_review by default)
// into a deny.
const denyLongSleep = "rules:\n  BASH_LONG_SLEEP:\n    decision: deny\n"

// policyClient is an admin client of s through the public Go client.
func policyClient(t *testing.T, s *server) *twclient.Client {
	t.Helper()
	c, err := twclient.New(fmt.Sprintf("http://127.0.0.1:%d", s.opts.Port), s.opts.Key)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func sleepDecision(t *testing.T, c *twclient.Client) sdk.Decision {
	t.Helper()
	rep, err := c.Scan(context.Background(), twclient.ToolRequest{Language: "bash", Command: "sleep 3600"})
	if err != nil {
		t.Fatal(err)
	}
	return rep.Decision
}

// TestPolicyRevisionSurvivesSIGKILL: a policy PUT through the API is what
// the server scans under after a crash and restart.
func TestPolicyRevisionSurvivesSIGKILL(t *testing.T) {
	if testing.Short() {
		t.Skip("crash test: skipped with -short")
	}
	s := startServer(t, serverOpts{NoExecutor: true})
	c := policyClient(t, s)
	if got := sleepDecision(t, c); got != sdk.NeedsHumanReview {
		t.Fatalf("decision %s under the configured policy, want needs_human_review", got)
	}
	rev, err := c.PutPolicy(context.Background(), denyLongSleep)
	if err != nil {
		t.Fatal(err)
	}
	if got := sleepDecision(t, c); got != sdk.Deny {
		t.Fatalf("decision %s after PUT, want deny", got)
	}
	s.kill(t)
	s2 := s.restart(t)
	c2 := policyClient(t, s2)
	got, err := c2.Policy(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if got.Version != rev.Version || got.Digest != rev.Digest {
		t.Fatalf("after restart GET /v1/policy = %+v, want version %d %s", got, rev.Version, rev.Digest)
	}
	if d := sleepDecision(t, c2); d != sdk.Deny {
		t.Fatalf("decision %s after restart, want deny", d)
	}
}

// TestPolicyReachesEveryRedisServer: two servers on one Redis; a PUT on
// one is applied by the other within 2 s, and so is a rollback.
func TestPolicyReachesEveryRedisServer(t *testing.T) {
	rs := startRedisServer(t)
	prefix := "twe2e:" + randHex(4)
	a := startServer(t, serverOpts{RedisURL: rs.url, RedisPrefix: prefix, NoExecutor: true})
	b := startServer(t, serverOpts{RedisURL: rs.url, RedisPrefix: prefix, NoExecutor: true, Key: a.opts.Key})
	ca, cb := policyClient(t, a), policyClient(t, b)
	if _, err := ca.PutPolicy(context.Background(), denyLongSleep); err != nil {
		t.Fatal(err)
	}
	await := func(c *twclient.Client, want sdk.Decision) {
		t.Helper()
		deadline := time.Now().Add(2 * time.Second)
		for sleepDecision(t, c) != want {
			if time.Now().After(deadline) {
				t.Fatalf("decision is not %s within 2 s", want)
			}
			time.Sleep(25 * time.Millisecond)
		}
	}
	await(cb, sdk.Deny)
	hist, err := cb.PolicyHistory(context.Background())
	if err != nil || len(hist) != 1 {
		t.Fatalf("history on the other server: %+v, %v", hist, err)
	}
	// Roll back to the configured policy's rules through a new revision.
	if _, err := cb.PutPolicy(context.Background(), "name: default\n"); err != nil {
		t.Fatal(err)
	}
	await(ca, sdk.NeedsHumanReview)
	if _, err := ca.RollbackPolicy(context.Background(), 1); err != nil {
		t.Fatal(err)
	}
	await(cb, sdk.Deny)
}
