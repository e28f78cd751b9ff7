//go:build linux

package isolation

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// v1Controllers are the cgroup v1 hierarchies the hybrid backend uses for
// limits (the v2 hierarchy of a hybrid host carries no such controllers).
var v1Controllers = []string{"pids", "memory", "cpu"}

// hostLayout is what /proc/self/mountinfo and /proc/self/cgroup say about
// the cgroup hierarchies of this host and where this process sits in them.
type hostLayout struct {
	// V2Mount is the cgroup2 mount point ("" when none).
	V2Mount string
	// V2Self is this process's path in the v2 hierarchy ("/" at the root).
	V2Self string
	// V2Controllers are the controllers available at the v2 root.
	V2Controllers []string
	// V1Mounts maps a v1 controller (pids, memory, cpu) to its mount point.
	V1Mounts map[string]string
	// V1Self maps a v1 controller to this process's path in that hierarchy.
	V1Self map[string]string
}

// pureV2 reports a unified-only host: v2 carries pids, memory and cpu.
func (l hostLayout) pureV2() bool {
	if l.V2Mount == "" {
		return false
	}
	have := map[string]bool{}
	for _, c := range l.V2Controllers {
		have[c] = true
	}
	return have["pids"] && have["memory"] && have["cpu"]
}

// detectLayout reads the cgroup mounts and this process's membership.
func detectLayout() (hostLayout, error) {
	mi, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return hostLayout{}, fmt.Errorf("detect cgroups: %w", err)
	}
	cg, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return hostLayout{}, fmt.Errorf("detect cgroups: %w", err)
	}
	l := parseLayout(string(mi), string(cg))
	if l.V2Mount != "" {
		if b, err := os.ReadFile(filepath.Join(l.V2Mount, "cgroup.controllers")); err == nil {
			l.V2Controllers = strings.Fields(string(b))
		}
	}
	return l, nil
}

// parseLayout interprets /proc/self/mountinfo and /proc/self/cgroup.
func parseLayout(mountinfo, procCgroup string) hostLayout {
	l := hostLayout{V1Mounts: map[string]string{}, V1Self: map[string]string{}}
	for _, line := range strings.Split(mountinfo, "\n") {
		pre, post, ok := strings.Cut(line, " - ")
		if !ok {
			continue
		}
		pf := strings.Fields(pre)
		qf := strings.Fields(post)
		if len(pf) < 5 || len(qf) < 3 {
			continue
		}
		mnt := unescapeMount(pf[4])
		switch qf[0] {
		case "cgroup2":
			if l.V2Mount == "" {
				l.V2Mount = mnt
			}
		case "cgroup":
			for _, opt := range strings.Split(qf[2], ",") {
				for _, c := range v1Controllers {
					if _, dup := l.V1Mounts[c]; opt == c && !dup {
						l.V1Mounts[c] = mnt
					}
				}
			}
		}
	}
	for _, line := range strings.Split(strings.TrimSpace(procCgroup), "\n") {
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 {
			continue
		}
		if parts[0] == "0" && parts[1] == "" {
			l.V2Self = parts[2]
			continue
		}
		for _, opt := range strings.Split(parts[1], ",") {
			for _, c := range v1Controllers {
				if opt == c {
					l.V1Self[c] = parts[2]
				}
			}
		}
	}
	return l
}

// unescapeMount decodes the octal escapes (\040 for space) of mountinfo.
func unescapeMount(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// writeFile writes a control file of cgroupfs (no create, no truncate
// semantics beyond what the kernel implements).
func writeFile(path, value string) error {
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	if _, err := f.WriteString(value); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// readKeyed returns the value of key in a "key value" per line file such as
// cgroup.events, memory.events, pids.events or memory.oom_control.
func readKeyed(path, key string) (int64, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		k, v, ok := strings.Cut(strings.TrimSpace(line), " ")
		if ok && k == key {
			return strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		}
	}
	return 0, fmt.Errorf("%s: no key %q", path, key)
}

// cgPopulated reports whether a v2 cgroup (or a descendant) has a process.
func cgPopulated(dir string) (bool, error) {
	n, err := readKeyed(filepath.Join(dir, "cgroup.events"), "populated")
	if err != nil {
		return false, err
	}
	return n != 0, nil
}

// cgKill SIGKILLs every process in a v2 cgroup and its descendants,
// including setsid'd and double-forked ones.
func cgKill(dir string) error {
	if err := writeFile(filepath.Join(dir, "cgroup.kill"), "1"); err != nil {
		return fmt.Errorf("cgroup.kill %s: %w", dir, err)
	}
	return nil
}

// errNotEmpty means the unit still had processes when the bound expired.
var errNotEmpty = errors.New("cgroup still populated")

// cgWaitEmpty polls cgroup.events until populated is 0 or timeout passes.
// Polling starts at 250µs and backs off, so the common case (a few ms
// after cgroup.kill) is observed promptly without a busy loop.
func cgWaitEmpty(dir string, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	sleep := 250 * time.Microsecond
	for {
		pop, err := cgPopulated(dir)
		if err != nil {
			return fmt.Errorf("wait for %s to empty: %w", dir, err)
		}
		if !pop {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("wait for %s to empty after %s: %w", dir, timeout, errNotEmpty)
		}
		time.Sleep(sleep)
		if sleep < 20*time.Millisecond {
			sleep *= 2
		}
	}
}

// rmdirRetry removes a cgroup directory, retrying briefly: the kernel
// refuses (EBUSY) while the last tasks are still being torn down, which
// usually takes well under a millisecond after the run's last exit, so the
// retries start at 100µs and back off to 5 ms (a fixed 5 ms sleep was a
// visible share of a short run's latency).
func rmdirRetry(dir string, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	sleep := 100 * time.Microsecond
	for {
		err := unix.Rmdir(dir)
		if err == nil || errors.Is(err, unix.ENOENT) {
			return nil
		}
		if !errors.Is(err, unix.EBUSY) || time.Now().After(deadline) {
			return fmt.Errorf("remove cgroup %s: %w", dir, err)
		}
		time.Sleep(sleep)
		if sleep < 5*time.Millisecond {
			sleep *= 2
		}
	}
}

// v1Empty reports whether a v1 cgroup has no tasks left.
func v1Empty(dir string) bool {
	b, err := os.ReadFile(filepath.Join(dir, "cgroup.procs"))
	return err == nil && len(strings.TrimSpace(string(b))) == 0
}

func closeFD(fd int) error { return unix.Close(fd) }
