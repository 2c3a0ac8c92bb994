package hooks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/git-loop/git-loop/hooks/sessionlog"
	"github.com/git-loop/git-loop/loop"
	"github.com/git-loop/git-loop/loop/report"
)

// Streams are a hook process's standard streams, injected for tests.
type Streams struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer
}

// ClaudeStop answers Claude Code's Stop hook. It always exits 0: continuing is a JSON
// "block" answer, and any failure of git-loop itself lets the agent stop, says why on stderr
// and pauses the loop with the reason (nothing is deleted). With subagent set (SubagentStop)
// the loop never advances.
func ClaudeStop(ctx context.Context, io Streams, subagent bool) int {
	in, err := ReadStopInput(io.Stdin)
	if err != nil {
		fmt.Fprintf(io.Stderr, "git-loop: hook claude stop: %v; letting the agent stop\n", err)
		return 0
	}
	if subagent {
		return 0
	}
	if in.Subagent() { // a SubagentStop payload sent to `hook claude stop`: not the main agent's stop
		return 0
	}
	stop := agentStop{hook: "claude stop", dirs: []string{in.Cwd}, session: in.SessionID,
		thisTurn: func(prev *loop.JudgedMessage) (string, bool, *loop.JudgedMessage) {
			return claudeThisTurn(in, prev, io.Stderr)
		},
		countTokens: transcriptCounter(in.TranscriptPath, in.LastAssistantMessage), readCommands: commandReader(in.TranscriptPath),
		capOf: func() loop.BlockCap { return claudeCap(in) }}
	return runStop(ctx, io, stop, claudeAnswer)
}

// agentStop is one agent's attempt to stop, translated from its protocol.
type agentStop struct {
	hook         string   // "AGENT EVENT", for messages
	dirs         []string // where the agent works: its cwd, or Cursor's workspace roots
	session      string
	message      string
	messageKnown bool
	// thisTurn, when set, reads what the agent said this turn once its loop's state is read
	// (see loop.StopInput.ThisTurn); a transcript is read only then, so the idle path stays
	// one pointer check.
	thisTurn func(prev *loop.JudgedMessage) (string, bool, *loop.JudgedMessage)
	// countTokens and readCommands read the agent's session log for the token budget and
	// must-not commands (see loop.StopInput); nil when the agent names none git-loop can read.
	countTokens  func(*loop.TranscriptMark) (*loop.TranscriptMark, error)
	readCommands func(*loop.TranscriptMark) ([]string, *loop.TranscriptMark, error)
	// capOf, when set, is the agent's own limit on blocks in a row, read once a loop is
	// found (it may read the transcript).
	capOf func() loop.BlockCap
	// stopID, when the protocol names each stop, is that name (see loop.StopInput.StopID).
	stopID string
}

// stopAnswers writes one protocol's answers to stdout.
type stopAnswers struct {
	// keepGoing sends the agent back to work with v.ForAgent (v.ForUser for the person).
	keepGoing func(w io.Writer, v loop.Verdict)
	// letStop lets the agent stop and shows text (when not empty) to the person: in the
	// answer where the protocol has a field for it, else on stderr.
	letStop func(w, errOut io.Writer, text string)
}

