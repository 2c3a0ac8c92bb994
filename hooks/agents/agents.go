// Package agents is the list of the coding agents git-loop supports: one package each,
// below this one, each exporting its kit.Agent. Dispatch, install, doctor, the timeouts and
// the help iterate All; adding an agent is adding its package and its line here.
package agents

import (
	"github.com/git-loop/git-loop/hooks/agents/claude"
	"github.com/git-loop/git-loop/hooks/agents/codex"
	"github.com/git-loop/git-loop/hooks/agents/copilot"
	"github.com/git-loop/git-loop/hooks/agents/cursor"
	"github.com/git-loop/git-loop/hooks/agents/droid"
	"github.com/git-loop/git-loop/hooks/agents/gemini"
	"github.com/git-loop/git-loop/hooks/agents/opencode"
	"github.com/git-loop/git-loop/hooks/agents/qwen"
	"github.com/git-loop/git-loop/hooks/kit"
)

// All lists the agents in the order git-loop came to support them, the order help lists
// them in.
var All = []*kit.Agent{&claude.Agent, &codex.Agent, &gemini.Agent, &cursor.Agent, &copilot.Agent, &qwen.Agent, &droid.Agent, &opencode.Agent}

// Named is the agent called name (git loop install NAME), or nil.
func Named(name string) *kit.Agent {
	for _, a := range All {
		if a.Name == name {
			return a
		}
	}
	return nil
}
