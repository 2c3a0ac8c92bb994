package gates

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// On Linux each gate runs under a guard: git-loop itself, started as
// `git-loop __gate-guard sh -c RUN` in a process group of its own, with the kernel's
// parent-death signal (PR_SET_PDEATHSIG) set to SIGHUP, and made a child subreaper
// (PR_SET_CHILD_SUBREAPER) so that every process the gate leaves orphaned — background
// jobs, double forks, processes that called setsid and left the gate's process group — is
// reparented to the guard instead of init. The guard runs the shell in another new process
// group, with SIGKILL as its own parent-death signal. When the shell ends, or the hook asks
// (SIGHUP), or the hook dies (the kernel sends the guard SIGHUP even for a SIGKILLed hook),
// the guard kills the shell's group and then every process still below it, reaping each,
// until it has no child left. A process group alone cannot do this: nothing kills a group
// whose leader's parent was SIGKILLed, and setsid leaves the group.

// guardCommand returns the command that runs the gate's command line under a guard, or nil
// when gates run unguarded.
func guardCommand(run string) *exec.Cmd {
	exe := guardPath()
	if exe == "" {
		return nil
	}
	return &exec.Cmd{Path: exe, Args: []string{"git-loop", GuardArg, "sh", "-c", run}}
}

// isGuard reports whether cmd runs a guard.
func isGuard(cmd *exec.Cmd) bool { return len(cmd.Args) > 1 && cmd.Args[1] == GuardArg }

// tieToParent makes the kernel signal cmd when the thread that starts it ends (see
// RunInGroup, which keeps that thread for the whole run): SIGHUP for a guard, which then
// cleans up; SIGKILL for anything else.
func tieToParent(cmd *exec.Cmd) {
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
	if isGuard(cmd) {
		cmd.SysProcAttr.Pdeathsig = syscall.SIGHUP
	}
}

// reraised are the signals a guard dies of itself when they killed the gate's shell, so the
// hook sees "signal: killed" as it would without a guard. The others (those the Go runtime
// turns into crashes, and those that dump core) become exit status 128+N.
var reraised = map[syscall.Signal]bool{
	syscall.SIGKILL: true, syscall.SIGTERM: true, syscall.SIGINT: true, syscall.SIGHUP: true,
	syscall.SIGPIPE: true, syscall.SIGALRM: true, syscall.SIGUSR1: true, syscall.SIGUSR2: true,
}

// RunGuard is the guard of one gate: it runs args (the gate's shell) and, when it ends or
// must, kills everything it left, then exits as the shell did. See the comment above.
func RunGuard(args []string) int {
	if len(args) == 0 {
		fmt.Fprintln(os.Stderr, "git-loop: gate guard: no command")
		return 2
	}
	sigs := make(chan os.Signal, 8)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		fmt.Fprintf(os.Stderr, "git-loop: gate guard: cannot become a subreaper (%v); processes that leave the gate's group may outlive it\n", err)
	}
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	runtime.LockOSThread() // the parent-death signal follows the thread that forks
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(os.Stderr, "git-loop: cannot start gate: %v\n", err)
		return 127
	}
	pgid := cmd.Process.Pid
	done := make(chan struct{})
	go func() {
		cmd.Wait()
		close(done)
	}()
	for {
		select {
		case <-done:
			killBelow(pgid)
			return guardExit(cmd.ProcessState)
		case s := <-sigs:
			if s != syscall.SIGHUP { // a polite stop: pass it on to the gate
				syscall.Kill(-pgid, s.(syscall.Signal))
				continue
			}
			// The hook is gone, or wants the gate dead now.
			syscall.Kill(-pgid, syscall.SIGKILL)
			<-done
			killBelow(pgid)
			return 128 + int(syscall.SIGKILL)
		}
	}
}

