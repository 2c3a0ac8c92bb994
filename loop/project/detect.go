package project

import (
	"encoding/json"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/git-loop/git-loop/loop/gates"
)

// Languages git loop init recognises.
const (
	langGo     = "go"
	langRust   = "rust"
	langNode   = "node"
	langPython = "python"
)

// detectDepth is how many directory levels below the root are searched for projects.
const detectDepth = 4

// skipDirs are directories never searched: dependencies, build output, fixtures.
var skipDirs = map[string]bool{"vendor": true, "node_modules": true, "testdata": true, "target": true, "dist": true,
	"build": true, "out": true, "__pycache__": true, "venv": true, "env": true, "site-packages": true}

// Project is one project found by its marker files: its directory relative to the root
// ("" for the root itself, slash-separated), its language and its gates, in order.
type Project struct {
	Dir   string       `json:"dir"`
	Lang  string       `json:"language"`
	Gates []gates.Gate `json:"gates"`
	// Workspace is set when the project's commands also cover projects below it (go.work,
	// npm, yarn or pnpm workspaces).
	Workspace bool `json:"-"`
}

// detectProjects finds the Go, Rust, Node and Python projects at root and in its
// subdirectories (skipping hidden directories, vendor, node_modules, testdata and build
// output), and proposes gates for each. A project inside another of the same language is
// covered by it and left out (a Cargo workspace, a Python package tree, an npm workspace),
// except Go modules, which `go test ./...` does not cross, unless a go.work joins them.
func detectProjects(root string) ([]Project, error) {
	var found []Project
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == root {
				return err
			}
			return nil // an unreadable subdirectory is not a project
		}
		if !d.IsDir() {
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if rel == "." {
			rel = ""
		} else if strings.HasPrefix(d.Name(), ".") || strings.ContainsAny(rel, "\n\r\x00") || skipDirs[d.Name()] || strings.Count(rel, "/") >= detectDepth {
			return filepath.SkipDir
		}
		for _, lang := range []string{langGo, langRust, langNode, langPython} {
			if coveredBy(found, lang, rel) {
				continue
			}
			if proj := detectProject(lang, p); proj != nil {
				proj.Dir = rel
				found = append(found, *proj)
			}
		}
		return nil
	})
	sort.SliceStable(found, func(i, j int) bool { return found[i].Dir < found[j].Dir })
	return found, err
}

// coveredBy reports whether a project of lang in an ancestor of dir already runs dir's code.
func coveredBy(found []Project, lang, dir string) bool {
	for _, p := range found {
		if p.Lang != lang || !(p.Dir == "" || strings.HasPrefix(dir+"/", p.Dir+"/")) {
			continue
		}
		if p.Workspace || (lang != langGo && lang != langNode) {
			return true
		}
	}
	return false
}

// detectProject proposes gates for a project of lang in dir, or nil when dir has none.
func detectProject(lang, dir string) *Project {
	switch lang {
	case langGo:
		return goProject(dir)
	case langRust:
		return rustProject(dir)
	case langNode:
		return nodeProject(dir)
	}
	return pythonProject(dir)
}

func exists(dir string, names ...string) bool {
	for _, n := range names {
		if _, err := os.Stat(filepath.Join(dir, n)); err == nil {
			return true
		}
	}
	return false
}

// readSmall reads a marker file, at most 1 MiB of it ("" when unreadable).
func readSmall(dir, name string) string {
	f, err := os.Open(filepath.Join(dir, name))
	if err != nil {
		return ""
	}
	defer f.Close()
	buf := make([]byte, 1<<20)
	n, _ := f.Read(buf)
	return string(buf[:n])
}

func goProject(dir string) *Project {
	if !exists(dir, "go.mod", "go.work") {
		return nil
	}
	return &Project{Lang: langGo, Workspace: exists(dir, "go.work"), Gates: []gates.Gate{
		{Name: "build", Run: "go build ./..."},
		{Name: "vet", Run: "go vet ./..."},
		{Name: "test", Run: "go test -cover ./..."},
	}}
}

