package loop

import (
	"context"
	"errors"
	"fmt"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/git-loop/git-loop/gitstore"
	"github.com/git-loop/git-loop/internal/textutil"
)

// StartOptions are the inputs of Start.
type StartOptions struct {
	Name    string
	Session string
	Flags   Settings // command-line values, applied over .gitloop and git config
	// GateExitCodes is the exitCodes of every gate that declares none: the loop of a tool
	// whose gates speak the layered protocol (an import) keeps reading them that way.
	GateExitCodes string
}

// Start creates loop opts.Name (default: derived from the branch) in the current worktree:
// snapshot I_0 with HEAD as parent, a root commit holding loop.json, and state commit S_0.
// Flags, name and configuration are checked first, so a usage mistake is reported as such
// even when the worktree is busy. The worktree's start lock is held throughout, so two
// starts in one worktree cannot both pass the one-loop-per-worktree check.
func (s *Store) Start(opts StartOptions) (*State, error) {
	cfg, err := s.StartConfig(opts)
	if err != nil {
		return nil, err
	}
	release, err := lockStart(s.Repo)
	if err != nil {
		return nil, err
	}
	defer release()
	if err := s.checkFree(); err != nil {
		return nil, err
	}
	name := opts.Name
	if name == "" {
		if name, err = s.defaultName(); err != nil {
			return nil, err
		}
	}
	if err := CheckName(name); err != nil {
		return nil, err
	}
	return s.create(name, opts.Session, cfg)
}

// StartConfig validates a new loop's name (when given) and its settings: git config, then
// .gitloop, then the flags.
func (s *Store) StartConfig(opts StartOptions) (Config, error) {
	if opts.Name != "" {
		if err := CheckName(opts.Name); err != nil {
			return Config{}, err
		}
	}
	settings, err := loadSettings(s.Repo)
	if err != nil {
		return Config{}, err
	}
	settings.Override(opts.Flags)
	for i, g := range settings.Gates {
		if g.ExitCodes == "" {
			settings.Gates[i].ExitCodes = opts.GateExitCodes
		}
	}
	cfg, err := settings.resolve()
	if err != nil {
		return cfg, err
	}
	return cfg, shapeLoop(&cfg, settings.Shape)
}

// checkFree refuses to start when this worktree already has a live loop, saying how to
// resume or finish it.
func (s *Store) checkFree() error {
	cur, st, err := s.FindActive()
	if err != nil || cur == "" {
		return err
	}
	way := fmt.Sprintf("finish it with `git loop cancel %s`", cur)
	if st.Status == StatusPaused {
		way = fmt.Sprintf("resume it with `git loop resume %s` or finish it with `git loop cancel %s`", cur, cur)
	}
	return fmt.Errorf("%w: loop %q is %s here (`git loop status %s` shows it); %s, or start the new loop in another worktree (`git worktree add`)", ErrBusy, cur, st.Status, cur, way)
}

// create writes a new loop: I_0, the root commit, S_0, the ref and the active pointer.
func (s *Store) create(name, session string, cfg Config) (*State, error) {
	r := s.Repo
	if _, err := r.ReadRef(RefName(name)); err == nil {
		return nil, fmt.Errorf("%w: %q; pick another name, or see it with `git loop status %s`", ErrExists, name, name)
	} else if !errors.Is(err, gitstore.ErrRefNotFound) {
		return nil, err
	}
	head, err := r.Head()
	if err != nil {
		return nil, fmt.Errorf("start loop %q: %w", name, err)
	}
	snap, err := takeSnapshot(r)
	if err != nil {
		return nil, err
	}
	now := s.Now().UTC()
	cfg.Name, cfg.Worktree, cfg.StartedAt = name, r.WorkTree, now
	if !head.IsZero() {
		cfg.Base = head.String()
	}
	cfg.Branch = r.HeadBranch()
	i0, err := s.writeCommit(snap.Tree, nonZero(head), fmt.Sprintf("loop %s: snapshot at start", name), name, 0, "")
	if err != nil {
		return nil, err
	}
	st := State{
		Name: name, Status: StatusActive, MaxIterations: cfg.MaxIterations, Session: session,
		Worktree: r.WorkTree, Reason: "started", Snapshot: i0.String(), Tree: snap.Tree.String(), JudgedTree: snap.Tree.String(), StartTree: snap.Tree.String(),
		StartedAt: now, UpdatedAt: now,
	}
	root, err := s.rootCommit(&cfg)
	if err != nil {
		return nil, err
	}
	ch := &change{
		state: st, config: &cfg, snapshot: i0, subject: fmt.Sprintf("loop %s: started", name),
		iteration: &Iteration{Number: 0, Kind: "start", At: now, Snapshot: i0.String(), Tree: snap.Tree.String(), Changed: true, Files: snap.Files, Hashed: snap.Hashed},
	}
	commit, err := s.commitChange(root, ch)
	if err != nil {
		return nil, err
	}
	if err := r.UpdateRef(RefName(name), commit, gitstore.ZeroHash, ch.subject); err != nil {
		if errors.Is(err, gitstore.ErrRefChanged) {
			return nil, fmt.Errorf("%w: %q was created meanwhile by another process", ErrExists, name)
		}
		return nil, fmt.Errorf("start loop %q: %w", name, err)
	}
	writeHotState(r, name, commit, &st, &cfg)
	r.AutoMaintenance() // the start's snapshot may have written many objects; as after git commit
	if err := setActive(r, name); err != nil {
		return &st, fmt.Errorf("loop %q was started, but the stop hook cannot see it yet: %w; run `git loop status %s` once there is room, which writes it", name, err, name)
	}
	return &st, nil
}

