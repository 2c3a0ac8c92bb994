package project

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/git-loop/git-loop/internal/textutil"
	"github.com/git-loop/git-loop/loop"
	"github.com/git-loop/git-loop/loop/gates"
)

// InitOptions are the inputs of Init.
type InitOptions struct {
	Dir    string // the worktree's top directory, where .gitloop goes
	Force  bool   // replace an existing .gitloop
	DryRun bool   // return the file without writing it
	// Coverage, when above 0, makes each test gate that measures coverage (Go; Python with
	// pytest-cov) require coverage >= Coverage.
	Coverage float64
}

// InitResult is what Init found and wrote.
type InitResult struct {
	Projects []Project `json:"projects"`
	Path     string    `json:"path,omitempty"` // the file written; "" on a dry run
	Text     string    `json:"text"`
}

// ErrInitExists means .gitloop exists and --force was not given.
var ErrInitExists = errors.New(".gitloop already exists")

// Init detects the projects under opts.Dir and writes a .gitloop with gates for each.
func Init(opts InitOptions) (*InitResult, error) {
	path := filepath.Join(opts.Dir, ".gitloop")
	if _, err := os.Stat(path); err == nil && !opts.Force && !opts.DryRun {
		return nil, fmt.Errorf("%w: %w at %s; pass --force to replace it, or --dry-run to print the proposal", loop.ErrConfig, ErrInitExists, path)
	}
	projects, err := detectProjects(opts.Dir)
	if err != nil {
		return nil, fmt.Errorf("init: look for projects in %s: %w", opts.Dir, err)
	}
	if len(projects) == 0 {
		return nil, fmt.Errorf("%w: no Go, Rust, Node or Python project found in %s (looked for go.mod, Cargo.toml, package.json with scripts, pyproject.toml, setup.py, pytest.ini, requirements.txt); write .gitloop by hand or give gates to `git loop start --gate NAME=CMD`", loop.ErrConfig, opts.Dir)
	}
	if opts.Coverage > 0 {
		if err := requireCoverage(projects, opts.Coverage); err != nil {
			return nil, err
		}
	}
	res := &InitResult{Projects: projects, Text: renderGitloop(projects)}
	if opts.DryRun {
		return res, nil
	}
	if err := os.WriteFile(path, []byte(res.Text), 0o666); err != nil {
		return nil, fmt.Errorf("init: write %s: %w", path, err)
	}
	res.Path = path
	return res, nil
}

// requireCoverage adds `coverage >= min` to the test gates whose output shows coverage.
func requireCoverage(projects []Project, min float64) error {
	if min > 100 {
		return fmt.Errorf("%w: --coverage %v: coverage is a percentage, at most 100", loop.ErrConfig, min)
	}
	added := false
	for i := range projects {
		for j, g := range projects[i].Gates {
			if g.Name == "test" && (strings.Contains(g.Run, "-cover") || strings.Contains(g.Run, "--cov")) {
				projects[i].Gates[j].Require = append(g.Require, "coverage >= "+strconv.FormatFloat(min, 'f', -1, 64))
				added = true
			}
		}
	}
	if !added {
		return fmt.Errorf("%w: --coverage: no detected test gate measures coverage (Go does; Python with pytest-cov does); leave it out and add `require = coverage >= N` to a gate that prints coverage", loop.ErrConfig)
	}
	return nil
}

// renderGitloop writes projects' gates as a .gitloop file in git-config syntax: one
// [gate "NAME"] section per gate, project by project; below the root, commands start with
// `cd DIR &&` and names with DIR/.
func renderGitloop(projects []Project) string {
	var b strings.Builder
	var found []string
	perDir := map[string]int{}
	for _, p := range projects {
		perDir[p.Dir]++
		where := "the root"
		if p.Dir != "" {
			where = p.Dir
		}
		found = append(found, fmt.Sprintf("%s in %s", langTitle(p.Lang), where))
	}
	b.WriteString("# Gates for git loop, written by `git loop init`: " + strings.Join(found, ", ") + ".\n")
	b.WriteString("# They run in this order (the order is the layer); each passes by exiting 0.\n")
	b.WriteString("# A gate may also require a figure from its output, e.g. `require = coverage >= 85`.\n")
	for _, p := range projects {
		for _, g := range p.Gates {
			run := g.Run
			if p.Dir != "" {
				run = "cd " + shellQuote(p.Dir) + " && " + run
			}
			fmt.Fprintf(&b, "[gate %s]\n\trun = %s\n", configSubsection(gateName(p, g.Name, perDir[p.Dir] > 1)), configValue(run))
			for _, r := range g.Require {
				fmt.Fprintf(&b, "\trequire = %s\n", configValue(r))
			}
		}
	}
	return b.String()
}

func langTitle(lang string) string {
	switch lang {
	case langGo:
		return "Go"
	case langRust:
		return "Rust"
	case langNode:
		return "Node"
	}
	return "Python"
}

// configSubsection quotes a subsection name as git config writes it.
func configSubsection(name string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(name) + `"`
}

// configValue quotes a value when git would otherwise read part of it as a comment or
// trim it, and escapes backslashes and double quotes.
func configValue(v string) string {
	esc := strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(v)
	if strings.ContainsAny(v, "#;") || strings.TrimSpace(v) != v {
		return `"` + esc + `"`
	}
	return esc
}

// shellQuote quotes a directory for sh when it holds anything but plain path characters.
func shellQuote(s string) string {
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("_./-+@", c)) {
			return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
		}
	}
	return s
}

// PrintInit shows the file on a dry run, else what was found and where it was written.
func PrintInit(w io.Writer, res *InitResult, asJSON bool) error {
	if asJSON {
		return textutil.WriteJSON(w, res)
	}
	if res.Path == "" {
		_, err := io.WriteString(w, res.Text)
		return err
	}
	for _, p := range res.Projects {
		dir := p.Dir
		if dir == "" {
			dir = "."
		}
		fmt.Fprintf(w, "found a %s project in %s: gates %s\n", langTitle(p.Lang), dir, gateNames(p.Gates))
	}
	fmt.Fprintf(w, "wrote %s; start a loop with `git loop start -p TASK`\n", res.Path)
	return nil
}

func gateNames(gs []gates.Gate) string {
	names := make([]string, len(gs))
	for i, g := range gs {
		names[i] = g.Name
	}
	return strings.Join(names, ", ")
}
