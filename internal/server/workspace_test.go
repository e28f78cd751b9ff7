package server_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/toolwarden/toolwarden/internal/policies"
	"github.com/toolwarden/toolwarden/internal/server"
	"github.com/toolwarden/toolwarden/internal/workspace"
)

// TestExecutionCwdMustStayInTheWorkspace: a cwd outside the run's
// workspace is a 400 naming cwd; nothing is stored or queued. /v1/scan
// still judges the cwd as sent.
func TestExecutionCwdMustStayInTheWorkspace(t *testing.T) {
	m, err := workspace.New(workspace.Config{Root: filepath.Join(t.TempDir(), "ws")})
	if err != nil {
		t.Fatal(err)
	}
	f := newFixture(t, policies.Default(), server.Config{Workspaces: m})
	_, first := f.do("POST", "/v1/executions", f.agent, map[string]any{"command": "ls", "conversation_id": "c1", "wait_seconds": 0})
	owner, _ := first["owner_key_id"].(string)
	if owner == "" {
		t.Fatalf("no owner on %v", first)
	}
	if r, err := f.backend.Claim(context.Background(), "w", time.Second); err != nil || r.ExecutionID != first["execution_id"] {
		t.Fatalf("claim the first execution: %v %v", r, err)
	}
	// The caller's conversation workspace exists, with a symlink out.
	ws, err := m.Ensure(workspace.Key(owner, "c1"), "")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/etc", filepath.Join(ws.Path, "out")); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(ws.Path, "src"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, cwd := range []string{"/", "/etc", "../..", "..", "out", "out/ssh", m.Root(), ws.Path + "/../x", "nonexistent"} {
		code, body := f.do("POST", "/v1/executions", f.agent, map[string]any{
			"command": "ls", "cwd": cwd, "conversation_id": "c1", "wait_seconds": 0})
		e, _ := body["error"].(map[string]any)
		if code != 400 || e["field"] != "cwd" {
			t.Errorf("cwd %q: %d %v, want 400 naming cwd", cwd, code, body)
		}
	}
	// Another agent's absolute path into this workspace is outside its own.
	code, body := f.do("POST", "/v1/executions", f.agent2, map[string]any{
		"command": "ls", "cwd": ws.Path, "conversation_id": "c1", "wait_seconds": 0})
	if e, _ := body["error"].(map[string]any); code != 400 || e["field"] != "cwd" {
		t.Errorf("agent2 with agent's workspace as cwd: %d %v", code, body)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if r, err := f.backend.Claim(ctx, "w", 50*time.Millisecond); err == nil {
		t.Fatalf("a refused execution was queued: %+v", r)
	}
	for _, cwd := range []string{"src", ws.Path + "/src", ".", ""} {
		code, body := f.do("POST", "/v1/executions", f.agent, map[string]any{
			"command": "ls", "cwd": cwd, "conversation_id": "c1", "wait_seconds": 0})
		if code != 202 || body["status"] != "queued" {
			t.Errorf("cwd %q: %d %v, want queued", cwd, code, body)
		}
	}
	// The scan endpoint keeps judging the cwd itself.
	code, body = f.do("POST", "/v1/scan", f.agent, map[string]any{"command": "ls", "cwd": "/root"})
	if code != 200 || body["decision"] != "deny" {
		t.Errorf("scan with cwd /root: %d %v, want 200 with a deny", code, body)
	}
}

// TestRequestedTimeoutIsClamped: timeout_seconds far over the policy's
// max_timeout_seconds and the configured maximum is stored clamped, the
// effective timeout is on the record, and the review finding stays.
func TestRequestedTimeoutIsClamped(t *testing.T) {
	f := newFixture(t, policies.Default(), server.Config{MaxTimeout: time.Hour})
	code, rec := f.do("POST", "/v1/executions", f.agent, map[string]any{
		"command": "echo hi", "timeout_seconds": 100000, "wait_seconds": 0})
	if code != 202 && code != 200 {
		t.Fatalf("submit: %d %v", code, rec)
	}
	max := policies.Default().MaxTimeoutSeconds
	want := float64(min(time.Duration(max*float64(time.Second)), time.Hour).Milliseconds())
	if rec["effective_timeout_ms"] != want || rec["timeout_ms"] != want {
		t.Errorf("timeout_ms %v effective_timeout_ms %v, want both %v", rec["timeout_ms"], rec["effective_timeout_ms"], want)
	}
	rep, _ := rec["safety_report"].(map[string]any)
	found := false
	for _, fi := range rep["findings"].([]any) {
		if fi.(map[string]any)["rule_id"] == "RESOURCE_TIMEOUT_LIMIT_EXCEEDED" {
			found = true
		}
	}
	if !found {
		t.Errorf("the RESOURCE_TIMEOUT_LIMIT_EXCEEDED finding is gone: %v", rep["findings"])
	}
	_, rec = f.do("POST", "/v1/executions", f.agent, map[string]any{"command": "echo hi", "wait_seconds": 0})
	if rec["effective_timeout_ms"] != float64(time.Hour.Milliseconds()) {
		t.Errorf("no requested timeout: effective %v, want the configured %d", rec["effective_timeout_ms"], time.Hour.Milliseconds())
	}
}

// TestConversationCancelRemovesTheWorkspace: cancelling a conversation
// calls the hook for the caller's workspace of it only; an admin's cancel
// covers every owner with a record in it.
func TestConversationCancelRemovesTheWorkspace(t *testing.T) {
	type call struct{ owner, conv string }
	var calls []call
	f := newFixture(t, policies.Default(), server.Config{ConversationCancelled: func(_ context.Context, owner, conv string) {
		calls = append(calls, call{owner, conv})
	}})
	f.do("POST", "/v1/executions", f.agent, map[string]any{"command": "echo a", "conversation_id": "c1", "wait_seconds": 0})
	f.do("POST", "/v1/executions", f.agent2, map[string]any{"command": "echo b", "conversation_id": "c1", "wait_seconds": 0})
	if code, out := f.do("POST", "/v1/conversations/c1/cancel", f.agent, nil); code != 200 {
		t.Fatalf("cancel: %d %v", code, out)
	}
	if len(calls) != 1 || calls[0].conv != "c1" || calls[0].owner == "" {
		t.Fatalf("agent cancel: hook calls %v, want one for the agent's c1", calls)
	}
	agentID := calls[0].owner
	calls = nil
	if code, out := f.do("POST", "/v1/conversations/c1/cancel", f.admin, nil); code != 200 {
		t.Fatalf("admin cancel: %d %v", code, out)
	}
	if len(calls) != 2 || calls[0].owner == calls[1].owner {
		t.Fatalf("admin cancel: hook calls %v, want one per owner of c1", calls)
	}
	_ = agentID
}
