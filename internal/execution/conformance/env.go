package conformance

import (
	"crypto/rand"
	"encoding/hex"
	"strings"
	"testing"

	"github.com/toolwarden/toolwarden/internal/execution"
)

// randomSecret is a value that cannot appear anywhere by chance.
func randomSecret() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return "tw-secret-" + hex.EncodeToString(b)
}

// testEnvHeldUntilClaim: environment values may be secrets. The record a
// caller reads never carries them; the claim hands them to the worker;
// afterwards the store has forgotten them; a record cancelled before its
// claim gives them up too.
func testEnvHeldUntilClaim(t *testing.T, open func(*testing.T) execution.Backend) {
	b := open(t)
	ctx := ctxT(t)
	secret := randomSecret()
	r := newRecord("c-env", "exec")
	r.EnvNames, r.Env = []string{"API_TOKEN"}, map[string]string{"API_TOKEN": secret}
	mustCreate(t, b, r)
	got, err := b.Get(ctx, r.ExecutionID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Env != nil || strings.Contains(jsonOf(t, got), secret) {
		t.Fatalf("stored record carries the env value: %s", jsonOf(t, got))
	}
	if len(got.EnvNames) != 1 || got.EnvNames[0] != "API_TOKEN" {
		t.Fatalf("env names lost: %v", got.EnvNames)
	}
	claimed := mustClaim(t, b, "w1")
	if claimed.ExecutionID != r.ExecutionID || claimed.Env["API_TOKEN"] != secret {
		t.Fatalf("claim did not hand over the env: id %s env %v", claimed.ExecutionID, claimed.Env)
	}
	after, _ := b.Get(ctx, r.ExecutionID)
	if after.Env != nil || strings.Contains(jsonOf(t, after), secret) {
		t.Fatalf("running record carries the env value: %s", jsonOf(t, after))
	}
	code := 0
	if err := b.Finish(ctx, "w1", r.ExecutionID, &execution.Record{Status: execution.StatusCompleted, ExitCode: &code}); err != nil {
		t.Fatal(err)
	}

	// Cancelled before any claim: never handed out.
	c := newRecord("c-env", "exec")
	c.EnvNames, c.Env = []string{"API_TOKEN"}, map[string]string{"API_TOKEN": secret}
	mustCreate(t, b, c)
	if _, err := b.RequestCancel(ctx, c.ExecutionID, "stop"); err != nil {
		t.Fatal(err)
	}
	if x, err := b.Claim(ctx, "w1", 0); err == nil {
		t.Fatalf("claimed a cancelled record: %s", jsonOf(t, x))
	}
}

// testEnvMissingFailsClaim: a record that names environment variables but
// whose values the store does not hold (lost, deleted) is failed at claim
// with a reason, never handed to a worker to run without them.
func testEnvMissingFailsClaim(t *testing.T, open func(*testing.T) execution.Backend) {
	b := open(t)
	ctx := ctxT(t)
	r := newRecord("c-env-lost", "exec")
	r.EnvNames = []string{"API_TOKEN"} // names without values
	mustCreate(t, b, r)
	ok := mustCreate(t, b, newRecord("c-env-lost", "exec"))
	claimed := mustClaim(t, b, "w1")
	if claimed.ExecutionID != ok.ExecutionID {
		t.Fatalf("claimed %s, want the record without env %s", claimed.ExecutionID, ok.ExecutionID)
	}
	lost, _ := b.Get(ctx, r.ExecutionID)
	if lost.Status != execution.StatusFailed || lost.StatusReason == "" || !lost.IsError {
		t.Fatalf("record without its env values was not failed with a reason: %s", jsonOf(t, lost))
	}
}