// rootCommit is the parentless first commit of a loop: it holds loop.json, so
// `git log --first-parent refs/loop/<name>` ends at the loop's creation, not in the branch.
func (s *Store) rootCommit(cfg *Config) (gitstore.Hash, error) {
	ch := &change{config: cfg}
	tree, err := s.stateTreeConfigOnly(ch)
	if err != nil {
		return gitstore.ZeroHash, err
	}
	return s.writeCommit(tree, nil, fmt.Sprintf("loop %s: created", cfg.Name), cfg.Name, 0, "")
}

func nonZero(hs ...gitstore.Hash) []gitstore.Hash {
	var out []gitstore.Hash
	for _, h := range hs {
		if !h.IsZero() {
			out = append(out, h)
		}
	}
	return out
}

// defaultName derives a loop name from the current branch, adding -2, -3… when taken.
func (s *Store) defaultName() (string, error) {
	base := strings.TrimPrefix(s.Repo.HeadBranch(), "refs/heads/")
	base = strings.ReplaceAll(base, "/", "-")
	if base == "" || CheckName(base) != nil {
		base = "loop"
	}
	for i := 1; i < 1000; i++ {
		name := base
		if i > 1 {
			name = fmt.Sprintf("%s-%d", base, i)
		}
		if _, err := s.Repo.ReadRef(RefName(name)); errors.Is(err, gitstore.ErrRefNotFound) {
			return name, nil
		}
	}
	return "", fmt.Errorf("%w: no free name after %s-999; pass a name to `git loop start`", ErrExists, base)
}

// FindActive returns the loop active or paused in this worktree, from the pointer file or,
// when that is missing or does not name such a loop, by scanning refs/loop/* (restoring the
// pointer). A bad pointer (not a loop name, a loop that is gone, ended or elsewhere) is
// removed, never reported as an error.
func (s *Store) FindActive() (string, *State, error) {
	if name, _ := activeName(s.Repo); name != "" {
		st, err := s.liveHere(name)
		if st != nil || err != nil {
			return name, st, err
		}
		clearActive(s.Repo, name)
	}
	states, _, err := s.List(false)
	if err != nil {
		return "", nil, err
	}
	for _, st := range states {
		if s.isHere(st) {
			warnOnce("the active-loop pointer", setActive(s.Repo, st.Name), "the stop hook does not see this worktree's loop until a git loop command here can write it")
			return st.Name, st, nil
		}
	}
	return "", nil, nil
}

// liveHere returns the state of loop name when it is a readable, live loop of this
// worktree, else nil. A loop whose ref exists but cannot be read (a broken ref file, a
// missing object, a state.json that does not parse) is an error, ErrCorrupt: the pointer
// keeps naming it, so that status says it is corrupt and how to restore it, rather than that
// there is no loop.
func (s *Store) liveHere(name string) (*State, error) {
	if CheckName(name) != nil {
		return nil, nil
	}
	_, st, err := s.ReadState(name)
	if errors.Is(err, ErrCorrupt) {
		return nil, err
	}
	if err != nil || st.Ended() || !s.isHere(st) {
		return nil, nil
	}
	return st, nil
}

