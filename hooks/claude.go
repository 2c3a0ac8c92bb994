package hooks

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
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

// MaxPayload is what a hook reads from stdin in one go. Claude Code's payloads are small
// (ids, paths, and at most the last assistant message); a longer one is read on up to
// maxLongPayload, so that a very long message is judged all the same.
const MaxPayload = 8 << 20

// maxLongPayload bounds a payload: reading it takes a quarter of a second or so, and a
// writer that never stops cannot hold the hook.
const maxLongPayload = 64 << 20

var (
	// ErrPayloadTooLarge: stdin held more than MaxPayload bytes.
	ErrPayloadTooLarge = fmt.Errorf("hooks: hook payload larger than %d MiB", maxLongPayload>>20)
	// ErrPayloadEmpty: stdin was empty (or only white space): the command was not run by an
	// agent as a hook.
	ErrPayloadEmpty = errors.New("hooks: empty hook payload on stdin (is this command run by an agent as a hook?)")
)

// StopInput is Claude Code's Stop / SubagentStop hook payload. Unknown fields are ignored;
// optional ones may be missing (LastAssistantMessage arrived in Claude Code 2.1.47, the
// agent_* fields exist for SubagentStop only).
type StopInput struct {
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
func (in StopInput) Subagent() bool { return in.HookEventName == "SubagentStop" }

// SessionStartInput is Claude Code's SessionStart hook payload.
type SessionStartInput struct {
	SessionID      string `json:"session_id"`
	TranscriptPath string `json:"transcript_path"`
	Cwd            string `json:"cwd"`
	HookEventName  string `json:"hook_event_name"` // "SessionStart"
	// Source is how the session started: "startup", "resume", "clear" or "compact".
	Source string `json:"source"`
}

// ReadStopInput reads a Stop or SubagentStop payload from r (at most MaxPayload bytes).
// Errors: ErrPayloadTooLarge, ErrPayloadEmpty, or one line naming what is wrong with the
// JSON (its position, or the field of the wrong type), or a payload of another hook event
// (the hook is installed under the wrong event).
func ReadStopInput(r io.Reader) (StopInput, error) {
	var in StopInput
	if err := readPayload(r, "Stop", &in); err != nil {
		return StopInput{}, err
	}
	switch in.HookEventName {
	case "", "Stop", "SubagentStop":
		return in, nil
	}
	return StopInput{}, wrongEvent(in.HookEventName, "Stop or SubagentStop")
}

// ReadSessionStartInput reads a SessionStart payload from r, like ReadStopInput.
func ReadSessionStartInput(r io.Reader) (SessionStartInput, error) {
	var in SessionStartInput
	if err := readPayload(r, "SessionStart", &in); err != nil {
		return SessionStartInput{}, err
	}
	if in.HookEventName != "" && in.HookEventName != "SessionStart" {
		return SessionStartInput{}, wrongEvent(in.HookEventName, "SessionStart")
	}
	return in, nil
}

func wrongEvent(got, want string) error {
	return fmt.Errorf("hooks: payload is for hook event %q, not %s: the hook is installed under the wrong event in the agent's settings", got, want)
}

// readPayload reads one JSON object from r into v. event names the payload in errors.
func readPayload(r io.Reader, event string, v any) error {
	data, err := io.ReadAll(io.LimitReader(r, MaxPayload+1))
	if err != nil {
		return fmt.Errorf("hooks: read %s payload: %w", event, err)
	}
	if len(data) > MaxPayload {
		// A very long message: read on, within a bound, rather than let the agent stop
		// unjudged (or see a broken pipe). Only past the bound is the payload refused.
		rest, err := io.ReadAll(io.LimitReader(r, int64(maxLongPayload-len(data)+1)))
		if err != nil {
			return fmt.Errorf("hooks: read %s payload: %w", event, err)
		}
		if data = append(data, rest...); len(data) > maxLongPayload {
			return ErrPayloadTooLarge
		}
	}
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")) // a byte order mark is not JSON
	data = bytes.TrimSpace(data)
	if len(data) == 0 {
		return ErrPayloadEmpty
	}
	// JSON text is UTF-8 (RFC 8259), and Claude Code writes it so. encoding/json would
	// silently turn invalid bytes into U+FFFD, and a session id or path changed that way
	// names something else: refuse instead.
	if !utf8.Valid(data) {
		return fmt.Errorf("hooks: %s payload is not valid UTF-8 (first bad byte at offset %d)", event, invalidUTF8At(data))
	}
	if data[0] != '{' {
		if !json.Valid(data) {
			return payloadError(event, data, json.Unmarshal(data, new(any)))
		}
		return fmt.Errorf("hooks: %s payload is a JSON %s, want an object", event, jsonKind(data[0]))
	}
	if err := json.Unmarshal(data, v); err != nil {
		return payloadError(event, data, err)
	}
	return nil
}

// payloadError turns a decoding error into one line that names the problem and where it is.
func payloadError(event string, data []byte, err error) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		line, col := lineCol(data, syn.Offset)
		return fmt.Errorf("hooks: %s payload is not valid JSON: %s (line %d, column %d)", event, oneLine(syn.Error()), line, col)
	case errors.As(err, &typ) && typ.Field != "":
		return fmt.Errorf("hooks: %s payload: field %q is a JSON %s, want %s", event, typ.Field, typ.Value, goKind(typ.Type.Kind().String()))
	}
	return fmt.Errorf("hooks: %s payload is not valid JSON: %s", event, oneLine(err.Error()))
}

