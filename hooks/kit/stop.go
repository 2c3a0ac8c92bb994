package kit

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/git-loop/git-loop/loop"
	"github.com/git-loop/git-loop/loop/report"
)

// Streams are a hook process's standard streams, injected for tests.
type Streams struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer
}

// Stop is one agent's attempt to stop, translated from its protocol.
type Stop struct {
	Dirs         []string // where the agent works: its cwd, or Cursor's workspace roots
	Session      string
	Message      string
	MessageKnown bool
	// ProjectDir, when set, is the directory whose agent files configure this hook (Claude
	// Code's $CLAUDE_PROJECT_DIR); else the loop's worktree. A stop reads its own hook
	// timeout from the agent's files there.
	ProjectDir string
	// ThisTurn, when set, reads what the agent said this turn once its loop's state is read
	// (see loop.StopInput.ThisTurn); a transcript is read only then, so the idle path stays
	// one pointer check.
	ThisTurn func(prev *loop.JudgedMessage) (string, bool, *loop.JudgedMessage)
	// CountTokens and ReadCommands read the agent's session log for the token budget and
	// must-not commands (see loop.StopInput); nil when the agent names none git-loop can read.
	CountTokens  func(*loop.TranscriptMark) (*loop.TranscriptMark, error)
	ReadCommands func(*loop.TranscriptMark) ([]string, *loop.TranscriptMark, error)
	// CapOf, when set, is the agent's own limit on blocks in a row, read once a loop is
	// found (it may read the transcript).
	CapOf func() loop.BlockCap
	// StopID, when the protocol names each stop, is that name (see loop.StopInput.StopID).
	StopID string
}

// Answers writes one protocol's answers to stdout.
type Answers struct {
	// KeepGoing sends the agent back to work with v.ForAgent (v.ForUser for the person).
	KeepGoing func(w io.Writer, v loop.Verdict)
	// LetStop lets the agent stop and shows text (when not empty) to the person: in the
	// answer where the protocol has a field for it, else on stderr.
	LetStop func(w, errOut io.Writer, text string)
}

// RunStop judges one stop of hook h in the loop active where the agent works and answers
// in its protocol. It always returns 0: any failure of git-loop itself lets the agent stop,
// says why on stderr and pauses the loop with the reason (nothing is deleted), so that a
// failing git-loop never traps an agent.
func RunStop(ctx context.Context, h Hook, io Streams, in Stop, ans Answers) int {
	began := time.Now()
	if os.Getenv(loop.DriverEnv) != "" {
		// The agent runs under `git loop run`, which judges each run itself: judging its
		// stops here too would record every iteration twice.
		ans.LetStop(io.Stdout, io.Stderr, "")
		return 0
	}
	store, name, err := activeLoopIn(in.Dirs)
	if err != nil {
		fmt.Fprintf(io.Stderr, "git-loop: hook %s: %v; letting the agent stop\n", h, err)
		ans.LetStop(io.Stdout, io.Stderr, "")
		return 0
	}
	if store == nil {
		ans.LetStop(io.Stdout, io.Stderr, "")
		return 0
	}
	loop.SetWarnings(io.Stderr)
	// Agents kill a stop hook after its timeout and let the agent stop; the gates are cut
	// off earlier, leaving time to record the iteration (see stopBudget). A SIGINT or
	// SIGTERM (the agent killing the hook) cancels, so the gates die and nothing is recorded.
	ctx, stopSignals := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stopSignals()
	stop := loop.StopInput{Session: in.Session, Kind: "stop", Message: in.Message, MessageKnown: in.MessageKnown, ThisTurn: in.ThisTurn,
		CountTokens: in.CountTokens, ReadCommands: in.ReadCommands, StopID: in.StopID}
	dir := in.ProjectDir
	if dir == "" {
		dir = store.Repo.WorkTree
	}
	stopBudget(&stop, h, dir, began)
	if in.CapOf != nil {
		stop.Cap = in.CapOf()
	}
	res, err := store.Stop(ctx, name, stop)
	if errors.Is(err, loop.ErrInterrupted) { // the agent stopped the hook: judge its next stop
		fmt.Fprintf(io.Stderr, "git-loop: hook %s: loop %s: %v; the loop stays as it was\n", h, name, err)
		ans.LetStop(io.Stdout, io.Stderr, "")
		return 0
	}
	if err != nil {
		letStopAfter(io, ans, store, h, name, err)
		return 0
	}
	if res.NotesErr != nil {
		fmt.Fprintf(io.Stderr, "git-loop: warning: %v\n", res.NotesErr)
	}
	switch res.Verdict.Decision {
	case loop.DecideContinue:
		ans.KeepGoing(io.Stdout, res.Verdict)
	case loop.DecideComplete, loop.DecidePause:
		ans.LetStop(io.Stdout, io.Stderr, res.Verdict.ForUser)
	default:
		ans.LetStop(io.Stdout, io.Stderr, "")
	}
	return 0
}

