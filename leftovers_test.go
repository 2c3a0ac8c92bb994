package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/git-loop/git-loop/testdata/realagents"
)

// The suite leaves nothing running (issue 25): every process it starts — scripts' commands
// and daemons, gates and their guards, real agents — carries suiteMarkEnv in its environment,
// and after the last test the suite fails if any of them still runs.

// suiteMarkEnv is the environment variable that marks the suite's processes; its value is
// this test process's id. The real agents' harness passes it on to what it starts.
const suiteMarkEnv = realagents.SuiteMarkEnv

// markSuite sets the mark in this process's environment, which every child inherits.
func markSuite() {
	if os.Getenv(suiteMarkEnv) == "" {
		os.Setenv(suiteMarkEnv, strconv.Itoa(os.Getpid()))
	}
}

// suiteMark is the mark's "NAME=VALUE", as a process's environment holds it.
func suiteMark() string { return suiteMarkEnv + "=" + os.Getenv(suiteMarkEnv) }

// leftovers lists the processes other than this one that carry the suite's mark, waiting up
// to wait for those on their way out. Only Linux can say (it reads /proc); elsewhere none.
func leftovers(wait time.Duration) []string {
	if runtime.GOOS != "linux" || os.Getenv(suiteMarkEnv) != strconv.Itoa(os.Getpid()) {
		return nil // not the process that set the mark: a script's git-loop, say
	}
	mark := []byte(suiteMark() + "\x00")
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
			if err != nil || !bytes.Contains(append([]byte{0}, env...), append([]byte{0}, mark...)) {
				continue
			}
			if stat, err := os.ReadFile(d + "/stat"); err == nil && zombie(stat) {
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

// zombie reports whether /proc/PID/stat says the process has exited (state Z or X).
func zombie(stat []byte) bool {
	i := bytes.LastIndexByte(stat, ')')
	return i >= 0 && i+2 < len(stat) && (stat[i+2] == 'Z' || stat[i+2] == 'X')
}