func rustProject(dir string) *Project {
	manifest := readSmall(dir, "Cargo.toml")
	if manifest == "" {
		return nil
	}
	all := ""
	if strings.Contains(manifest, "[workspace]") {
		all = " --workspace"
	}
	return &Project{Lang: langRust, Gates: []gates.Gate{
		{Name: "build", Run: "cargo build" + all + " --all-targets"},
		{Name: "lint", Run: "cargo clippy" + all + " --all-targets -- -D warnings"},
		{Name: "test", Run: "cargo test" + all},
	}}
}

// npmDefaultTest is the test script `npm init` writes, which only fails.
const npmDefaultTest = `echo "Error: no test specified" && exit 1`

func nodeProject(dir string) *Project {
	data := readSmall(dir, "package.json")
	if data == "" {
		return nil
	}
	var pkg struct {
		Scripts         map[string]string `json:"scripts"`
		Dependencies    map[string]string `json:"dependencies"`
		DevDependencies map[string]string `json:"devDependencies"`
		Workspaces      json.RawMessage   `json:"workspaces"`
	}
	if json.Unmarshal([]byte(data), &pkg) != nil {
		return nil
	}
	pm := "npm"
	switch {
	case exists(dir, "pnpm-lock.yaml"):
		pm = "pnpm"
	case exists(dir, "yarn.lock"):
		pm = "yarn"
	case exists(dir, "bun.lockb", "bun.lock"):
		pm = "bun"
	}
	has := func(dep string) bool { _, a := pkg.Dependencies[dep]; _, b := pkg.DevDependencies[dep]; return a || b }
	var gs []gates.Gate
	for _, script := range []struct{ name, gate string }{{"build", "build"}, {"typecheck", "typecheck"}, {"lint", "lint"}} {
		if pkg.Scripts[script.name] != "" {
			gs = append(gs, gates.Gate{Name: script.gate, Run: pm + " run " + script.name})
		}
	}
	switch test := strings.TrimSpace(pkg.Scripts["test"]); {
	case test != "" && test != npmDefaultTest:
		gs = append(gs, gates.Gate{Name: "test", Run: pm + " run test"})
	case has("vitest"):
		gs = append(gs, gates.Gate{Name: "test", Run: "npx vitest run"})
	case has("jest"):
		gs = append(gs, gates.Gate{Name: "test", Run: "npx jest --ci"})
	}
	if len(gs) == 0 {
		return nil // a package.json with nothing to run (tooling only)
	}
	return &Project{Lang: langNode, Gates: gs, Workspace: len(pkg.Workspaces) > 0 || exists(dir, "pnpm-workspace.yaml")}
}

func pythonProject(dir string) *Project {
	markers := []string{"pyproject.toml", "setup.py", "setup.cfg", "pytest.ini", "tox.ini", "requirements.txt", "requirements-dev.txt"}
	if !exists(dir, markers...) {
		return nil
	}
	var all strings.Builder
	for _, m := range markers {
		all.WriteString(readSmall(dir, m))
	}
	text := all.String()
	var gs []gates.Gate
	switch {
	case strings.Contains(text, "[tool.ruff") || exists(dir, "ruff.toml", ".ruff.toml"):
		gs = append(gs, gates.Gate{Name: "lint", Run: "ruff check ."})
	case strings.Contains(text, "[flake8]") || exists(dir, ".flake8"):
		gs = append(gs, gates.Gate{Name: "lint", Run: "python3 -m flake8"})
	}
	test := gates.Gate{Name: "test", Run: "python3 -m pytest"}
	if strings.Contains(text, "pytest-cov") {
		test.Run += " --cov --cov-report=term"
	}
	return &Project{Lang: langPython, Gates: append(gs, test)}
}

// gateName is a project's gate name: the gate's own name at the root, DIR/NAME below it,
// with the language in front when two projects share a directory.
func gateName(p Project, name string, shared bool) string {
	if shared {
		name = p.Lang + "-" + name
	}
	if p.Dir == "" {
		return name
	}
	return path.Join(p.Dir, name)
}
