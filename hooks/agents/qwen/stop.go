package qwen

import (
	"context"
	"fmt"

	"github.com/git-loop/git-loop/hooks/kit"
	"github.com/git-loop/git-loop/loop"
)

// stopInput is Qwen Code's Stop payload (0.24: the real ones are kept in
// testdata/realagents/payloads/qwen). Unknown fields are ignored.
type stopInput struct {
	SessionID      string `json:"session_id"`
	TranscriptPath string `json:"transcript_path"` // the chat log, ~/.qwen/projects/PROJECT/chats/ID.jsonl
	Cwd            string `json:"cwd"`
	HookEventName  string `json:"hook_event_name"` // "Stop"
	PromptID       string `json:"prompt_id"`
	// StopHookActive is true while the prompt goes on because a Stop hook blocked, tools
	// run since included; false at a prompt's first stop.
	StopHookActive bool `json:"stop_hook_active"`
	// LastAssistantMessage is the text of the model's last message; noResponseText when it
	// had none; nil when absent.
	LastAssistantMessage *string `json:"last_assistant_message"`
}

// noResponseText is what Qwen Code sends as last_assistant_message when the model's last
// message has no text; emptyContent is the text it gives a model message after a tool's
// result that stayed empty however often it asked again (four times, some twenty seconds).
const (
	noResponseText = "[no response text]"
	emptyContent   = "(empty content)"
)

// onStop answers Qwen Code's Stop hook: {"decision":"block","reason":…} sends the reason to
// the model as the next user message; no answer lets it stop.
func onStop(ctx context.Context, h kit.Hook, io kit.Streams) int {
	var in stopInput
	if !kit.ReadAgentPayload(h, io, "Stop", &in, answers) {
		return 0
	}
	if in.HookEventName != "" && in.HookEventName != "Stop" {
		fmt.Fprintf(io.Stderr, "git-loop: hook %s: %v; letting the agent stop\n", h, kit.WrongEvent(in.HookEventName, "Stop"))
		return 0
	}
	stop := kit.Stop{Dirs: []string{in.Cwd}, Session: in.SessionID,
		CapOf: func() loop.BlockCap { return blockCap(in.StopHookActive, in.Cwd) }}
	if log := in.TranscriptPath; log != "" {
		// its chat log: the token budget and must-not commands, once it holds the turn's end
		stop.CountTokens, stop.ReadCommands = counter(log), commandReader(log)
		stop.WaitFirst(func() { awaitAnswer(log, in.LastAssistantMessage) })
	}
	// this turn's text is the payload's: set after WaitFirst, it waits for nothing
	stop.ThisTurn = func(prev *loop.JudgedMessage) (string, bool, *loop.JudgedMessage) {
		return thisTurn(in.LastAssistantMessage), true, prev
	}
	return kit.RunStop(ctx, h, io, stop, answers)
}

// thisTurn is what the model said this turn: the payload's last_assistant_message, the text
// of the model's last message, which is always this turn's; none when it is absent, null or
// one of Qwen Code's stand-ins for a message without text.
func thisTurn(msg *string) string {
	if msg == nil || *msg == noResponseText || *msg == emptyContent {
		return ""
	}
	return *msg
}

// answers: {"decision":"block"} to continue, with the person's line as "systemMessage";
// {"systemMessage"} to tell the person. Never {"continue":false}: Qwen Code reads it as a
// block too.
var answers = kit.Answers{
	KeepGoing: kit.BlockTellingThePerson,
	LetStop:   kit.LetStopTellingThePerson,
}
