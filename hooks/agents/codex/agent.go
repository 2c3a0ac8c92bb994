package codex

import (
	"time"

	"github.com/git-loop/git-loop/hooks/kit"
)

// Agent is Codex CLI as git-loop supports it: its Stop hook in .codex/hooks.json (seconds),
// which install also records as reviewed in $CODEX_HOME/config.toml, as Codex's /hooks does.
var Agent = kit.Agent{
	Name: "codex", Product: "Codex", Command: "codex",
	TimeoutKey: "timeout", TimeoutUnit: time.Second,
	// Codex gives a hook whose entry states no timeout 600 s.
	DefaultTimeout: defaultTimeout * time.Second,
	Events:         []kit.Event{{Name: "stop", Judges: true, Run: onStop}},
	File:           hookFile,
	ProjectFile:    projectFile, UserFile: userFile,
	Ready: ready, Check: check,
}
