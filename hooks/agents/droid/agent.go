package droid

import (
	"time"

	"github.com/git-loop/git-loop/hooks/kit"
)

// Agent is Factory Droid as git-loop supports it: its Stop hook in .factory/settings.json
// (the user's: ~/.factory/settings.json), whose timeout is in seconds.
var Agent = kit.Agent{
	Name: name, Product: "Factory Droid", Command: "droid",
	TimeoutKey: "timeout", TimeoutUnit: time.Second,
	// Droid kills a hook whose entry states no timeout after 60 s.
	DefaultTimeout:   60 * time.Second,
	Events:           []kit.Event{{Name: "stop", Judges: true, Run: onStop}},
	JudgesCopiesOnce: true,
	File:             hookFile,
	ProjectFile:      projectFile, UserFile: userFile,
	Check: check,
}
