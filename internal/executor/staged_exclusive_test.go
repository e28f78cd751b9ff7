package executor

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/toolwarden/toolwarden/internal/engine/staged"
	"github.com/toolwarden/toolwarden/internal/execution"
	wsp "github.com/toolwarden/toolwarden/internal/workspace"
)

// stagedRecord queues a bash record of (owner, conv) that runs content, as
// the service would after scanning the workspace files it names: their
// state and hash now are what the run must execute.
func stagedRecord(t *testing.T, b execution.Backend, m *wsp.Manager, owner, conv, content string, files ...string) *execution.Record {
	t.Helper()
	src := staged.Dir{Root: m.Path(wsp.Key(owner, conv), ""), Cwd: m.Path(wsp.Key(owner, conv), "")}
	r := &execution.Record{ToolName: "exec", ConversationID: conv, OwnerKeyID: owner, Language: "bash",
		Content: content, StagedScan: execution.StagedScanService}
	for _, f := range files {
		got := src.ReadRel(f, 0).File
		if got.State != staged.StateFile {
			t.Fatalf("%s is %s in the workspace, want a file", f, got.State)
		}
		r.StagedFiles = append(r.StagedFiles, execution.StagedFile{Path: got.Path, State: got.State, SHA256: got.SHA256, Size: got.Size})
	}
	if err := b.Create(context.Background(), r); err != nil {
		t.Fatal(err)
	}
	return r
}

// waitRunning waits until the execution has started.
func waitRunning(t *testing.T, b execution.Backend, id string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		r, err := b.Get(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		if r.Status == execution.StatusRunning {
			return
		}
		if r.Status.Terminal() {
			t.Fatalf("%s ended before the test could use it: %s %q %s", id, r.Status, r.Result, r.Error)
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("%s never started", id)
}

// TestStagedRunHasTheWorkspaceAlone: runs of one conversation share a uid,
// so a run in progress could rewrite a file another run executes between
// the executor's check of what was scanned and the interpreter opening it.
// A run that executes workspace files therefore waits for the
// conversation's other runs to end and checks again: here the other run
// swaps the script while the staged run would have been running, and the
// staged run is refused instead of running either version unchecked.
func TestStagedRunHasTheWorkspaceAlone(t *testing.T) {
	needRootWS(t)
	m := workspaces(t, wsp.Config{})
	b := openEmbedded(t, 0)
	cfg := fastConfig()
	cfg.Workspaces, cfg.Concurrency = m, 4
	start(t, b, openIso(t), cfg)

	const owner, conv = "agent-a", "conv-staged"
	if r := runTo(t, b, owner, conv, "", `echo 'echo ORIGINAL' > x.sh`); r.Status != execution.StatusCompleted {
		t.Fatalf("staging x.sh: %s %s", r.Status, r.Error)
	}
	swapper := submit(t, b, owner, conv, "", `sleep 2; echo 'echo SWAPPED' > x.sh`)
	waitRunning(t, b, swapper.ExecutionID)
	run := stagedRecord(t, b, m, owner, conv, "bash x.sh", "x.sh")
	got := waitTerminal(t, b, run.ExecutionID)
	sw := waitTerminal(t, b, swapper.ExecutionID)
	if sw.Status != execution.StatusCompleted {
		t.Fatalf("the other run: %s %s", sw.Status, sw.Error)
	}
	if got.Status != execution.StatusFailed || !strings.Contains(got.Error, "x.sh") || !strings.Contains(got.Error, "changed after the scan") {
		t.Fatalf("the staged run beside a run that rewrites its script: %s %q %q; want it refused after the rewrite", got.Status, got.Result, got.Error)
	}

	// Once nothing else runs in the conversation, the same kind of run goes
	// ahead with the file as it is now.
	ok := waitTerminal(t, b, stagedRecord(t, b, m, owner, conv, "bash x.sh", "x.sh").ExecutionID)
	if ok.Status != execution.StatusCompleted || ok.Result != "SWAPPED\n" {
		t.Fatalf("staged run alone: %s %q %s", ok.Status, ok.Result, ok.Error)
	}
}

// TestStagedRunRefusedWhileTheWorkspaceStaysBusy: when the conversation's
// other runs hold the workspace past the wait, the run is refused with a
// reason that says so; it never runs beside them.
func TestStagedRunRefusedWhileTheWorkspaceStaysBusy(t *testing.T) {
	needRootWS(t)
	old := stagedExclusiveWait
	stagedExclusiveWait = 300 * time.Millisecond
	t.Cleanup(func() { stagedExclusiveWait = old })
	m := workspaces(t, wsp.Config{})
	b := openEmbedded(t, 0)
	cfg := fastConfig()
	cfg.Workspaces, cfg.Concurrency = m, 4
	start(t, b, openIso(t), cfg)

	const owner, conv = "agent-a", "conv-busy"
	if r := runTo(t, b, owner, conv, "", `echo 'echo ran' > y.sh`); r.Status != execution.StatusCompleted {
		t.Fatalf("staging y.sh: %s %s", r.Status, r.Error)
	}
	long := submit(t, b, owner, conv, "", `sleep 4`)
	waitRunning(t, b, long.ExecutionID)
	got := waitTerminal(t, b, stagedRecord(t, b, m, owner, conv, "bash y.sh", "y.sh").ExecutionID)
	if got.Status != execution.StatusFailed || !strings.Contains(got.Error, "needs the workspace to itself") || got.Result != "" {
		t.Fatalf("staged run beside a long run: %s %q %q", got.Status, got.Result, got.Error)
	}
	if l := waitTerminal(t, b, long.ExecutionID); l.Status != execution.StatusCompleted {
		t.Fatalf("the long run: %s %s", l.Status, l.Error)
	}
	// Another conversation is never held up by it.
	other := waitTerminal(t, b, submit(t, b, owner, "conv-other", "", `echo free`).ExecutionID)
	if other.Status != execution.StatusCompleted {
		t.Fatalf("another conversation: %s %s", other.Status, other.Error)
	}
}

// TestRequestHomeDoesNotMoveTheRunsHome: HOME stays the workspace whatever
// the request's env says, so tools load their startup files (user
// site-packages, ~/.gitconfig) from where the scan read them.
func TestRequestHomeDoesNotMoveTheRunsHome(t *testing.T) {
	needRootWS(t)
	m := workspaces(t, wsp.Config{})
	b := openEmbedded(t, 0)
	cfg := fastConfig()
	cfg.Workspaces = m
	start(t, b, openIso(t), cfg)
	r := &execution.Record{ToolName: "exec", ConversationID: "conv-home", OwnerKeyID: "agent-a", Language: "bash",
		Content: `echo "$HOME $X"`, Env: map[string]string{"HOME": "/elsewhere", "X": "kept"}}
	if err := b.Create(context.Background(), r); err != nil {
		t.Fatal(err)
	}
	got := waitTerminal(t, b, r.ExecutionID)
	want := m.Path(wsp.Key("agent-a", "conv-home"), "") + " kept\n"
	if got.Status != execution.StatusCompleted || got.Result != want {
		t.Fatalf("run with env HOME: %s %q %s, want %q", got.Status, got.Result, got.Error, want)
	}
}