// runStop judges one stop in the loop active where the agent works and answers in its
// protocol. It always returns 0: see ClaudeStop.
func runStop(ctx context.Context, io Streams, in agentStop, ans stopAnswers) int {
	began := time.Now()
	if os.Getenv(loop.DriverEnv) != "" {
		// The agent runs under `git loop run`, which judges each run itself: judging its
		// stops here too would record every iteration twice.
		ans.letStop(io.Stdout, io.Stderr, "")
		return 0
	}
	store, name, err := activeLoopIn(in.dirs)
	if err != nil {
		fmt.Fprintf(io.Stderr, "git-loop: hook %s: %v; letting the agent stop\n", in.hook, err)
		ans.letStop(io.Stdout, io.Stderr, "")
		return 0
	}
	if store == nil {
		ans.letStop(io.Stdout, io.Stderr, "")
		return 0
	}
	loop.SetWarnings(io.Stderr)
	// Agents kill a stop hook after its timeout and let the agent stop; the gates are cut
	// off earlier, leaving time to record the iteration (see stopBudget). A SIGINT or
	// SIGTERM (the agent killing the hook) cancels, so the gates die and nothing is recorded.
	ctx, stopSignals := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stopSignals()
	stop := loop.StopInput{Session: in.session, Kind: "stop", Message: in.message, MessageKnown: in.messageKnown, ThisTurn: in.thisTurn,
		CountTokens: in.countTokens, ReadCommands: in.readCommands, StopID: in.stopID}
	stopBudget(&stop, in.hook, projectDir(in.hook, store), began)
	if in.capOf != nil {
		stop.Cap = in.capOf()
	}
	res, err := store.Stop(ctx, name, stop)
	if errors.Is(err, loop.ErrInterrupted) { // the agent stopped the hook: judge its next stop
		fmt.Fprintf(io.Stderr, "git-loop: hook %s: loop %s: %v; the loop stays as it was\n", in.hook, name, err)
		ans.letStop(io.Stdout, io.Stderr, "")
		return 0
	}
	if err != nil {
		letStopAfter(io, ans, store, in.hook, name, err)
		return 0
	}
	if res.NotesErr != nil {
		fmt.Fprintf(io.Stderr, "git-loop: warning: %v\n", res.NotesErr)
	}
	switch res.Verdict.Decision {
	case loop.DecideContinue:
		ans.keepGoing(io.Stdout, res.Verdict)
	case loop.DecideComplete, loop.DecidePause:
		ans.letStop(io.Stdout, io.Stderr, res.Verdict.ForUser)
	default:
		ans.letStop(io.Stdout, io.Stderr, "")
	}
	return 0
}

// claudeAnswer: {"decision":"block"} to continue; {"systemMessage"} to tell the person.
var claudeAnswer = stopAnswers{
	keepGoing: func(w io.Writer, v loop.Verdict) { WriteBlock(w, v.ForAgent, v.ForUser) },
	letStop: func(w, _ io.Writer, text string) {
		if text != "" {
			writeSystemMessage(w, text)
		}
	},
}

// answerWait bounds how long a stop waits for the agent's transcript to hold the answer that
// ended the turn (Claude Code writes it about a second after the hook starts, and at a new
// session's first stop creates the transcript then). A variable only so that tests set the
// wait they need instead of racing a clock.
var answerWait = 2 * time.Second

