package opencode

import (
	"time"

	"github.com/git-loop/git-loop/hooks/kit"
)

// Agent is OpenCode as git-loop supports it: its plugin, .opencode/plugin/git-loop.js (the
// user's in $XDG_CONFIG_HOME/opencode/plugin/), which runs the session-idle hook and bounds
// it with the timeout it states in milliseconds.
var Agent = kit.Agent{
	Name: "opencode", Product: "OpenCode", Command: "opencode",
	TimeoutKey: timeoutKey, TimeoutUnit: time.Millisecond,
	Events: []kit.Event{
		{Name: "session-idle", Judges: true, Run: onIdle},
	},
	JudgesCopiesOnce: true,
	File:             pluginFile,
	ProjectFile:      projectFile, UserFile: userFile,
	Check: check,
}
