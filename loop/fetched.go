package loop

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/git-loop/git-loop/gitstore"
)

// Fetched loops: `git loop fetch REMOTE` brings a remote's loops to
// refs/loop-remotes/REMOTE/NAME, and reading commands name them REMOTE/NAME (a loop name is
// one ref component, so the '/' cannot be a local loop's). The namespace is git-loop's own,
// not git's refs/remotes/: there, `git fetch --prune` would delete them as stale
// remote-tracking branches, and a remote branch named loop/NAME would replace one. They
// are read-only here, and
// their stored gate commands are someone else's: a command that would run them (check,
// resume, run) refuses unless the person passed --trust (Store.Trust).

var (
	// ErrUntrusted means a command would run a fetched loop's gate commands without --trust.
	ErrUntrusted = errors.New("a fetched loop's gate commands are not trusted")
	// ErrFetched means a command would change a fetched loop, which is read-only.
	ErrFetched = errors.New("a fetched loop is read-only")
)

// remoteLoopsPrefix starts a fetched loop's ref: refs/loop-remotes/REMOTE/NAME.
const remoteLoopsPrefix = "refs/loop-remotes/"

// IsFetched reports whether name names a fetched loop (REMOTE/NAME).
func IsFetched(name string) bool { return strings.Contains(name, "/") }

// SplitFetched splits REMOTE/NAME; ok is false for a local loop's name.
func SplitFetched(name string) (remote, local string, ok bool) {
	return strings.Cut(name, "/")
}

// LocalName is the loop's own name: NAME of REMOTE/NAME, or name itself.
func LocalName(name string) string {
	if _, local, ok := SplitFetched(name); ok {
		return local
	}
	return name
}

// RemoteRefName is the ref of loop local fetched from remote.
func RemoteRefName(remote, local string) string {
	return remoteLoopsPrefix + remote + "/" + local
}

// CheckReadName validates the name of a loop to read: a loop name (CheckName), or
// REMOTE/NAME for a fetched loop, where REMOTE is a remote's name.
func CheckReadName(name string) error {
	remote, local, ok := SplitFetched(name)
	if !ok {
		return CheckName(name)
	}
	if err := CheckName(local); err != nil {
		return fmt.Errorf("fetched loop %q: %w", name, err)
	}
	if remote == "" || gitstore.CheckRefName(remoteLoopsPrefix+remote) != nil {
		return fmt.Errorf("%w %q: REMOTE/NAME needs a remote's name before the '/' (see `git remote`)", ErrBadName, name)
	}
	return nil
}

// readOnly refuses to change fetched loop name.
func readOnly(name string) error {
	remote, local, _ := SplitFetched(name)
	return fmt.Errorf("%w: %s is a copy of %s's loop %s; only reading commands (status, log, show, diff, report) work on it, or continue it here with `git loop resume %s --trust`",
		ErrFetched, name, remote, local, name)
}

// untrusted refuses to run fetched loop name's gates without --trust; command, when set, is
// the command to run again with it.
func untrusted(name, command string) error {
	again := "pass --trust to run them (as `git loop resume " + name + " --trust`, which continues the loop here)"
	if command != "" {
		again = "run `git loop " + command + " " + name + " --trust` to run them"
	}
	return fmt.Errorf("%w: %s was fetched from a remote, so its gate and evaluator commands were written by someone else; read them with `git loop status %s`, then %s",
		ErrUntrusted, name, name, again)
}

// checkTrust refuses to run fetched loop name's stored commands (gates, evaluator) unless the
// person passed --trust (s.Trust); command is the git loop command to run again with it.
func (s *Store) checkTrust(name, command string) error {
	if IsFetched(name) && !s.Trust {
		return untrusted(name, command)
	}
	return nil
}

// ListFetched returns the state of every fetched loop, named REMOTE/NAME and sorted, with the
// refs under refs/loop-remotes/ that are not loops described in skipped.
func (s *Store) ListFetched() (loops []*State, skipped []string, err error) {
	refs, err := s.Repo.ListRefs(remoteLoopsPrefix)
	if err != nil {
		return nil, nil, fmt.Errorf("list fetched loops: %w", err)
	}
	for _, ref := range refs {
		name := strings.TrimPrefix(ref.Name, remoteLoopsPrefix)
		remote, _, _ := strings.Cut(name, "/")
		if err := CheckReadName(name); err != nil {
			skipped = append(skipped, fmt.Sprintf("%s is not a loop (%v)", ref.Name, err))
			continue
		}
		st, err := s.loadState(name, ref.Hash)
		if err != nil {
			skipped = append(skipped, fmt.Sprintf("%s is not a loop (%v)", ref.Name, err))
			continue
		}
		st.Name, st.Remote = name, remote
		loops = append(loops, st)
	}
	sort.Slice(loops, func(i, j int) bool { return loops[i].Name < loops[j].Name })
	return loops, skipped, nil
}
