package hooks

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/git-loop/git-loop/hooks/fileedit"
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
type Problem struct {
	Why string `json:"why"`
	Fix string `json:"fix"`
}

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
		ad := AgentDoctor{Agent: agent, Product: productOf(agent)}
		for _, user := range []bool{false, true} {
			if !user && dir == "" {
				continue
			}
			for _, file := range hookFiles(agent, dir, home, user) {
				hd, ok := checkHookFile(agent, dir, home, user, file)
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
		if len(ad.Hooks) == 2 {
			for i := range ad.Hooks {
				other := ad.Hooks[1-i]
				ad.Hooks[i].Notes = append(ad.Hooks[i].Notes, fmt.Sprintf("%s also runs git-loop's hooks from %s, so each stop is judged twice: remove them from one of the files", ad.Product, other.File))
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
			spec, _ := specOf(a.Agent)
			runs = append(runs, fmt.Sprintf("%s (`%s`)", a.Product, spec.command))
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

// hookFiles are the files of agent that may hold git-loop's hooks, for the project at dir
// or for the user: the registry's doctorFiles where the agent reads more than the one file
// install writes, else that file.
func hookFiles(agent, dir, home string, user bool) []string {
	spec, _ := specOf(agent)
	switch {
	case spec.doctorFiles != nil:
		return spec.doctorFiles(dir, home, user)
	case user:
		return []string{spec.userIn(home)}
	}
	return []string{spec.projectFile(dir)}
}

// checkCodex, checkGemini, checkCopilot and checkCursor are the agents' own doctor checks
// of one installed copy of git-loop's hooks (registry.go's check).
func checkCodex(c hookCheck) ([]Problem, []string) {
	return codexProblems(c.dir, c.home, c.user, c.install), nil
}

func checkGemini(c hookCheck) ([]Problem, []string) {
	if !c.user {
		if p, bad := geminiTrustProblem(c.dir, c.home); bad {
			return []Problem{p}, nil
		}
		return nil, nil
	}
	if c.dir == "" {
		return nil, nil
	}
	if _, bad := geminiTrustProblem(c.dir, c.home); bad {
		return nil, []string{fmt.Sprintf("Gemini CLI does not trust %s: a headless run there (gemini -p) stops with exit 55 unless given --skip-trust, with which this hook runs", c.dir)}
	}
	return nil, nil
}

func checkCopilot(c hookCheck) ([]Problem, []string) {
	if !c.user {
		if p, bad := copilotTrustProblem(c.dir, c.home); bad {
			return []Problem{p}, nil
		}
	}
	return nil, nil
}

func checkCursor(hookCheck) ([]Problem, []string) {
	return nil, []string{"not checked against a real Cursor: git-loop knows of nothing else it needs"}
}

// claudeDoctorFiles are Claude Code's settings files that may hold git-loop's hooks.
func claudeDoctorFiles(dir, _ string, user bool) []string {
	if !user {
		return []string{ClaudeProjectSettings(dir)}
	}
	p, err := ClaudeUserSettings()
	if err != nil {
		return nil
	}
	return []string{p}
}

// copilotDoctorFiles: Copilot CLI reads every .json in its hooks directories.
func copilotDoctorFiles(dir, home string, user bool) []string {
	pattern := filepath.Join(dir, ".github", "hooks", "*.json")
	if user {
		pattern = filepath.Join(filepath.Dir(copilotUserFile(home)), "*.json")
	}
	files, _ := filepath.Glob(pattern)
	return files
}

// checkHookFile checks one file: ok is false when it holds none of git-loop's hooks for
// agent (or does not exist).
func checkHookFile(agent, dir, home string, user bool, file string) (HookDoctor, bool) {
	hd := HookDoctor{Scope: "project", File: file}
	install := "git loop install " + agent
	if user {
		hd.Scope = "user"
		install += " --user"
	}
	hf, _ := hookFileOf(agent)
	doc, err := readIfExists(file)
	if err != nil || doc == nil {
		return hd, false
	}
	_, added, present, err := mergeHooks(doc, file, hf)
	switch {
	case err != nil && strings.Contains(string(doc), "git-loop hook"):
		hd.Problems = append(hd.Problems, Problem{Why: fmt.Sprintf("%s cannot read the file: %v", hf.product, err), Fix: "fix the file by hand"})
		return hd, true
	case err != nil || len(present) == 0:
		return hd, false
	case len(added) > 0:
		hd.Problems = append(hd.Problems, Problem{
			Why: fmt.Sprintf("some of git-loop's hooks are missing: %s", strings.Join(added, ", ")),
			Fix: "`" + install + "` adds them",
		})
	}
	if spec, ok := specOf(agent); ok && spec.check != nil {
		problems, notes := spec.check(hookCheck{dir: dir, home: home, user: user, install: install})
		hd.Problems = append(hd.Problems, problems...)
		hd.Notes = append(hd.Notes, notes...)
	}
	return hd, true
}

// codexProblems is what keeps Codex from running git-loop's hooks installed for the project
// at dir or for the user.
func codexProblems(dir, home string, user bool, install string) []Problem {
	cfgPath := codexConfigFile(home)
	cfg, err := readCodexConfig(cfgPath)
	if err != nil {
		return []Problem{{Why: fmt.Sprintf("Codex cannot start with this configuration: %v", err), Fix: "fix " + cfgPath + " by hand"}}
	}
	var problems []Problem
	hooksFile := codexUserHooks(home)
	if !user {
		var main string
		hooksFile, main = CodexProjectHooks(dir)
		switch level, key := codexProjectTrust(cfg, dir, main); level {
		case "trusted":
		case "":
			problems = append(problems, Problem{
				Why: fmt.Sprintf("Codex does not trust %s yet, so it loads nothing from its .codex/", dir),
				Fix: fmt.Sprintf("run `codex exec --trust` there once, or add [projects.%s] trust_level = \"trusted\" to %s", fileedit.QuoteTOML(key), cfgPath),
			})
		default:
			problems = append(problems, Problem{
				Why: fmt.Sprintf("%s marks %s as %s, so Codex loads nothing from its .codex/", cfgPath, key, level),
				Fix: fmt.Sprintf("set trust_level = \"trusted\" under [projects.%s] in %s", fileedit.QuoteTOML(key), cfgPath),
			})
		}
		if main != "" {
			doc, _ := readIfExists(hooksFile)
			if refs, _ := codexGitLoopHooks(doc, hooksFile); doc == nil || len(refs) == 0 {
				return append(problems, Problem{
					Why: fmt.Sprintf("in a linked worktree Codex reads the project's hooks from the main checkout, and %s has none of git-loop's", hooksFile),
					Fix: fmt.Sprintf("commit .codex/hooks.json and check it out in %s, or run `git loop install codex` there", main),
				})
			}
		}
	}
	doc, _ := readIfExists(hooksFile)
	refs, err := codexGitLoopHooks(doc, hooksFile)
	if err != nil {
		return append(problems, Problem{Why: err.Error(), Fix: "fix " + hooksFile + " by hand"})
	}
	for _, ref := range refs {
		if p, bad := codexReviewProblem(cfg, cfgPath, ref, install); bad {
			problems = append(problems, p)
		}
	}
	return problems
}

// geminiDir is Gemini CLI's user directory: ~/.gemini, under $GEMINI_CLI_HOME when set.
func geminiDir(home string) string {
	return filepath.Join(envOr("GEMINI_CLI_HOME", home), ".gemini")
}

// geminiTrustProblem says why Gemini CLI (0.61.0) would not load the project hooks of dir:
// it loads a workspace's .gemini/settings.json hooks only in a trusted folder. Trust comes,
// in Gemini's order, from GEMINI_CLI_TRUST_WORKSPACE=true (false, or
// GEMINI_RESTRICTED_MODE=true, distrusts), from the folder trust feature being off
// (security.folderTrust.enabled = false in the user's settings), or from the rule in
// trustedFolders.json ($GEMINI_CLI_TRUSTED_FOLDERS_PATH, else ~/.gemini/) with the longest
// path that holds dir: TRUST_FOLDER (the path itself), TRUST_PARENT (its parent) or
// DO_NOT_TRUST.
func geminiTrustProblem(dir, home string) (Problem, bool) {
	switch {
	case os.Getenv("GEMINI_RESTRICTED_MODE") == "true" || os.Getenv("GEMINI_CLI_TRUST_WORKSPACE") == "false":
		return Problem{
			Why: "GEMINI_RESTRICTED_MODE=true or GEMINI_CLI_TRUST_WORKSPACE=false makes Gemini CLI trust no folder, so it ignores the project's hooks",
			Fix: "unset it, or use `git loop install gemini --user`",
		}, true
	case os.Getenv("GEMINI_CLI_TRUST_WORKSPACE") == "true":
		return Problem{}, false
	}
	var settings struct {
		Security struct {
			FolderTrust struct {
				Enabled *bool `json:"enabled"`
			} `json:"folderTrust"`
		} `json:"security"`
	}
	if _, err := fileedit.ReadJSONC(filepath.Join(geminiDir(home), "settings.json"), &settings); err == nil {
		if e := settings.Security.FolderTrust.Enabled; e != nil && !*e {
			return Problem{}, false
		}
	}
	path := os.Getenv("GEMINI_CLI_TRUSTED_FOLDERS_PATH")
	if path == "" {
		path = filepath.Join(geminiDir(home), "trustedFolders.json")
	}
	var rules map[string]any
	if _, err := fileedit.ReadJSONC(path, &rules); err != nil {
		return Problem{Why: fmt.Sprintf("Gemini CLI cannot read %s (%v) and refuses to start", path, err), Fix: "fix it by hand"}, true
	}
	level, longest := "", -1
	where := physical(dir)
	for rule, v := range rules {
		l, _ := v.(string)
		effective := rule
		switch l {
		case "TRUST_PARENT":
			effective = filepath.Dir(rule)
		case "TRUST_FOLDER", "DO_NOT_TRUST":
		default:
			return Problem{
				Why: fmt.Sprintf("Gemini CLI refuses to start: %s gives %s the trust level %q, not TRUST_FOLDER, TRUST_PARENT or DO_NOT_TRUST", path, rule, l),
				Fix: "fix it by hand",
			}, true
		}
		if within(where, physical(effective)) && len(rule) > longest {
			level, longest = l, len(rule)
		}
	}
	fix := fmt.Sprintf("add %q: \"TRUST_FOLDER\" to %s (or trust the folder in an interactive gemini), set GEMINI_CLI_TRUST_WORKSPACE=true for headless runs, or use `git loop install gemini --user`", where, path)
	switch level {
	case "TRUST_FOLDER", "TRUST_PARENT":
		return Problem{}, false
	case "DO_NOT_TRUST":
		return Problem{Why: fmt.Sprintf("%s says DO_NOT_TRUST for %s, so Gemini CLI ignores the project's hooks (and a headless run exits 55)", path, dir), Fix: fix}, true
	}
	return Problem{Why: fmt.Sprintf("Gemini CLI runs a project's hooks only in a trusted folder, and %s does not trust %s (a headless run there exits 55; with --skip-trust it runs without the project's hooks)", path, dir), Fix: fix}, true
}

// copilotTrustProblem says why Copilot CLI (1.0.102) would not load the project hooks of
// dir: it loads .github/hooks/*.json only in a trusted folder, one listed (or under one
// listed) in trustedFolders of $COPILOT_HOME/config.json, or for one run with --trust-folder
// or COPILOT_ALLOW_ALL=true (exactly "true": its other true spellings do not trust).
func copilotTrustProblem(dir, home string) (Problem, bool) {
	if os.Getenv("COPILOT_ALLOW_ALL") == "true" {
		return Problem{}, false
	}
	cfgPath := filepath.Join(envOr("COPILOT_HOME", filepath.Join(home, ".copilot")), "config.json")
	var cfg struct {
		TrustedFolders []string `json:"trustedFolders"`
	}
	if _, err := fileedit.ReadJSONC(cfgPath, &cfg); err != nil {
		return Problem{Why: fmt.Sprintf("git-loop cannot read %s (%v)", cfgPath, err), Fix: "fix it by hand"}, true
	}
	where := physical(dir)
	for _, f := range cfg.TrustedFolders {
		if within(where, physical(f)) {
			return Problem{}, false
		}
	}
	return Problem{
		Why: fmt.Sprintf("Copilot CLI runs a project's hooks only in a trusted folder, and %s is not in trustedFolders of %s", dir, cfgPath),
		Fix: fmt.Sprintf("run copilot with --trust-folder (or COPILOT_ALLOW_ALL=true), add %q to trustedFolders in %s, or use `git loop install copilot --user`", where, cfgPath),
	}, true
}

// within reports whether path is dir or inside it.
func within(path, dir string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// readIfExists reads path; a missing file is nil and no error.
func readIfExists(path string) ([]byte, error) {
	doc, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return doc, err
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
