package hooks

import (
	"fmt"
	"os"
	"os/exec"
	"strings"

	"github.com/git-loop/git-loop/hooks/agents"
	"github.com/git-loop/git-loop/hooks/kit"
)

// DoctorReport is what Doctor found: for each agent, where git-loop's hooks are installed
// and whether the agent would run them.
type DoctorReport struct {
	// Dir is the worktree whose project hooks were checked; "" when only the user's were.
	Dir string `json:"dir,omitempty"`
	// OK is set when some agent would run git-loop's hooks and every installed hook would:
	// with none installed, no agent runs a loop, which is no more OK than an idle hook.
	OK     bool          `json:"ok"`
	Agents []AgentDoctor `json:"agents"`
}

// AgentDoctor is one agent's part of a DoctorReport.
type AgentDoctor struct {
	Agent   string       `json:"agent"`   // git-loop's name for it (git loop install AGENT)
	Product string       `json:"product"` // its own name
	Hooks   []HookDoctor `json:"hooks"`   // where git-loop's hooks are installed; none: not installed
	// Install is the command that installs the hooks, when none is installed.
	Install string `json:"install,omitempty"`
}

// HookDoctor is one installed copy of git-loop's hooks: a file the agent reads.
type HookDoctor struct {
	Scope string `json:"scope"` // "project" or "user"
	File  string `json:"file"`
	// Runs is set when nothing git-loop knows of keeps the agent from running the hooks.
	Runs     bool      `json:"runs"`
	Problems []Problem `json:"problems,omitempty"` // why it would not, each with its fix
	Notes    []string  `json:"notes,omitempty"`    // what else the person should know
}

// Problem is one reason an agent would not run git-loop's hook, and what fixes it.
type Problem = kit.Problem

// Doctor checks every agent git-loop knows: where its git-loop hooks are installed (the
// project checked out at dir, unless dir is "", and the user's files) and whether the
// agent would run them, as far as git-loop can tell from the agent's own files: Codex's
// project trust and hook reviews, Gemini CLI's trusted folders, Copilot CLI's trusted
// folders, and for every agent whether git-loop is on PATH for the hook command to find.
func Doctor(dir string) DoctorReport {
	home, _ := os.UserHomeDir()
	rep := DoctorReport{Dir: dir, OK: true}
	_, pathErr := exec.LookPath("git-loop")
	for _, agent := range Agents() {
		a := agents.Named(agent)
		ad := AgentDoctor{Agent: agent, Product: a.Product}
		for _, user := range []bool{false, true} {
			if !user && dir == "" {
				continue
			}
			for _, file := range a.HookFiles(dir, home, user) {
				hd, ok := checkHookFile(a, dir, home, user, file)
				if !ok {
					continue
				}
				if pathErr != nil {
					hd.Problems = append(hd.Problems, Problem{
						Why: "git-loop is not on PATH, and the agent runs `git-loop hook …` at each stop",
						Fix: "put the git-loop executable in a directory on PATH",
					})
				}
				hd.Runs = len(hd.Problems) == 0
				rep.OK = rep.OK && hd.Runs
				ad.Hooks = append(ad.Hooks, hd)
			}
		}
		if len(ad.Hooks) > 1 {
			for i := range ad.Hooks {
				for j, other := range ad.Hooks {
					if j != i {
						ad.Hooks[i].Notes = append(ad.Hooks[i].Notes, twiceNote(a, other.File))
					}
				}
			}
		}
		if len(ad.Hooks) == 0 {
			ad.Install = "git loop install " + agent
			if dir == "" {
				ad.Install += " --user"
			}
		}
		rep.Agents = append(rep.Agents, ad)
	}
	rep.OK = rep.OK && rep.Installed()
	return rep
}

// twiceNote is doctor's note on a copy of git-loop's hooks when the agent runs another, from
// elsewhere, too.
func twiceNote(a *kit.Agent, elsewhere string) string {
	if a.JudgesCopiesOnce {
		return fmt.Sprintf("%s also runs git-loop's hooks from %s; git-loop judges each stop once", a.Product, elsewhere)
	}
	return fmt.Sprintf("%s also runs git-loop's hooks from %s, so each stop is judged twice: remove them from one of the files", a.Product, elsewhere)
}

// Installed reports whether any agent has git-loop's hooks installed, here or for the user.
func (r DoctorReport) Installed() bool {
	for _, a := range r.Agents {
		if len(a.Hooks) > 0 {
			return true
		}
	}
	return false
}

