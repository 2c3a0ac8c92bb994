package droid

import (
	"context"
	"fmt"
	"time"

	"github.com/git-loop/git-loop/hooks/kit"
	"github.com/git-loop/git-loop/loop"
)

// stopInput is Droid's Stop payload, as Droid 0.225 sends it (the fields git-loop reads; it
// also sends permission_mode, tool_execution_count and elapsed_time):
//
//	{"session_id", "transcript_path", "cwd", "permission_mode", "hook_event_name": "Stop",
//	 "message_id", "stop_hook_active", "tool_execution_count", "elapsed_time"}
//
// It carries no message: the session log transcript_path names holds the turn (see
// transcript.go). message_id is the id of the last message of the session when the turn
// ended: the answer's line, or the note Droid adds when the model answered nothing.
type stopInput struct {
	SessionID      string `json:"session_id"`
	TranscriptPath string `json:"transcript_path"`
	Cwd            string `json:"cwd"`
	HookEventName  string `json:"hook_event_name"`
	MessageID      string `json:"message_id"`
	// StopHookActive is true at a stop that follows a block, false at a turn's first stop
	// (and at a resumed session's first).
	StopHookActive bool `json:"stop_hook_active"`
}

// onStop answers Droid's Stop hook: {"decision":"block","reason":…} sends the reason to the
// model as the next user message; anything else (here nothing, or {"systemMessage"} for the
// person) lets it stop. The exit code is always 0: Droid continues on exit 2 and aborts on
// exit 3, and git-loop answers only in JSON. Droid runs every copy of the hook installed (the
// user's and the project's, at once, with the same payload): the session and message_id name
// the stop, so that it is judged once and both copies answer alike. A stop the person asked
// for (Esc, Ctrl-C) runs no Stop hook in Droid.
func onStop(ctx context.Context, h kit.Hook, io kit.Streams) int {
	var in stopInput
	if !kit.ReadAgentPayload(h, io, "Stop", &in, answers) {
		return 0
	}
	if in.HookEventName != "" && in.HookEventName != "Stop" {
		fmt.Fprintf(io.Stderr, "git-loop: hook %s: %v; letting the agent stop\n", h, kit.WrongEvent(in.HookEventName, "Stop"))
		answers.LetStop(io.Stdout, io.Stderr, "")
		return 0
	}
	// Without a log no message can be seen: the gates decide, and the continuation says so
	// (as for Copilot CLI), rather than a promise nobody can read keeping the loop open.
	stop := kit.Stop{Dirs: []string{in.Cwd}, Session: in.SessionID, StopID: stopID(in.SessionID, in.MessageID)}
	if log := in.TranscriptPath; log != "" {
		stop.ThisTurn = func(prev *loop.JudgedMessage) (string, bool, *loop.JudgedMessage) {
			return thisTurn(log, prev, io.Stderr)
		}
		// Droid saves the totals after each model call, without waiting for the save: one
		// it has not finished yet is counted at the next stop (the totals only grow).
		stop.ReadCommands, stop.CountTokens = commandReader(log), tokenCounter(usagePath(log))
		// Read once a loop is found, after the log holds the stop's last message.
		stop.WaitFirst(func() { awaitMessage(log, in.MessageID, int(logWait/logPoll), func() { time.Sleep(logPoll) }) })
	}
	return kit.RunStop(ctx, h, io, stop, answers)
}

// stopID names one stop of a Droid session: the session and the last message when the turn
// ended (every stop ends on a message of its own: the answer, or Droid's note of an empty
// one). "" (no identity: every call is judged) without either.
func stopID(session, messageID string) string {
	if session == "" || messageID == "" {
		return ""
	}
	return "droid:" + session + "@" + messageID
}

// answers: {"decision":"block"} to continue; {"systemMessage"}, which Droid shows the person,
// to tell them why it stopped.
var answers = kit.Answers{
	KeepGoing: kit.BlockForAgent,
	LetStop:   kit.LetStopTellingThePerson,
}
