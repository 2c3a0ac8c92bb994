package claude

import (
	"context"
	"time"

	"github.com/git-loop/git-loop/hooks/kit"
)

// Agent is Claude Code as git-loop supports it: its Stop, SubagentStop and SessionStart
// hooks in .claude/settings.json (seconds), and the /git-loop command install adds to the
// project.
var Agent = kit.Agent{
	Name: "claude", Product: "Claude Code", Command: "claude",
	TimeoutKey: "timeout", TimeoutUnit: time.Second,
	Events: []kit.Event{
		{Name: "stop", Judges: true, Run: func(ctx context.Context, h kit.Hook, io kit.Streams) int { return onStop(ctx, h, io, false) }},
		{Name: "subagent-stop", Judges: true, Run: func(ctx context.Context, h kit.Hook, io kit.Streams) int { return onStop(ctx, h, io, true) }},
		{Name: "session-start", Run: func(_ context.Context, h kit.Hook, io kit.Streams) int { return onSessionStart(h, io) }},
	},
	File:        hookFile,
	ProjectFile: projectSettings, UserFile: userSettings, SettingsFiles: settingsFiles,
	AfterInstall: installCommand, DoctorFiles: doctorFiles,
}
