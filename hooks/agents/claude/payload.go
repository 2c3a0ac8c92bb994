package claude

import (
	"errors"
	"io"

	"github.com/git-loop/git-loop/hooks/kit"
)

// Claude Code runs a command hook with the event's payload, one JSON object, on stdin, and
// reads the answer from stdout when the command exits 0 (code.claude.com/docs/en/hooks).
//
//   - Stop and SubagentStop: no output lets the agent stop; {"decision":"block","reason":R}
//     keeps it working with R as its next instruction. "systemMessage" is shown to the user.
//   - SessionStart: {"hookSpecificOutput":{"hookEventName":"SessionStart",
//     "additionalContext":C}} adds C to the session's context.
//
// Exit status 2 also blocks (with stderr as the reason); git-loop never uses it, so that a
// failing git-loop can never trap the agent: every answer is exit 0.

// stopInput is Claude Code's Stop / SubagentStop hook payload. Unknown fields are ignored;
// optional ones may be missing (LastAssistantMessage arrived in Claude Code 2.1.47, the
// agent_* fields exist for SubagentStop only).
type stopInput struct {
	SessionID      string `json:"session_id"`
	TranscriptPath string `json:"transcript_path"`
	Cwd            string `json:"cwd"`
	HookEventName  string `json:"hook_event_name"` // "Stop" or "SubagentStop"
	// StopHookActive is true when the agent is already continuing because a Stop hook
	// blocked its previous stop.
	StopHookActive bool `json:"stop_hook_active"`
	// LastAssistantMessage is the text of the agent's final response; nil when the payload
	// has none (older Claude Code): read the transcript instead.
	LastAssistantMessage *string `json:"last_assistant_message"`

	// SubagentStop only: the subagent's id and type, and its own transcript (TranscriptPath
	// is the main session's).
	AgentID             string `json:"agent_id"`
	AgentType           string `json:"agent_type"`
	AgentTranscriptPath string `json:"agent_transcript_path"`
}

// Subagent reports whether the payload is a SubagentStop's.
func (in stopInput) subagent() bool { return in.HookEventName == "SubagentStop" }

// sessionStartInput is Claude Code's SessionStart hook payload.
type sessionStartInput struct {
	SessionID      string `json:"session_id"`
	TranscriptPath string `json:"transcript_path"`
	Cwd            string `json:"cwd"`
	HookEventName  string `json:"hook_event_name"` // "SessionStart"
	// Source is how the session started: "startup", "resume", "clear" or "compact".
	Source string `json:"source"`
}

// readStopInput reads a Stop or SubagentStop payload from r (see kit.ReadPayload).
// Errors: ErrPayloadTooLarge, ErrPayloadEmpty, or one line naming what is wrong with the
// JSON (its position, or the field of the wrong type), or a payload of another hook event
// (the hook is installed under the wrong event).
func readStopInput(r io.Reader) (stopInput, error) {
	var in stopInput
	if err := kit.ReadPayload(r, "Stop", &in); err != nil {
		return stopInput{}, err
	}
	switch in.HookEventName {
	case "", "Stop", "SubagentStop":
		return in, nil
	}
	return stopInput{}, kit.WrongEvent(in.HookEventName, "Stop or SubagentStop")
}

// readSessionStartInput reads a SessionStart payload from r, like readStopInput.
func readSessionStartInput(r io.Reader) (sessionStartInput, error) {
	var in sessionStartInput
	if err := kit.ReadPayload(r, "SessionStart", &in); err != nil {
		return sessionStartInput{}, err
	}
	if in.HookEventName != "" && in.HookEventName != "SessionStart" {
		return sessionStartInput{}, kit.WrongEvent(in.HookEventName, "SessionStart")
	}
	return in, nil
}

// writeBlock prints the answer that keeps the agent working: {"decision":"block"} with
// reason, the agent's next instruction, and systemMessage, shown to the user (omitted when
// empty). The hook then exits 0. reason must not be empty: Claude Code requires one with a
// block, and an empty one would leave the agent with nothing to do. Bytes that are not UTF-8
// (say, from a gate's output) are written as U+FFFD, so the answer is always valid JSON.
func writeBlock(w io.Writer, reason, systemMessage string) error {
	if reason == "" {
		return errors.New("hooks: a block answer needs a reason for the agent")
	}
	return kit.WriteAnswer(w, struct {
		Decision      string `json:"decision"`
		Reason        string `json:"reason"`
		SystemMessage string `json:"systemMessage,omitempty"`
	}{"block", reason, systemMessage})
}

// writeSessionContext prints SessionStart's answer, which adds context to the session:
// {"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":context}}.
// An empty context prints nothing (no output is a valid answer that adds nothing).
func writeSessionContext(w io.Writer, context string) error {
	if context == "" {
		return nil
	}
	type specific struct {
		HookEventName     string `json:"hookEventName"`
		AdditionalContext string `json:"additionalContext"`
	}
	return kit.WriteAnswer(w, struct {
		HookSpecificOutput specific `json:"hookSpecificOutput"`
	}{specific{"SessionStart", context}})
}
