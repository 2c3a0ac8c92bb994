package driver

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
	"github.com/git-loop/git-loop/loop"
)

// lockRun makes sure one `git loop run` drives a loop at a time: it links a file holding its
// pid to <commondir>/loop/run-<name>.lock (a link is created whole or not at all, so the
// lock never exists without its pid). A lock whose process is gone (a crash, a kill -9) is
// taken over; release removes the lock only while it is still ours.
func lockRun(r *gitstore.Repo, name string) (release func(), err error) {
	path := filepath.Join(r.CommonDir, "loop", "run-"+name+".lock")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("lock loop %s for run: %w", name, err)
	}
	me := os.Getpid()
	tmp, err := os.CreateTemp(filepath.Dir(path), ".run-lock-*")
	if err != nil {
		return nil, fmt.Errorf("lock loop %s for run: %w", name, err)
	}
	fmt.Fprintf(tmp, "%d\n", me)
	tmp.Close()
	defer os.Remove(tmp.Name())
	for attempt := 0; attempt < 3; attempt++ {
		err := os.Link(tmp.Name(), path)
		if err == nil {
			return func() {
				if lockHolder(path) == me {
					os.Remove(path)
				}
			}, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return nil, fmt.Errorf("lock loop %s for run: %w", name, err)
		}
		pid := lockHolder(path)
		if pid <= 0 || processAlive(pid) {
			return nil, fmt.Errorf("%w: another `git loop run` (pid %d) is driving loop %s; stop it first (or remove %s if that process is not git-loop)", loop.ErrBusy, pid, name, path)
		}
		// Its process is gone: move the stale lock aside (rename is atomic, so of two
		// processes taking over only one succeeds) and try again.
		aside := path + fmt.Sprintf(".stale-%d", me)
		if os.Rename(path, aside) == nil {
			if holder := lockHolder(aside); holder != pid { // a live lock taken meanwhile: give it back
				os.Rename(aside, path)
				return nil, fmt.Errorf("%w: another `git loop run` (pid %d) is driving loop %s", loop.ErrBusy, holder, name)
			}
			os.Remove(aside)
		}
	}
	return nil, fmt.Errorf("%w: cannot take the run lock %s of loop %s; remove it if no run is going on", loop.ErrBusy, path, name)
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
