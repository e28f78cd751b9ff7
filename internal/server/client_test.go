package server_test

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/toolwarden/toolwarden/internal/policies"
	"github.com/toolwarden/toolwarden/internal/server"
	"github.com/toolwarden/toolwarden/sdk"
	"github.com/toolwarden/toolwarden/sdk/client"
)

// These drive the real server through sdk/client, so the client's view of
// every route is checked against what the server answers.

func newClient(t *testing.T, f *fixture, token string) *client.Client {
	t.Helper()
	c, err := client.New(f.url, token, client.WithRetry(client.RetryPolicy{MaxAttempts: 2, BaseDelay: time.Millisecond}))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestClientScanSubmitWaitOutput(t *testing.T) {
	f := newFixture(t, policies.Default(), server.Config{})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	agent := newClient(t, f, f.agent)

	rep, err := agent.Scan(ctx, client.ToolRequest{Command: "rm -rf /", Code: "print(1)", Language: "bash"})
	if err != nil || rep.Decision != sdk.Deny {
		t.Fatalf("scan of rm -rf / with code: %+v, %v", rep, err)
	}
	denied, err := agent.Submit(ctx, client.ToolRequest{Command: "rm -rf /"})
	if err != nil || denied.Status != client.StatusBlocked || denied.SafetyReport == nil {
		t.Fatalf("denied submit: %+v, %v", denied, err)
	}

	f.worker(ctx, "hello from the run\n", 300*time.Millisecond)
	zero := 0.0
	e, err := agent.Submit(ctx, client.ToolRequest{Command: "echo hello", ConversationID: "c1", WaitSeconds: &zero})
	if err != nil || e.Terminal() {
		t.Fatalf("submit: %+v, %v", e, err)
	}
	steps := 0
	done, err := agent.Wait(ctx, e.ExecutionID, 100*time.Millisecond, func(*client.Execution) { steps++ })
	if err != nil || done.Status != client.StatusCompleted || done.Result != "hello from the run\n" {
		t.Fatalf("wait: %+v, %v", done, err)
	}
	got, err := agent.Get(ctx, e.ExecutionID)
	if err != nil || got.ExecutionID != e.ExecutionID || got.ConversationID != "c1" {
		t.Fatalf("get: %+v, %v", got, err)
	}
	out, err := io.ReadAll(agent.OutputReader(ctx, e.ExecutionID, 5))
	if err != nil || string(out) != "hello from the run\n" {
		t.Fatalf("output reader (5-byte chunks): %q, %v", out, err)
	}
	page, err := agent.List(ctx, client.ListOptions{ConversationID: "c1", Limit: 10})
	if err != nil || len(page.Executions) != 1 || page.Executions[0].ExecutionID != e.ExecutionID {
		t.Fatalf("list: %+v, %v", page, err)
	}
	// Another agent sees nothing of it: a typed not-found.
	other := newClient(t, f, f.agent2)
	if _, err := other.Get(ctx, e.ExecutionID); !client.IsNotFound(err) {
		t.Fatalf("other agent's get: %v", err)
	}
}

func TestClientErrorsCarryTheBody(t *testing.T) {
	f := newFixture(t, policies.Default(), server.Config{})
	ctx := context.Background()
	agent := newClient(t, f, f.agent)
	_, err := agent.List(ctx, client.ListOptions{Status: "bogus"})
	var ae *client.APIError
	if !errors.As(err, &ae) || ae.StatusCode != 400 || ae.Field != "status" || ae.Code != "invalid_request" {
		t.Fatalf("bad status filter: %v", err)
	}
	_, err = agent.ListKeys(ctx)
	if !errors.As(err, &ae) || ae.StatusCode != 403 || !strings.Contains(ae.Message, "admin") {
		t.Fatalf("agent listing keys: %v", err)
	}
	bad := newClient(t, f, "tw_bogus")
	if _, err := bad.Scan(ctx, client.ToolRequest{Command: "ls"}); !errors.As(err, &ae) || ae.StatusCode != 401 {
		t.Fatalf("bogus key: %v", err)
	}
}

func TestClientReviewCancelAndKeys(t *testing.T) {
	f := newFixture(t, policies.Strict(), server.Config{})
	ctx := context.Background()
	agent, reviewer, admin := newClient(t, f, f.agent), newClient(t, f, f.reviewer), newClient(t, f, f.admin)
	zero := 0.0
	held, err := agent.Submit(ctx, client.ToolRequest{Command: "python3 -c 'print(1)'", ConversationID: "conv", WaitSeconds: &zero})
	if err != nil || held.Status != client.StatusPendingReview {
		t.Fatalf("held: %+v, %v", held, err)
	}
	if _, err := agent.Approve(ctx, held.ExecutionID, ""); err == nil {
		t.Fatal("an agent approved")
	}
	rej, err := reviewer.Reject(ctx, held.ExecutionID, "no")
	if err != nil || rej.Status != client.StatusBlocked || !strings.Contains(rej.StatusReason, "no") {
		t.Fatalf("reject: %+v, %v", rej, err)
	}
	if _, err := reviewer.Approve(ctx, held.ExecutionID, ""); !client.IsConflict(err) {
		t.Fatalf("approving a rejected execution: %v", err)
	}
	held2, err := agent.Submit(ctx, client.ToolRequest{Command: "python3 -c 'print(2)'", ConversationID: "conv", WaitSeconds: &zero})
	if err != nil {
		t.Fatal(err)
	}
	ok, err := reviewer.Approve(ctx, held2.ExecutionID, "fine")
	if err != nil || ok.Status != client.StatusQueued {
		t.Fatalf("approve: %+v, %v", ok, err)
	}
	cc, err := agent.CancelConversation(ctx, "conv", "done")
	if err != nil || len(cc.Cancelled) != 1 || cc.Cancelled[0] != held2.ExecutionID {
		t.Fatalf("cancel conversation: %+v, %v", cc, err)
	}
	if c, err := agent.Cancel(ctx, held2.ExecutionID, "again"); err != nil || c.ExecutionID != held2.ExecutionID {
		t.Fatalf("cancel: %+v, %v", c, err)
	}

	created, err := admin.CreateKey(ctx, "ci", "agent")
	if err != nil || created.Token == "" || created.Key.Role != "agent" {
		t.Fatalf("create key: %+v, %v", created, err)
	}
	keys, err := admin.ListKeys(ctx)
	if err != nil || !hasKey(keys, created.Key.ID) {
		t.Fatalf("list keys: %v, %v", keys, err)
	}
	if _, err := newClient(t, f, created.Token).Scan(ctx, client.ToolRequest{Command: "ls"}); err != nil {
		t.Fatalf("new key: %v", err)
	}
	if err := admin.RevokeKey(ctx, created.Key.ID); err != nil {
		t.Fatal(err)
	}
	if err := admin.RevokeKey(ctx, created.Key.ID); !client.IsNotFound(err) {
		t.Fatalf("revoking twice: %v", err)
	}
}

func hasKey(keys []client.Key, id string) bool {
	for _, k := range keys {
		if k.ID == id {
			return true
		}
	}
	return false
}
