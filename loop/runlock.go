package loop

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"

	"github.com/git-loop/git-loop/gitstore"
)

// lockRun makes sure one `git loop run` drives a loop at a time: it creates
// <gitdir>/loop/run-<name>.lock holding its pid, exclusively. A lock whose process is gone
// (a crash, a kill -9) is taken over. release removes it.
func lockRun(r *gitstore.Repo, name string) (release func(), err error) {
	path := filepath.Join(r.CommonDir, "loop", "run-"+name+".lock")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("lock loop %s for run: %w", name, err)
	}
	for attempt := 0; attempt < 2; attempt++ {
		f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
		if err == nil {
			fmt.Fprintf(f, "%d\n", os.Getpid())
			f.Close()
			return func() { os.Remove(path) }, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return nil, fmt.Errorf("lock loop %s for run: %w", name, err)
		}
		pid := lockHolder(path)
		if pid > 0 && processAlive(pid) {
			return nil, fmt.Errorf("%w: another `git loop run` (pid %d) is driving loop %s; stop it first (or remove %s if that process is not git-loop)", ErrBusy, pid, name, path)
		}
		os.Remove(path) // its process is gone: take over
	}
	return nil, fmt.Errorf("%w: cannot take the run lock %s of loop %s; remove it if no run is going on", ErrBusy, path, name)
}

func lockHolder(path string) int {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(data)))
	return pid
}

// processAlive reports whether a process with pid exists (signal 0 probes without sending).
func processAlive(pid int) bool {
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	if runtime.GOOS == "windows" {
		return true // FindProcess opened it: it exists
	}
	err = p.Signal(syscall.Signal(0))
	return err == nil || errors.Is(err, syscall.EPERM)
}
