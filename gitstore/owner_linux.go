package gitstore

import (
	"bytes"
	"os"
	"strconv"
	"strings"
)

// hostKey is this boot of this machine (the kernel's boot_id, new at every boot and unique
// across machines) and the pid namespace pids are read in: a pid means the same process only
// where both match.
func hostKey() (string, string) {
	id, err := os.ReadFile("/proc/sys/kernel/random/boot_id")
	if err != nil {
		return "", ""
	}
	key := strings.ReplaceAll(strings.TrimSpace(string(id)), "-", "")
	ns, err := os.Readlink("/proc/self/ns/pid") // "pid:[4026531836]"
	if err != nil {
		return "", ""
	}
	ns = strings.TrimSuffix(strings.TrimPrefix(ns, "pid:["), "]")
	if key == "" || ns == "" || strings.ContainsAny(key+ns, "_/") {
		return "", ""
	}
	// /proc must be our pid namespace's, or the pids read from it are another's.
	if self, err := os.Readlink("/proc/self"); err != nil || self != strconv.Itoa(os.Getpid()) {
		return "", ""
	}
	return key, ns
}

// processStart returns when process pid started (clock ticks after boot, field 22 of
// /proc/PID/stat); false when there is no such process or it is a zombie, which holds no
// files and will write nothing.
func processStart(pid int) (uint64, bool) {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, false
	}
	i := bytes.LastIndexByte(stat, ')') // the command name may hold spaces and parentheses
	if i < 0 {
		return 0, false
	}
	f := strings.Fields(string(stat[i+1:]))
	if len(f) < 20 || f[0] == "Z" || f[0] == "X" {
		return 0, false
	}
	start, err := strconv.ParseUint(f[19], 10, 64)
	if err != nil || start == 0 {
		return 0, false
	}
	return start, true
}
