package gates

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"time"
)

// GroupRun is the outcome of a command run in its own process group (RunInGroup).
type GroupRun struct {
	WaitErr  error         // from Wait
	Stopped  string        // why it was stopped ("timed out after 1m0s"); "" when it ended itself
	Duration time.Duration // from start to the end of its main process
}

// RunInGroup runs cmd (a gate, an evaluator, an agent, bisect's command) as the leader of a new process group and waits for
// it to end, for timeout, or for ctx to be done. Its stdout, and its stderr unless stderr is
// set, go to out through a pipe handed to the child itself, so that Wait returns when the
// main process exits rather than when every holder of the pipe has closed it (other streams
// are given up PipeGrace after that exit). A command
// Stopped early is asked to end (SIGTERM to the group), given KillGrace, then killed;
// whatever the group left running is killed in every case. err is set only when cmd could
// not be started.
func RunInGroup(ctx context.Context, cmd *exec.Cmd, timeout time.Duration, out io.Writer, stderr io.Writer) (GroupRun, error) {
	var run GroupRun
	pr, pw, err := os.Pipe()
	if err != nil {
		return run, err
	}
	cmd.Stdout, cmd.Stderr = pw, pw
	if stderr != nil {
		cmd.Stderr = stderr
	}
	// A stdin or stderr that is not a file is copied by exec's own goroutines, which Wait
	// waits for: a leftover child holding them (a server started with &) would hold Wait
	// too. WaitDelay bounds that wait once the main process has exited.
	cmd.WaitDelay = PipeGrace
	setGroup(cmd)
	// Where the command is tied to this process's life (Linux's parent-death signal), the
	// tie is to the thread that starts it: keep that thread until the command has ended.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	start := time.Now()
	err = cmd.Start()
	pw.Close()
	if err != nil {
		pr.Close()
		run.Duration = time.Since(start)
		return run, err
	}
	group := attachGroup(cmd)
	defer group.release()

	copied := make(chan struct{})
	go func(done chan<- struct{}) {
		defer close(done)
		buf := make([]byte, 64<<10)
		io.CopyBuffer(out, pr, buf)
	}(copied)
	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }()

	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case run.WaitErr = <-waited:
	case <-timer.C:
		// The timer says how long this process waited, which is not how long the command
		// ran when this process was suspended meanwhile (SIGSTOP, a stopped terminal job):
		// the command may have ended long before the timer could fire. An exit that
		// happened is the outcome, never a timeout (see endedBy).
		if err, ended := endedBy(cmd.Process.Pid, waited); ended {
			run.WaitErr = err
		} else {
			run.Stopped = fmt.Sprintf("timed out after %v", timeout)
		}
	case <-ctx.Done():
		run.Stopped = fmt.Sprintf("cancelled (%v)", context.Cause(ctx))
	}
	if run.Stopped != "" {
		// Ask politely; give the group a moment to exit and close its output; then kill.
		group.terminate()
		grace := time.NewTimer(KillGrace)
		exited := false
	polite:
		for !exited || copied != nil {
			select {
			case run.WaitErr = <-waited:
				exited = true
			case <-copied:
				copied = nil
			case <-grace.C:
				break polite
			}
		}
		grace.Stop()
		if !exited {
			group.kill()
			select {
			case run.WaitErr = <-waited:
			case <-time.After(KillGrace):
				group.forceKill() // a guard that did not finish in time goes too
				run.WaitErr = <-waited
			}
		}
	}
	run.Duration = time.Since(start)
	if errors.Is(run.WaitErr, exec.ErrWaitDelay) {
		run.WaitErr = nil // it exited 0; only a leftover child still held a stream
	}
	// The main process is gone; kill what it left running in its group so the pipe closes.
	group.cleanup()
	group.collect(cmd.ProcessState)
	if copied != nil {
		closePipe(pr, copied)
	}
	pr.Close()
	return run, nil
}

// endedBy reports whether the command whose main process is pid has ended by now, and then
// its result from waited. It asks the kernel where it can (processExited), so that an exit
// that came while this process was suspended wins over a timer that fired at the same wake;
// elsewhere only a result already delivered counts.
func endedBy(pid int, waited <-chan error) (error, bool) {
	select {
	case err := <-waited:
		return err, true
	default:
	}
	if processExited(pid) {
		return <-waited, true
	}
	return nil, false
}

// closePipe waits briefly for the output copy to reach the end of the pipe, then makes it
// stop: a process outside the gate's group (one that called setsid, say) may still hold the
// pipe open.
func closePipe(pr *os.File, copied <-chan struct{}) {
	select {
	case <-copied:
		return
	case <-time.After(PipeGrace):
	}
	if pr.SetReadDeadline(time.Now()) == nil {
		select {
		case <-copied:
		case <-time.After(PipeGrace):
		}
	}
	// Where deadlines are not supported the copy goroutine may outlive the gate, still
	// writing to the tail buffer (which is safe); the result no longer waits for it.
}
