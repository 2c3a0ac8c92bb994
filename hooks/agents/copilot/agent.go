package copilot

import (
	"time"

	"github.com/git-loop/git-loop/hooks/kit"
)

// Agent is Copilot CLI as git-loop supports it: its agentStop hook in
// .github/hooks/git-loop.json, whose timeout is timeoutSec.
var Agent = kit.Agent{
	Name: "copilot", Product: "Copilot CLI", Command: "copilot",
	TimeoutKey: "timeoutSec", TimeoutUnit: time.Second,
	Events:           []kit.Event{{Name: "agent-stop", Judges: true, Run: onAgentStop}},
	JudgesCopiesOnce: true,
	File:             hookFile,
	ProjectFile:      projectFile, UserFile: userFile, DoctorFiles: doctorFiles,
	Check: check,
}
