package qwen

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/git-loop/git-loop/hooks/fileedit"
	"github.com/git-loop/git-loop/hooks/kit"
)

// check is doctor's check of one installed copy of git-loop's hook. Qwen Code (0.24) loads a
// project's .qwen/settings.json, hooks and all, only in a folder it trusts, and with folder
// trust off (its default) it trusts every folder; the user's hooks load in any folder. With
// "disableAllHooks": true in the settings it runs no hook at all.
func check(c kit.HookCheck) ([]kit.Problem, []string) {
	var problems []kit.Problem
	var notes []string
	trusted := true
	if c.Dir != "" {
		if p, bad := trustProblem(c.Dir, c.Home); bad {
			trusted = false
			if !c.User {
				problems = append(problems, p)
			} else {
				notes = append(notes, fmt.Sprintf("Qwen Code does not trust %s: it ignores the project's settings there, and runs with the approval mode \"default\" even when given --yolo", c.Dir))
			}
		}
	}
	if p, bad := hooksOff(c.Dir, c.Home, trusted); bad {
		problems = append(problems, p)
	}
	return problems, notes
}

// hooksOff says whether Qwen Code's settings turn every hook off (disableAllHooks): system
// settings first, then the project's (read only in a trusted folder), then the user's, then
// the system defaults.
func hooksOff(dir, home string, trusted bool) (kit.Problem, bool) {
	files := []string{systemFile()}
	if dir != "" && trusted {
		files = append(files, projectFile(dir))
	}
	files = append(files, userFile(home), systemDefaultsFile())
	for _, f := range files {
		if off := readSettings(f).DisableAllHooks; off != nil {
			if !*off {
				return kit.Problem{}, false
			}
			return kit.Problem{
				Why: fmt.Sprintf(`%s says "disableAllHooks": true, so Qwen Code runs no hook`, f),
				Fix: fmt.Sprintf(`remove "disableAllHooks" from %s, or set it to false`, f),
			}, true
		}
	}
	return kit.Problem{}, false
}

// trustProblem says why Qwen Code (0.24) would not load the project settings of dir, and so
// its hooks. With folder trust on (security.folderTrust.enabled true in the user's or the
// system's settings; off by default), a folder is trusted by the rule of trustedFolders.json
// ($QWEN_CODE_TRUSTED_FOLDERS_PATH, else in Qwen's user directory) whose path holds it and is
// the deepest: TRUST_FOLDER (the path itself), TRUST_PARENT (its parent) or DO_NOT_TRUST,
// which wins a tie; other levels are skipped. No rule: not trusted. A file that is not a JSON
// object stops Qwen Code from starting.
func trustProblem(dir, home string) (kit.Problem, bool) {
	on := effective(settings.folderTrust, systemFile(), userFile(home), systemDefaultsFile())
	if on == nil || !*on {
		return kit.Problem{}, false
	}
	path := os.Getenv("QWEN_CODE_TRUSTED_FOLDERS_PATH")
	if path == "" {
		path = filepath.Join(userDir(home), "trustedFolders.json")
	}
	var rules map[string]any
	if _, err := fileedit.ReadJSONC(path, &rules); err != nil {
		return kit.Problem{Why: fmt.Sprintf("Qwen Code cannot read %s (%v) and refuses to start", path, err), Fix: "fix it by hand"}, true
	}
	level, depth := "", -1
	where := variants(dir)
	for rule, v := range rules {
		l, _ := v.(string)
		effective := rule
		switch l {
		case "TRUST_PARENT":
			effective = filepath.Dir(rule)
		case "TRUST_FOLDER", "DO_NOT_TRUST":
		default:
			continue
		}
		d := matchDepth(where, variants(effective))
		if d > depth || d == depth && d >= 0 && l == "DO_NOT_TRUST" {
			level, depth = l, d
		}
	}
	if depth < 0 {
		level = ""
	}
	fix := fmt.Sprintf("add %q: \"TRUST_FOLDER\" to %s (or trust the folder in an interactive qwen), or use `git loop install qwen --user`", kit.Physical(dir), path)
	switch level {
	case "TRUST_FOLDER", "TRUST_PARENT":
		return kit.Problem{}, false
	case "DO_NOT_TRUST":
		return kit.Problem{Why: fmt.Sprintf("%s says DO_NOT_TRUST for %s, so Qwen Code ignores the project's settings and hooks", path, dir), Fix: fix}, true
	}
	return kit.Problem{Why: fmt.Sprintf("folder trust is on, and Qwen Code loads a project's settings and hooks only in a trusted folder: %s does not trust %s", path, dir), Fix: fix}, true
}

// variants are the forms Qwen Code compares a path in: absolute and cleaned, and with its
// symlinks resolved when it exists.
func variants(path string) []string {
	abs, err := filepath.Abs(path)
	if err != nil {
		abs = filepath.Clean(path)
	}
	vs := []string{abs}
	if real, err := filepath.EvalSymlinks(path); err == nil && real != abs {
		vs = append(vs, real)
	}
	return vs
}

// matchDepth is the depth (in path elements) of the deepest of the rule's forms that holds
// one of the location's; -1 when none does.
func matchDepth(location, rule []string) int {
	depth := -1
	for _, l := range location {
		for _, r := range rule {
			if kit.Within(l, r) {
				depth = max(depth, len(strings.FieldsFunc(r, func(c rune) bool { return c == filepath.Separator })))
			}
		}
	}
	return depth
}
