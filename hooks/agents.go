package hooks

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/git-loop/git-loop/loop"
)

// The other agents' stop protocols. Each reads its payload (unknown fields ignored, optional
// ones may be missing), turns it into an agentStop for the one engine (runStop), and answers
// in its own words; all exit 0, so a failing git-loop never traps an agent.

// CodexStopInput is Codex CLI's Stop payload.
type CodexStopInput struct {
	SessionID      string  `json:"session_id"`
	TurnID         string  `json:"turn_id"`
	TranscriptPath *string `json:"transcript_path"` // may be null
	Cwd            string  `json:"cwd"`
	Model          string  `json:"model"`
	PermissionMode string  `json:"permission_mode"`
	StopHookActive bool    `json:"stop_hook_active"`
	// LastAssistantMessage is the agent's final response; nil when absent.
	LastAssistantMessage *string `json:"last_assistant_message"`
}

// GeminiAfterAgentInput is Gemini CLI's AfterAgent payload.
type GeminiAfterAgentInput struct {
	SessionID      string `json:"session_id"`
	TranscriptPath string `json:"transcript_path"`
	Cwd            string `json:"cwd"`
	HookEventName  string `json:"hook_event_name"`
	Timestamp      string `json:"timestamp"`
	Prompt         string `json:"prompt"`
	// PromptResponse is the model's final response text; nil when absent.
	PromptResponse *string `json:"prompt_response"`
	StopHookActive bool    `json:"stop_hook_active"`
}

// CursorStopInput is Cursor's stop payload. It carries no message: the afterAgentResponse
// hook keeps the response for it.
type CursorStopInput struct {
	ConversationID string   `json:"conversation_id"`
	GenerationID   string   `json:"generation_id"`
	Status         string   `json:"status"` // "completed", "aborted" or "error"
	LoopCount      int      `json:"loop_count"`
	WorkspaceRoots []string `json:"workspace_roots"`
	HookEventName  string   `json:"hook_event_name"`
}

// CursorResponseInput is Cursor's afterAgentResponse payload.
type CursorResponseInput struct {
	ConversationID string   `json:"conversation_id"`
	GenerationID   string   `json:"generation_id"`
	Text           string   `json:"text"`
	WorkspaceRoots []string `json:"workspace_roots"`
}

