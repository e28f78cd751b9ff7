package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolwarden/toolwarden/engine"
	"github.com/toolwarden/toolwarden/internal/auth"
	"github.com/toolwarden/toolwarden/internal/execution"
	"github.com/toolwarden/toolwarden/internal/execution/embedded"
	"github.com/toolwarden/toolwarden/internal/policies"
	"github.com/toolwarden/toolwarden/internal/server"
)

// opsServer is a real toolwarden server in the test process (embedded
// store, strict policy so that calls are held for review) for the
// operator commands to talk to.
type opsServer struct {
	url                    string
	backend                execution.Backend
	admin, reviewer, agent string
}

func newOpsServer(t *testing.T) *opsServer {
	t.Helper()
	dir := t.TempDir()
	eng, err := engine.New(context.Background(), engine.Options{Policy: policies.Strict(), Packs: engine.NativePacks()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close(context.Background()) })
	b, err := embedded.Open(dir, embedded.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	keys, err := auth.Open(filepath.Join(dir, "keys.json"))
	if err != nil {
		t.Fatal(err)
	}
	s := &opsServer{backend: b}
	s.admin, _, _ = keys.Create("admin", auth.RoleAdmin)
	s.reviewer, _, _ = keys.Create("reviewer", auth.RoleReviewer)
	s.agent, _, _ = keys.Create("agent", auth.RoleAgent)
	srv := httptest.NewServer(server.New(server.Config{}, eng, b, keys).Handler())
	t.Cleanup(srv.Close)
	s.url = srv.URL
	return s
}

// as runs the binary against the server with key.
func (s *opsServer) as(t *testing.T, key string, args ...string) result {
	t.Helper()
	return invocation{env: []string{"TOOLWARDEN_SERVER=" + s.url, "TOOLWARDEN_KEY=" + key}}.run(t, args...)
}

// submitHeld submits a call the strict policy holds for review.
func (s *opsServer) submitHeld(t *testing.T) string {
	t.Helper()
	r := s.as(t, s.agent, "executions", "list") // the agent key works
	wantCode(t, r, 0)
	c := newTestClient(t, s.url, s.agent)
	id, err := c(`{"command":"python3 -c 'print(1)'","wait_seconds":0,"conversation_id":"ops"}`)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

func TestOpsReviewApproveWaitOutput(t *testing.T) {
	s := newOpsServer(t)
	id := s.submitHeld(t)

	r := s.as(t, s.reviewer, "review", "list")
	wantCode(t, r, 0)
	wantContains(t, "review list", r.stdout, "ID", "STATUS", id, "pending_review")

	r = s.as(t, s.reviewer, "review", "list", "-o", "json")
	wantCode(t, r, 0)
	var page struct {
		Executions []struct {
			ExecutionID string `json:"execution_id"`
		} `json:"executions"`
	}
	decodeJSON(t, "review list -o json", r.stdout, &page)
	if len(page.Executions) != 1 || page.Executions[0].ExecutionID != id {
		t.Fatalf("json list %+v", page)
	}

	// An agent key may not approve: the API's answer is shown, exit 1.
	r = s.as(t, s.agent, "review", "approve", id)
	wantCode(t, r, 1)
	wantContains(t, "stderr", r.stderr, "403", "reviewer")

	r = s.as(t, s.reviewer, "review", "approve", id, "--reason", "fine")
	wantCode(t, r, 0)
	wantContains(t, "approve", r.stdout, "queued", "fine")

	// An executor finishes it later; wait shows progress meanwhile.
	go func() {
		time.Sleep(1500 * time.Millisecond)
		rec, err := s.backend.Claim(context.Background(), "ops-worker", 5*time.Second)
		if err != nil {
			return
		}
		final := rec.Clone()
		final.Status = execution.StatusCompleted
		code := 0
		final.ExitCode = &code
		final.Result = "one\n"
		_ = s.backend.Finish(context.Background(), "ops-worker", rec.ExecutionID, final)
	}()
	r = s.as(t, s.agent, "executions", "wait", id, "--step", "500ms", "--timeout", "60s")
	wantCode(t, r, 0)
	wantContains(t, "wait stdout", r.stdout, "completed", "one")
	wantContains(t, "wait progress", r.stderr, "toolwarden: "+id+" queued after")

	r = s.as(t, s.agent, "executions", "output", id)
	wantCode(t, r, 0)
	if r.stdout != "one\n" {
		t.Fatalf("output %q", r.stdout)
	}
	r = s.as(t, s.agent, "executions", "get", id, "-o", "json")
	wantCode(t, r, 0)
	var got map[string]any
	decodeJSON(t, "get -o json", r.stdout, &got)
	if got["status"] != "completed" || got["execution_id"] != id {
		t.Fatalf("get %v", got)
	}
}

func TestOpsRejectCancelAndKeys(t *testing.T) {
	s := newOpsServer(t)
	id := s.submitHeld(t)
	r := s.as(t, s.reviewer, "review", "reject", id, "--reason", "no")
	wantCode(t, r, 0)
	wantContains(t, "reject", r.stdout, "blocked")
	r = s.as(t, s.reviewer, "review", "reject", id)
	wantCode(t, r, 1)
	wantContains(t, "stderr", r.stderr, "409", "not pending_review")

	id2 := s.submitHeld(t)
	r = s.as(t, s.agent, "executions", "cancel", id2, "--reason", "stop")
	wantCode(t, r, 0)
	wantContains(t, "cancel", r.stdout, id2)

	r = s.as(t, s.admin, "keys", "create", "ci-bot", "--role", "agent", "-o", "json")
	wantCode(t, r, 0)
	var created struct {
		Key struct {
			ID string `json:"id"`
		} `json:"key"`
		Token string `json:"token"`
	}
	decodeJSON(t, "keys create", r.stdout, &created)
	if created.Token == "" || created.Key.ID == "" {
		t.Fatalf("created %+v", created)
	}
	r = s.as(t, s.admin, "keys", "list")
	wantCode(t, r, 0)
	wantContains(t, "keys list", r.stdout, "ci-bot", created.Key.ID, "agent")
	if strings.Contains(r.stdout, created.Token) {
		t.Fatal("keys list shows a token")
	}
	r = s.as(t, created.Token, "executions", "list")
	wantCode(t, r, 0)
	r = s.as(t, s.admin, "keys", "revoke", created.Key.ID)
	wantCode(t, r, 0)
	r = s.as(t, created.Token, "executions", "list")
	wantCode(t, r, 1)
	wantContains(t, "revoked key", r.stderr, "401")
}

func TestOpsNeedKeyAndServer(t *testing.T) {
	r := invocation{env: []string{"TOOLWARDEN_KEY="}}.run(t, "executions", "list")
	wantCode(t, r, exitUsage)
	wantContains(t, "stderr", r.stderr, "TOOLWARDEN_KEY")
	r = invocation{env: []string{"TOOLWARDEN_KEY=x"}}.run(t, "keys", "list", "--server", "http://127.0.0.1:1")
	wantCode(t, r, exitUsage)
	wantContains(t, "stderr", r.stderr, "127.0.0.1:1")
	r = invocation{env: []string{"TOOLWARDEN_KEY=x"}}.run(t, "keys", "list", "-o", "yaml")
	wantCode(t, r, exitUsage)
	wantContains(t, "stderr", r.stderr, "table or json")
}

// newTestClient returns a function posting a raw execution request.
func newTestClient(t *testing.T, url, key string) func(body string) (string, error) {
	return func(body string) (string, error) {
		req := httptestRequest(t, url+"/v1/executions", key, body)
		var rec struct {
			ExecutionID string `json:"execution_id"`
			Status      string `json:"status"`
		}
		if err := json.Unmarshal(req, &rec); err != nil {
			return "", err
		}
		if rec.Status != "pending_review" {
			t.Fatalf("submitted call is %s, want pending_review: %s", rec.Status, req)
		}
		return rec.ExecutionID, nil
	}
}

func httptestRequest(t *testing.T, url, key, body string) []byte {
	t.Helper()
	req, _ := http.NewRequest("POST", url, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return b
}