// awaitAnswer waits, at most answerWait, until the transcript at path holds answer as its
// last assistant text, so that the token budget counts the answer that ended the turn.
func awaitAnswer(path string, answer *string) {
	if answer == nil || strings.TrimSpace(*answer) == "" {
		return
	}
	want := strings.TrimSpace(*answer)
	deadline := time.Now().Add(answerWait)
	for {
		text, _, err := ThisTurnText(path)
		switch {
		case err == nil && strings.TrimSpace(text) == want:
			return
		case err != nil && !errors.Is(err, ErrNoAssistantText) && !errors.Is(err, fs.ErrNotExist): // unreadable: count what there is
			return
		case time.Now().After(deadline):
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// transcriptCounter counts the transcript's tokens from where the previous stop left off
// (from the start when the transcript changed, e.g. a new session), once the transcript
// holds the turn's answer, when the payload gave one (see awaitAnswer).
func transcriptCounter(path string, answer *string) func(*loop.TranscriptMark) (*loop.TranscriptMark, error) {
	if path == "" {
		return nil
	}
	return func(prev *loop.TranscriptMark) (*loop.TranscriptMark, error) {
		awaitAnswer(path, answer)
		mark := loop.TranscriptMark{Path: path}
		if prev != nil {
			mark.Tokens = prev.Tokens // tokens of earlier transcripts of this loop still count
			if prev.Path == path {
				mark.Offset, mark.LastID = prev.Offset, prev.LastID
			}
		}
		u, next, last, err := UsageFrom(path, mark.Offset, mark.LastID)
		if err != nil {
			return nil, err
		}
		mark.Tokens += u.Total()
		mark.Offset, mark.LastID = next, last
		return &mark, nil
	}
}

// commandReader reads the agent's shell commands from where the previous stop left off (from
// the start of a transcript the loop has not read before).
func commandReader(path string) func(*loop.TranscriptMark) ([]string, *loop.TranscriptMark, error) {
	return sessionlog.CommandReader(path, CommandsFrom)
}

// claudeBlockCapEnv is the variable that sets Claude Code's cap on blocks in a row between
// which no tool runs; a hook inherits Claude Code's environment, so it sees the value the
// session runs with (settings' env included).
const claudeBlockCapEnv = "CLAUDE_CODE_STOP_HOOK_BLOCK_CAP"

// defaultBlockCap is Claude Code's and Copilot CLI's cap when nothing changes it.
const defaultBlockCap = 8

// claudeCap is Claude Code's cap as this stop sees it: the limit, whether the stop follows a
// block, and whether a tool ran in the turn (from the transcript).
func claudeCap(in StopInput) loop.BlockCap {
	c := loop.BlockCap{Limit: defaultBlockCap, Agent: "Claude Code", Continued: in.StopHookActive,
		How: claudeBlockCapEnv + " in the env of .claude/settings.json raises it"}
	if n, err := strconv.Atoi(os.Getenv(claudeBlockCapEnv)); err == nil && n > 0 {
		c.Limit = n
	}
	if in.StopHookActive && in.TranscriptPath != "" {
		if ran, err := TurnRanTool(in.TranscriptPath); err == nil {
			c.Acted = &ran
		}
	}
	return c
}

// claudeThisTurn is what Claude Code's agent said this turn: the payload's
// last_assistant_message, else (absent, as after an empty final answer, or empty) the text of
// the transcript's last turn, which ends at the last prompt or stop hook feedback, unless
// that is the entry the last judged stop read already. No text is "no message this turn":
// an earlier, judged answer never counts again.
func claudeThisTurn(in StopInput, prev *loop.JudgedMessage, stderr io.Writer) (string, bool, *loop.JudgedMessage) {
	if in.LastAssistantMessage != nil && strings.TrimSpace(*in.LastAssistantMessage) != "" {
		return *in.LastAssistantMessage, true, prev
	}
	if in.TranscriptPath == "" {
		return "", true, prev
	}
	msg, id, err := ThisTurnText(in.TranscriptPath)
	switch {
	case errors.Is(err, ErrNoAssistantText):
		return "", true, prev
	case err != nil:
		fmt.Fprintf(stderr, "git-loop: no assistant message read (%v); judging the stop as one without a message\n", err)
		return "", true, prev
	case prev != nil && id != "" && id == prev.ID:
		return "", true, prev // judged at an earlier stop
	}
	return msg, true, &loop.JudgedMessage{ID: id}
}

// writeSystemMessage prints an answer that lets the agent stop and shows text to the user.
func writeSystemMessage(w io.Writer, text string) {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.Encode(map[string]string{"systemMessage": text})
}

// ClaudeSessionStart answers SessionStart (startup, resume, compact) with context about the
// loop active here, so a fresh or compacted session knows what it is working toward.
func ClaudeSessionStart(io Streams) int {
	in, err := ReadSessionStartInput(io.Stdin)
	if err != nil {
		fmt.Fprintf(io.Stderr, "git-loop: hook claude session-start: %v\n", err)
		return 0
	}
	store, name, err := activeLoop(in.Cwd)
	if err != nil || store == nil {
		return 0
	}
	text, err := store.Briefing(name, in.SessionID)
	if err != nil {
		fmt.Fprintf(io.Stderr, "git-loop: hook claude session-start: %v\n", err)
		return 0
	}
	WriteSessionContext(io.Stdout, text)
	return 0
}

// activeLoopIn finds the loop active in the worktree of the first of dirs that has one (the
// process's directory when dirs is empty): a nil store when there is none.
func activeLoopIn(dirs []string) (*loop.Store, string, error) {
	if len(dirs) == 0 {
		dirs = []string{""}
	}
	for _, dir := range dirs {
		if store, name, err := activeLoop(dir); store != nil || err != nil {
			return store, name, err
		}
	}
	return nil, "", nil
}

// activeLoop finds the loop active in the worktree of cwd (the process's directory when
// empty): a nil store when there is none, after reading only the pointer file.
func activeLoop(cwd string) (*loop.Store, string, error) {
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

// projectDir is the directory whose agent files configure this hook: for Claude Code its
// project ($CLAUDE_PROJECT_DIR, which it sets for hooks), else the loop's worktree.
func projectDir(hook string, store *loop.Store) string {
	if dir := os.Getenv("CLAUDE_PROJECT_DIR"); dir != "" && strings.HasPrefix(hook, "claude ") {
		return dir
	}
	return store.Repo.WorkTree
}

// letStopAfter lets the agent stop after an internal failure to judge its stop, and says
// truthfully what became of the loop: paused with the reason; already paused or ended; gone;
// or — when even the pause cannot be recorded (a full disk, a held lock) — still active,
// marked so that status says this stop went unjudged, and judged again at the next stop.
func letStopAfter(io Streams, ans stopAnswers, store *loop.Store, hook, name string, err error) {
	if errors.Is(err, loop.ErrNoLoop) {
		fmt.Fprintf(io.Stderr, "git-loop: hook %s: %v; this worktree names a loop that does not exist, so there is nothing to judge: letting the agent stop\n", hook, err)
		ans.letStop(io.Stdout, io.Stderr, fmt.Sprintf("git-loop: loop %s does not exist; the stop was not judged", name))
		return
	}
	if errors.Is(err, loop.ErrCorrupt) { // nothing to pause: the loop's record cannot be read
		fmt.Fprintf(io.Stderr, "git-loop: hook %s: %v; this stop was not judged, and `git loop status` says the loop is corrupt until it is restored: letting the agent stop\n", hook, err)
		ans.letStop(io.Stdout, io.Stderr, fmt.Sprintf("git-loop: loop %s is corrupt, so this stop was not judged; `git loop status %s` says how to restore it", name, name))
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
		ans.letStop(io.Stdout, io.Stderr, fmt.Sprintf("git-loop: loop %s is paused (%s): %v; its next stop resumes it by itself once that has passed", name, st.Transient, err))
	case perr == nil && st.Status == loop.StatusPaused && strings.HasPrefix(st.Reason, "paused by an internal error"):
		fmt.Fprintf(io.Stderr, "git-loop: hook %s: loop %s: %v; the loop is paused (go on with `git loop resume %s`), letting the agent stop\n", hook, name, err, name)
		ans.letStop(io.Stdout, io.Stderr, fmt.Sprintf("git-loop: loop %s is paused: %v", name, err))
	case perr == nil:
		fmt.Fprintf(io.Stderr, "git-loop: hook %s: loop %s: %v; the loop is %s, letting the agent stop\n", hook, name, err, st.Status)
		ans.letStop(io.Stdout, io.Stderr, fmt.Sprintf("git-loop: loop %s is %s; this stop was not judged: %v", name, st.Status, err))
	default:
		merr := store.MarkUnrecorded(name, err)
		noted := "`git loop status` says so"
		if merr != nil {
			noted = fmt.Sprintf("this could not be noted for `git loop status` either: %v", merr)
		}
		fmt.Fprintf(io.Stderr, "git-loop: hook %s: loop %s: %v; the pause could not be recorded either (%v): the loop is still active, its next stop is judged again, and %s; letting the agent stop\n", hook, name, err, perr, noted)
		ans.letStop(io.Stdout, io.Stderr, fmt.Sprintf("git-loop: loop %s could not judge this stop nor record a pause, so it was let through; the loop stays active and judges the next stop: %v", name, err))
	}
}
