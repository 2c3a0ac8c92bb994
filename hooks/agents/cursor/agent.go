package cursor

import (
	"context"
	"time"

	"github.com/git-loop/git-loop/hooks/kit"
)

// Agent is Cursor as git-loop supports it: its stop hook in .cursor/hooks.json, with the
// afterAgentResponse hook that keeps the answer the stop payload lacks.
var Agent = kit.Agent{
	Name: "cursor", Product: "Cursor", Command: "cursor .",
	TimeoutKey: "timeout", TimeoutUnit: time.Second,
	Events: []kit.Event{
		{Name: "stop", Judges: true, Run: onStop},
		{Name: "after-agent-response", Run: func(_ context.Context, h kit.Hook, io kit.Streams) int { return onAfterResponse(h, io) }},
	},
	File:        hookFile,
	ProjectFile: projectFile, UserFile: userFile,
	Check: check,
}
