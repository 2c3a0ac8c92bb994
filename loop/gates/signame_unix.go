//go:build unix

package gates

import (
	"os/exec"
	"strconv"
	"syscall"

	"golang.org/x/sys/unix"
)

// signalName is the signal's name as a shell prints it, "SIGSEGV", or "signal N".
func signalName(sig syscall.Signal) string {
	if name := unix.SignalName(sig); name != "" {
		return name
	}
	return "signal " + strconv.Itoa(int(sig))
}

// shellSignal names the signal a POSIX shell reports as exit status 128+N, or "".
func shellSignal(code int) string {
	if code <= 128 || code > 128+64 {
		return ""
	}
	return unix.SignalName(syscall.Signal(code - 128))
}

// waitSignal names the signal that killed the process, or "" when it exited.
func waitSignal(ee *exec.ExitError) string {
	if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return signalName(ws.Signal())
	}
	return ""
}
