package executor

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/toolwarden/toolwarden/internal/execution"
	wsp "github.com/toolwarden/toolwarden/internal/workspace"
)

// needRootWS skips without root (uids of their own need it), except under
// CI=true, which runs as root.
func needRootWS(t *testing.T) {
	t.Helper()
	if os.Geteuid() != 0 {
		if os.Getenv("CI") == "true" {
			t.Fatal("workspaces with uids of their own need root, and CI runs as root")
		}
		t.Skip("workspaces with uids of their own need root")
	}
}

// workspaces opens a Manager under a root the workloads can traverse (a
// t.TempDir is 0700 root-owned, which no workload uid could cross).
func workspaces(t *testing.T, cfg wsp.Config) *wsp.Manager {
	t.Helper()
	// Outside /tmp: the shim's private /tmp would hide other workspaces
	// anyway, and these tests check the uid and mode barrier itself.
	base := "/var/tmp"
	if st, err := os.Stat(base); err != nil || !st.IsDir() {
		base = ""
	}
	parent, err := os.MkdirTemp(base, "executor-wsroot-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(parent) })
	if err := os.Chmod(parent, 0o755); err != nil {
		t.Fatal(err)
	}
	cfg.Root = filepath.Join(parent, "workspaces")
	if cfg.UIDMin == 0 {
		cfg.UIDMin, cfg.UIDMax = 310000, 310999
	}
	m, err := wsp.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// submit stores a queued bash record of owner's conversation conv.
func submit(t *testing.T, b execution.Backend, owner, conv, cwd, content string) *execution.Record {
	t.Helper()
	r := &execution.Record{ToolName: "exec", ConversationID: conv, OwnerKeyID: owner, Language: "bash",
		Content: content, Cwd: cwd}
	if err := b.Create(context.Background(), r); err != nil {
		t.Fatal(err)
	}
	return r
}

func runTo(t *testing.T, b execution.Backend, owner, conv, cwd, content string) *execution.Record {
	t.Helper()
	return waitTerminal(t, b, submit(t, b, owner, conv, cwd, content).ExecutionID)
}

// TestConversationsAreSeparated: B's runs cannot read, list or write A's
// workspace — by absolute path, by .., by symlink — nor replace A's files;
// A's second run sees its first run's files; the two run as different
// uids; runs without a conversation get workspaces of their own.
func TestConversationsAreSeparated(t *testing.T) {
	needRootWS(t)
	m := workspaces(t, wsp.Config{})
	b := openEmbedded(t, 0)
	start(t, b, openIso(t), Config{Workspaces: m})

	a1 := runTo(t, b, "agent-a", "conv-a", "", `echo secretA > a.txt && mkdir -p sub && id -u && pwd`)
	if a1.Status != execution.StatusCompleted {
		t.Fatalf("A's first run: %s %s %q", a1.Status, a1.Error, a1.Result)
	}
	aPath := m.Path(wsp.Key("agent-a", "conv-a"), "")
	lines := strings.Fields(a1.Result)
	if len(lines) != 2 || lines[1] != aPath {
		t.Fatalf("A's run printed %q, want its uid and cwd %s", a1.Result, aPath)
	}
	aUID, _ := strconv.Atoi(lines[0])
	if aUID < 310000 || aUID > 310999 || a1.WorkspaceUID != aUID || a1.Workspace != filepath.Base(aPath) {
		t.Errorf("A ran as uid %d, record says uid %d workspace %q; want one uid of the range and %s",
			aUID, a1.WorkspaceUID, a1.Workspace, filepath.Base(aPath))
	}
	pub := a1.Public()
	pub.Result = "" // the run printed its pwd
	if strings.Contains(string(mustJSON(t, pub)), aPath) {
		t.Error("the public record carries the workspace's host path")
	}

	a2 := runTo(t, b, "agent-a", "conv-a", "sub", `cat ../a.txt && pwd`)
	if a2.Status != execution.StatusCompleted || a2.Result != "secretA\n"+aPath+"/sub\n" {
		t.Errorf("A's second run (cwd sub): %s %q %s, want it to see the first run's file", a2.Status, a2.Result, a2.Error)
	}

	// Content too long for -c is fed on stdin: no script file in the
	// workspace that another run of the conversation could rewrite
	// between the scan and the run; it runs as A's uid in A's workspace.
	long := runTo(t, b, "agent-a", "conv-a", "", "#"+strings.Repeat("x", maxInlineCommand+10)+
		"\nls -A | grep -c toolwarden-script; id -u; pwd")
	if want := "0\n" + strconv.Itoa(aUID) + "\n" + aPath + "\n"; long.Status != execution.StatusCompleted || long.Result != want {
		t.Errorf("script run: %s %q %s, want %q", long.Status, long.Result, long.Error, want)
	}

	// Agent B, even with the same conversation id, and agent A in another
	// conversation: each attempt prints LEAK only if it succeeded.
	probe := strings.NewReplacer("@A@", aPath, "@NAME@", filepath.Base(aPath)).Replace(`
cat @A@/a.txt 2>/dev/null && echo LEAK-read-abs
ls @A@ >/dev/null 2>&1 && echo LEAK-list-abs
(echo evil > @A@/a.txt) 2>/dev/null && echo LEAK-write-abs
(echo evil > @A@/.toolwarden-script-x.sh) 2>/dev/null && echo LEAK-script
cat ../@NAME@/a.txt 2>/dev/null && echo LEAK-read-dotdot
ls -a ../ 2>/dev/null | grep -qx @NAME@ && echo LEAK-list-root
ln -s @A@ l 2>/dev/null; cat l/a.txt 2>/dev/null && echo LEAK-read-symlink
cd @A@ 2>/dev/null && echo LEAK-cd
id -u`)
	for _, who := range [][2]string{{"agent-b", "conv-b"}, {"agent-b", "conv-a"}, {"agent-a", "conv-other"}, {"agent-b", ""}} {
		r := runTo(t, b, who[0], who[1], "", probe)
		if strings.Contains(r.Result, "LEAK") || strings.Contains(r.Result, "secretA") {
			t.Errorf("%s/%s reached A's workspace:\n%s", who[0], who[1], r.Result)
		}
		out := strings.Fields(r.Result)
		uid, err := strconv.Atoi(out[len(out)-1])
		if err != nil || uid == aUID || uid < 310000 {
			t.Errorf("%s/%s ran as %q, want a uid of its own (A has %d)", who[0], who[1], r.Result, aUID)
		}
		if r.Workspace == a1.Workspace {
			t.Errorf("%s/%s shares A's workspace %s", who[0], who[1], r.Workspace)
		}
	}
	if got, err := os.ReadFile(filepath.Join(aPath, "a.txt")); err != nil || string(got) != "secretA\n" {
		t.Errorf("A's file after B's attempts: %q %v", got, err)
	}

	// Runs without a conversation get workspaces of their own.
	n1 := runTo(t, b, "agent-a", "", "", `echo one > f && pwd`)
	n2 := runTo(t, b, "agent-a", "", "", `cat f 2>/dev/null || echo none; pwd`)
	if n1.Workspace == n2.Workspace || strings.HasPrefix(n2.Result, "one") {
		t.Errorf("runs without conversation share a workspace: %q / %q", n1.Result, n2.Result)
	}
}

// TestCwdRefusedAtExecutor: a record whose cwd leaves the workspace —
// however it got into the store — fails to start and nothing runs.
func TestCwdRefusedAtExecutor(t *testing.T) {
	m := workspaces(t, wsp.Config{})
	b := openEmbedded(t, 0)
	start(t, b, openIso(t), Config{Workspaces: m})
	setup := runTo(t, b, "o", "c", "", `ln -s /etc out && ln -s .. up && mkdir real`)
	if setup.Status != execution.StatusCompleted {
		t.Fatalf("setup: %s %s", setup.Status, setup.Error)
	}
	for _, cwd := range []string{"/", "/etc", "../..", "..", "out", "up", "real/../../x", m.Root()} {
		marker := filepath.Join(os.TempDir(), "cwd-marker-"+strconv.Itoa(os.Getpid()))
		r := runTo(t, b, "o", "c", cwd, "touch "+marker)
		if r.Status != execution.StatusFailed || !strings.Contains(r.Error, "cwd") {
			t.Errorf("cwd %q: %s %q, want failed naming cwd", cwd, r.Status, r.Error)
		}
		if _, err := os.Stat(marker); err == nil {
			os.Remove(marker)
			t.Errorf("cwd %q: the run ran", cwd)
		}
	}
	if r := runTo(t, b, "o", "c", "real", "pwd"); r.Status != execution.StatusCompleted ||
		r.Result != m.Path(wsp.Key("o", "c"), "")+"/real\n" {
		t.Errorf("cwd real: %s %q %s", r.Status, r.Result, r.Error)
	}
}

// TestWorkspaceBomb: writes past workspace_max_bytes stop the run with
// the reason on the record, the workspace (and so the host disk) stays
// bounded, and the next run of the full workspace is refused.
func TestWorkspaceBomb(t *testing.T) {
	const max = 16 << 20
	m := workspaces(t, wsp.Config{MaxBytes: max})
	b := openEmbedded(t, 0)
	start(t, b, openIso(t), Config{Workspaces: m, DiskPoll: 20 * time.Millisecond})
	bombs := map[string]string{
		"dd":        `i=0; while :; do dd if=/dev/zero of=f$i bs=1M count=4 2>/dev/null; i=$((i+1)); done`,
		"fallocate": `i=0; while :; do fallocate -l 4M f$i || dd if=/dev/zero of=f$i bs=1M count=4 2>/dev/null; i=$((i+1)); done`,
		"python": `python3 -c 'import itertools
for i in itertools.count():
    open("f%d" % i, "wb").write(b"x" * (4 << 20))'`,
		// Entries that allocate no data blocks still use the host's
		// inodes: each counts as at least one block.
		"empty-files": `python3 -c 'import itertools
for i in itertools.count():
    open("f%d" % i, "wb").close()'`,
		"symlinks": `python3 -c 'import itertools, os
for i in itertools.count():
    os.symlink("t", "l%d" % i)'`,
	}
	for name, bomb := range bombs {
		t.Run(name, func(t *testing.T) {
			r := runTo(t, b, "o", "bomb-"+name, "", bomb)
			if r.Status != execution.StatusFailed || r.StopReason != execution.StopWorkspaceLimit ||
				!strings.Contains(r.StatusReason, "workspace_max_bytes") {
				t.Fatalf("bomb: status %s stop_reason %q reason %q error %q", r.Status, r.StopReason, r.StatusReason, r.Error)
			}
			used, _, err := wsp.Usage(m.Path(wsp.Key("o", "bomb-"+name), ""), 0)
			if err != nil {
				t.Fatal(err)
			}
			// The bound's precision is the write rate times the poll: far
			// below the gigabytes an unbounded loop writes.
			if used > 512<<20 {
				t.Errorf("workspace holds %d bytes after the stop, want it bounded near %d", used, max)
			}
			t.Logf("stopped at %d bytes (cap %d)", used, max)
			next := runTo(t, b, "o", "bomb-"+name, "", "echo ran")
			if next.Status != execution.StatusFailed || next.StopReason != execution.StopWorkspaceLimit || next.Result != "" {
				t.Errorf("run in a full workspace: %s %q %q", next.Status, next.StopReason, next.Result)
			}
		})
	}
}

// TestTimeoutClampedToConfig: a requested timeout above
// tool_timeout_minutes runs with the configured one, and the record says so.
func TestTimeoutClampedToConfig(t *testing.T) {
	m := workspaces(t, wsp.Config{})
	b := openEmbedded(t, 0)
	start(t, b, openIso(t), Config{Workspaces: m, Timeout: 90 * time.Second})
	r := &execution.Record{ToolName: "exec", Language: "bash", Content: "true", TimeoutMS: 100000 * 1000}
	if err := b.Create(context.Background(), r); err != nil {
		t.Fatal(err)
	}
	got := waitTerminal(t, b, r.ExecutionID)
	if got.EffectiveTimeoutMS != 90_000 {
		t.Errorf("effective timeout %d ms, want 90000 (the configured maximum)", got.EffectiveTimeoutMS)
	}
}

// TestJanitorKeepsRunningWorkspaces: the TTL sweep removes an idle
// workspace but not one whose run is in progress, however old its last use.
func TestJanitorKeepsRunningWorkspaces(t *testing.T) {
	m := workspaces(t, wsp.Config{TTL: time.Hour})
	b := openEmbedded(t, 0)
	start(t, b, openIso(t), Config{Workspaces: m, JanitorInterval: 20 * time.Millisecond})
	idle, err := m.Ensure(wsp.Key("o", "idle"), "")
	if err != nil {
		t.Fatal(err)
	}
	marker := sleepMarker(60)
	busy := submit(t, b, "o", "busy", "", "sleep "+marker)
	waitUntil(t, b, busy.ExecutionID, "running", func(r *execution.Record) bool { return r.Status == execution.StatusRunning })
	busyPath := m.Path(wsp.Key("o", "busy"), "")
	// A record is running from its claim on; the executor opens its
	// workspace (and its last-use file) right after.
	busyLock := filepath.Join(m.Root(), ".meta", filepath.Base(busyPath)+".lock")
	for deadline := time.Now().Add(waitFor); !fileExists(busyLock); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no %s while the run is running", busyLock)
		}
	}
	old := time.Now().Add(-2 * time.Hour)
	for _, name := range []string{idle.Name, filepath.Base(busyPath)} {
		if err := os.Chtimes(filepath.Join(m.Root(), ".meta", name+".lock"), old, old); err != nil {
			t.Fatal(err)
		}
	}
	deadline := time.Now().Add(waitFor)
	for {
		if _, err := os.Stat(idle.Path); os.IsNotExist(err) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("idle workspace not swept")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if _, err := os.Stat(busyPath); err != nil {
		t.Errorf("workspace with a run in progress removed: %v", err)
	}
	if _, err := b.RequestCancel(context.Background(), busy.ExecutionID, "test over"); err != nil {
		t.Fatal(err)
	}
	waitTerminal(t, b, busy.ExecutionID)
}

func mustJSON(t *testing.T, r *execution.Record) []byte {
	t.Helper()
	b, err := r.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestWorkspaceUnderClosedDataDir: with the workspace root inside a 0700
// root-owned data dir, which no workload uid can traverse, runs still work
// in their workspace, scripts included (reached through the cwd).
func TestWorkspaceUnderClosedDataDir(t *testing.T) {
	needRootWS(t)
	dataDir := t.TempDir() // 0700, root-owned
	m, err := wsp.New(wsp.Config{Root: filepath.Join(dataDir, "workspaces"), UIDMin: 311000, UIDMax: 311999})
	if err != nil {
		t.Fatal(err)
	}
	b := openEmbedded(t, 0)
	start(t, b, openIso(t), Config{Workspaces: m})
	r := runTo(t, b, "o", "c", "", "echo hi > f && cat f")
	if r.Status != execution.StatusCompleted || r.Result != "hi\n" {
		t.Errorf("command: %s %q %s", r.Status, r.Result, r.Error)
	}
	long := runTo(t, b, "o", "c", "", "#"+strings.Repeat("x", maxInlineCommand+10)+"\ncat f")
	if long.Status != execution.StatusCompleted || long.Result != "hi\n" {
		t.Errorf("script: %s %q %s", long.Status, long.Result, long.Error)
	}
}

// fileExists reports whether p exists.
func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
