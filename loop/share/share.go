package share

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/git-loop/git-loop/gitstore"
	"github.com/git-loop/git-loop/loop"
)

// Sharing: `git loop push` sends loops (refs/loop/*) and their provenance notes
// (refs/notes/loop) to a remote, never forced; `git loop fetch` brings a remote's loops to
// refs/loop-remotes/REMOTE/* and merges its notes into refs/notes/loop. Both run the user's
// own git (gitstore.RunGit), so credentials and ssh configuration work as for git itself.

var (
	// ErrRejected means the remote refused some refs of a push (it has other commits there).
	ErrRejected = errors.New("the remote rejected the push")
)

// fetchNotesPrefix is where fetch puts a remote's notes until they are merged.
const fetchNotesPrefix = "refs/notes/git-loop-fetch/"

// PushOptions are the inputs of Push.
type PushOptions struct {
	Remote string // a configured remote or a URL; "" for the default remote
	// Names are the loops (none for every loop), each NAME or LOCAL:THEIRS to push loop
	// LOCAL to the remote's refs/loop/THEIRS.
	Names        []string
	AllowSecrets bool // push even when snapshots hold likely secrets
}

// PushReport is what a push did.
type PushReport struct {
	Remote string
	Refs   []gitstore.PushResult
}

// listRemotes lists the configured remotes' names.
func listRemotes(s *loop.Store) []string {
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
func IsRemote(s *loop.Store, name string) bool {
	for _, r := range listRemotes(s) {
		if r == name {
			return true
		}
	}
	return false
}

// defaultRemote is origin, or the only remote when there is one other.
func defaultRemote(s *loop.Store) (string, error) {
	remotes := listRemotes(s)
	switch {
	case IsRemote(s, "origin"):
		return "origin", nil
	case len(remotes) == 1:
		return remotes[0], nil
	case len(remotes) == 0:
		return "", fmt.Errorf("%w: this repository has none; add one with `git remote add origin URL`", loop.ErrNoRemote)
	}
	return "", fmt.Errorf("%w: there is no origin and %d others (%s); name the one to use", loop.ErrNoRemote, len(remotes), strings.Join(remotes, ", "))
}

// Push sends the loops named (every loop when none) and refs/notes/loop to a remote, as
// fast-forwards only; snapshots holding likely secrets are refused unless AllowSecrets.
func Push(s *loop.Store, ctx context.Context, opts PushOptions) (*PushReport, error) {
	remote := opts.Remote
	if remote == "" {
		var err error
		if remote, err = defaultRemote(s); err != nil {
			return nil, err
		}
	}
	names, err := pushNames(s, opts.Names)
	if err != nil {
		return nil, err
	}
	// The tips are read before the search and pushed by name, so what is pushed is what was
	// searched (a loop that moves meanwhile only grows: the search saw a superset).
	tips := map[string]gitstore.Hash{} // by the remote's name of the loop
	locals := map[string]string{}      // the remote's name → the local loop
	for _, n := range names {
		local, theirs := splitPushName(n)
		if tips[theirs], err = s.ReadTip(local); err != nil {
			return nil, err
		}
		locals[theirs] = local
	}
	tracked := "" // a configured remote has remote-tracking refs; a URL has none
	if IsRemote(s, remote) {
		tracked = remote
	}
	if !opts.AllowSecrets {
		found, err := scanSecrets(s, names, tracked)
		if err != nil {
			return nil, err
		}
		if len(found) > 0 {
			return nil, secretsError(found)
		}
	}
	var specs []string
	for _, n := range names {
		_, theirs := splitPushName(n)
		specs = append(specs, tips[theirs].String()+":"+loop.RefName(theirs)) // no '+': never forced
	}
	if _, err := s.Repo.ReadRef(loop.NotesRef); err == nil {
		specs = append(specs, loop.NotesRef+":"+loop.NotesRef)
	}
	out, gitErr := s.Repo.RunGit(ctx, append([]string{"push", "--porcelain", remote}, specs...)...)
	rep := &PushReport{Remote: remote, Refs: gitstore.ParsePushPorcelain(out.Stdout)}
	if err := trackPushed(s, tracked, rep.Refs, tips); err != nil {
		return rep, err
	}
	if err := rejected(remote, rep.Refs, locals); err != nil {
		return rep, err
	}
	if gitErr != nil {
		return rep, fmt.Errorf("push to %s: %w", remote, gitErr)
	}
	return rep, nil
}

// trackPushed moves the fetched copy of each loop the remote took
// (refs/loop-remotes/REMOTE/NAME, by the remote's name) to what was pushed, as git does for
// branches, so the next push searches only newer iterations for secrets and
// `git loop log REMOTE/NAME` is current. tips are by the remote's names.
func trackPushed(s *loop.Store, remote string, refs []gitstore.PushResult, tips map[string]gitstore.Hash) error {
	if remote == "" {
		return nil
	}
	for _, r := range refs {
		theirs, ok := strings.CutPrefix(r.To, "refs/loop/")
		pushed, known := tips[theirs]
		if !ok || !known || r.Rejected() || r.Flag == '-' {
			continue
		}
		ref := loop.RemoteRefName(remote, theirs)
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

// splitPushName splits push's LOCAL:THEIRS (or NAME, pushed under its own name).
func splitPushName(n string) (local, theirs string) {
	if local, theirs, ok := strings.Cut(n, ":"); ok {
		return local, theirs
	}
	return n, n
}

// pushNames checks the loops named (NAME or LOCAL:THEIRS), or lists every loop when none is.
func pushNames(s *loop.Store, names []string) ([]string, error) {
	if len(names) == 0 {
		all, _, err := s.List(true)
		if err != nil {
			return nil, err
		}
		for _, st := range all {
			names = append(names, st.Name)
		}
		if len(names) == 0 {
			return nil, fmt.Errorf("%w: there are no loops to push; start one with `git loop start`", loop.ErrNoLoop)
		}
		return names, nil
	}
	seen := map[string]string{}
	for _, n := range names {
		local, theirs := splitPushName(n)
		if loop.IsFetched(local) {
			return nil, pushFetched(local)
		}
		if err := loop.CheckName(local); err != nil {
			return nil, err
		}
		if err := loop.CheckName(theirs); err != nil {
			return nil, fmt.Errorf("push %s as %q: %w", local, theirs, err)
		}
		if other, dup := seen[theirs]; dup && other != local {
			return nil, fmt.Errorf("%w: loops %s and %s would both be pushed to refs/loop/%s; push one under another name (LOCAL:NAME)", loop.ErrBadName, other, local, theirs)
		}
		seen[theirs] = local
		if _, err := s.ReadTip(local); err != nil {
			return nil, err
		}
	}
	return names, nil
}

// pushFetched refuses to push fetched loop name: it is read-only here, and push sends this
// repository's own loops.
func pushFetched(name string) error {
	remote, local, _ := loop.SplitFetched(name)
	return fmt.Errorf("%w: %s names %s's loop %s, fetched or to fetch; push sends this repository's own loops (`git loop push %s %s` pushes yours named %s), or continue that one here first with `git loop resume %s --trust`",
		loop.ErrFetched, name, remote, local, remote, local, local, name)
}

// rejected explains the refs the remote refused, with the way to a push that succeeds;
// locals maps the remote's loop names to the local loops pushed there.
func rejected(remote string, refs []gitstore.PushResult, locals map[string]string) error {
	var lines []string
	for _, r := range refs {
		if !r.Rejected() {
			continue
		}
		theirs := strings.TrimPrefix(r.To, "refs/loop/")
		local := locals[theirs]
		if local == "" {
			local = theirs
		}
		// Fetching does not help: the fetched loop goes to refs/loop-remotes/, and the same
		// push is rejected again. The two histories diverged; push never forces, so the way
		// through is another name on the remote.
		fix := fmt.Sprintf("the remote's loop %s is not an ancestor of yours: the two diverged (another person's loop of this name, or this one continued elsewhere), and push never replaces it; push yours under another name with `git loop push %s %s:%s-2` (any name the remote lacks), and read theirs with `git loop fetch %s` and `git loop log %s/%s`",
			theirs, remote, local, local, remote, remote, theirs)
		if r.To == loop.NotesRef {
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
	Loops       []*loop.State // the remote's loops, as REMOTE/NAME
	NotesMerged bool          // the remote had provenance notes, merged into refs/notes/loop
}

// Fetch brings remote's loops to refs/loop-remotes/REMOTE/* (replacing the previous copies,
// as git's remote-tracking refs are) and merges its provenance notes into refs/notes/loop,
// keeping every line of both sides (git notes merge -s cat_sort_uniq): never overwritten.
func Fetch(s *loop.Store, ctx context.Context, remote string) (*FetchReport, error) {
	if remote == "" {
		var err error
		if remote, err = defaultRemote(s); err != nil {
			return nil, err
		}
	}
	if !IsRemote(s, remote) {
		return nil, fmt.Errorf("%w %q: fetch takes a configured remote's name (see `git remote`), whose loops go to refs/loop-remotes/NAME/; add one with `git remote add NAME URL`", loop.ErrNoRemote, remote)
	}
	if strings.Contains(remote, "/") {
		return nil, fmt.Errorf("%w: fetch from remote %q: its name holds a '/', so its loops could not be read as REMOTE/NAME; rename it with `git remote rename %s NEW`", loop.ErrConfig, remote, remote)
	}
	tmp := fetchNotesPrefix + remote + "/"
	specs := []string{"+refs/loop/*:" + loop.RemoteRefName(remote, "*"), "+" + loop.NotesRef + "*:" + tmp + "loop*"}
	if _, err := s.Repo.RunGit(ctx, append([]string{"fetch", "--no-tags", "--no-write-fetch-head", remote}, specs...)...); err != nil {
		return nil, fmt.Errorf("fetch from %s: %w", remote, err)
	}
	rep := &FetchReport{Remote: remote}
	merged, err := mergeNotes(s, ctx, tmp)
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
func mergeNotes(s *loop.Store, ctx context.Context, tmp string) (bool, error) {
	refs, err := s.Repo.ListRefs(tmp)
	if err != nil {
		return false, fmt.Errorf("read fetched notes: %w", err)
	}
	merged := false
	for _, ref := range refs {
		if ref.Name == tmp+"loop" {
			if _, err := s.Repo.RunGit(ctx, "notes", "--ref="+loop.NotesRef, "merge", "--quiet", "--strategy=cat_sort_uniq", ref.Name); err != nil {
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
