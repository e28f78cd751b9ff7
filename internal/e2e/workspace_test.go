package e2e

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/toolwarden/toolwarden/internal/workspace"
)

// TestConversationCancelRemovesWorkspace: through `serve`, a
// conversation's second run sees its first run's files, and cancelling the
// conversation removes its workspace from the data dir.
func TestConversationCancelRemovesWorkspace(t *testing.T) {
	s := startServer(t, serverOpts{})
	ctx := context.Background()
	post := func(cmd string) map[string]any {
		t.Helper()
		code, body, err := s.api.do(ctx, http.MethodPost, "/v1/executions",
			map[string]any{"command": cmd, "conversation_id": "conv-e2e", "wait_seconds": 60})
		if err != nil || code != http.StatusOK {
			t.Fatalf("%s: %d %s %v", cmd, code, body, err)
		}
		var m map[string]any
		if err := json.Unmarshal(body, &m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	first := post("echo kept > f")
	if first["status"] != "completed" {
		t.Fatalf("first run: %v", first)
	}
	if second := post("cat f"); second["result"] != "kept\n" {
		t.Fatalf("second run of the conversation: %v", second)
	}
	owner, _ := first["owner_key_id"].(string)
	dir := filepath.Join(s.opts.DataDir, "workspaces", workspace.Name(workspace.Key(owner, "conv-e2e"), ""))
	if first["workspace"] != filepath.Base(dir) {
		t.Fatalf("record workspace %v, want %s", first["workspace"], filepath.Base(dir))
	}
	if _, err := os.Stat(dir); err != nil {
		t.Fatalf("workspace after the runs: %v", err)
	}
	if code, body, err := s.api.do(ctx, http.MethodPost, "/v1/conversations/conv-e2e/cancel", nil); err != nil || code != http.StatusOK {
		t.Fatalf("cancel conversation: %d %s %v", code, body, err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		if _, err := os.Stat(dir); os.IsNotExist(err) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("workspace %s still there after the conversation was cancelled", dir)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