// DriverCommand is the command that drives a headless agent through the worktree's loop
// without any hook, the other way to run a loop.
const DriverCommand = "git loop run -- claude -p"

// NextStep says, as lines after a new loop's state, who will work on the loop: the agents
// whose git-loop hooks are installed and would run (with the command that starts each);
// those whose hooks would not run, sent to `git loop doctor`; with none installed, the
// command that installs one; and in every case the driver, which needs no hook.
func (r DoctorReport) NextStep() string {
	var runs, idle []string
	for _, a := range r.Agents {
		running := false
		for _, h := range a.Hooks {
			running = running || h.Runs
		}
		switch {
		case running:
			runs = append(runs, fmt.Sprintf("%s (`%s`)", a.Product, agents.Named(a.Agent).Command))
		case len(a.Hooks) > 0:
			idle = append(idle, a.Product)
		}
	}
	var b strings.Builder
	switch {
	case len(runs) > 0:
		fmt.Fprintf(&b, "next:      work with %s here: git-loop's hook runs at each of its stops\n", strings.Join(runs, " or "))
		if len(idle) > 0 {
			fmt.Fprintf(&b, "           %s has git-loop's hook installed, but would not run it: `git loop doctor` says why\n", strings.Join(idle, " and "))
		}
	case len(idle) > 0:
		fmt.Fprintf(&b, "next:      %s has git-loop's hook installed, but would not run it, so no agent works on this loop yet: `git loop doctor` says why and the fix\n", strings.Join(idle, " and "))
	default:
		fmt.Fprintf(&b, "next:      no agent has git-loop's hook installed here, so none works on this loop yet: %s, then start the agent\n", InstallHint())
	}
	fmt.Fprintf(&b, "           or let git-loop drive a headless agent, no hook needed: `%s`\n", DriverCommand)
	return b.String()
}

// checkHookFile checks one file: ok is false when it holds none of git-loop's hooks for
// the agent (or does not exist).
func checkHookFile(a *kit.Agent, dir, home string, user bool, file string) (HookDoctor, bool) {
	hd := HookDoctor{Scope: "project", File: file}
	install := "git loop install " + a.Name
	if user {
		hd.Scope = "user"
		install += " --user"
	}
	hf := a.File
	doc, err := kit.ReadIfExists(file)
	if err != nil || doc == nil {
		return hd, false
	}
	added, present, err := a.FindHooks(doc, file)
	switch {
	case err != nil && strings.Contains(string(doc), "git-loop hook"):
		hd.Problems = append(hd.Problems, Problem{Why: fmt.Sprintf("%s cannot read the file: %v", hf.Product, err), Fix: "fix the file by hand"})
		return hd, true
	case err != nil || len(present) == 0:
		return hd, false
	case len(added) > 0:
		hd.Problems = append(hd.Problems, Problem{
			Why: fmt.Sprintf("some of git-loop's hooks are missing: %s", strings.Join(added, ", ")),
			Fix: "`" + install + "` adds them",
		})
	}
	if a.Check != nil {
		problems, notes := a.Check(kit.HookCheck{Dir: dir, Home: home, User: user, File: file, Install: install})
		hd.Problems = append(hd.Problems, problems...)
		hd.Notes = append(hd.Notes, notes...)
	}
	return hd, true
}

// String is the report for a person: one paragraph per installed copy of the hooks, one
// line per agent without any.
func (r DoctorReport) String() string {
	var b strings.Builder
	if r.Dir == "" {
		b.WriteString("not in a git worktree: only the user's hooks were checked\n")
	}
	for _, a := range r.Agents {
		if len(a.Hooks) == 0 {
			fmt.Fprintf(&b, "%s: not installed (%s)\n", a.Product, a.Install)
			continue
		}
		for _, h := range a.Hooks {
			verdict := "runs"
			if !h.Runs {
				verdict = "will not run"
			}
			fmt.Fprintf(&b, "%s: %s hook %s %s\n", a.Product, h.Scope, h.File, verdict)
			for _, p := range h.Problems {
				fmt.Fprintf(&b, "  - %s\n    fix: %s\n", p.Why, p.Fix)
			}
			for _, n := range h.Notes {
				fmt.Fprintf(&b, "  note: %s\n", n)
			}
		}
	}
	return b.String()
}
