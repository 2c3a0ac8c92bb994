package loop

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/git-loop/git-loop/gitstore"
)

// Sharing: `git loop push` sends loops (refs/loop/*) and their provenance notes
// (refs/notes/loop) to a remote, never forced; `git loop fetch` brings a remote's loops to
// refs/remotes/REMOTE/loop/* and merges its notes into refs/notes/loop. Both run the user's
// own git (gitstore.RunGit), so credentials and ssh configuration work as for git itself.

var (
	// ErrNoRemote means no remote was named and none can be assumed, or the one named is not
	// configured.
	ErrNoRemote = errors.New("no such remote")
	// ErrRejected means the remote refused some refs of a push (it has other commits there).
	ErrRejected = errors.New("the remote rejected the push")
)

// fetchNotesPrefix is where fetch puts a remote's notes until they are merged.
const fetchNotesPrefix = "refs/notes/git-loop-fetch/"

// PushOptions are the inputs of Push.
type PushOptions struct {
	Remote       string   // a configured remote or a URL; "" for the default remote
	Names        []string // the loops; none for every loop
	AllowSecrets bool     // push even when snapshots hold likely secrets
}

// PushReport is what a push did.
type PushReport struct {
	Remote string
	Refs   []gitstore.PushResult
}

// Remotes lists the configured remotes' names.
func (s *Store) Remotes() []string {
	var names []string
	for _, r := range s.Repo.Config.Subsections("remote") {
		if s.Repo.Config.Get("remote", r, "url") != "" {
			names = append(names, r)
		}
	}
	sort.Strings(names)
	return names
}

// IsRemote reports whether name is a configured remote.
func (s *Store) IsRemote(name string) bool {
	for _, r := range s.Remotes() {
		if r == name {
			return true
		}
	}
	return false
}

// DefaultRemote is origin, or the only remote when there is one other.
func (s *Store) DefaultRemote() (string, error) {
	remotes := s.Remotes()
	switch {
	case s.IsRemote("origin"):
		return "origin", nil
	case len(remotes) == 1:
		return remotes[0], nil
	case len(remotes) == 0:
		return "", fmt.Errorf("%w: this repository has none; add one with `git remote add origin URL`", ErrNoRemote)
	}
	return "", fmt.Errorf("%w: there is no origin and %d others (%s); name the one to use", ErrNoRemote, len(remotes), strings.Join(remotes, ", "))
}

// Push sends the loops named (every loop when none) and refs/notes/loop to a remote, as
// fast-forwards only; snapshots holding likely secrets are refused unless AllowSecrets.
func (s *Store) Push(ctx context.Context, opts PushOptions) (*PushReport, error) {
	remote := opts.Remote
	if remote == "" {
		var err error
		if remote, err = s.DefaultRemote(); err != nil {
			return nil, err
		}
	}
	names, err := s.pushNames(opts.Names)
	if err != nil {
		return nil, err
	}
	// The tips are read before the search and pushed by name, so what is pushed is what was
	// searched (a loop that moves meanwhile only grows: the search saw a superset).
	tips := map[string]gitstore.Hash{}
	for _, n := range names {
		if tips[n], err = s.readTip(n); err != nil {
			return nil, err
		}
	}
	tracked := "" // a configured remote has remote-tracking refs; a URL has none
	if s.IsRemote(remote) {
		tracked = remote
	}
	if !opts.AllowSecrets {
		found, err := s.ScanSecrets(names, tracked)
		if err != nil {
			return nil, err
		}
		if len(found) > 0 {
			return nil, secretsError(found)
		}
	}
	var specs []string
	for _, n := range names {
		specs = append(specs, tips[n].String()+":"+RefName(n)) // no '+': never forced
	}
	if _, err := s.Repo.ReadRef(NotesRef); err == nil {
		specs = append(specs, NotesRef+":"+NotesRef)
	}
	out, gitErr := s.Repo.RunGit(ctx, append([]string{"push", "--porcelain", remote}, specs...)...)
	rep := &PushReport{Remote: remote, Refs: gitstore.ParsePushPorcelain(out.Stdout)}
	if err := s.trackPushed(tracked, rep.Refs, tips); err != nil {
		return rep, err
	}
	if err := rejected(remote, rep.Refs); err != nil {
		return rep, err
	}
	if gitErr != nil {
		return rep, fmt.Errorf("push to %s: %w", remote, gitErr)
	}
	return rep, nil
}

// trackPushed moves the remote-tracking ref of each loop the remote took
// (refs/remotes/REMOTE/loop/NAME) to what was pushed, as git does for branches, so the next
// push searches only newer iterations for secrets and `git loop log REMOTE/NAME` is current.
func (s *Store) trackPushed(remote string, refs []gitstore.PushResult, tips map[string]gitstore.Hash) error {
	if remote == "" {
		return nil
	}
	for _, r := range refs {
		local, ok := strings.CutPrefix(r.To, "refs/loop/")
		pushed, known := tips[local]
		if !ok || !known || r.Rejected() || r.Flag == '-' {
			continue
		}
		ref := RemoteRefName(remote, local)
		old, err := s.Repo.ReadRef(ref)
		if err != nil && !errors.Is(err, gitstore.ErrRefNotFound) {
			return fmt.Errorf("after the push: %w", err)
		}
		if err := s.Repo.UpdateRef(ref, pushed, old, "git loop push"); err != nil && !errors.Is(err, gitstore.ErrRefChanged) {
			return fmt.Errorf("after the push, update %s: %w", ref, err)
		}
	}
	return nil
}

