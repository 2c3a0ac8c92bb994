package gemini

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"strings"

	"github.com/git-loop/git-loop/hooks/kit"
	"github.com/git-loop/git-loop/loop"
)

// afterAgentInput is Gemini CLI's AfterAgent payload.
type afterAgentInput struct {
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

// onAfterAgent answers Gemini CLI's AfterAgent hook: {"decision":"deny","reason":…}
// makes the reason the next prompt; "systemMessage" is shown to the user.
func onAfterAgent(ctx context.Context, h kit.Hook, io kit.Streams) int {
	var in afterAgentInput
	if !kit.ReadAgentPayload(h, io, "AfterAgent", &in, answers) {
		return 0
	}
	if in.HookEventName != "" && in.HookEventName != "AfterAgent" {
		fmt.Fprintf(io.Stderr, "git-loop: hook %s: %v; letting the agent stop\n", h, kit.WrongEvent(in.HookEventName, "AfterAgent"))
		return 0
	}
	stop := kit.Stop{Dirs: []string{in.Cwd}, Session: in.SessionID,
		ThisTurn: func(prev *loop.JudgedMessage) (string, bool, *loop.JudgedMessage) {
			return thisTurn(in.PromptResponse, prev)
		},
		// its chat log: the token budget and must-not commands
		CountTokens: counter(in.TranscriptPath), ReadCommands: commandReader(in.TranscriptPath)}
	return kit.RunStop(ctx, h, io, stop, answers)
}

// thisTurn is what Gemini CLI's agent said this turn. After a deny, its next
// prompt_response repeats the earlier answers before the new one, so the response the last
// judged stop saw is cut off the front; null or absent is "no message this turn".
func thisTurn(response *string, prev *loop.JudgedMessage) (string, bool, *loop.JudgedMessage) {
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

var answers = kit.Answers{
	KeepGoing: func(w io.Writer, v loop.Verdict) {
		kit.WriteAnswer(w, struct {
			Decision      string `json:"decision"`
			Reason        string `json:"reason"`
			SystemMessage string `json:"systemMessage,omitempty"`
		}{"deny", v.ForAgent, v.ForUser})
	},
	LetStop: kit.LetStopTellingThePerson,
}