// isHere reports whether st belongs to this worktree. Worktree paths are canonical; a loop
// recorded before they were may name its worktree through a symlink.
func (s *Store) isHere(st *State) bool {
	return sameDir(st.Worktree, s.Repo.WorkTree)
}

// sameDir reports whether recorded names the canonical directory dir, directly or through
// symlinks.
func sameDir(recorded, dir string) bool {
	if recorded == dir {
		return true
	}
	real, err := filepath.EvalSymlinks(recorded)
	return err == nil && real == dir
}

// Resolve returns name (which may name a fetched loop, REMOTE/NAME), or the active loop of
// this worktree when name is empty.
func (s *Store) Resolve(name string) (string, error) {
	if name != "" {
		return name, CheckReadName(name)
	}
	active, _, err := s.FindActive()
	if err != nil {
		return "", err
	}
	if active == "" {
		if last := s.lastLoopHere(); last != nil {
			return "", fmt.Errorf("%w: none is active in this worktree; the last one here was %q (%s): `git loop status %s`", ErrNoLoop, last.Name, last.Status, last.Name)
		}
		return "", fmt.Errorf("%w: none is active in this worktree; name one, see `git loop list --all`, or start one with `git loop start`", ErrNoLoop)
	}
	return active, nil
}

// ResolveTransition is Resolve for pause, resume and cancel (t). One case differs: a cancel
// with no name, when no loop is active here but the last one that ran here is cancelled,
// names that loop, so that a second `cancel` answers as `cancel NAME` does (ErrNoChange:
// nothing to change) rather than that no loop is active.
func (s *Store) ResolveTransition(name string, t Transition) (string, error) {
	resolved, err := s.Resolve(name)
	if name != "" || t != Cancel || !errors.Is(err, ErrNoLoop) {
		return resolved, err
	}
	if last := s.lastLoopHere(); last != nil && last.Status == StatusCancelled {
		return last.Name, nil
	}
	return resolved, err
}

// lastLoopHere is the most recently updated loop of this worktree, or nil.
func (s *Store) lastLoopHere() *State {
	all, _, err := s.List(true)
	if err != nil {
		return nil
	}
	var last *State
	for _, st := range all {
		if s.isHere(st) && (last == nil || st.UpdatedAt.After(last.UpdatedAt)) {
			last = st
		}
	}
	return last
}

// List returns the state of every loop, sorted by name; only active and paused ones unless
// all is set. Refs under refs/loop/ that are not loops (a name that is not a loop name, or a
// commit without a readable state.json) do not stop it: each is described in skipped, as
// "refs/loop/<x> is not a loop (<why>)", for the caller to warn about.
func (s *Store) List(all bool) (loops []*State, skipped []string, err error) {
	refs, broken, err := s.Repo.ListRefsBroken("refs/loop/")
	if err != nil {
		return nil, nil, fmt.Errorf("list loops: %w", err)
	}
	for _, name := range broken {
		if loop := strings.TrimPrefix(name, "refs/loop/"); CheckName(loop) == nil {
			skipped = append(skipped, fmt.Sprintf("loop %s is corrupt: its ref file %s is broken; %s", loop, s.Repo.RefPath(name), s.restoreAdvice(loop, gitstore.ZeroHash, true)))
		}
	}
	for _, ref := range refs {
		st, why := s.loopAt(ref)
		if why != "" {
			skipped = append(skipped, why)
			continue
		}
		if all || !st.Ended() {
			loops = append(loops, st)
		}
	}
	sort.Slice(loops, func(i, j int) bool { return loops[i].Name < loops[j].Name })
	return loops, skipped, nil
}

// loopAt returns the state of the loop at ref, or why it is none to list: corrupt (its tip
// commit cannot be read, see checkTip), or not a loop, with how to restore one.
func (s *Store) loopAt(ref gitstore.Ref) (*State, string) {
	name := strings.TrimPrefix(ref.Name, "refs/loop/")
	if err := CheckName(name); err != nil {
		return nil, fmt.Sprintf("%s is not a loop (%q is not a valid loop name)", ref.Name, name)
	}
	if _, err := s.Repo.ReadCommit(ref.Hash); err != nil {
		return nil, fmt.Sprintf("loop %s is corrupt: its tip commit %s cannot be read (%v); %s", name, ref.Hash, err, s.restoreAdvice(name, ref.Hash, false))
	}
	if st, ok := readHotState(s.Repo, name, ref.Hash); ok {
		return st, ""
	}
	st, err := s.loadState(name, ref.Hash)
	if err != nil {
		return nil, fmt.Sprintf("%s is not a loop (%v; %s)", ref.Name, err, s.restoreAdvice(name, ref.Hash, false))
	}
	writeHotState(s.Repo, name, ref.Hash, st, nil)
	return st, ""
}

