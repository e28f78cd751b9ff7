package e2e

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolwarden/toolwarden/internal/isolation"
)

// TestTwoInstancesSideBySide: two `serve` processes with their own data
// dirs and the default cgroup_root ("auto") start on one host, both are
// ready and both run `echo hi`: the default root derives from the data dir,
// so neither takes the other's exclusive root. check-isolation reports
// each instance's root as in use while its daemon runs.
func TestTwoInstancesSideBySide(t *testing.T) {
	if os.Geteuid() != 0 {
		need(t, "not root: the cgroup backend (and its exclusive root) needs root")
	}
	mounts, selves, err := cgroupLayout()
	if err != nil || mounts["2"] == "" {
		need(t, "no cgroup2 hierarchy mounted")
	}
	base := tempDir(t)
	var servers []*server
	var dataDirs []string
	for _, name := range []string{"a", "b"} {
		dd := filepath.Join(base, name, "data")
		dataDirs = append(dataDirs, dd)
		// The derived root, removed at the end like the tests' own roots.
		cg := "toolwarden-" + strings.TrimPrefix(isolation.InstanceRoot(dd), "auto:")
		t.Cleanup(func() {
			for key, m := range mounts {
				removeCgroupTree(filepath.Join(m, selves[key], cg))
			}
		})
		// Default isolation settings, written out: mode auto, cgroup_root auto.
		servers = append(servers, startServer(t, serverOpts{DataDir: dd,
			isolation: "security:\n  process_isolation:\n    mode: auto\n    cgroup_root: auto\n"}))
	}
	for i, s := range servers {
		rec := s.api.mustSubmit(t, "echo hi", 30)
		if rec.Status != "completed" || strings.TrimSpace(rec.Result) != "hi" {
			t.Errorf("instance %d: echo hi: status %s result %q error %q", i, rec.Status, rec.Result, rec.Error)
		}
	}
	for i, dd := range dataDirs {
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		out, err := exec.CommandContext(ctx, binPath, "check-isolation", "--data-dir", dd).Output()
		cancel()
		if err != nil {
			t.Fatalf("check-isolation instance %d: %v\n%s", i, err, out)
		}
		var rep struct {
			CgroupRoot string `json:"cgroup_root"`
			InUse      bool   `json:"cgroup_root_in_use"`
		}
		if err := json.Unmarshal(out, &rep); err != nil {
			t.Fatalf("check-isolation output: %v\n%s", err, out)
		}
		if !rep.InUse || !strings.HasSuffix(rep.CgroupRoot, strings.TrimPrefix(isolation.InstanceRoot(dd), "auto:")) {
			t.Errorf("instance %d: check-isolation says root %s in_use=%v, want its derived root in use", i, rep.CgroupRoot, rep.InUse)
		}
	}
}
