package cursor

import (
	"context"
	"fmt"
	"io"

	"github.com/git-loop/git-loop/hooks/kit"
	"github.com/git-loop/git-loop/loop"
)

// stopInput is Cursor's stop payload. It carries no message: the afterAgentResponse
// hook keeps the response for it.
type stopInput struct {
	ConversationID string   `json:"conversation_id"`
	GenerationID   string   `json:"generation_id"`
	Status         string   `json:"status"` // "completed", "aborted" or "error"
	LoopCount      int      `json:"loop_count"`
	WorkspaceRoots []string `json:"workspace_roots"`
	HookEventName  string   `json:"hook_event_name"`
}

// responseInput is Cursor's afterAgentResponse payload.
type responseInput struct {
	ConversationID string   `json:"conversation_id"`
	GenerationID   string   `json:"generation_id"`
	Text           string   `json:"text"`
	WorkspaceRoots []string `json:"workspace_roots"`
}

// onStop answers Cursor's stop hook: {"followup_message":…} is sent as the next user
// message; {} lets the agent stop. Only a completed generation is judged: an aborted one
// was stopped by the person, an errored one by Cursor.
func onStop(ctx context.Context, h kit.Hook, io kit.Streams) int {
	var in stopInput
	if !kit.ReadAgentPayload(h, io, "stop", &in, answers) {
		return 0
	}
	if in.Status != "" && in.Status != "completed" {
		answers.LetStop(io.Stdout, io.Stderr, "")
		return 0
	}
	roots := workspaceRoots(in.WorkspaceRoots)
	stop := kit.Stop{Dirs: roots, Session: in.ConversationID, ThisTurn: func(prev *loop.JudgedMessage) (string, bool, *loop.JudgedMessage) {
		for _, root := range roots { // a kept response is recalled once: never judged twice
			text, ok, err := loop.RecallMessage(root, in.ConversationID)
			if err != nil {
				fmt.Fprintf(io.Stderr, "git-loop: hook %s: %v; the gates decide\n", h, err)
			}
			if ok {
				return text, true, prev
			}
		}
		return "", false, prev
	}}
	return kit.RunStop(ctx, h, io, stop, answers)
}

var answers = kit.Answers{
	KeepGoing: func(w io.Writer, v loop.Verdict) {
		kit.WriteAnswer(w, struct {
			FollowupMessage string `json:"followup_message"`
		}{v.ForAgent})
	},
	LetStop: func(w, errOut io.Writer, text string) { // stop has no field for the user
		io.WriteString(w, "{}\n")
		kit.SayOnStderr(errOut, text)
	},
}

// onAfterResponse keeps the agent's response (Cursor's afterAgentResponse) for the stop
// that follows, in worktrees with an active loop. It answers {} and never fails the agent.
func onAfterResponse(h kit.Hook, io kit.Streams) int {
	var in responseInput
	if !kit.ReadAgentPayload(h, io, "afterAgentResponse", &in, answers) {
		return 0
	}
	for _, root := range workspaceRoots(in.WorkspaceRoots) {
		if err := loop.RememberMessage(root, in.ConversationID, in.Text); err != nil {
			fmt.Fprintf(io.Stderr, "git-loop: hook %s: %v\n", h, err)
		}
	}
	answers.LetStop(io.Stdout, io.Stderr, "")
	return 0
}

// workspaceRoots are Cursor's workspace roots, or the hook's own directory (Cursor runs
// project hooks from the project's root) when the payload names none.
func workspaceRoots(roots []string) []string {
	if len(roots) == 0 {
		return []string{""}
	}
	return roots
}
