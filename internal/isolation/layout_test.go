//go:build linux

package isolation

import (
	"os"
	"path/filepath"
	"testing"
)

func readTestdata(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestParseLayoutHybrid(t *testing.T) {
	l := parseLayout(readTestdata(t, "mountinfo-hybrid"), readTestdata(t, "cgroup-hybrid"))
	if l.V2Mount != "/sys/fs/cgroup/unified" || l.V2Self != "/" {
		t.Errorf("v2 = %q self %q", l.V2Mount, l.V2Self)
	}
	want := map[string]string{"pids": "/sys/fs/cgroup/pids", "memory": "/sys/fs/cgroup/memory", "cpu": "/sys/fs/cgroup/cpu"}
	for c, m := range want {
		if l.V1Mounts[c] != m {
			t.Errorf("v1 %s mount = %q, want %q", c, l.V1Mounts[c], m)
		}
	}
	if l.V1Self["memory"] != "/user.slice/session-1.scope" || l.V1Self["pids"] != "/" {
		t.Errorf("v1 self = %v", l.V1Self)
	}
	if l.pureV2() {
		t.Error("hybrid host reported as pure v2")
	}
}

func TestParseLayoutUnified(t *testing.T) {
	l := parseLayout(readTestdata(t, "mountinfo-unified"), readTestdata(t, "cgroup-unified"))
	l.V2Controllers = []string{"cpuset", "cpu", "io", "memory", "pids"}
	if l.V2Mount != "/sys/fs/cgroup" || l.V2Self != "/system.slice/toolwarden.service" {
		t.Errorf("v2 = %q self %q", l.V2Mount, l.V2Self)
	}
	if len(l.V1Mounts) != 0 {
		t.Errorf("v1 mounts on a unified host: %v", l.V1Mounts)
	}
	if !l.pureV2() {
		t.Error("unified host with pids/memory/cpu not pure v2")
	}
	root, err := resolveRoot(l, "auto")
	if err != nil || root != "/sys/fs/cgroup/system.slice/toolwarden.service/toolwarden" {
		t.Errorf("auto root = %q, %v", root, err)
	}
}

func TestResolveRootRefusesHostRoot(t *testing.T) {
	l := hostLayout{V2Mount: "/sys/fs/cgroup", V2Self: "/"}
	for _, bad := range []string{"/sys/fs/cgroup", "/sys/fs/cgroup/", "/sys/fs", "/tmp/x", "/sys/fs/cgroup/../x"} {
		if _, err := resolveRoot(l, bad); err == nil {
			t.Errorf("resolveRoot(%q) accepted", bad)
		}
	}
	if r, err := resolveRoot(l, "/sys/fs/cgroup/tw.slice/runs"); err != nil || r != "/sys/fs/cgroup/tw.slice/runs" {
		t.Errorf("valid root: %q %v", r, err)
	}
}

func TestUnescapeMount(t *testing.T) {
	if got := unescapeMount(`/mnt/with\040space`); got != "/mnt/with space" {
		t.Errorf("got %q", got)
	}
}

func TestResolveHardening(t *testing.T) {
	if h := resolveHardening(Hardening{}, Hardening{}); h != DefaultHardening() {
		t.Errorf("zero/zero = %+v, want defaults", h)
	}
	custom := Hardening{UID: 1000, GID: 1000, Seccomp: true}
	if h := resolveHardening(custom, Hardening{}); h != custom {
		t.Errorf("backend default not used: %+v", h)
	}
	// uid 0 in an explicit spec never means root.
	h := resolveHardening(DefaultHardening(), Hardening{Seccomp: true})
	if h.UID != nobodyID || h.GID != nobodyID || !h.Seccomp || h.Landlock {
		t.Errorf("spec hardening = %+v", h)
	}
}

func TestMergeLimits(t *testing.T) {
	got := mergeLimits(Limits{MaxProcesses: 10, MemoryMaxBytes: 100, CPUQuotaMicros: 5}, Limits{MemoryMaxBytes: 50})
	if got != (Limits{MaxProcesses: 10, MemoryMaxBytes: 50, CPUQuotaMicros: 5}) {
		t.Errorf("got %+v", got)
	}
}

func TestSeccompProgramShape(t *testing.T) {
	prog := seccompProgram()
	if auditArch == 0 {
		t.Skip("no seccomp filter for this architecture")
	}
	if len(prog) > 4096 {
		t.Fatalf("filter has %d instructions, kernel max is 4096", len(prog))
	}
	// Every jump must land inside the program, and the last instruction
	// must be a return (the kernel rejects anything else).
	for i, ins := range prog {
		if ins.Code&0x07 == 0x05 { // BPF_JMP
			if i+1+int(ins.Jt) >= len(prog) || i+1+int(ins.Jf) >= len(prog) {
				t.Fatalf("instruction %d jumps out of the program", i)
			}
		}
	}
	if last := prog[len(prog)-1]; last.Code != 0x06 {
		t.Fatalf("last instruction code %#x is not a return", last.Code)
	}
}

// TestResolveRootAutoName: "auto:NAME" is a private sibling of the auto
// root, so a one-shot `toolwarden run` never contends with a daemon.
func TestResolveRootAutoName(t *testing.T) {
	l := hostLayout{V2Mount: "/sys/fs/cgroup/unified", V2Self: "/"}
	if r, err := resolveRoot(l, "auto:run-42"); err != nil || r != "/sys/fs/cgroup/unified/toolwarden-run-42" {
		t.Errorf("auto:run-42 = %q %v", r, err)
	}
	for _, bad := range []string{"auto:", "auto:../x", "auto:A", "auto:a/b"} {
		if validAutoName(bad) {
			t.Errorf("validAutoName(%q) = true", bad)
		}
	}
}