// activeLoopIn finds the loop active in the worktree of the first of dirs that has one (the
// process's directory when dirs is empty): a nil store when there is none.
func activeLoopIn(dirs []string) (*loop.Store, string, error) {
	if len(dirs) == 0 {
		dirs = []string{""}
	}
	for _, dir := range dirs {
		if store, name, err := ActiveLoop(dir); store != nil || err != nil {
			return store, name, err
		}
	}
	return nil, "", nil
}

// ActiveLoop finds the loop active in the worktree of cwd (the process's directory when
// empty): a nil store when there is none, after reading only the pointer file.
func ActiveLoop(cwd string) (*loop.Store, string, error) {
	if cwd == "" {
		cwd, _ = os.Getwd()
	}
	name, err := loop.ActiveAt(cwd)
	if err != nil || name == "" {
		return nil, "", nil
	}
	store, err := report.OpenStore(cwd)
	if err != nil {
		return nil, "", err
	}
	return store, name, nil
}

// letStopAfter lets the agent stop after an internal failure to judge its stop, and says
// truthfully what became of the loop: paused with the reason; already paused or ended; gone;
// or — when even the pause cannot be recorded (a full disk, a held lock) — still active,
// marked so that status says this stop went unjudged, and judged again at the next stop.
func letStopAfter(io Streams, ans Answers, store *loop.Store, hook Hook, name string, err error) {
	if errors.Is(err, loop.ErrNoLoop) {
		fmt.Fprintf(io.Stderr, "git-loop: hook %s: %v; this worktree names a loop that does not exist, so there is nothing to judge: letting the agent stop\n", hook, err)
		ans.LetStop(io.Stdout, io.Stderr, fmt.Sprintf("git-loop: loop %s does not exist; the stop was not judged", name))
		return
	}
	if errors.Is(err, loop.ErrCorrupt) { // nothing to pause: the loop's record cannot be read
		fmt.Fprintf(io.Stderr, "git-loop: hook %s: %v; this stop was not judged, and `git loop status` says the loop is corrupt until it is restored: letting the agent stop\n", hook, err)
		ans.LetStop(io.Stdout, io.Stderr, fmt.Sprintf("git-loop: loop %s is corrupt, so this stop was not judged; `git loop status %s` says how to restore it", name, name))
		return
	}
	var st *loop.State
	perr := err // a held lock holds the pause too: do not wait for it twice
	if !errors.Is(err, loop.ErrRefLocked) {
		st, perr = store.PauseForError(name, err)
	}
	switch {
	case perr == nil && st.ResumesItself():
		fmt.Fprintf(io.Stderr, "git-loop: hook %s: loop %s: %v; the loop is paused until its cause (%s) has passed: its next stop then resumes it by itself (or go on now with `git loop resume %s`), letting the agent stop\n", hook, name, err, st.Transient, name)
		ans.LetStop(io.Stdout, io.Stderr, fmt.Sprintf("git-loop: loop %s is paused (%s): %v; its next stop resumes it by itself once that has passed", name, st.Transient, err))
	case perr == nil && st.Status == loop.StatusPaused && strings.HasPrefix(st.Reason, "paused by an internal error"):
		fmt.Fprintf(io.Stderr, "git-loop: hook %s: loop %s: %v; the loop is paused (go on with `git loop resume %s`), letting the agent stop\n", hook, name, err, name)
		ans.LetStop(io.Stdout, io.Stderr, fmt.Sprintf("git-loop: loop %s is paused: %v", name, err))
	case perr == nil:
		fmt.Fprintf(io.Stderr, "git-loop: hook %s: loop %s: %v; the loop is %s, letting the agent stop\n", hook, name, err, st.Status)
		ans.LetStop(io.Stdout, io.Stderr, fmt.Sprintf("git-loop: loop %s is %s; this stop was not judged: %v", name, st.Status, err))
	default:
		merr := store.MarkUnrecorded(name, err)
		noted := "`git loop status` says so"
		if merr != nil {
			noted = fmt.Sprintf("this could not be noted for `git loop status` either: %v", merr)
		}
		fmt.Fprintf(io.Stderr, "git-loop: hook %s: loop %s: %v; the pause could not be recorded either (%v): the loop is still active, its next stop is judged again, and %s; letting the agent stop\n", hook, name, err, perr, noted)
		ans.LetStop(io.Stdout, io.Stderr, fmt.Sprintf("git-loop: loop %s could not judge this stop nor record a pause, so it was let through; the loop stays active and judges the next stop: %v", name, err))
	}
}