// Checkpoint records a snapshot of the loop's worktree now as its next iteration, with no
// decision. The loop may be named from another worktree: its own worktree is snapshotted.
func (s *Store) Checkpoint(name string) (*State, *Iteration, error) {
	return s.recordSnapshot(name, "checkpoint", "", func(st *State) error { return canRecord(name, st) })
}

// prefetch reads, in the background, the objects the next state commit builds on (the tip
// commit, its tree, state.json and the iteration shard), so that reading them overlaps the
// snapshot instead of following it. Errors are left for update to meet and report.
func (s *Store) prefetch(name string, iter int) <-chan struct{} {
	done := make(chan struct{})
	go func() {
		defer close(done)
		tip, err := s.ReadTip(name)
		if err != nil {
			return
		}
		if _, err := s.stateAt(name, tip); err != nil {
			return
		}
		if c, err := s.Repo.ReadCommit(tip); err == nil {
			shard, _ := path.Split(IterationPath(iter))
			s.Repo.LookupPath(c.Tree, strings.TrimSuffix(shard, "/"))
		}
	}()
	return done
}

// canRecord refuses new iterations on an ended loop or one that used all its iterations.
func canRecord(name string, st *State) error {
	if IsFetched(name) {
		return readOnly(name)
	}
	if st.Ended() {
		return fmt.Errorf("%w: loop %q is %s; start a new loop to record more", ErrEnded, name, st.Status)
	}
	if st.MaxIterations > 0 && st.Iteration >= st.MaxIterations {
		return fmt.Errorf("%w: loop %q has used all %d iterations; cancel it (`git loop cancel %s`) and start a new one", ErrLimit, name, st.MaxIterations, name)
	}
	return nil
}

// WorktreeOf returns the repository opened in the loop's own worktree: s.Repo when that is
// where we are, else that worktree, which must still exist and share our objects and refs.
func (s *Store) WorktreeOf(name string, st *State) (*gitstore.Repo, error) {
	if s.isHere(st) {
		return s.Repo, nil
	}
	r, err := gitstore.Open(st.Worktree)
	if err != nil || !sameDir(st.Worktree, r.WorkTree) || r.CommonDir != s.Repo.CommonDir {
		return nil, fmt.Errorf("%w: loop %q belongs to worktree %s, which is gone or is another repository now; cancel the loop (`git loop cancel %s`)", ErrWorktreeGone, name, st.Worktree, name)
	}
	return r, nil
}

// Transition names a user-requested status change.
type Transition string

// The user-requested transitions.
const (
	Pause  Transition = "pause"
	Resume Transition = "resume"
	Cancel Transition = "cancel"
)

// ErrNoChange means the transition found the loop already in the wanted status.
var ErrNoChange = errors.New("nothing to change")

// SetStatus applies a pause, resume or cancel. Loop state is never deleted: cancel records
// status cancelled and frees the worktree for a new loop.
func (s *Store) SetStatus(name string, t Transition) (*State, error) {
	return s.SetStatusWith(name, t, 0)
}

// SetStatusWith is SetStatus where a resume may also raise the iteration limit to newMax
// (0 keeps it). Resuming resets the circuit breakers' counters: a person looked, so the
// same failure or a quiet stretch starts counting afresh. A loop that used all its
// iterations resumes only with a higher limit.
func (s *Store) SetStatusWith(name string, t Transition, newMax int) (*State, error) {
	return s.SetStatusContext(context.Background(), name, t, newMax)
}

