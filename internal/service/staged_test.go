package service_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolwarden/toolwarden/internal/execution"
	"github.com/toolwarden/toolwarden/internal/service"
	"github.com/toolwarden/toolwarden/internal/workspace"
)

// TestStagedFileDeniedAtScanTime: a file staged by an earlier run of the
// conversation and run by this one is judged at submit time; the blocked
// record's evidence names it. Another conversation's workspace is not read.
func TestStagedFileDeniedAtScanTime(t *testing.T) {
	s := newService(t)
	root := t.TempDir()
	loc := workspace.Locator{Root: root}
	s.Workspaces = loc
	ws := loc.Path(workspace.Key("agent", "a"), "")
	if err := os.MkdirAll(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, "x.py"), []byte("import os\nos.system('rm -rf /')\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	rec, _, err := s.Submit(context.Background(), &service.ToolRequest{Command: "python3 x.py", ConversationID: "a"}, "agent", 0)
	if err != nil || rec.Status != execution.StatusBlocked {
		t.Fatalf("got %+v %v", rec, err)
	}
	found := false
	for _, f := range rec.SafetyReport.Findings {
		found = found || (strings.HasPrefix(f.Evidence, "x.py:2:") && f.Metadata["file"] == "x.py")
	}
	if !found || rec.StagedScan != execution.StagedScanService || len(rec.StagedFiles) == 0 || rec.StagedFiles[0].State != "file" {
		t.Fatalf("findings %+v staged %q %+v", rec.SafetyReport.Findings, rec.StagedScan, rec.StagedFiles)
	}
	rep, err := s.ScanFor(context.Background(), &service.ToolRequest{Command: "python3 x.py", ConversationID: "a"},
		[]service.Piece{{Field: "command", Language: "bash", Content: "python3 x.py"}}, "agent")
	if err != nil || rep.Decision != "deny" {
		t.Fatalf("/v1/scan with the conversation: %v %v", rep, err)
	}
	other, _, err := s.Submit(context.Background(), &service.ToolRequest{Command: "python3 x.py", ConversationID: "b"}, "agent", 0)
	if err != nil || other.Status != execution.StatusQueued || other.StagedFiles[0].State != "absent" {
		t.Fatalf("other conversation: %+v %v", other, err)
	}
	env, _, err := s.Submit(context.Background(), &service.ToolRequest{Command: "true", Env: map[string]string{"BASH_ENV": "x.sh"}}, "agent", 0)
	if err != nil || env.Status != execution.StatusBlocked || !strings.Contains(env.StatusReason+env.Error, "ENV_INTERPRETER_HOOK") &&
		env.SafetyReport.Findings[0].RuleID != "ENV_INTERPRETER_HOOK" {
		t.Fatalf("BASH_ENV: %+v %v", env, err)
	}
}