// guardExit ends the guard as the shell ended.
func guardExit(ps *os.ProcessState) int {
	ws, ok := ps.Sys().(syscall.WaitStatus)
	if !ok || !ws.Signaled() {
		return ps.ExitCode()
	}
	sig := ws.Signal()
	if reraised[sig] {
		signal.Reset(sig)
		syscall.Kill(os.Getpid(), sig)
	}
	return 128 + int(sig)
}

// killBelow kills the shell's process group and every process still below the guard —
// reparented to it as their parents died — reaping each, until the guard has no child.
func killBelow(pgid int) {
	syscall.Kill(-pgid, syscall.SIGKILL)
	for {
		for _, pid := range ownChildren() {
			syscall.Kill(pid, syscall.SIGKILL)
		}
		var ws syscall.WaitStatus
		_, err := syscall.Wait4(-1, &ws, 0, nil)
		if err == syscall.EINTR {
			continue
		}
		if err != nil { // ECHILD: nothing is left
			return
		}
	}
}

// ownChildren lists this process's children: from /proc/self/task/*/children, else by
// scanning /proc for processes whose parent is this one.
func ownChildren() []int {
	var pids []int
	tasks, _ := filepath.Glob("/proc/self/task/*/children")
	readAny := false
	for _, t := range tasks {
		data, err := os.ReadFile(t)
		if err != nil {
			continue
		}
		readAny = true
		for _, f := range strings.Fields(string(data)) {
			if pid, err := strconv.Atoi(f); err == nil {
				pids = append(pids, pid)
			}
		}
	}
	if readAny {
		return pids
	}
	me := os.Getpid()
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		if i := strings.LastIndexByte(string(stat), ')'); i >= 0 {
			if f := strings.Fields(string(stat[i+1:])); len(f) > 1 && f[1] == strconv.Itoa(me) {
				pids = append(pids, pid)
			}
		}
	}
	return pids
}

// guarded reports whether gates run under a guard.
func guarded() bool { return guardPath() != "" }

// gateSeq numbers this process's guarded gates, for their marks.
var gateSeq atomic.Int64

// markGuarded gives a guarded gate its mark (see gateRunEnv), passed down to every process
// it starts.
func markGuarded(cmd *exec.Cmd) {
	if !isGuard(cmd) {
		return
	}
	owner := gateOwner()
	if owner == "" {
		return
	}
	env := cmd.Env
	if env == nil {
		env = os.Environ()
	}
	cmd.Env = append(env, fmt.Sprintf("%s=%s.%d", gateRunEnv, owner, gateSeq.Add(1)))
}

// gateMark is the mark markGuarded gave cmd, "" for none.
func gateMark(cmd *exec.Cmd) string {
	for i := len(cmd.Env) - 1; i >= 0; i-- {
		if v, ok := strings.CutPrefix(cmd.Env[i], gateRunEnv+"="); ok {
			return v
		}
	}
	return ""
}

// killMarked kills every process whose mark is mark (with prefix, starts with it), round
// after round, until a scan finds none: what one killed had started meanwhile carries the
// mark too. It gives up after a few seconds of processes that will not go.
func killMarked(mark string, prefix bool) {
	for round := 0; round < 100; round++ {
		pids := markedProcesses(mark, prefix)
		if len(pids) == 0 {
			return
		}
		for _, pid := range pids {
			syscall.Kill(pid, syscall.SIGKILL)
		}
		time.Sleep(time.Duration(min(round+1, 10)) * 5 * time.Millisecond)
	}
}

// markedProcesses lists the live processes (not zombies) whose environment holds mark.
func markedProcesses(mark string, prefix bool) []int {
	want := []byte("\x00" + gateRunEnv + "=" + mark)
	if !prefix {
		want = append(want, 0)
	}
	me := os.Getpid()
	var pids []int
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == me {
			continue
		}
		env, err := os.ReadFile("/proc/" + e.Name() + "/environ")
		if err != nil || len(env) == 0 { // another user's, gone, or a zombie's (empty)
			continue
		}
		if bytes.Contains(append([]byte{0}, env...), want) {
			pids = append(pids, pid)
		}
	}
	return pids
}