// SetStatusContext is SetStatusWith where ctx bounds the gates that confirming a colleague's
// completion may run again (see confirmCompletion).
func (s *Store) SetStatusContext(ctx context.Context, name string, t Transition, newMax int) (*State, error) {
	if t == Resume && !IsFetched(name) {
		if _, st, err := s.ReadState(name); err == nil && st.Status == StatusPaused && st.Checkpoint == checkpointCompletion {
			return s.confirmCompletion(ctx, name, st, newMax)
		}
	}
	st, err := s.update(name, func(tip gitstore.Hash, st *State) (*change, error) {
		want, err := targetStatus(name, st, t)
		if err != nil {
			return nil, err
		}
		if t == Resume && st.Checkpoint != "" {
			return s.resumeAtCheckpoint(name, tip, st, false, newMax)
		}
		next := *st
		next.Status, next.UpdatedAt = want, s.Now().UTC()
		if t == Resume {
			if err := raiseLimit(name, &next, newMax); err != nil {
				return nil, err
			}
			cfg, err := s.ReadConfig(name, tip)
			if err != nil {
				return nil, err
			}
			if err := checkBudgets(cfg, st); err != nil {
				return nil, err
			}
			next.Breakers = Breakers{Trees: st.Breakers.Trees}
			next.IterationStart = next.UpdatedAt // time paused is not the agent's
		}
		next.Reason = map[Transition]string{Pause: "paused by user", Resume: "resumed by user", Cancel: "cancelled by user"}[t]
		snap, _ := gitstore.ParseHash(st.Snapshot)
		ch := &change{state: next, snapshot: snap, subject: fmt.Sprintf("loop %s: %s", name, next.Reason), decision: decisionOf(t)}
		if t != Resume { // the loop stopped running: record where it stands
			cfg, err := s.ReadConfig(name, tip)
			if err != nil {
				return nil, err
			}
			if ch.files, err = s.reportFiles(cfg, &next, tip, nil); err != nil {
				return nil, err
			}
		}
		return ch, nil
	})
	if err != nil {
		return st, err
	}
	if st.Ended() {
		clearActive(s.Repo, name)
	}
	return st, nil
}

// raiseLimit applies a resume's new iteration limit, which must leave room to go on.
func raiseLimit(name string, next *State, newMax int) error {
	if newMax > 0 {
		if err := checkIterationCap(newMax); err != nil {
			return err
		}
		if newMax <= next.Iteration {
			return fmt.Errorf("%w: --max-iterations %d: loop %q is at iteration %d already; give a higher limit", ErrConfig, newMax, name, next.Iteration)
		}
		next.MaxIterations = newMax
	}
	if next.MaxIterations > 0 && next.Iteration >= next.MaxIterations {
		return fmt.Errorf("%w: loop %q has used all %d iterations; resume with a higher limit: `git loop resume %s --max-iterations %d`", ErrLimit, name, next.MaxIterations, name, next.MaxIterations*2)
	}
	return nil
}

func decisionOf(t Transition) string {
	switch t {
	case Cancel:
		return "cancelled"
	case Pause:
		return "pause"
	}
	return ""
}

func targetStatus(name string, st *State, t Transition) (string, error) {
	if st.Ended() {
		if t == Cancel && st.Status == StatusCancelled {
			return "", fmt.Errorf("%w: loop %q is already cancelled", ErrNoChange, name)
		}
		return "", fmt.Errorf("%w: loop %q is %s and cannot %s; start a new loop", ErrEnded, name, st.Status, t)
	}
	switch t {
	case Pause:
		if st.Status == StatusPaused && !st.ResumesItself() { // a person's pause replaces a transient one
			return "", fmt.Errorf("%w: loop %q is already paused", ErrNoChange, name)
		}
		return StatusPaused, nil
	case Resume:
		if st.Status == StatusActive {
			return "", fmt.Errorf("%w: loop %q is already active", ErrNoChange, name)
		}
		return StatusActive, nil
	default:
		return StatusCancelled, nil
	}
}

// PauseWith pauses an active loop for a person with reason (an interrupted run, say).
func (s *Store) PauseWith(name, reason string) error {
	return s.pauseFor(name, reason, fmt.Sprintf("loop %s: paused (%s)", name, textutil.FirstLine(reason)))
}

// pauseFor records an active loop as paused with reason, in a state commit with subject.
func (s *Store) pauseFor(name, reason, subject string) error {
	_, err := s.update(name, func(_ gitstore.Hash, st *State) (*change, error) {
		if st.Status != StatusActive {
			return nil, nil
		}
		next := *st
		next.Status, next.UpdatedAt, next.Reason = StatusPaused, s.Now().UTC(), reason
		snap, _ := gitstore.ParseHash(st.Snapshot)
		return &change{state: next, snapshot: snap, subject: subject, decision: DecidePause}, nil
	})
	return err
}
