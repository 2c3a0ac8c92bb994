package gates

import "golang.org/x/sys/unix"

// processExited reports whether this process's child pid has exited, without reaping it
// (waitid with WNOHANG|WNOWAIT): its Wait still gets the status. A child already reaped
// (ECHILD: its Wait has run) has exited too.
func processExited(pid int) bool {
	var info unix.Siginfo
	for {
		err := unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOHANG|unix.WNOWAIT, nil)
		switch err {
		case unix.EINTR:
			continue
		case unix.ECHILD:
			return true
		case nil: // the kernel fills info only when it found pid ended (info starts zeroed)
			return info.Signo == int32(unix.SIGCHLD)
		}
		return false
	}
}
