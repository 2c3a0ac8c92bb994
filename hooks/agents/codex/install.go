package codex

import (
	"fmt"
	"path/filepath"

	"github.com/git-loop/git-loop/hooks/fileedit"
	"github.com/git-loop/git-loop/hooks/kit"
)

// Codex CLI reads hooks from .codex/hooks.json (the user's: $CODEX_HOME/hooks.json, default
// ~/.codex), in the shape of Claude Code's: {"hooks": {"Stop": [{"hooks": [{"type":
// "command", "command": …, "timeout": seconds}]}]}}.

// hookFile is the hook install merges into a hooks file.
var hookFile = kit.HookFile{Product: "Codex", Grouped: true, CommandKeys: []string{"command"},
	Hooks: []kit.FileHook{{Event: "Stop", Command: "git-loop hook codex stop",
		Entry: kit.HookGroup{Hooks: []kit.HookCommand{{Type: "command", Command: "git-loop hook codex stop", Timeout: kit.StopTimeout}}}}}}

// projectFile and userFile are the hooks files of the project at dir and of the user.
func projectFile(dir string) string { return filepath.Join(dir, ".codex", "hooks.json") }
func userFile(home string) string   { return filepath.Join(configHome(home), "hooks.json") }

// ready records git-loop's hooks in the Codex hook file just written (the project's at
// dir, or the user's) as reviewed in $CODEX_HOME/config.toml, as Codex's /hooks review does.
func ready(dir, home string, user bool) ([]kit.InstallResult, error) {
	file := userHooks(home)
	if !user {
		file, _ = ProjectHooks(dir)
	}
	doc, err := kit.ReadIfExists(file)
	if err != nil || doc == nil {
		return nil, nil
	}
	refs, err := gitLoopHooks(doc, file)
	if err != nil || len(refs) == 0 {
		return nil, nil
	}
	res, err := recordReviews(configFile(home), refs)
	if err != nil {
		return nil, err
	}
	return []kit.InstallResult{res}, nil
}

// check is doctor's check of one installed copy of git-loop's hooks: Codex's project trust
// and hook reviews.
func check(c kit.HookCheck) ([]kit.Problem, []string) {
	return trustProblems(c.Dir, c.Home, c.User, c.Install), nil
}

// trustProblems is what keeps Codex from running git-loop's hooks installed for the project
// at dir or for the user.
func trustProblems(dir, home string, user bool, install string) []kit.Problem {
	cfgPath := configFile(home)
	cfg, err := readConfig(cfgPath)
	if err != nil {
		return []kit.Problem{{Why: fmt.Sprintf("Codex cannot start with this configuration: %v", err), Fix: "fix " + cfgPath + " by hand"}}
	}
	var problems []kit.Problem
	hooksFile := userHooks(home)
	if !user {
		var main string
		hooksFile, main = ProjectHooks(dir)
		switch level, key := projectTrust(cfg, dir, main); level {
		case "trusted":
		case "":
			problems = append(problems, kit.Problem{
				Why: fmt.Sprintf("Codex does not trust %s yet, so it loads nothing from its .codex/", dir),
				Fix: fmt.Sprintf("run `codex exec --trust` there once, or add [projects.%s] trust_level = \"trusted\" to %s", fileedit.QuoteTOML(key), cfgPath),
			})
		default:
			problems = append(problems, kit.Problem{
				Why: fmt.Sprintf("%s marks %s as %s, so Codex loads nothing from its .codex/", cfgPath, key, level),
				Fix: fmt.Sprintf("set trust_level = \"trusted\" under [projects.%s] in %s", fileedit.QuoteTOML(key), cfgPath),
			})
		}
		if main != "" {
			doc, _ := kit.ReadIfExists(hooksFile)
			if refs, _ := gitLoopHooks(doc, hooksFile); doc == nil || len(refs) == 0 {
				return append(problems, kit.Problem{
					Why: fmt.Sprintf("in a linked worktree Codex reads the project's hooks from the main checkout, and %s has none of git-loop's", hooksFile),
					Fix: fmt.Sprintf("commit .codex/hooks.json and check it out in %s, or run `git loop install codex` there", main),
				})
			}
		}
	}
	doc, _ := kit.ReadIfExists(hooksFile)
	refs, err := gitLoopHooks(doc, hooksFile)
	if err != nil {
		return append(problems, kit.Problem{Why: err.Error(), Fix: "fix " + hooksFile + " by hand"})
	}
	for _, ref := range refs {
		if p, bad := reviewProblem(cfg, cfgPath, ref, install); bad {
			problems = append(problems, p)
		}
	}
	return problems
}
