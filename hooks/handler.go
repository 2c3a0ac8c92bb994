package hooks

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/git-loop/git-loop/loop"
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
	store, name, err := activeLoop(in.Cwd)
	if err != nil {
		fmt.Fprintf(io.Stderr, "git-loop: hook claude stop: %v; letting the agent stop\n", err)
		return 0
	}
	if store == nil {
		return 0
	}
	// Claude Code kills a Stop hook after its timeout (600 s as installed) and lets the agent
	// stop; cutting the gates off earlier leaves time to record the iteration. A SIGINT or
	// SIGTERM (the agent killing the hook) cancels too, so the gates' process groups die.
	ctx, cancel := context.WithTimeout(ctx, stopDeadline)
	defer cancel()
	ctx, stopSignals := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stopSignals()
	stop := loop.StopInput{Session: in.SessionID, Kind: "stop"}
	stop.Message, stop.MessageKnown = lastMessage(in, io.Stderr)
	stop.CountTokens = transcriptCounter(in.TranscriptPath)
	stop.ReadCommands = commandReader(in.TranscriptPath)
	res, err := store.Stop(ctx, name, stop)
	if err != nil {
		fmt.Fprintf(io.Stderr, "git-loop: hook claude stop: loop %s: %v; letting the agent stop and pausing the loop\n", name, err)
		paused := "paused"
		if perr := store.PauseForError(name, err); perr != nil {
			fmt.Fprintf(io.Stderr, "git-loop: could not record the pause either: %v\n", perr)
			paused = "not enforcing"
		}
		// Claude Code hides stderr when a hook exits 0: tell the person in the transcript.
		writeSystemMessage(io.Stdout, fmt.Sprintf("git-loop: loop %s is %s: %v", name, paused, err))
		return 0
	}
	return answerStop(io.Stdout, res.Verdict)
}

// stopDeadline is how long a stop may run gates: under the 600 s hook timeout install sets.
const stopDeadline = 540 * time.Second

// transcriptCounter counts the transcript's tokens from where the previous stop left off
// (from the start when the transcript changed, e.g. a new session).
func transcriptCounter(path string) func(*loop.TranscriptMark) (*loop.TranscriptMark, error) {
	if path == "" {
		return nil
	}
	return func(prev *loop.TranscriptMark) (*loop.TranscriptMark, error) {
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
	if path == "" {
		return nil
	}
	return func(prev *loop.TranscriptMark) ([]string, *loop.TranscriptMark, error) {
		from := int64(0)
		if prev != nil && prev.Path == path {
			from = prev.Offset
		}
		cmds, next, err := CommandsFrom(path, from)
		if err != nil {
			return nil, nil, err
		}
		return cmds, &loop.TranscriptMark{Path: path, Offset: next}, nil
	}
}

// lastMessage prefers the payload's message, else reads the transcript backwards.
func lastMessage(in StopInput, stderr io.Writer) (string, bool) {
	if in.LastAssistantMessage != nil {
		return *in.LastAssistantMessage, true
	}
	if in.TranscriptPath == "" {
		return "", false
	}
	msg, err := LastAssistantText(in.TranscriptPath)
	if err != nil {
		fmt.Fprintf(stderr, "git-loop: no assistant message found (%v); the gates decide\n", err)
		return "", false
	}
	return msg, true
}

// answerStop prints the protocol answer: block to continue, else a message for the user.
func answerStop(w io.Writer, v loop.Verdict) int {
	switch v.Decision {
	case loop.DecideContinue:
		WriteBlock(w, v.ForAgent, v.ForUser)
	case loop.DecideComplete, loop.DecidePause:
		writeSystemMessage(w, v.ForUser)
	}
	return 0
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
	store, err := loop.OpenStore(cwd)
	if err != nil {
		return nil, "", err
	}
	return store, name, nil
}
