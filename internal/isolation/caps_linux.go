package isolation

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// Secure bits (linux/securebits.h) that keep a process whose uid is 0 in
// its user namespace from ever holding a capability again: no capabilities
// for uid 0 on execve, none kept or regained on a uid change, no ambient
// raise, each locked so the process cannot undo it.
const (
	secbitNoroot                = 1 << 0
	secbitNorootLocked          = 1 << 1
	secbitNoSetuidFixup         = 1 << 2
	secbitNoSetuidFixupLocked   = 1 << 3
	secbitKeepCapsLocked        = 1 << 5
	secbitNoCapAmbientRaise     = 1 << 6
	secbitNoCapAmbientRaiseLock = 1 << 7

	lockedUnprivileged = secbitNoroot | secbitNorootLocked | secbitNoSetuidFixup | secbitNoSetuidFixupLocked |
		secbitKeepCapsLocked | secbitNoCapAmbientRaise | secbitNoCapAmbientRaiseLock
)

// dropCapabilities makes the calling thread (the shim's locked thread,
// which then calls execve) unprivileged for good inside its user
// namespace: the secure bits above, an empty bounding and ambient set, and
// empty effective, permitted and inheritable sets. A workload that is uid
// 0 of its own user namespace (mapped to the unprivileged daemon's uid)
// then has no more power than any other unprivileged process: it cannot
// mount, change namespaces, raise limits or regain capabilities by
// executing anything. Every step is checked; an error refuses the run.
func dropCapabilities() error {
	if err := unix.Prctl(unix.PR_SET_SECUREBITS, lockedUnprivileged, 0, 0, 0); err != nil {
		return fmt.Errorf("drop capabilities: set secure bits: %w", err)
	}
	for c := 0; c <= capLast(); c++ {
		if err := unix.Prctl(unix.PR_CAPBSET_DROP, uintptr(c), 0, 0, 0); err != nil && err != unix.EINVAL {
			return fmt.Errorf("drop capabilities: bounding set cap %d: %w", c, err)
		}
	}
	if err := unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0); err != nil {
		return fmt.Errorf("drop capabilities: ambient set: %w", err)
	}
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capset(&hdr, &data[0]); err != nil {
		return fmt.Errorf("drop capabilities: capset: %w", err)
	}
	if err := unix.Capget(&hdr, &data[0]); err != nil {
		return fmt.Errorf("drop capabilities: capget: %w", err)
	}
	for _, d := range data {
		if d.Effective != 0 || d.Permitted != 0 || d.Inheritable != 0 {
			return fmt.Errorf("drop capabilities: still holding %+v", data)
		}
	}
	return nil
}

// capLast is the highest capability number the running kernel knows
// (/proc/sys/kernel/cap_last_cap), at least the one this build knows.
func capLast() int {
	last := unix.CAP_LAST_CAP
	if b, err := os.ReadFile("/proc/sys/kernel/cap_last_cap"); err == nil {
		var n int
		if _, err := fmt.Sscanf(string(b), "%d", &n); err == nil && n > last {
			last = n
		}
	}
	return last
}