// CopilotStopInput is Copilot CLI's agentStop payload (camelCase, but for stop_hook_active;
// the other spelling of each field, which some versions use, is accepted too). It carries no
// message: the session log transcriptPath names holds it (see copilot.go).
type CopilotStopInput struct {
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

// CodexStop answers Codex CLI's Stop hook: {"decision":"block","reason":…} to continue,
// {} to let it stop (Codex accepts an empty object where its documentation is unclear about
// empty output).
func CodexStop(ctx context.Context, io Streams) int {
	var in CodexStopInput
	if !readAgentPayload(io, "codex stop", "Stop", &in, codexAnswer) {
		return 0
	}
	stop := agentStop{hook: "codex stop", dirs: []string{in.Cwd}, session: in.SessionID}
	if in.TranscriptPath != nil { // its rollout: the token budget and must-not commands
		stop.countTokens, stop.readCommands = codexCounter(*in.TranscriptPath), codexCommandReader(*in.TranscriptPath)
	}
	// A null or absent message (Codex sends null after an empty final answer) is "no
	// message this turn": never a reason to let the gates alone decide.
	stop.messageKnown = true
	if in.LastAssistantMessage != nil {
		stop.message = *in.LastAssistantMessage
	}
	return runStop(ctx, io, stop, codexAnswer)
}

var codexAnswer = stopAnswers{
	keepGoing: func(w io.Writer, v loop.Verdict) {
		writeAnswer(w, struct {
			Decision string `json:"decision"`
			Reason   string `json:"reason"`
		}{"block", v.ForAgent})
	},
	// Codex's Stop output takes systemMessage, shown to the user, as Claude Code's does.
	letStop: func(w, _ io.Writer, text string) {
		if text == "" {
			io.WriteString(w, "{}\n")
			return
		}
		writeSystemMessage(w, text)
	},
}

// GeminiAfterAgent answers Gemini CLI's AfterAgent hook: {"decision":"deny","reason":…}
// makes the reason the next prompt; "systemMessage" is shown to the user.
func GeminiAfterAgent(ctx context.Context, io Streams) int {
	var in GeminiAfterAgentInput
	if !readAgentPayload(io, "gemini after-agent", "AfterAgent", &in, geminiAnswer) {
		return 0
	}
	if in.HookEventName != "" && in.HookEventName != "AfterAgent" {
		fmt.Fprintf(io.Stderr, "git-loop: hook gemini after-agent: %v; letting the agent stop\n", wrongEvent(in.HookEventName, "AfterAgent"))
		return 0
	}
	stop := agentStop{hook: "gemini after-agent", dirs: []string{in.Cwd}, session: in.SessionID,
		thisTurn: func(prev *loop.JudgedMessage) (string, bool, *loop.JudgedMessage) {
			return geminiThisTurn(in.PromptResponse, prev)
		},
		// its chat log: the token budget and must-not commands
		countTokens: geminiCounter(in.TranscriptPath), readCommands: geminiCommandReader(in.TranscriptPath)}
	return runStop(ctx, io, stop, geminiAnswer)
}

// geminiThisTurn is what Gemini CLI's agent said this turn. After a deny, its next
// prompt_response repeats the earlier answers before the new one, so the response the last
// judged stop saw is cut off the front; null or absent is "no message this turn".
func geminiThisTurn(response *string, prev *loop.JudgedMessage) (string, bool, *loop.JudgedMessage) {
	if response == nil {
		return "", true, prev
	}
	full := *response
	msg := full
	if prev != nil && prev.Len > 0 && prev.Len <= len(full) && textSum(full[:prev.Len]) == prev.Sum {
		msg = strings.TrimLeft(full[prev.Len:], "\r\n")
	}
	return msg, true, &loop.JudgedMessage{Len: len(full), Sum: textSum(full)}
}

// textSum is the hex SHA-256 of text, to recognise a judged response when it comes again.
func textSum(text string) string {
	sum := sha256.Sum256([]byte(text))
	return hex.EncodeToString(sum[:])
}

var geminiAnswer = stopAnswers{
	keepGoing: func(w io.Writer, v loop.Verdict) {
		writeAnswer(w, struct {
			Decision      string `json:"decision"`
			Reason        string `json:"reason"`
			SystemMessage string `json:"systemMessage,omitempty"`
		}{"deny", v.ForAgent, v.ForUser})
	},
	letStop: func(w, _ io.Writer, text string) {
		if text != "" {
			writeSystemMessage(w, text)
		}
	},
}

// CursorStop answers Cursor's stop hook: {"followup_message":…} is sent as the next user
// message; {} lets the agent stop. Only a completed generation is judged: an aborted one
// was stopped by the person, an errored one by Cursor.
func CursorStop(ctx context.Context, io Streams) int {
	var in CursorStopInput
	if !readAgentPayload(io, "cursor stop", "stop", &in, cursorAnswer) {
		return 0
	}
	if in.Status != "" && in.Status != "completed" {
		cursorAnswer.letStop(io.Stdout, io.Stderr, "")
		return 0
	}
	roots := workspaceRoots(in.WorkspaceRoots)
	stop := agentStop{hook: "cursor stop", dirs: roots, session: in.ConversationID, thisTurn: func(prev *loop.JudgedMessage) (string, bool, *loop.JudgedMessage) {
		for _, root := range roots { // a kept response is recalled once: never judged twice
			text, ok, err := loop.RecallMessage(root, in.ConversationID)
			if err != nil {
				fmt.Fprintf(io.Stderr, "git-loop: hook cursor stop: %v; the gates decide\n", err)
			}
			if ok {
				return text, true, prev
			}
		}
		return "", false, prev
	}}
	return runStop(ctx, io, stop, cursorAnswer)
}

var cursorAnswer = stopAnswers{
	keepGoing: func(w io.Writer, v loop.Verdict) {
		writeAnswer(w, struct {
			FollowupMessage string `json:"followup_message"`
		}{v.ForAgent})
	},
	letStop: func(w, errOut io.Writer, text string) { // stop has no field for the user
		io.WriteString(w, "{}\n")
		sayOnStderr(errOut, text)
	},
}

// CursorAfterResponse keeps the agent's response (Cursor's afterAgentResponse) for the stop
// that follows, in worktrees with an active loop. It answers {} and never fails the agent.
func CursorAfterResponse(io Streams) int {
	var in CursorResponseInput
	if !readAgentPayload(io, "cursor after-agent-response", "afterAgentResponse", &in, cursorAnswer) {
		return 0
	}
	for _, root := range workspaceRoots(in.WorkspaceRoots) {
		if err := loop.RememberMessage(root, in.ConversationID, in.Text); err != nil {
			fmt.Fprintf(io.Stderr, "git-loop: hook cursor after-agent-response: %v\n", err)
		}
	}
	cursorAnswer.letStop(io.Stdout, io.Stderr, "")
	return 0
}

// CopilotAgentStop answers Copilot CLI's agentStop hook: {"decision":"block","reason":…}
// to continue. The payload carries no message: what the agent said this turn, the tokens and
// the shell commands are read from the session log it names (transcriptPath); without one
// a promise cannot be seen and the gates decide (the continuation says so). A stop the
// person asked for (a stop reason naming an abort, cancel or interrupt) is not judged.
// Copilot runs every installed copy of the hook on each stop: the session and timestamp
// name the stop, so that it is judged once and every copy answers alike.
func CopilotAgentStop(ctx context.Context, io Streams) int {
	var in CopilotStopInput
	if !readAgentPayload(io, "copilot agent-stop", "agentStop", &in, copilotAnswer) {
		return 0
	}
	session, reason := firstNonEmpty(in.SessionID, in.SessionIDSnake), firstNonEmpty(in.StopReason, in.StopReasonSnk)
	if personStopped(reason) {
		return 0
	}
	log := firstNonEmpty(in.TranscriptPath, in.TranscriptPathSnake)
	active := in.StopHookActive || in.StopHookActiveCamel
	stop := agentStop{hook: "copilot agent-stop", dirs: []string{in.Cwd}, session: session, stopID: copilotStopID(session, in.Timestamp),
		capOf: func() loop.BlockCap { return copilotBlockCap(active) }}
	if log != "" {
		// Read once a loop is found, after the log has caught up with this stop.
		caughtUp := sync.OnceFunc(func() {
			awaitCopilotStop(log, in.Timestamp, int(copilotLogWait/copilotLogPoll), func() { time.Sleep(copilotLogPoll) })
		})
		stop.thisTurn = func(prev *loop.JudgedMessage) (string, bool, *loop.JudgedMessage) {
			caughtUp()
			return copilotThisTurn(log, prev, io.Stderr)
		}
		count, commands := copilotCounter(log), copilotCommandReader(log)
		stop.countTokens = func(prev *loop.TranscriptMark) (*loop.TranscriptMark, error) {
			caughtUp()
			return count(prev)
		}
		stop.readCommands = func(prev *loop.TranscriptMark) ([]string, *loop.TranscriptMark, error) {
			caughtUp()
			return commands(prev)
		}
	}
	return runStop(ctx, io, stop, copilotAnswer)
}

// copilotStopID names one stop of a Copilot session: the session and the stop's timestamp
// as the payload wrote it. "" (no identity: every call is judged) without either.
func copilotStopID(session string, timestamp json.RawMessage) string {
	ts := string(bytes.TrimSpace(timestamp))
	if session == "" || ts == "" || ts == "null" || ts == `""` {
		return ""
	}
	return "copilot:" + session + "@" + ts
}

var copilotAnswer = stopAnswers{
	keepGoing: func(w io.Writer, v loop.Verdict) {
		writeAnswer(w, struct {
			Decision string `json:"decision"`
			Reason   string `json:"reason"`
		}{"block", v.ForAgent})
	},
	letStop: func(_, errOut io.Writer, text string) { sayOnStderr(errOut, text) },
}

// workspaceRoots are Cursor's workspace roots, or the hook's own directory (Cursor runs
// project hooks from the project's root) when the payload names none.
func workspaceRoots(roots []string) []string {
	if len(roots) == 0 {
		return []string{""}
	}
	return roots
}

func personStopped(reason string) bool {
	r := strings.ToLower(reason)
	for _, w := range []string{"abort", "cancel", "interrupt"} {
		if strings.Contains(r, w) {
			return true
		}
	}
	return false
}

// sayOnStderr shows text to the person through the agent's hook log (stderr), for
// protocols whose answer has no field for the user.
func sayOnStderr(w io.Writer, text string) {
	if text != "" {
		fmt.Fprintln(w, text)
	}
}

func firstNonEmpty(vs ...string) string {
	for _, v := range vs {
		if v != "" {
			return v
		}
	}
	return ""
}

// readAgentPayload reads a payload into v; on failure it says why on stderr, answers "let
// it stop" in the protocol and returns false.
func readAgentPayload(io Streams, hook, event string, v any, ans stopAnswers) bool {
	if err := readPayload(io.Stdin, event, v); err != nil {
		fmt.Fprintf(io.Stderr, "git-loop: hook %s: %v; letting the agent stop\n", hook, err)
		ans.letStop(io.Stdout, io.Stderr, "")
		return false
	}
	return true
}
