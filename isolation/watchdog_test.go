//go:build linux

package isolation

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestWatchdogEmptiesRunWhenDaemonIsKilled(t *testing.T) {
	l := needCgroups(t)
	cfg := testConfig(t, l)
	t.Cleanup(func() {
		os.Remove(cfg.CgroupRoot)
		for _, c := range v1Controllers {
			if m, ok := l.V1Mounts[c]; ok && !l.pureV2() {
				os.Remove(filepath.Join(m, l.V1Self[c], filepath.Base(cfg.CgroupRoot)))
			}
		}
	})
	daemon := exec.Command(os.Args[0])
	daemon.Env = append(os.Environ(), "TW_TEST_HELPER=daemon", "TW_TEST_ROOT="+cfg.CgroupRoot)
	daemon.Stderr = os.Stderr
	out, err := daemon.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := daemon.Start(); err != nil {
		t.Fatal(err)
	}
	line := readLine(t, bufio.NewReader(out))
	f := strings.Fields(line)
	if len(f) != 3 || f[0] == "error" {
		daemon.Process.Kill()
		t.Fatalf("daemon helper: %q", line)
	}
	runDir := f[1-1]
	pid, _ := strconv.Atoi(f[1])
	wdPid, _ := strconv.Atoi(f[2])
	if !alive(pid) || !alive(wdPid) {
		t.Fatalf("run %d or watchdog %d not running before the daemon dies", pid, wdPid)
	}
	if err := daemon.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = daemon.Wait()
	deadline := time.Now().Add(30 * time.Second)
	for alive(pid) || dirExists(runDir) || alive(wdPid) {
		if time.Now().After(deadline) {
			t.Fatalf("30s after daemon SIGKILL: run alive=%v, cgroup present=%v, watchdog alive=%v",
				alive(pid), dirExists(runDir), alive(wdPid))
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func dirExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
