package kit

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"github.com/git-loop/git-loop/loop"
)

// WriteAnswer writes v as one line of JSON in a single Write, without HTML escaping (the
// text is for a terminal and a model, and "<promise>" reads better than "\u003cpromise\u003e").
func WriteAnswer(w io.Writer, v any) error {
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

// BlockForAgent is the answer that keeps the agent working in the protocols built on Claude
// Code's: {"decision":"block","reason":…}, the reason being the agent's next instruction.
func BlockForAgent(w io.Writer, v loop.Verdict) {
	WriteAnswer(w, struct {
		Decision string `json:"decision"`
		Reason   string `json:"reason"`
	}{"block", v.ForAgent})
}

// BlockTellingThePerson is BlockForAgent with the person's line, v.ForUser, as
// "systemMessage" (left out when empty): Claude Code's answer, and Qwen Code's and
// OpenCode's plugin's.
func BlockTellingThePerson(w io.Writer, v loop.Verdict) {
	WriteAnswer(w, struct {
		Decision      string `json:"decision"`
		Reason        string `json:"reason"`
		SystemMessage string `json:"systemMessage,omitempty"`
	}{"block", v.ForAgent, v.ForUser})
}

// LetStopTellingThePerson lets the agent stop, showing text (when not empty) to the person
// as {"systemMessage": text}; no output at all lets it stop silently.
func LetStopTellingThePerson(w, _ io.Writer, text string) {
	if text != "" {
		WriteSystemMessage(w, text)
	}
}

// WriteSystemMessage prints the answer that lets the agent stop and shows text to the user,
// {"systemMessage": text}, in the agents whose protocol has that field (Claude Code's, and
// those built on its shape).
func WriteSystemMessage(w io.Writer, text string) {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.Encode(map[string]string{"systemMessage": text})
}

// SayOnStderr shows text to the person through the agent's hook log (stderr), for
// protocols whose answer has no field for the user.
func SayOnStderr(w io.Writer, text string) {
	if text != "" {
		fmt.Fprintln(w, text)
	}
}

// ReadAgentPayload reads h's payload (its agent's name for the event is event) into v; on
// failure it says why on stderr, answers "let it stop" in the protocol and returns false.
func ReadAgentPayload(h Hook, io Streams, event string, v any, ans Answers) bool {
	if err := ReadPayload(io.Stdin, event, v); err != nil {
		fmt.Fprintf(io.Stderr, "git-loop: hook %s: %v; letting the agent stop\n", h, err)
		ans.LetStop(io.Stdout, io.Stderr, "")
		return false
	}
	return true
}

// FirstNonEmpty is the first of vs that is not "", for payloads that spell a field two ways.
func FirstNonEmpty(vs ...string) string {
	for _, v := range vs {
		if v != "" {
			return v
		}
	}
	return ""
}
