//go:build !linux && !unix && !windows

package isolation

import (
	"context"
	"runtime"
	"strings"
	"testing"
)

// TestOpenRefusesOffLinux: every mode refuses with a reason naming the OS;
// required says it is the cgroup backend that is missing.
func TestOpenRefusesOffLinux(t *testing.T) {
	for _, mode := range []string{"", ModeAuto, ModeRequired, ModeProcessGroup} {
		b, err := Open(context.Background(), Config{Mode: mode})
		if b != nil || err == nil || !strings.Contains(err.Error(), runtime.GOOS) {
			t.Errorf("mode %q: backend %v err %v", mode, b, err)
		}
	}
	_, err := Open(context.Background(), Config{Mode: ModeRequired})
	if !strings.Contains(err.Error(), "cgroup") {
		t.Errorf("required: %v", err)
	}
	rep, _ := Check(context.Background(), Config{Mode: ModeRequired})
	if rep.RequiredMet || rep.Backend != "" || len(rep.Reasons) == 0 {
		t.Errorf("check: %+v", rep)
	}
}
