package loop

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/git-loop/git-loop/gitstore"
	"github.com/git-loop/git-loop/internal/textutil"
)

// A loop is enforced when its next stop will be judged and recorded. What can keep it from
// that while its ref says active — a lock on its ref that no live git-loop holds, a stop
// that could be neither recorded nor turned into a pause — is reported by status and list
// with the command that fixes it. A corrupt loop is reported as corrupt (ErrCorrupt), with
// how to inspect and restore it.

// unrecordedPath is the marker of loop name's last stop that could not be recorded.
func unrecordedPath(r *gitstore.Repo, name string) string {
	return filepath.Join(r.LoopDir(), "unrecorded", name)
}

// MarkUnrecorded notes that a stop of loop name was let through although it could be neither
// judged nor turned into a recorded pause (a full disk, a held lock): status says so until a
// later change of the loop is recorded. The loop stays active, and its next stop is judged
// again. The marker is created empty first, which a full disk usually still allows (it takes
// no data block), then given the reason if there is room.
func (s *Store) MarkUnrecorded(name string, cause error) error {
	path := unrecordedPath(s.Repo, name)
	if err := os.MkdirAll(filepath.Dir(path), 0o777); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = f.WriteString(textutil.FirstLine(cause.Error()) + "\n")
	return err
}

// clearUnrecorded removes the marker once a change of the loop has been recorded.
func (s *Store) clearUnrecorded(name string) {
	os.Remove(unrecordedPath(s.Repo, name))
}

// Problem is something that keeps a loop from being judged as its status says.
type Problem struct {
	// Text says what is wrong and the command that fixes it.
	Text string `json:"text"`
	// Unenforced is set when a stop of the loop would be let through unjudged now.
	Unenforced bool `json:"unenforced"`
}

// lockNote is how long a live git-loop may hold a loop's ref lock before status mentions it.
const lockNote = time.Minute

// Problems lists what keeps loop name (whose state is st) from being enforced now.
func (s *Store) Problems(name string, st *State) []Problem {
	if IsFetched(name) || st == nil || st.Ended() {
		return nil
	}
	var out []Problem
	ref := RefName(name)
	if lk := s.Repo.InspectRefLock(ref); lk != nil {
		since := lk.Since.Local().Format(time.DateTime)
		holder := lk.Owner
		if holder == "" {
			holder = "a process that left no owner record (git itself, or a git process or older git-loop that died)"
		}
		switch {
		case lk.Stale:
			out = append(out, Problem{Text: fmt.Sprintf("%s was left by %s at %s, which is gone; the next stop or change takes it over", lk.Path, holder, since)})
		case lk.Alive:
			if time.Since(lk.Since) > lockNote {
				out = append(out, Problem{Text: fmt.Sprintf("%s has been held by %s, still running, since %s; stops wait for it", lk.Path, holder, since)})
			}
		default:
			out = append(out, Problem{Unenforced: true, Text: fmt.Sprintf("not enforced: %s is held by %s since %s, so stops cannot be recorded and are let through; if no git process is running, remove it: `rm %s`", lk.Path, holder, since, lk.Path)})
		}
	}
	if st.Status == StatusActive {
		if fi, err := os.Stat(unrecordedPath(s.Repo, name)); err == nil {
			data, _ := os.ReadFile(unrecordedPath(s.Repo, name))
			why := strings.TrimSpace(string(data))
			if why == "" {
				why = "the reason could not be written either: the disk may be full"
			}
			out = append(out, Problem{Unenforced: true, Text: fmt.Sprintf("its stop at %s was let through unjudged and could not be recorded (%s); the next stop is judged again", fi.ModTime().Local().Format(time.DateTime), why)})
		}
	}
	return out
}

// restoreAdvice says how to inspect loop name, whose ref is unreadable or holds no loop at
// tip (zero when the ref itself cannot be read), and how to restore its newest recorded state
// that is a readable loop.
func (s *Store) restoreAdvice(name string, tip gitstore.Hash, broken bool) string {
	ref := RefName(name)
	advice := fmt.Sprintf("inspect it with `git show %s` and `git reflog %s`", ref, ref)
	if broken {
		advice = fmt.Sprintf("inspect it with `cat %s` and `git reflog %s`", s.Repo.RefPath(ref), ref)
	}
	for _, h := range s.Repo.ReflogValues(ref) {
		if h == tip {
			continue
		}
		if _, err := s.loadState(name, h); err != nil {
			continue
		}
		if broken {
			return advice + fmt.Sprintf("; restore its last good state with `rm %s && git update-ref %s %s`", s.Repo.RefPath(ref), ref, h)
		}
		return advice + fmt.Sprintf("; restore its last good state with `git update-ref %s %s`", ref, h)
	}
	return advice + "; its reflog holds no earlier readable state"
}

// isBroken reports whether err says the ref's loose file is broken.
func isBroken(err error) bool { return errors.Is(err, gitstore.ErrRefBroken) }

// Status returns the state and configuration of loop name (or of this worktree's loop).
func (s *Store) Status(name string) (*State, *Config, error) {
	name, err := s.Resolve(name)
	if err != nil {
		return nil, nil, err
	}
	tip, err := s.ReadTip(name)
	if err != nil {
		return nil, nil, err
	}
	st, cfgLine, hit := readHot(s.Repo, name, tip) // one read for both, on the hot path
	if hit {
		if err := s.checkTip(name, tip); err != nil {
			return nil, nil, err
		}
		if cfg, ok := hotConfig(cfgLine, st); ok {
			return s.withProblems(name, st), cfg, nil
		}
	} else if st, err = s.cachedStateAt(name, tip); err != nil {
		return nil, nil, err
	}
	cfg, err := s.ReadConfig(name, tip)
	if err != nil {
		return nil, nil, err
	}
	writeHotState(s.Repo, name, tip, st, cfg)
	return s.withProblems(name, st), cfg, nil
}

// checkTip returns ErrCorrupt, with how to restore the loop, when the tip commit of loop
// name cannot be read. The hot-state cache is keyed by the tip's name alone, so a tip commit
// damaged or lost since it was written would read as a healthy loop while every stop, which
// reads the commit, answers that the loop is corrupt: status and list read the commit (one
// object) before they show a cached state.
func (s *Store) checkTip(name string, tip gitstore.Hash) error {
	if _, err := s.Repo.ReadCommit(tip); err != nil {
		return fmt.Errorf("%w: loop %q: its tip commit %s cannot be read (%v); %s", ErrCorrupt, name, tip, err, s.restoreAdvice(name, tip, false))
	}
	return nil
}

// withProblems returns st, or a copy of it carrying its problems (see Problems).
func (s *Store) withProblems(name string, st *State) *State {
	probs := s.Problems(name, st)
	if len(probs) == 0 {
		return st
	}
	cp := *st
	cp.Problems = probs
	return &cp
}

// WithProblems returns states, each carrying what keeps it from being enforced now (see
// Problems), for list to print.
func (s *Store) WithProblems(states []*State) []*State {
	out := make([]*State, len(states))
	for i, st := range states {
		out[i] = s.withProblems(st.Name, st)
	}
	return out
}
