package gemini

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/git-loop/git-loop/hooks/fileedit"
	"github.com/git-loop/git-loop/hooks/kit"
)

// userDir is Gemini CLI's user directory: ~/.gemini, under $GEMINI_CLI_HOME when set.
func userDir(home string) string {
	return filepath.Join(kit.EnvOr("GEMINI_CLI_HOME", home), ".gemini")
}

// trustProblem says why Gemini CLI (0.61.0) would not load the project hooks of dir:
// it loads a workspace's .gemini/settings.json hooks only in a trusted folder. Trust comes,
// in Gemini's order, from GEMINI_CLI_TRUST_WORKSPACE=true (false, or
// GEMINI_RESTRICTED_MODE=true, distrusts), from the folder trust feature being off
// (security.folderTrust.enabled = false in the user's settings), or from the rule in
// trustedFolders.json ($GEMINI_CLI_TRUSTED_FOLDERS_PATH, else ~/.gemini/) with the longest
// path that holds dir: TRUST_FOLDER (the path itself), TRUST_PARENT (its parent) or
// DO_NOT_TRUST.
func trustProblem(dir, home string) (kit.Problem, bool) {
	switch {
	case os.Getenv("GEMINI_RESTRICTED_MODE") == "true" || os.Getenv("GEMINI_CLI_TRUST_WORKSPACE") == "false":
		return kit.Problem{
			Why: "GEMINI_RESTRICTED_MODE=true or GEMINI_CLI_TRUST_WORKSPACE=false makes Gemini CLI trust no folder, so it ignores the project's hooks",
			Fix: "unset it, or use `git loop install gemini --user`",
		}, true
	case os.Getenv("GEMINI_CLI_TRUST_WORKSPACE") == "true":
		return kit.Problem{}, false
	}
	var settings struct {
		Security struct {
			FolderTrust struct {
				Enabled *bool `json:"enabled"`
			} `json:"folderTrust"`
		} `json:"security"`
	}
	if _, err := fileedit.ReadJSONC(filepath.Join(userDir(home), "settings.json"), &settings); err == nil {
		if e := settings.Security.FolderTrust.Enabled; e != nil && !*e {
			return kit.Problem{}, false
		}
	}
	path := os.Getenv("GEMINI_CLI_TRUSTED_FOLDERS_PATH")
	if path == "" {
		path = filepath.Join(userDir(home), "trustedFolders.json")
	}
	var rules map[string]any
	if _, err := fileedit.ReadJSONC(path, &rules); err != nil {
		return kit.Problem{Why: fmt.Sprintf("Gemini CLI cannot read %s (%v) and refuses to start", path, err), Fix: "fix it by hand"}, true
	}
	level, longest := "", -1
	where := kit.Physical(dir)
	for rule, v := range rules {
		l, _ := v.(string)
		effective := rule
		switch l {
		case "TRUST_PARENT":
			effective = filepath.Dir(rule)
		case "TRUST_FOLDER", "DO_NOT_TRUST":
		default:
			return kit.Problem{
				Why: fmt.Sprintf("Gemini CLI refuses to start: %s gives %s the trust level %q, not TRUST_FOLDER, TRUST_PARENT or DO_NOT_TRUST", path, rule, l),
				Fix: "fix it by hand",
			}, true
		}
		if kit.Within(where, kit.Physical(effective)) && len(rule) > longest {
			level, longest = l, len(rule)
		}
	}
	fix := fmt.Sprintf("add %q: \"TRUST_FOLDER\" to %s (or trust the folder in an interactive gemini), set GEMINI_CLI_TRUST_WORKSPACE=true for headless runs, or use `git loop install gemini --user`", where, path)
	switch level {
	case "TRUST_FOLDER", "TRUST_PARENT":
		return kit.Problem{}, false
	case "DO_NOT_TRUST":
		return kit.Problem{Why: fmt.Sprintf("%s says DO_NOT_TRUST for %s, so Gemini CLI ignores the project's hooks (and a headless run exits 55)", path, dir), Fix: fix}, true
	}
	return kit.Problem{Why: fmt.Sprintf("Gemini CLI runs a project's hooks only in a trusted folder, and %s does not trust %s (a headless run there exits 55; with --skip-trust it runs without the project's hooks)", path, dir), Fix: fix}, true
}
