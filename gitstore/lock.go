package gitstore

import (
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"time"
)

// Lock timeouts, as git's core.filesRefLockTimeout and core.packedRefsTimeout. Git's default for
// loose refs is 100 ms; git-loop waits longer because a hook racing a user's git command should
// rather wait than fail. A repository's explicit core.filesRefLockTimeout wins (see
// refLockTimeoutFor). Tests shorten these.
var (
	refLockTimeout        = time.Second
	packedRefsLockTimeout = time.Second
)

// lockSuffix is the suffix git appends to a file's name to lock it.
const lockSuffix = ".lock"

// lockFile is git's lockfile protocol: "<path>.lock" created with O_CREAT|O_EXCL stands for the
// right to replace path; the new content is written to the lock file, which is then renamed over
// path (commit) or removed (rollback).
type lockFile struct {
	path     string // the file being replaced
	lockPath string // path + ".lock"
	f        *os.File
}

// errLockHeld is returned (wrapped in ErrRefLocked by callers) when the lock stayed held.
type errLockHeld struct {
	lockPath string
	waited   time.Duration
}

func (e *errLockHeld) Error() string {
	return fmt.Sprintf("%s still exists after waiting %v; another git process seems to be running in this repository. Remove %s if no git process is running", e.lockPath, e.waited.Round(time.Millisecond), e.lockPath)
}

// acquireLock creates path+".lock" exclusively, creating missing parent directories. While the
// lock file exists it retries with git's backoff (quadratically growing sleeps of 1, 4, 9, ... ms,
// capped at 1 s, each jittered to 75–125 %) until timeout has passed in total; a negative timeout
// retries forever and zero tries once. It returns *errLockHeld when the lock stayed held.
func acquireLock(path string, timeout time.Duration) (*lockFile, error) {
	lockPath := path + lockSuffix
	var waited time.Duration
	n, multiplier := 1, 1
	for {
		f, err := createExclusive(lockPath)
		if err == nil {
			return &lockFile{path: path, lockPath: lockPath, f: f}, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return nil, fmt.Errorf("create lock file %s: %w", lockPath, err)
		}
		if timeout >= 0 && waited >= timeout {
			return nil, &errLockHeld{lockPath: lockPath, waited: waited}
		}
		backoff := time.Duration(multiplier) * time.Millisecond
		wait := backoff * time.Duration(750+rand.IntN(500)) / 1000
		if timeout >= 0 && waited+wait > timeout {
			wait = timeout - waited // one last try right at the deadline
		}
		time.Sleep(wait)
		waited += wait
		multiplier += 2*n + 1 // (n+1)² = n² + 2n + 1
		if multiplier > 1000 {
			multiplier = 1000
		} else {
			n++
		}
	}
}

// createExclusive creates a new file, creating its parent directories as needed. Like git's
// raceproof_create_file it retries when a concurrent process prunes an empty parent directory
// between the two steps.
func createExclusive(path string) (*os.File, error) {
	var err error
	for attempt := 0; attempt < 5; attempt++ {
		var f *os.File
		f, err = os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o666)
		if err == nil {
			return f, nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		if merr := os.MkdirAll(filepath.Dir(path), 0o777); merr != nil {
			return nil, merr
		}
	}
	return nil, err
}

// write writes data to the lock file and, when sync is set, flushes it to disk.
func (l *lockFile) write(data []byte, sync bool) error {
	if _, err := l.f.Write(data); err != nil {
		return fmt.Errorf("write %s: %w", l.lockPath, err)
	}
	if sync {
		if err := l.f.Sync(); err != nil {
			return fmt.Errorf("fsync %s: %w", l.lockPath, err)
		}
	}
	return nil
}

// commit closes the lock file and renames it over the locked path. On failure the lock is
// removed.
func (l *lockFile) commit() error {
	err := l.f.Close()
	l.f = nil
	if err == nil {
		err = os.Rename(l.lockPath, l.path)
	}
	if err != nil {
		os.Remove(l.lockPath)
		return fmt.Errorf("commit %s: %w", l.lockPath, err)
	}
	return nil
}

// rollback closes and removes the lock file, leaving the locked path untouched.
func (l *lockFile) rollback() {
	if l.f != nil {
		l.f.Close()
		l.f = nil
	}
	os.Remove(l.lockPath)
}