// pushNames checks the loops named, or lists every loop when none is.
func (s *Store) pushNames(names []string) ([]string, error) {
	if len(names) == 0 {
		all, _, err := s.List(true)
		if err != nil {
			return nil, err
		}
		for _, st := range all {
			names = append(names, st.Name)
		}
		if len(names) == 0 {
			return nil, fmt.Errorf("%w: there are no loops to push; start one with `git loop start`", ErrNoLoop)
		}
		return names, nil
	}
	for _, n := range names {
		if IsFetched(n) {
			return nil, fmt.Errorf("%w: %s is a fetched loop; push pushes this repository's own loops (see `git loop list --all`)", ErrBadName, n)
		}
		if err := CheckName(n); err != nil {
			return nil, err
		}
		if _, err := s.readTip(n); err != nil {
			return nil, err
		}
	}
	return names, nil
}

// rejected explains the refs the remote refused, with the way to a push that succeeds.
func rejected(remote string, refs []gitstore.PushResult) error {
	var lines []string
	for _, r := range refs {
		if !r.Rejected() {
			continue
		}
		fix := "the remote's loop of this name has iterations yours has not (another person's loop, or this one continued elsewhere); read it with `git loop fetch " + remote + "` and `git loop log " + remote + "/" + LocalName(strings.TrimPrefix(r.To, "refs/loop/")) + "`"
		if r.To == NotesRef {
			fix = "the remote has notes you do not: run `git loop fetch " + remote + "` (it merges them) and push again"
		}
		why := r.Summary
		if r.Reason != "" {
			why += " (" + r.Reason + ")"
		}
		lines = append(lines, fmt.Sprintf("%s %s; %s", r.To, why, fix))
	}
	if len(lines) == 0 {
		return nil
	}
	return fmt.Errorf("%w: %s", ErrRejected, strings.Join(lines, "\n  "))
}

// FetchReport is what a fetch brought.
type FetchReport struct {
	Remote      string
	Loops       []*State // the remote's loops, as REMOTE/NAME
	NotesMerged bool     // the remote had provenance notes, merged into refs/notes/loop
}

// Fetch brings remote's loops to refs/remotes/REMOTE/loop/* (replacing the previous copies,
// as git's remote-tracking refs are) and merges its provenance notes into refs/notes/loop,
// keeping every line of both sides (git notes merge -s cat_sort_uniq): never overwritten.
func (s *Store) Fetch(ctx context.Context, remote string) (*FetchReport, error) {
	if remote == "" {
		var err error
		if remote, err = s.DefaultRemote(); err != nil {
			return nil, err
		}
	}
	if !s.IsRemote(remote) {
		return nil, fmt.Errorf("%w %q: fetch takes a configured remote's name (see `git remote`), whose loops go to refs/remotes/NAME/loop/; add one with `git remote add NAME URL`", ErrNoRemote, remote)
	}
	tmp := fetchNotesPrefix + remote + "/"
	specs := []string{"+refs/loop/*:" + RemoteRefName(remote, "*"), "+" + NotesRef + "*:" + tmp + "loop*"}
	if _, err := s.Repo.RunGit(ctx, append([]string{"fetch", "--no-tags", "--no-write-fetch-head", remote}, specs...)...); err != nil {
		return nil, fmt.Errorf("fetch from %s: %w", remote, err)
	}
	rep := &FetchReport{Remote: remote}
	merged, err := s.mergeNotes(ctx, tmp)
	if err != nil {
		return nil, err
	}
	rep.NotesMerged = merged
	all, _, err := s.ListFetched()
	if err != nil {
		return nil, err
	}
	for _, st := range all {
		if st.Remote == remote {
			rep.Loops = append(rep.Loops, st)
		}
	}
	return rep, nil
}

// mergeNotes merges the fetched notes under tmp into refs/notes/loop and removes the
// temporary refs.
func (s *Store) mergeNotes(ctx context.Context, tmp string) (bool, error) {
	refs, err := s.Repo.ListRefs(tmp)
	if err != nil {
		return false, fmt.Errorf("read fetched notes: %w", err)
	}
	merged := false
	for _, ref := range refs {
		if ref.Name == tmp+"loop" {
			if _, err := s.Repo.RunGit(ctx, "notes", "--ref="+NotesRef, "merge", "--quiet", "--strategy=cat_sort_uniq", ref.Name); err != nil {
				return false, fmt.Errorf("merge the remote's provenance notes (kept in %s): %w", ref.Name, err)
			}
			merged = true
		}
		if err := s.Repo.UpdateRef(ref.Name, gitstore.ZeroHash, ref.Hash, "git loop fetch: notes merged"); err != nil {
			return merged, fmt.Errorf("remove %s: %w", ref.Name, err)
		}
	}
	return merged, nil
}
