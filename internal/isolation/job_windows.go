//go:build windows

package isolation

import (
	"errors"
	"fmt"
	"os/exec"
	"syscall"
	"unsafe"

	"golang.org/x/sys/windows"
)

// winJobs implements jobAPI with the Windows API.
type winJobs struct{}

var ntResumeProcess = windows.NewLazySystemDLL("ntdll.dll").NewProc("NtResumeProcess")

func (winJobs) elevated() bool { return windows.GetCurrentProcessToken().IsElevated() }

func (winJobs) create() (jobHandle, error) {
	h, err := windows.CreateJobObject(nil, nil)
	return jobHandle(h), err
}

// jobCPURateControl is JOBOBJECT_CPU_RATE_CONTROL_INFORMATION.
type jobCPURateControl struct {
	ControlFlags uint32
	Rate         uint32
}

const (
	jobCPURateEnable  = 0x1
	jobCPURateHardCap = 0x4
)

func (winJobs) setLimits(j jobHandle, l jobLimits) error {
	var info windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION
	info.BasicLimitInformation.LimitFlags = windows.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE | windows.JOB_OBJECT_LIMIT_DIE_ON_UNHANDLED_EXCEPTION
	if l.ActiveProcesses > 0 {
		info.BasicLimitInformation.LimitFlags |= windows.JOB_OBJECT_LIMIT_ACTIVE_PROCESS
		info.BasicLimitInformation.ActiveProcessLimit = l.ActiveProcesses
	}
	if l.JobMemoryBytes > 0 {
		info.BasicLimitInformation.LimitFlags |= windows.JOB_OBJECT_LIMIT_JOB_MEMORY
		info.JobMemoryLimit = uintptr(l.JobMemoryBytes)
	}
	if _, err := windows.SetInformationJobObject(windows.Handle(j), windows.JobObjectExtendedLimitInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info))); err != nil {
		return fmt.Errorf("extended limits: %w", err)
	}
	if l.CPURate > 0 {
		cpu := jobCPURateControl{ControlFlags: jobCPURateEnable | jobCPURateHardCap, Rate: l.CPURate}
		if _, err := windows.SetInformationJobObject(windows.Handle(j), windows.JobObjectCpuRateControlInformation,
			uintptr(unsafe.Pointer(&cpu)), uint32(unsafe.Sizeof(cpu))); err != nil {
			return fmt.Errorf("cpu rate: %w", err)
		}
	}
	return nil
}

// winProc is a started process of a job.
type winProc struct{ cmd *exec.Cmd }

func (p winProc) pid() int { return p.cmd.Process.Pid }

func (p winProc) wait() (int, error) {
	err := p.cmd.Wait()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		return -1, err
	}
	return p.cmd.ProcessState.ExitCode(), nil
}

func (winJobs) startInJob(j jobHandle, spec Spec) (jobProc, error) {
	cmd := exec.Command(spec.Path)
	if len(spec.Args) > 0 {
		cmd.Args = spec.Args
	}
	cmd.Env = spec.Env
	if cmd.Env == nil {
		cmd.Env = []string{}
	}
	cmd.Dir = spec.Dir
	if cmd.Dir == "" {
		cmd.Dir = spec.Workspace
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = spec.Stdin, spec.Stdout, spec.Stderr
	// Suspended until it is in the job: nothing runs outside it, and all
	// its children are born inside.
	cmd.SysProcAttr = &syscall.SysProcAttr{CreationFlags: windows.CREATE_SUSPENDED | windows.CREATE_NEW_PROCESS_GROUP, HideWindow: true}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	h, err := windows.OpenProcess(windows.PROCESS_SET_QUOTA|windows.PROCESS_TERMINATE|windows.PROCESS_SUSPEND_RESUME, false, uint32(cmd.Process.Pid))
	if err != nil {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		return nil, fmt.Errorf("open process: %w", err)
	}
	defer windows.CloseHandle(h)
	if err := windows.AssignProcessToJobObject(windows.Handle(j), h); err != nil {
		_ = windows.TerminateProcess(h, 1)
		_ = cmd.Wait()
		return nil, fmt.Errorf("assign to job: %w", err)
	}
	if r, _, _ := ntResumeProcess.Call(uintptr(h)); r != 0 {
		_ = windows.TerminateProcess(h, 1)
		_ = cmd.Wait()
		return nil, fmt.Errorf("resume: NTSTATUS %#x", r)
	}
	return winProc{cmd: cmd}, nil
}

func (winJobs) terminate(j jobHandle, code uint32) error {
	return windows.TerminateJobObject(windows.Handle(j), code)
}

func (winJobs) activeProcesses(j jobHandle) (int, error) {
	var info jobBasicAccounting
	if err := windows.QueryInformationJobObject(windows.Handle(j), windows.JobObjectBasicAccountingInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info)), nil); err != nil {
		return 0, err
	}
	return int(info.ActiveProcesses), nil
}

// jobBasicAccounting is JOBOBJECT_BASIC_ACCOUNTING_INFORMATION.
type jobBasicAccounting struct {
	TotalUserTime, TotalKernelTime, ThisPeriodTotalUserTime, ThisPeriodTotalKernelTime int64
	TotalPageFaultCount, TotalProcesses, ActiveProcesses, TotalTerminatedProcesses     uint32
}

func (winJobs) closeJob(j jobHandle) error { return windows.CloseHandle(windows.Handle(j)) }
