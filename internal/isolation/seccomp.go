//go:build linux

package isolation

import (
	"fmt"
	"unsafe"

	"golang.org/x/sys/unix"
)

// deniedSyscalls are refused with EPERM inside a run: the ones that leave
// the run's process group or session (the process_group backend's only
// tracking), change mounts or namespaces, debug or inject into other
// processes, load kernel code, or use io_uring (which bypasses seccomp).
func deniedSyscalls() []uint32 {
	return []uint32{
		unix.SYS_SETSID, unix.SYS_SETPGID,
		unix.SYS_MOUNT, unix.SYS_UMOUNT2, unix.SYS_PIVOT_ROOT, unix.SYS_CHROOT,
		unix.SYS_MOVE_MOUNT, unix.SYS_OPEN_TREE, unix.SYS_FSOPEN, unix.SYS_FSMOUNT, unix.SYS_FSCONFIG,
		unix.SYS_PTRACE, unix.SYS_PROCESS_VM_READV, unix.SYS_PROCESS_VM_WRITEV,
		unix.SYS_BPF, unix.SYS_PERF_EVENT_OPEN, unix.SYS_USERFAULTFD,
		unix.SYS_KEYCTL, unix.SYS_ADD_KEY, unix.SYS_REQUEST_KEY,
		unix.SYS_UNSHARE, unix.SYS_SETNS,
		unix.SYS_IO_URING_SETUP, unix.SYS_IO_URING_ENTER, unix.SYS_IO_URING_REGISTER,
		unix.SYS_INIT_MODULE, unix.SYS_FINIT_MODULE, unix.SYS_DELETE_MODULE,
		unix.SYS_KEXEC_LOAD, unix.SYS_OPEN_BY_HANDLE_AT, unix.SYS_REBOOT, unix.SYS_SWAPON, unix.SYS_SWAPOFF,
	}
}

// namespaceCloneFlags are the clone(2) flags that create namespaces; a run
// may fork but not create namespaces.
const namespaceCloneFlags = unix.CLONE_NEWNS | unix.CLONE_NEWUTS | unix.CLONE_NEWIPC |
	unix.CLONE_NEWUSER | unix.CLONE_NEWPID | unix.CLONE_NEWNET | unix.CLONE_NEWCGROUP

// seccompProgram builds the classic-BPF filter. clone3 answers ENOSYS (its
// flags live in memory a filter cannot read; libc falls back to clone),
// clone with namespace flags answers EPERM, a foreign architecture or the
// x32 ABI is killed.
func seccompProgram() []unix.SockFilter {
	const (
		retAllow = unix.SECCOMP_RET_ALLOW
		retEPERM = unix.SECCOMP_RET_ERRNO | uint32(unix.EPERM)
		retNOSYS = unix.SECCOMP_RET_ERRNO | uint32(unix.ENOSYS)
		retKill  = unix.SECCOMP_RET_KILL_PROCESS
		offNR    = 0
		offArch  = 4
		offArg0  = 16 // args[0], low 32 bits on little-endian
	)
	stmt := func(code uint16, k uint32) unix.SockFilter { return unix.SockFilter{Code: code, K: k} }
	jump := func(code uint16, k uint32, jt, jf uint8) unix.SockFilter {
		return unix.SockFilter{Code: code, Jt: jt, Jf: jf, K: k}
	}
	ld := uint16(unix.BPF_LD | unix.BPF_W | unix.BPF_ABS)
	jeq := uint16(unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K)
	jge := uint16(unix.BPF_JMP | unix.BPF_JGE | unix.BPF_K)
	jset := uint16(unix.BPF_JMP | unix.BPF_JSET | unix.BPF_K)
	ret := uint16(unix.BPF_RET | unix.BPF_K)

	prog := []unix.SockFilter{
		stmt(ld, offArch),
		jump(jeq, auditArch, 1, 0),
		stmt(ret, retKill),
		stmt(ld, offNR),
	}
	if x32Bit != 0 {
		prog = append(prog, jump(jge, x32Bit, 0, 1), stmt(ret, retKill))
	}
	for _, nr := range deniedSyscalls() {
		prog = append(prog, jump(jeq, nr, 0, 1), stmt(ret, retEPERM))
	}
	prog = append(prog, jump(jeq, unix.SYS_CLONE3, 0, 1), stmt(ret, retNOSYS))
	// clone: inspect the flags argument.
	prog = append(prog,
		jump(jeq, unix.SYS_CLONE, 0, 3),
		stmt(ld, offArg0),
		jump(jset, namespaceCloneFlags, 0, 1),
		stmt(ret, retEPERM),
		stmt(ret, retAllow),
	)
	return prog
}

// installSeccomp loads the filter on the calling thread (which then
// executes the workload). It reports false when the architecture has no
// filter here; no_new_privs must already be set.
func installSeccomp() (bool, error) {
	if auditArch == 0 {
		return false, nil
	}
	prog := seccompProgram()
	fprog := unix.SockFprog{Len: uint16(len(prog)), Filter: &prog[0]}
	if err := unix.Prctl(unix.PR_SET_SECCOMP, unix.SECCOMP_MODE_FILTER, uintptr(unsafe.Pointer(&fprog)), 0, 0); err != nil {
		return false, fmt.Errorf("install seccomp filter: %w", err)
	}
	return true, nil
}
