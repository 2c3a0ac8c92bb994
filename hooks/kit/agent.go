package kit

import (
	"context"
	"fmt"
	"os"
	"time"
)

// Agent is one coding agent as git-loop supports it: everything dispatch, install, doctor,
// the timeouts and the help need to know of it. An agent's package exports one.
type Agent struct {
	Name    string // git-loop's name for it: git loop install NAME, git loop hook NAME EVENT
	Product string // its own name, for messages
	Command string // how a person starts it on the project, for the next-step advice
	// TimeoutKey and TimeoutUnit are the key of a hook entry's timeout in its hook file and
	// the unit the agent reads it in.
	TimeoutKey  string
	TimeoutUnit time.Duration
	// ReadTimeout, when set, is how long the agent lets a hook run whose entry's timeout is
	// n, where that is not n × TimeoutUnit (Qwen Code reads seconds, but 1000 and more as
	// milliseconds). A stop reads its own timeout back with it.
	ReadTimeout func(n float64) time.Duration
	// DefaultTimeout is how long the agent lets a hook run whose entry states no timeout,
	// where that is known (a hand-edited entry may drop it); 0: unknown, and a stop then
	// assumes the time install would have written.
	DefaultTimeout time.Duration
	Events         []Event  // the hook events it calls git-loop with, in the order they are listed
	File           HookFile // its hook file: the hooks install merges in, and how to find them
	// ProjectFile and UserFile are where install writes its hooks, for the project at dir or
	// for the user whose home directory is home.
	ProjectFile func(dir string) string
	UserFile    func(home string) string
	// SettingsFiles are all the files the agent reads hooks from (project and user), where
	// they are more than those two; nil: those two. A stop finds its own timeout in them.
	SettingsFiles func(dir string) []string
	// AfterInstall writes what else install adds for the agent (Claude Code's /git-loop
	// command); Ready readies the hooks install wrote to run (Codex's review record). Either
	// may be nil.
	AfterInstall func(dir string, user bool) ([]InstallResult, error)
	Ready        func(dir, home string, user bool) ([]InstallResult, error)
	// DoctorFiles are the files that may hold git-loop's hooks for the project at dir or for
	// the user, where the agent reads more than the one file install writes; nil: that file.
	DoctorFiles func(dir, home string, user bool) []string
	// JudgesCopiesOnce is set where git-loop's hooks installed twice (the project's and the
	// user's copy, both of which the agent runs) still judge each stop once: the stop names
	// itself (Stop.StopID), or the copies see that one runs already. Proven with the real
	// agent (realagents.BothHooks); elsewhere install and doctor warn that each stop would
	// be judged twice.
	JudgesCopiesOnce bool
	// Check is doctor's own check of one installed copy of the hooks: what keeps the agent
	// from running them (its trust rules), and what else the person should know; nil: none.
	Check func(HookCheck) (problems []Problem, notes []string)
}

// Event is one hook event an agent calls git-loop with.
type Event struct {
	Name string // the EVENT of git loop hook AGENT EVENT
	// Judges is set for events that run the loop's gates (a stop): their hook timeout is the
	// long one install computes; the others answer at once and keep a short one.
	Judges bool
	// Run answers the event: it reads the payload from io.Stdin and writes the answer in the
	// agent's protocol. It returns the hook's exit code, which is protocol (0 in every
	// agent's handler, so that a failing git-loop never traps an agent).
	Run func(ctx context.Context, h Hook, io Streams) int
}

// Hook is one call of git-loop's hook: the agent and the event it was called for.
type Hook struct {
	Agent *Agent
	Event string
}

// String is "AGENT EVENT", as messages name the hook.
func (h Hook) String() string { return h.Agent.Name + " " + h.Event }

// HookCheck is what an agent's doctor check knows of the copy it checks.
type HookCheck struct {
	Dir, Home string // the project ("" when only the user's hooks are checked) and the home
	User      bool   // the user's copy, else the project's
	File      string // the hook file that holds it
	Install   string // the command that installs this copy again
}

// Problem is one reason an agent would not run git-loop's hook, and what fixes it.
type Problem struct {
	Why string `json:"why"`
	Fix string `json:"fix"`
}

// EventNamed is the agent's hook event called name.
func (a *Agent) EventNamed(name string) (Event, bool) {
	for _, e := range a.Events {
		if e.Name == name {
			return e, true
		}
	}
	return Event{}, false
}

// Judges reports whether the agent's hook event runs the loop's gates (a stop).
func (a *Agent) Judges(event string) bool {
	e, ok := a.EventNamed(event)
	return ok && e.Judges
}

// UserPath is where install writes the agent's hooks for the user running git-loop.
func (a *Agent) UserPath() (string, error) {
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("install: find the home directory for %s's user settings: %w", a.Product, err)
	}
	return a.UserFile(home), nil
}

// HookFiles are the files of the agent that may hold git-loop's hooks, for the project at
// dir or for the user: DoctorFiles where the agent reads more than the one file install
// writes, else that file.
func (a *Agent) HookFiles(dir, home string, user bool) []string {
	switch {
	case a.DoctorFiles != nil:
		return a.DoctorFiles(dir, home, user)
	case user:
		return []string{a.UserFile(home)}
	}
	return []string{a.ProjectFile(dir)}
}

// ReadsHooksFrom are the files the agent reads hooks from for the project at dir, and the
// user's.
func (a *Agent) ReadsHooksFrom(dir string) []string {
	if a.SettingsFiles != nil {
		return a.SettingsFiles(dir)
	}
	files := []string{a.ProjectFile(dir)}
	if p, err := a.UserPath(); err == nil {
		files = append(files, p)
	}
	return files
}
