//go:build windows

package gates

import (
	"os"
	"os/exec"
	"syscall"
	"unsafe"

	"golang.org/x/sys/windows"
)

// Command is the command that runs a command line (a gate's, an evaluator's) as gates
// run: through cmd.exe. The command line is passed as is
// (cmd /S /C "RUN" strips only the outer quotes), since cmd.exe does not follow the quoting
// rules exec applies to arguments.
func Command(run string) *exec.Cmd {
	shell := os.Getenv("ComSpec")
	if shell == "" {
		shell = "cmd.exe"
	}
	cmd := exec.Command(shell)
	cmd.SysProcAttr = &syscall.SysProcAttr{CmdLine: `cmd /S /C "` + run + `"`}
	return cmd
}

// setGroup does nothing on Windows: the gate is put in a job object once started. The job
// kills its processes when closed, which happens when this process ends however it ends.
func setGroup(cmd *exec.Cmd) {}

// gateGroup is a job object holding a started gate and the processes it starts.
type gateGroup struct {
	job  windows.Handle
	proc *os.Process
}

// attachGroup puts a started gate in a new job object that kills its processes when closed.
// Should that fail, only the gate's own process can be killed.
func attachGroup(cmd *exec.Cmd) gateGroup {
	g := gateGroup{proc: cmd.Process}
	job, err := windows.CreateJobObject(nil, nil)
	if err != nil {
		return g
	}
	info := windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION{
		BasicLimitInformation: windows.JOBOBJECT_BASIC_LIMIT_INFORMATION{
			LimitFlags: windows.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE,
		},
	}
	if _, err := windows.SetInformationJobObject(job, windows.JobObjectExtendedLimitInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info))); err != nil {
		windows.CloseHandle(job)
		return g
	}
	h, err := windows.OpenProcess(windows.PROCESS_SET_QUOTA|windows.PROCESS_TERMINATE, false, uint32(cmd.Process.Pid))
	if err != nil {
		windows.CloseHandle(job)
		return g
	}
	defer windows.CloseHandle(h)
	if err := windows.AssignProcessToJobObject(job, h); err != nil {
		windows.CloseHandle(job)
		return g
	}
	g.job = job
	return g
}

// terminate stops the gate's processes; Windows has no polite signal for console
// processes without a console of their own, so it is the same as kill.
func (g gateGroup) terminate() { g.kill() }

// kill stops every process in the gate's job (and the gate's own process).
func (g gateGroup) kill() {
	if g.job != 0 {
		_ = windows.TerminateJobObject(g.job, 1)
	}
	if g.proc != nil {
		_ = g.proc.Kill()
	}
}

// forceKill is kill: there is nothing harder.
func (g gateGroup) forceKill() { g.kill() }

// cleanup kills what the gate left in its job once its own process has ended.
func (g gateGroup) cleanup() { g.kill() }

// collect does nothing: there are no guards here.
func (g gateGroup) collect(ps *os.ProcessState) {}

// release closes the job, which kills whatever is still in it.
func (g gateGroup) release() {
	if g.job != 0 {
		_ = windows.CloseHandle(g.job)
	}
}
