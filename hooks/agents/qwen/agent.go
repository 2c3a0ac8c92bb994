package qwen

import (
	"time"

	"github.com/git-loop/git-loop/hooks/kit"
)

// Agent is Qwen Code as git-loop supports it: its Stop hook in .qwen/settings.json, in Claude
// Code's shape, whose timeout install writes in milliseconds (see hookFile).
var Agent = kit.Agent{
	Name: "qwen", Product: "Qwen Code", Command: "qwen",
	TimeoutKey: "timeout", TimeoutUnit: time.Millisecond, ReadTimeout: readTimeout,
	// Qwen Code kills a hook whose entry states no timeout after 60 s (DEFAULT_COMMAND_HOOK_TIMEOUT_SECONDS).
	DefaultTimeout: 60 * time.Second,
	Events:         []kit.Event{{Name: "stop", Judges: true, Run: onStop}},
	File:           hookFile,
	ProjectFile:    projectFile, UserFile: userFile,
	Check: check,
}
