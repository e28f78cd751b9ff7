package executor

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/toolwarden/toolwarden/engine"
	"github.com/toolwarden/toolwarden/internal/execution"
	"github.com/toolwarden/toolwarden/internal/policies"
	"github.com/toolwarden/toolwarden/internal/service"
)

var (
	stagedEngOnce sync.Once
	stagedEng     *engine.Engine
	stagedEngErr  error
)

// scanEngine is one native-pack engine under the default policy.
func scanEngine(t *testing.T) *engine.Engine {
	t.Helper()
	stagedEngOnce.Do(func() {
		stagedEng, stagedEngErr = engine.New(context.Background(), engine.Options{Policy: policies.Default(), Packs: engine.NativePacks()})
	})
	if stagedEngErr != nil {
		t.Fatal(stagedEngErr)
	}
	return stagedEng
}

// fixedWorkspace locates every run in one directory.
type fixedWorkspace string

func (w fixedWorkspace) Path(string, string) string { return string(w) }

func writeFile(t *testing.T, dir, name, content string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// submitStaged scans and queues content through the service, with the workspace
// readable, and returns the queued record. No daemon runs yet, so the test
// can change the workspace between the scan and the run.
func submitStaged(t *testing.T, b execution.Backend, ws, content string) *execution.Record {
	t.Helper()
	svc := &service.Service{Engine: scanEngine(t), Backend: b, Workspaces: fixedWorkspace(ws)}
	rec, _, err := svc.Submit(context.Background(), &service.ToolRequest{Command: content, Cwd: ws}, "owner", 0)
	if err != nil {
		t.Fatal(err)
	}
	if rec.Status != execution.StatusQueued || rec.StagedScan != execution.StagedScanService {
		t.Fatalf("submit %q: %s staged_scan=%q (%s)", content, rec.Status, rec.StagedScan, rec.StatusReason)
	}
	return rec
}

// TestStagedFileEditedBetweenScanAndRun: the run is refused, naming the
// file, and the edited code never runs.
func TestStagedFileEditedBetweenScanAndRun(t *testing.T) {
	t.Run("embedded", func(t *testing.T) { testStagedEdited(t, openEmbedded(t, 3*time.Second)) })
	t.Run("redis", func(t *testing.T) { testStagedEdited(t, openRedis(t, redisPrefix(t), 3*time.Second)) })
}

func testStagedEdited(t *testing.T, b execution.Backend) {
	ws := workspace(t)
	writeFile(t, ws, "x.sh", "echo scanned\n")
	writeFile(t, ws, "same.sh", "echo unchanged\n")
	edited := submitStaged(t, b, ws, "bash x.sh")
	if len(edited.StagedFiles) != 1 || edited.StagedFiles[0].Path != "x.sh" || len(edited.StagedFiles[0].SHA256) != 64 {
		t.Fatalf("staged files %+v", edited.StagedFiles)
	}
	kept := submitStaged(t, b, ws, "bash same.sh")
	appeared := submitStaged(t, b, ws, "python3 later.py")
	removed := submitStaged(t, b, ws, "sh same.sh; bash gone.sh")
	writeFile(t, ws, "gone.sh", "echo x\n") // staged between: must be refused too
	_ = removed

	writeFile(t, ws, "x.sh", "echo evil > pwned\n")
	writeFile(t, ws, "later.py", "open('pwned', 'w')\n")
	start(t, b, openIso(t), fastConfig())

	for _, c := range []struct {
		rec  *execution.Record
		file string
		why  string
	}{{edited, "x.sh", "changed after the scan"}, {appeared, "later.py", "did not exist at scan time"}, {removed, "gone.sh", "did not exist at scan time"}} {
		got := waitTerminal(t, b, c.rec.ExecutionID)
		if got.Status != execution.StatusFailed || !strings.Contains(got.Error, c.file) || !strings.Contains(got.Error, c.why) ||
			!strings.Contains(got.StatusReason, "TOOL_SAFETY_BLOCKED") {
			t.Errorf("%s: got %s error %q reason %q", c.file, got.Status, got.Error, got.StatusReason)
		}
	}
	got := waitTerminal(t, b, kept.ExecutionID)
	if got.Status != execution.StatusCompleted || got.Result != "unchanged\n" {
		t.Errorf("unchanged file: %s %q %q", got.Status, got.Result, got.Error)
	}
	if _, err := os.Stat(filepath.Join(ws, "pwned")); err == nil {
		t.Fatal("edited code ran")
	}
}

// TestExecutorScansWhenServiceCouldNot: a record whose staged files no
// service scanned (Redis mode, another host) is scanned by the executor
// before exec; a deny refuses the run.
func TestExecutorScansWhenServiceCouldNot(t *testing.T) {
	t.Run("embedded", func(t *testing.T) { testExecutorScans(t, openEmbedded(t, 3*time.Second)) })
	t.Run("redis", func(t *testing.T) { testExecutorScans(t, openRedis(t, redisPrefix(t), 3*time.Second)) })
}

func testExecutorScans(t *testing.T, b execution.Backend) {
	ws := workspace(t)
	writeFile(t, ws, "bad.sh", "touch pwned\nrm -rf /\n")
	writeFile(t, ws, "good.sh", "echo fine\n")
	cfg := fastConfig()
	cfg.Scanner = scanEngine(t)
	start(t, b, openIso(t), cfg)
	bad := create(t, b, "bash bad.sh", ws)
	got := waitTerminal(t, b, bad.ExecutionID)
	if got.Status != execution.StatusFailed || !strings.Contains(got.Error, "bad.sh") || !strings.Contains(got.Error, "BASH_RECURSIVE_DELETE") {
		t.Fatalf("got %s %q", got.Status, got.Error)
	}
	if _, err := os.Stat(filepath.Join(ws, "pwned")); err == nil {
		t.Fatal("denied file ran")
	}
	good := create(t, b, "bash good.sh", ws)
	if got := waitTerminal(t, b, good.ExecutionID); got.Status != execution.StatusCompleted || got.Result != "fine\n" {
		t.Fatalf("benign: %s %q %q", got.Status, got.Result, got.Error)
	}
}

// TestNoScannerRefusesUnscannedStagedFiles: without a scanner an executor
// refuses content that runs a workspace file nobody scanned, and still
// runs content that runs none.
func TestNoScannerRefusesUnscannedStagedFiles(t *testing.T) {
	b := openEmbedded(t, 3*time.Second)
	ws := workspace(t)
	writeFile(t, ws, "x.py", "print('hi')\n")
	start(t, b, openIso(t), fastConfig())
	r := create(t, b, "python3 x.py", ws)
	if got := waitTerminal(t, b, r.ExecutionID); got.Status != execution.StatusFailed || !strings.Contains(got.Error, "x.py") {
		t.Fatalf("got %s %q", got.Status, got.Error)
	}
	r = create(t, b, "python3 -c 'import json; print(1)'", ws)
	if got := waitTerminal(t, b, r.ExecutionID); got.Status != execution.StatusCompleted {
		t.Fatalf("no staged file: %s %q", got.Status, got.Error)
	}
}

// TestStartupFilePlantedAfterTheScan: a user-site .pth planted after the
// scan of a python run (by another run of the conversation: HOME is the
// workspace) refuses the run — the site-packages listing, or the absence
// of the lib directory, was recorded — and its import line never runs.
func TestStartupFilePlantedAfterTheScan(t *testing.T) {
	b := openEmbedded(t, 3*time.Second)
	fresh := workspace(t) // no .local at all
	grown := workspace(t) // a site-packages with a benign .pth
	sp := filepath.Join(grown, ".local/lib/python3.12/site-packages")
	if err := os.MkdirAll(sp, 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, sp, "paths.pth", "/opt/lib\n")
	first := submitStaged(t, b, fresh, "python3 -c 'print(1)'")
	second := submitStaged(t, b, grown, "python3 -c 'print(2)'")
	for _, ws := range []string{fresh, grown} {
		dir := filepath.Join(ws, ".local/lib/python3.12/site-packages")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		writeFile(t, dir, "zz.pth", "import os; open(os.path.expanduser('~/pwned'), 'w')\n")
	}
	start(t, b, openIso(t), fastConfig())
	for _, c := range []struct {
		rec      *execution.Record
		ws, file string
	}{{first, fresh, ".local/lib/"}, {second, grown, ".local/lib/python3.12/site-packages/"}} {
		got := waitTerminal(t, b, c.rec.ExecutionID)
		if got.Status != execution.StatusFailed || !strings.Contains(got.Error, c.file) || !strings.Contains(got.StatusReason, "TOOL_SAFETY_BLOCKED") {
			t.Errorf("%s: got %s error %q", c.file, got.Status, got.Error)
		}
		if _, err := os.Stat(filepath.Join(c.ws, "pwned")); err == nil {
			t.Errorf("%s: the planted .pth ran", c.file)
		}
	}
}

// TestExecutorScansPlantedStartupFiles: for a record no service scanned,
// a planted user-site .pth makes the executor scan (and refuse on its
// deny), or refuse outright when it has no scanner.
func TestExecutorScansPlantedStartupFiles(t *testing.T) {
	b := openEmbedded(t, 3*time.Second)
	ws := workspace(t)
	sp := filepath.Join(ws, ".local/lib/python3.12/site-packages")
	if err := os.MkdirAll(sp, 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, sp, "zz.pth", "import os; os.system('rm -rf /'); open(os.path.expanduser('~/pwned'), 'w')\n")
	cfg := fastConfig()
	cfg.Scanner = scanEngine(t)
	start(t, b, openIso(t), cfg)
	got := waitTerminal(t, b, create(t, b, "python3 -c 'print(1)'", ws).ExecutionID)
	if got.Status != execution.StatusFailed || !strings.Contains(got.Error, "zz.pth") {
		t.Fatalf("scanner: got %s %q", got.Status, got.Error)
	}
	if _, err := os.Stat(filepath.Join(ws, "pwned")); err == nil {
		t.Fatal("the planted .pth ran")
	}
	b2 := openEmbedded(t, 3*time.Second)
	start(t, b2, openIso(t), fastConfig())
	got = waitTerminal(t, b2, create(t, b2, "python3 -c 'print(1)'", ws).ExecutionID)
	if got.Status != execution.StatusFailed || !strings.Contains(got.Error, ".local/lib/") {
		t.Fatalf("no scanner: got %s %q", got.Status, got.Error)
	}
}
