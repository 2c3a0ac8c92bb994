package gitstore

import (
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"syscall"
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

// recordSweepAge is how old an owner record that is no lock (its only name is the record)
// must be before any writer removes it, whoever made it: a record becomes a lock within
// microseconds of being made, or never.
const recordSweepAge = time.Hour

// lockFile is git's lockfile protocol: "<path>.lock" created exclusively stands for the right
// to replace path; the new content is written to the lock file, which is then renamed over
// path (commit) or removed (rollback). When it can, git-loop creates the lock as a hard link
// of an owner record (see owner.go), so that a lock left by a process that died can be told
// from one a live process, or git, holds.
type lockFile struct {
	path     string // the file being replaced
	lockPath string // path + ".lock"
	f        *os.File
	record   string // the owner record the lock is a link of; "" for an unowned lock
}

// lockOptions say how acquireLock waits and what it may take over.
type lockOptions struct {
	// timeout is how long a held lock is waited for; negative: forever; zero: one try.
	timeout time.Duration
	// records is the directory of owner records (<commondir>/loop/locks); "" takes
	// unowned locks, as git does.
	records string
	// staleAfter, when positive, is how long a lock that no live process is known to hold
	// (one with no owner record, or whose owner is on another host or boot) must have been
	// untouched before it counts as stale. Zero: such a lock is always waited for.
	staleAfter time.Duration
}

// errLockHeld is returned (wrapped in ErrRefLocked by callers) when the lock stayed held.
type errLockHeld struct {
	lockPath string
	waited   time.Duration
	holder   *lockHolder
}

func (e *errLockHeld) Error() string {
	waited := e.waited.Round(time.Millisecond)
	if h := e.holder; h != nil && h.owner != nil {
		switch h.state {
		case ownerAlive:
			return fmt.Sprintf("%s is held by %s, which is still running, after waiting %v; try again in a moment", e.lockPath, h.owner, waited)
		case ownerUnknown:
			return fmt.Sprintf("%s is held by %s since %s, which cannot be checked from here (another host, or before a restart), after waiting %v. Remove %s if no git-loop runs there", e.lockPath, h.owner, h.since(), waited, e.lockPath)
		}
	}
	since := ""
	if h := e.holder; h != nil {
		since = " (since " + h.since() + ")"
	}
	return fmt.Sprintf("%s still exists%s after waiting %v; another git process seems to be running in this repository. Remove %s if no git process is running", e.lockPath, since, waited, e.lockPath)
}

// maxTakeovers bounds how many stale locks one acquisition removes before it waits like any
// other contender.
const maxTakeovers = 3

// acquireLock creates path+".lock" exclusively, creating missing parent directories. While the
// lock file exists it retries with git's backoff (quadratically growing sleeps of 1, 4, 9, ... ms,
// capped at 1 s, each jittered to 75–125 %) until the timeout has passed in total. A lock
// that is provably stale — its owner record names a process of this host that is gone, or
// opt.staleAfter says it is abandoned — is removed and taken at once (see breakStale). It
// returns *errLockHeld when the lock stayed held.
func acquireLock(path string, opt lockOptions) (*lockFile, error) {
	lockPath := path + lockSuffix
	var rec *os.File
	var recPath string
	if opt.records != "" {
		rec, recPath = newRecord(opt.records)
		StallAt("lock-record")
	}
	giveUp := func() {
		if rec != nil {
			rec.Close()
			os.Remove(recPath)
		}
	}
	var waited time.Duration
	n, multiplier, takeovers := 1, 1, 0
	var holder *lockHolder
	for {
		var err error
		if rec != nil {
			if err = linkExclusive(recPath, lockPath); err == nil {
				return &lockFile{path: path, lockPath: lockPath, f: rec, record: recPath}, nil
			}
			if !errors.Is(err, fs.ErrExist) && linkUnsupported(err) {
				giveUp() // a file system without hard links: take the lock as git does
				rec = nil
				continue
			}
		} else {
			var f *os.File
			if f, err = createExclusive(lockPath); err == nil {
				return &lockFile{path: path, lockPath: lockPath, f: f}, nil
			}
		}
		if !errors.Is(err, fs.ErrExist) {
			giveUp()
			return nil, fmt.Errorf("create lock file %s: %w", lockPath, err)
		}
		last := opt.timeout >= 0 && waited >= opt.timeout
		if holder == nil || last {
			holder = inspectLock(lockPath, opt)
			if holder != nil && holder.stale && takeovers < maxTakeovers {
				takeovers++
				if breakStale(lockPath, holder, opt) {
					holder = nil
					continue
				}
			}
		}
		if last {
			giveUp()
			return nil, &errLockHeld{lockPath: lockPath, waited: waited, holder: holder}
		}
		backoff := time.Duration(multiplier) * time.Millisecond
		wait := backoff * time.Duration(750+rand.IntN(500)) / 1000
		if opt.timeout >= 0 && waited+wait > opt.timeout {
			wait = opt.timeout - waited // one last try right at the deadline
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

// newRecord creates a new owner record for this process in dir, open for writing; nil when
// it cannot (the lock is then taken unowned).
func newRecord(dir string) (*os.File, string) {
	name := filepath.Join(dir, currentOwner().recordName())
	f, err := createExclusive(name)
	if err != nil {
		return nil, ""
	}
	return f, name
}

// linkExclusive makes lockPath a hard link of record, failing with fs.ErrExist when lockPath
// exists: as O_CREAT|O_EXCL, creation is atomic. Missing parent directories are created, as
// createExclusive does.
func linkExclusive(record, lockPath string) error {
	var err error
	for attempt := 0; attempt < 5; attempt++ {
		if err = os.Link(record, lockPath); err == nil || !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		if _, serr := os.Lstat(record); serr != nil {
			return err // the record itself is gone (swept while this process was stopped)
		}
		if merr := os.MkdirAll(filepath.Dir(lockPath), 0o777); merr != nil {
			return merr
		}
	}
	return err
}

// linkUnsupported reports whether a link failed because the file system does not do hard
// links (or not across the two directories), rather than for a reason a plain create would
// meet too.
func linkUnsupported(err error) bool {
	return errors.Is(err, syscall.EPERM) || errors.Is(err, syscall.EXDEV) || errors.Is(err, syscall.ENOTSUP) ||
		errors.Is(err, syscall.EOPNOTSUPP) || errors.Is(err, syscall.EMLINK) || errors.Is(err, syscall.ENOSYS)
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
		l.dropRecord()
		return fmt.Errorf("commit %s: %w", l.lockPath, err)
	}
	l.dropRecord()
	return nil
}

// rollback closes and removes the lock file, leaving the locked path untouched.
func (l *lockFile) rollback() {
	if l.f != nil {
		l.f.Close()
		l.f = nil
	}
	os.Remove(l.lockPath)
	l.dropRecord()
}

// dropRecord removes the lock's owner record once the lock is released (renamed or removed),
// and the records that processes which died left behind.
func (l *lockFile) dropRecord() {
	if l.record == "" {
		return
	}
	os.Remove(l.record)
	sweepRecords(filepath.Dir(l.record))
	l.record = ""
}

// sweepRecords removes the owner records in dir that no lock needs: records that are no
// lock (linked nowhere else) whose owner is gone, or that are older than recordSweepAge.
// A record still linked to something — a lock its dead owner held, which the next writer of
// that ref takes over, or the ref file a lock became — is left: removing it would make the
// lock unowned.
func sweepRecords(dir string) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		owner, ok := parseRecordName(e.Name())
		if !ok {
			continue
		}
		path := filepath.Join(dir, e.Name())
		fi, err := os.Lstat(path)
		if err != nil || linkCount(fi) != 1 {
			continue
		}
		if time.Since(fi.ModTime()) > recordSweepAge || owner.state() == ownerDead {
			os.Remove(path)
		}
	}
}

// lockHolder is what is known of a lock file found in the way.
type lockHolder struct {
	fi     os.FileInfo
	owner  *lockOwner // from the owner record the lock is a link of; nil: none
	record string
	state  ownerState
	stale  bool
}

func (h *lockHolder) since() string {
	return h.fi.ModTime().Local().Format(time.DateTime)
}

// inspectLock looks at the lock file at lockPath: who made it, whether they still run, and
// whether it is stale. nil when the lock is gone already.
func inspectLock(lockPath string, opt lockOptions) *lockHolder {
	fi, err := os.Lstat(lockPath)
	if err != nil {
		return nil
	}
	h := &lockHolder{fi: fi, state: ownerUnknown}
	if opt.records != "" && linkCount(fi) != 1 {
		if entries, err := os.ReadDir(opt.records); err == nil {
			for _, e := range entries {
				owner, ok := parseRecordName(e.Name())
				if !ok {
					continue
				}
				path := filepath.Join(opt.records, e.Name())
				if rfi, err := os.Lstat(path); err == nil && os.SameFile(rfi, fi) {
					h.owner, h.record, h.state = &owner, path, owner.state()
					break
				}
			}
		}
	}
	switch {
	case h.owner != nil && h.state == ownerDead:
		h.stale = true
	case h.state != ownerAlive && opt.staleAfter > 0 && time.Since(fi.ModTime()) > opt.staleAfter:
		h.stale = true
	}
	return h
}

// breakStale removes the stale lock h found at lockPath, and reports whether it did. Breaking
// is serialised by an OS lock on <records>/break (released by the kernel if this process
// dies), and under it the lock is checked again: it must still be the same file, and still
// stale, so that of two processes taking over one stale lock, the second does not remove the
// fresh lock the first one (or git) has taken since. Only the owner of a lock, and a breaker,
// ever remove one.
func breakStale(lockPath string, h *lockHolder, opt lockOptions) bool {
	if opt.records == "" {
		return false
	}
	broke := false
	withBreakMutex(opt.records, func() {
		fi, err := os.Lstat(lockPath)
		if err != nil || !os.SameFile(fi, h.fi) {
			return
		}
		if again := inspectLock(lockPath, opt); again == nil || !again.stale || !os.SameFile(again.fi, h.fi) {
			return
		}
		if os.Remove(lockPath) != nil {
			return
		}
		if h.record != "" {
			os.Remove(h.record)
		}
		broke = true
	})
	return broke
}

// LockInfo describes a lock file found on a ref, for a person.
type LockInfo struct {
	// Path is the lock file.
	Path string
	// Since is when it was last written.
	Since time.Time
	// Owner names the git-loop process that holds it, "" when it holds no owner record
	// (git's own locks, or one taken where hard links are not supported).
	Owner string
	// Alive reports that its owner is known to be running.
	Alive bool
	// Stale reports that the next update of the ref takes it over (its owner is gone, or
	// it is older than a live process holds a ref lock).
	Stale bool
}

// InspectRefLock describes the lock file of ref name, or returns nil when there is none.
func (r *Repo) InspectRefLock(name string) *LockInfo {
	lockPath := r.refPath(name) + lockSuffix
	h := inspectLock(lockPath, r.refLockOptions(name))
	if h == nil {
		return nil
	}
	info := &LockInfo{Path: lockPath, Since: h.fi.ModTime(), Alive: h.owner != nil && h.state == ownerAlive, Stale: h.stale}
	if h.owner != nil {
		info.Owner = h.owner.String()
	}
	return info
}

// staleRefLockAge is how old a lock on a ref under refs/loop/ must be, when no live process
// is known to hold it, to be taken over. Git never removes a lock by itself; it deems its gc
// lock (gc.pid) stale after 12 hours, and no git command holds a ref lock for more than the
// moment of an update — refs/loop/* are written by git-loop and, rarely, a person's git
// update-ref or fetch. Refs outside refs/loop/ are never taken over by age.
const staleRefLockAge = 12 * time.Hour

// refLockOptions are the lock options for updating ref name.
func (r *Repo) refLockOptions(name string) lockOptions {
	opt := lockOptions{timeout: r.refLockTimeoutFor(), records: r.lockRecordsDir()}
	if strings.HasPrefix(name, "refs/loop/") {
		opt.staleAfter = staleRefLockAge
	}
	return opt
}

// lockRecordsDir is where git-loop keeps the owner records of the locks it holds.
func (r *Repo) lockRecordsDir() string { return filepath.Join(r.LoopDir(), "locks") }

// ErrLockHeld means a lock file git-loop takes for itself (not a ref's) is held.
var ErrLockHeld = errors.New("lock is held")

// LockPath takes path+".lock" for a git-loop operation (a start, say) without waiting: born
// with its owner record, as ref locks are, so that a lock its holder left when it was killed
// is taken over rather than blocking every later operation. It returns the function that
// releases it; a held lock is ErrLockHeld, saying who holds it.
func (r *Repo) LockPath(path string) (release func(), err error) {
	lk, err := acquireLock(path, lockOptions{records: r.lockRecordsDir()})
	if err != nil {
		var held *errLockHeld
		if errors.As(err, &held) {
			return nil, fmt.Errorf("%w: %s", ErrLockHeld, lockHeldText(held))
		}
		return nil, err
	}
	return lk.rollback, nil
}

// lockHeldText says who holds a lock git-loop itself takes.
func lockHeldText(e *errLockHeld) string {
	if h := e.holder; h != nil && h.owner != nil {
		if h.state == ownerAlive {
			return fmt.Sprintf("%s is held by %s, which is still running", e.lockPath, h.owner)
		}
		return fmt.Sprintf("%s is held by %s since %s, which cannot be checked from here (another host, or before a restart); remove it if that process is gone", e.lockPath, h.owner, h.since())
	}
	return fmt.Sprintf("%s exists, with no owner record (left by an older git-loop?); remove it if no git-loop is running", e.lockPath)
}
