package hooks

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/git-loop/git-loop/hooks/agents"
	"github.com/git-loop/git-loop/hooks/kit"
)

// Streams are a hook process's standard streams, injected for tests.
type Streams = kit.Streams

// InstallResult says what an install did, for printing.
type InstallResult = kit.InstallResult

// ErrHookFile: an agent's hook or settings file is not in the shape install can merge into
// (invalid JSON, or hooks that are not an object); the file is left untouched.
var ErrHookFile = kit.ErrHookFile

// ErrUnknownAgent: install or hook was given an agent git-loop has no protocol for.
var ErrUnknownAgent = errors.New("unknown agent")

// Run dispatches `git loop hook AGENT EVENT`. Hook exit codes are protocol, and a non-zero
// code can trap an agent (Claude Code feeds exit 2's stderr back to it), so even a mistyped
// agent or event exits 0 after saying what is wrong on stderr.
func Run(ctx context.Context, agent, event string, io Streams) (code int) {
	defer func() {
		// A panic would exit 2, which Claude Code feeds back to the model as a block: a bug
		// of git-loop's must let the agent stop instead, saying so in one line.
		if r := recover(); r != nil {
			fmt.Fprintf(io.Stderr, "git-loop: hook %s %s: internal error: %s; letting the agent stop\n", agent, event, kit.OneLine(fmt.Sprint(r)))
			code = 0
		}
	}()
	if a := agents.Named(agent); a != nil {
		if e, ok := a.EventNamed(event); ok {
			return e.Run(ctx, kit.Hook{Agent: a, Event: event}, io)
		}
	}
	fmt.Fprintln(io.Stderr, unknownHook(agent, event))
	return 0
}

// Install writes agent's hook configuration, merging with what is there: the project's (in
// dir) or, with user, the user's, and what else the agent needs (Claude Code's /git-loop
// command). Then it readies the hooks to run (readyToRun): for Codex it records their
// review; for every agent it says what else the person must do once before the agent runs
// them.
func Install(agent, dir string, user bool) ([]InstallResult, error) {
	a := agents.Named(agent)
	if a == nil {
		return nil, fmt.Errorf("install: %w %q; supported: %s", ErrUnknownAgent, agent, strings.Join(Agents(), ", "))
	}
	out, err := install(a, dir, user)
	if err == nil && len(out) > 0 {
		out[0].Note = doubleInstallNote(a, dir, user, out[0].Path)
		out, err = readyToRun(a, dir, user, out)
	}
	return out, err
}

func install(a *kit.Agent, dir string, user bool) ([]InstallResult, error) {
	path := a.ProjectFile(dir)
	if user {
		p, err := a.UserPath()
		if err != nil {
			return nil, err
		}
		path = p
	}
	res, err := a.InstallHookFile(path, dir)
	if err != nil {
		return nil, err
	}
	out := []InstallResult{res}
	if a.AfterInstall != nil {
		more, err := a.AfterInstall(dir, user)
		out = append(out, more...)
		if err != nil {
			return out, err
		}
	}
	return out, nil
}

// doubleInstallNote looks for git-loop's hooks of the agent in its other files (the user's
// when installing for the project, and the other way round; for Copilot also the other .json
// files of its hooks directories: doctor's files) and, when it finds them, says so: the
// agent runs every matching hook, so each stop is judged twice unless the copies are judged
// once (kit.Agent.JudgesCopiesOnce), which the note then says.
func doubleInstallNote(a *kit.Agent, dir string, user bool, written string) string {
	home, _ := os.UserHomeDir()
	others := append(a.HookFiles(dir, home, false), a.HookFiles(dir, home, true)...)
	for _, p := range others {
		if p == "" || kit.SameFile(p, written) {
			continue
		}
		doc, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		if _, present, err := a.FindHooks(doc, p); err == nil && len(present) > 0 {
			if a.JudgesCopiesOnce {
				return fmt.Sprintf("%s also runs git-loop's hooks; %s runs both, and git-loop judges each stop once", p, a.Product)
			}
			return fmt.Sprintf("%s also runs git-loop's hooks; %s runs both, so each stop would be judged twice: remove them from one of the files", p, a.Product)
		}
	}
	return ""
}
