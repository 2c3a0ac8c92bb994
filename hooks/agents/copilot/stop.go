package copilot

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"strings"
	"time"

	"github.com/git-loop/git-loop/hooks/kit"
	"github.com/git-loop/git-loop/loop"
)

// stopInput is Copilot CLI's agentStop payload (camelCase, but for stop_hook_active;
// the other spelling of each field, which some versions use, is accepted too). It carries no
// message: the session log transcriptPath names holds it (see events.go).
type stopInput struct {
	SessionID      string `json:"sessionId"`
	SessionIDSnake string `json:"session_id"`
	// Timestamp is when the stop happened, in milliseconds (a number; a string in some
	// versions): with the session, it names the stop.
	Timestamp           json.RawMessage `json:"timestamp"`
	Cwd                 string          `json:"cwd"`
	TranscriptPath      string          `json:"transcriptPath"`
	TranscriptPathSnake string          `json:"transcript_path"`
	StopReason          string          `json:"stopReason"`
	StopReasonSnk       string          `json:"stop_reason"`
	// StopHookActive is true when the stop follows a block (Copilot CLI 1.0.102 spells it
	// in snake_case).
	StopHookActive      bool `json:"stop_hook_active"`
	StopHookActiveCamel bool `json:"stopHookActive"`
}

// onAgentStop answers Copilot CLI's agentStop hook: {"decision":"block","reason":…}
// to continue. The payload carries no message: what the agent said this turn, the tokens and
// the shell commands are read from the session log it names (transcriptPath); without one
// a promise cannot be seen and the gates decide (the continuation says so). A stop the
// person asked for (a stop reason naming an abort, cancel or interrupt) is not judged.
// Copilot runs every installed copy of the hook on each stop: the session and timestamp
// name the stop, so that it is judged once and every copy answers alike.
func onAgentStop(ctx context.Context, h kit.Hook, io kit.Streams) int {
	var in stopInput
	if !kit.ReadAgentPayload(h, io, "agentStop", &in, answers) {
		return 0
	}
	session, reason := kit.FirstNonEmpty(in.SessionID, in.SessionIDSnake), kit.FirstNonEmpty(in.StopReason, in.StopReasonSnk)
	if personStopped(reason) {
		return 0
	}
	log := kit.FirstNonEmpty(in.TranscriptPath, in.TranscriptPathSnake)
	active := in.StopHookActive || in.StopHookActiveCamel
	stop := kit.Stop{Dirs: []string{in.Cwd}, Session: session, StopID: stopID(session, in.Timestamp),
		CapOf: func() loop.BlockCap { return blockCap(active) }}
	if log != "" {
		stop.ThisTurn = func(prev *loop.JudgedMessage) (string, bool, *loop.JudgedMessage) {
			return thisTurn(log, prev, io.Stderr)
		}
		stop.CountTokens, stop.ReadCommands = counter(log), commandReader(log)
		// Read once a loop is found, after the log has caught up with this stop.
		stop.WaitFirst(func() { awaitStop(log, in.Timestamp, int(logWait/logPoll), func() { time.Sleep(logPoll) }) })
	}
	return kit.RunStop(ctx, h, io, stop, answers)
}

// stopID names one stop of a Copilot Session: the session and the stop's timestamp
// as the payload wrote it. "" (no identity: every call is judged) without either.
func stopID(session string, timestamp json.RawMessage) string {
	ts := string(bytes.TrimSpace(timestamp))
	if session == "" || ts == "" || ts == "null" || ts == `""` {
		return ""
	}
	return "copilot:" + session + "@" + ts
}

// answers: {"decision":"block"} to continue.
var answers = kit.Answers{
	KeepGoing: kit.BlockForAgent,
	LetStop:   func(_, errOut io.Writer, text string) { kit.SayOnStderr(errOut, text) },
}

// personStopped reports whether a stop reason names a stop the person asked for.
func personStopped(reason string) bool {
	r := strings.ToLower(reason)
	for _, w := range []string{"abort", "cancel", "interrupt"} {
		if strings.Contains(r, w) {
			return true
		}
	}
	return false
}
