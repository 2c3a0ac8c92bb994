package hooks

import (
	"context"
	"fmt"
	"strings"
)

// Run dispatches `git loop hook AGENT EVENT`. Hook exit codes are protocol, and a non-zero
// code can trap an agent (Claude Code feeds exit 2's stderr back to it), so even a mistyped
// agent or event exits 0 after saying what is wrong on stderr.
func Run(ctx context.Context, agent, event string, io Streams) int {
	if e, ok := eventOf(agent, event); ok {
		return e.run(ctx, io)
	}
	fmt.Fprintln(io.Stderr, unknownHook(agent, event))
	return 0
}

// Install writes agent's hook configuration (claude, codex, gemini, cursor or copilot),
// merging with what is there: the project's (in dir) or, with user, the user's. For Claude
// Code it also adds the /git-loop slash command to the project (InstallSlashCommand). Then
// it readies the hooks to run (readyToRun): for Codex it records their review; for every
// agent it says what else the person must do once before the agent runs them.
func Install(agent, dir string, user bool) ([]InstallResult, error) {
	out, err := install(agent, dir, user)
	if err == nil && len(out) > 0 {
		out[0].Note = doubleInstallNote(agent, dir, user, out[0].Path)
		out, err = readyToRun(agent, dir, user, out)
	}
	return out, err
}

func install(agent, dir string, user bool) ([]InstallResult, error) {
	spec, ok := specOf(agent)
	if !ok {
		return nil, fmt.Errorf("install: %w %q; supported: %s", ErrUnknownAgent, agent, strings.Join(Agents(), ", "))
	}
	path := spec.projectFile(dir)
	if user {
		p, err := spec.userFile()
		if err != nil {
			return nil, err
		}
		path = p
	}
	res, err := installHooks(path, withStopTimeout(spec.file, installTimeout(dir)))
	if err != nil {
		return nil, err
	}
	out := []InstallResult{res}
	if spec.afterInstall != nil {
		more, err := spec.afterInstall(dir, user)
		out = append(out, more...)
		if err != nil {
			return out, err
		}
	}
	return out, nil
}
