package codex

import (
	"context"
	"io"

	"github.com/git-loop/git-loop/hooks/kit"
)

// stopInput is Codex CLI's Stop payload.
type stopInput struct {
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

// onStop answers Codex CLI's Stop hook: {"decision":"block","reason":…} to continue,
// {} to let it stop (Codex accepts an empty object where its documentation is unclear about
// empty output).
func onStop(ctx context.Context, h kit.Hook, io kit.Streams) int {
	var in stopInput
	if !kit.ReadAgentPayload(h, io, "Stop", &in, answers) {
		return 0
	}
	stop := kit.Stop{Dirs: []string{in.Cwd}, Session: in.SessionID}
	if in.TranscriptPath != nil { // its rollout: the token budget and must-not commands
		stop.CountTokens, stop.ReadCommands = counter(*in.TranscriptPath), commandReader(*in.TranscriptPath)
	}
	// A null or absent message (Codex sends null after an empty final answer) is "no
	// message this turn": never a reason to let the gates alone decide.
	stop.MessageKnown = true
	if in.LastAssistantMessage != nil {
		stop.Message = *in.LastAssistantMessage
	}
	return kit.RunStop(ctx, h, io, stop, answers)
}

// answers: {"decision":"block"} to continue.
var answers = kit.Answers{
	KeepGoing: kit.BlockForAgent,
	// Codex's Stop output takes systemMessage, shown to the user, as Claude Code's does.
	LetStop: func(w, _ io.Writer, text string) {
		if text == "" {
			io.WriteString(w, "{}\n")
			return
		}
		kit.WriteSystemMessage(w, text)
	},
}