// lineCol converts a byte offset (the end of the bad token, as json.SyntaxError reports
// it) to a 1-based line and column.
func lineCol(data []byte, off int64) (line, col int) {
	if off > int64(len(data))+1 {
		off = int64(len(data)) + 1
	}
	if off < 1 {
		off = 1
	}
	before := data[:off-1]
	line = bytes.Count(before, []byte("\n")) + 1
	col = len(before) - bytes.LastIndexByte(before, '\n')
	return line, col
}

func oneLine(s string) string { return strings.ReplaceAll(s, "\n", " ") }

func invalidUTF8At(b []byte) int {
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n == 1 {
			return i
		}
		i += n
	}
	return -1
}

func jsonKind(first byte) string {
	switch first {
	case '{':
		return "object"
	case '[':
		return "array"
	case '"':
		return "string"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	}
	return "number"
}

func goKind(k string) string {
	switch k {
	case "bool":
		return "a boolean"
	case "string":
		return "a string"
	case "ptr":
		return "a string or null"
	}
	return k
}

// WriteBlock prints the answer that keeps the agent working: {"decision":"block"} with
// reason, the agent's next instruction, and systemMessage, shown to the user (omitted when
// empty). The hook then exits 0. reason must not be empty: Claude Code requires one with a
// block, and an empty one would leave the agent with nothing to do. Bytes that are not UTF-8
// (say, from a gate's output) are written as U+FFFD, so the answer is always valid JSON.
func WriteBlock(w io.Writer, reason, systemMessage string) error {
	if reason == "" {
		return errors.New("hooks: a block answer needs a reason for the agent")
	}
	return writeAnswer(w, struct {
		Decision      string `json:"decision"`
		Reason        string `json:"reason"`
		SystemMessage string `json:"systemMessage,omitempty"`
	}{"block", reason, systemMessage})
}

// WriteSessionContext prints SessionStart's answer, which adds context to the session:
// {"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":context}}.
// An empty context prints nothing (no output is a valid answer that adds nothing).
func WriteSessionContext(w io.Writer, context string) error {
	if context == "" {
		return nil
	}
	type specific struct {
		HookEventName     string `json:"hookEventName"`
		AdditionalContext string `json:"additionalContext"`
	}
	return writeAnswer(w, struct {
		HookSpecificOutput specific `json:"hookSpecificOutput"`
	}{specific{"SessionStart", context}})
}

// writeAnswer writes v as one line of JSON in a single Write, without HTML escaping (the
// text is for a terminal and a model, and "<promise>" reads better than "\u003cpromise\u003e").
func writeAnswer(w io.Writer, v any) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Errorf("hooks: encode answer: %w", err)
	}
	if _, err := w.Write(buf.Bytes()); err != nil {
		return fmt.Errorf("hooks: write answer: %w", err)
	}
	return nil
}
