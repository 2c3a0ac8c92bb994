package gemini

import (
	"time"

	"github.com/git-loop/git-loop/hooks/kit"
)

// Agent is Gemini CLI as git-loop supports it: its AfterAgent hook in .gemini/settings.json,
// whose timeout is in milliseconds.
var Agent = kit.Agent{
	Name: "gemini", Product: "Gemini CLI", Command: "gemini",
	TimeoutKey: "timeout", TimeoutUnit: time.Millisecond,
	// Gemini CLI kills a hook whose entry states no timeout after 60 s (DEFAULT_HOOK_TIMEOUT).
	DefaultTimeout: 60 * time.Second,
	Events:         []kit.Event{{Name: "after-agent", Judges: true, Run: onAfterAgent}},
	File:           hookFile,
	ProjectFile:    projectFile, UserFile: userFile,
	Check: check,
}
