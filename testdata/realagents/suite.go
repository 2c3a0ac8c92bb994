package realagents

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"
)

// The test suites leave nothing running (issue 25): every process a suite starts — scripts'
// commands and daemons, gates and their guards, real agents — carries SuiteMarkEnv in its
// environment, and after the last test a suite fails if any of them still runs.

// SuiteMarkEnv marks every process the test suite starts (its value is the suite's process
// id), so that the suite can find any still running after its last test.
const SuiteMarkEnv = "GITLOOP_TEST_SUITE"

// MarkSuite sets the mark in this process's environment, which every child inherits, unless
// a suite that started this process set it already.
func MarkSuite() {
	if os.Getenv(SuiteMarkEnv) == "" {
		os.Setenv(SuiteMarkEnv, strconv.Itoa(os.Getpid()))
	}
}

// Leftovers lists the processes other than this one that carry this suite's mark, waiting
// up to wait for those on their way out. Only Linux can say (it reads /proc); elsewhere, and
// in a process the suite started, it lists none.
func Leftovers(wait time.Duration) []string {
	if runtime.GOOS != "linux" || os.Getenv(SuiteMarkEnv) != strconv.Itoa(os.Getpid()) {
		return nil
	}
	mark := []byte("\x00" + SuiteMarkEnv + "=" + os.Getenv(SuiteMarkEnv) + "\x00")
	deadline := time.Now().Add(wait)
	for {
		var found []string
		dirs, _ := filepath.Glob("/proc/[0-9]*")
		for _, d := range dirs {
			pid, _ := strconv.Atoi(filepath.Base(d))
			if pid == os.Getpid() {
				continue
			}
			env, err := os.ReadFile(d + "/environ")
			if err != nil || !bytes.Contains(append([]byte{0}, env...), mark) {
				continue
			}
			if stat, err := os.ReadFile(d + "/stat"); err == nil && exited(stat) {
				continue
			}
			cmdline, _ := os.ReadFile(d + "/cmdline")
			found = append(found, fmt.Sprintf("pid %d: %s", pid, strings.TrimSpace(strings.ReplaceAll(string(cmdline), "\x00", " "))))
		}
		if len(found) == 0 || time.Now().After(deadline) {
			return found
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// CheckLeftovers is what a suite's TestMain does after its tests: it prints the processes
// still running and turns the exit code into a failure when there are any.
func CheckLeftovers(code int) int {
	if left := Leftovers(10 * time.Second); len(left) > 0 {
		fmt.Fprintf(os.Stderr, "FAIL: %d processes the suite started still run after its last test:\n  %s\n", len(left), strings.Join(left, "\n  "))
		return 1
	}
	return code
}

// exited reports whether /proc/PID/stat says the process has exited (state Z or X).
func exited(stat []byte) bool {
	i := bytes.LastIndexByte(stat, ')')
	return i >= 0 && i+2 < len(stat) && (stat[i+2] == 'Z' || stat[i+2] == 'X')
}

// AwaitPacked waits until the repository at dir has no loose object outside a pack and no
// maintenance running (objects/maintenance.lock, gc.pid), and has stayed so for a moment (a
// roll-up just started takes its lock within milliseconds). The loose objects a roll-up
// packed stay, for readers that listed them, until a roll-up an hour later: git's count of
// those (count-objects' prune-packable) is taken from the count. It gives up after two
// minutes.
func AwaitPacked(dir string) error {
	objects := filepath.Join(dir, ".git", "objects")
	unpacked := func() int {
		cmd := exec.Command("git", "count-objects", "-v")
		cmd.Dir = dir
		out, err := cmd.Output()
		if err != nil {
			return -1
		}
		n := map[string]int{}
		for _, line := range strings.Split(string(out), "\n") {
			if k, v, ok := strings.Cut(line, ": "); ok {
				n[k], _ = strconv.Atoi(v)
			}
		}
		return n["count"] - n["prune-packable"]
	}
	settled := func() bool {
		return !exists(filepath.Join(objects, "maintenance.lock")) && !exists(filepath.Join(dir, ".git", "gc.pid")) && unpacked() == 0
	}
	for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(20 * time.Millisecond) {
		if settled() {
			time.Sleep(300 * time.Millisecond)
			if settled() {
				return nil
			}
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("after two minutes, %d loose objects in no pack remain in %s, or maintenance still runs", unpacked(), objects)
		}
	}
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
