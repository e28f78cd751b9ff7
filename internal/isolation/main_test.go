//go:build linux

package isolation

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// TestMain lets the test binary act as the shim, supervisor and watchdog,
// exactly as cmd/toolwarden does.
func TestMain(m *testing.M) {
	if IsShim() {
		ShimMain()
	}
	switch os.Getenv("TW_TEST_HELPER") {
	case "daemon":
		helperDaemon()
		return
	case "unpriv":
		helperUnprivileged()
		return
	}
	os.Exit(m.Run())
}

// needRoot skips (or, under CI=true, fails) when the test cannot create
// cgroups or switch uids.
func needRoot(t testing.TB) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("isolation tests need root: they create cgroups and drop to an unprivileged uid")
	}
}

// needCgroups skips (fails under CI=true as root) without cgroup2 +
// cgroup.kill.
func needCgroups(t testing.TB) hostLayout {
	t.Helper()
	needRoot(t)
	l, err := detectLayout()
	reason := ""
	switch {
	case err != nil:
		reason = err.Error()
	case l.V2Mount == "":
		reason = "no cgroup2 hierarchy mounted"
	default:
		if _, err := os.Stat(filepath.Join(l.V2Mount, l.V2Self)); err != nil {
			reason = "own cgroup2 directory not visible: " + err.Error()
		}
	}
	if reason != "" {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI=true as root but %s", reason)
		}
		t.Skip(reason)
	}
	return l
}

// testConfig returns a Config with a unique exclusive cgroup root, so
// parallel test binaries never reap each other's runs.
func testConfig(t testing.TB, l hostLayout) Config {
	t.Helper()
	id, err := newRunID()
	if err != nil {
		t.Fatal(err)
	}
	return Config{
		Mode:       ModeRequired,
		CgroupRoot: filepath.Join(l.V2Mount, l.V2Self, "toolwarden-test-"+id),
		Limits:     Limits{MaxProcesses: 64, MemoryMaxBytes: 256 << 20},
	}
}

// openTest opens a strong backend for a test and closes it at cleanup.
func openTest(t testing.TB, cfg Config) Backend {
	t.Helper()
	b, err := Open(context.Background(), cfg)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() {
		if err := b.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return b
}

// helperDaemon plays a daemon for the watchdog test: it opens a backend on
// TW_TEST_ROOT, starts one long run, prints "<run cgroup> <pid>
// <watchdog pid>" and blocks until it is SIGKILLed.
func helperDaemon() {
	mode := ModeRequired
	if os.Getenv("TW_TEST_MODE") == ModeProcessGroup {
		mode = ModeProcessGroup
	}
	b, err := Open(context.Background(), Config{Mode: mode, CgroupRoot: os.Getenv("TW_TEST_ROOT")})
	if err != nil {
		fmt.Println("error", err)
		os.Exit(1)
	}
	p, err := b.Start(context.Background(), Spec{Path: "/bin/sleep", Args: []string{"sleep", "1000"}, Hardening: Hardening{UID: nobodyID, GID: nobodyID}})
	if err != nil {
		fmt.Println("error", err)
		os.Exit(1)
	}
	if pp, ok := p.(*pgProcess); ok {
		// No cgroup; the supervisor plays the watchdog.
		fmt.Println("-", p.Pid(), pp.cmd.Process.Pid)
	} else {
		fmt.Println(p.(*cgProcess).v2, p.Pid(), b.(*cgroupBackend).wd.pid())
	}
	select {}
}
