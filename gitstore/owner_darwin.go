package gitstore

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// hostKey is this boot of this machine: its boot time, which a restart changes. macOS has no
// pid namespaces.
func hostKey() (string, string) {
	tv, err := unix.SysctlTimeval("kern.boottime")
	if err != nil {
		return "", ""
	}
	return fmt.Sprintf("b%d.%06d", tv.Sec, tv.Usec), ""
}

// processStart returns when process pid started, in microseconds since the epoch; false when
// there is no such process or it is a zombie.
func processStart(pid int) (uint64, bool) {
	kp, err := unix.SysctlKinfoProc("kern.proc.pid", pid)
	if err != nil || kp.Proc.P_pid != int32(pid) || kp.Proc.P_stat == 5 /* SZOMB */ {
		return 0, false
	}
	t := kp.Proc.P_starttime
	start := uint64(t.Sec)*1_000_000 + uint64(t.Usec)
	return start, start != 0
}
