package main

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// allowedImports is the one-way dependency order of ARCHITECTURE.md, as the packages each may
// import from one another:
//
//	main → hooks → hooks/agents → each agent's package → hooks/kit
//	     → the commands over loops (driver, importer, project, report, review, share)
//	     → loop, the engine → loop/gates, the gate runner → its leaves (spec, diag)
//	     → snapshots → gitstore
//
// The engine imports none of the packages that only start, read or present loops: it is
// handed report.Files as a function, never imports it. internal/textutil (text helpers) is a
// leaf any package may use, main included; internal/wildmatch (git's wildmatch) one the
// gitignore matcher and gitstore's includeIf use; internal/manpage is the manual page main
// installs. The CLI reaches gitstore only through the packages.
var allowedImports = map[string][]string{
	".":                {"hooks", "internal/manpage", "internal/textutil", "loop", "loop/driver", "loop/gates", "loop/importer", "loop/project", "loop/report", "loop/review", "loop/share", "loop/spec"},
	"internal/manpage": {},
	"hooks":            {"hooks/agents", "hooks/agents/claude", "hooks/kit"},
	"hooks/fileedit":   {},
	"hooks/sessionlog": {"loop"},
	"hooks/realagents": {},
	// The list of the agents (and each agent's package, hooks/agents/NAME: see agentImports).
	"hooks/agents": {agentPackage, "hooks/kit"},
	"hooks/kit":    {"hooks/fileedit", "hooks/sessionlog", "loop", "loop/report"},

	"hooks/sessionlog/logtest": {"hooks/sessionlog"},

	"loop/driver":   {"loop", "loop/gates", "loop/report", "loop/spec", "internal/textutil", "gitstore"},
	"loop/importer": {"loop", "loop/gates", "loop/review", "internal/textutil"},
	"loop/project":  {"loop", "loop/gates", "internal/textutil", "gitstore"},
	"loop/report":   {"loop", "loop/checks", "loop/diag", "loop/gates", "loop/spec", "internal/textutil", "gitstore"},
	"loop/review":   {"loop", "loop/checks", "loop/gates", "internal/textutil", "gitstore"},
	"loop/share":    {"loop", "internal/textutil", "gitstore"},

	"loop": {"loop/checks", "loop/diag", "loop/gates", "loop/judge", "loop/spec", "internal/textutil", "snapshots", "gitstore"},

	// The gate runner: it knows neither loops nor git.
	"loop/gates": {"loop/diag", "internal/textutil"},

	"loop/checks": {},

	"loop/spec":              {"internal/textutil"},
	"loop/diag":              {"internal/textutil"},
	"loop/judge":             {},
	"internal/textutil":      {},
	"internal/wildmatch":     {},
	"loop/internal/looptest": {},
	"snapshots":              {"snapshots/ignore", "gitstore"},
	"snapshots/ignore":       {"internal/wildmatch"},
	"gitstore":               {"internal/wildmatch"}, // for includeIf
}

// agentPackage stands for every agent's package, hooks/agents/NAME, each a plug-in: adding
// an agent adds no line here. What one may import is agentImports: the kit, the
// session-log reader, the file editors and the engine (and the report package's file
// writing), never another agent nor hooks itself.
const agentPackage = "hooks/agents/NAME"

var agentImports = []string{"hooks/fileedit", "hooks/kit", "hooks/sessionlog", "loop", "loop/report"}

// allowedFor is what package pkg may import: its line in allowedImports, or agentImports for
// an agent's package. An entry agentPackage allows every agent's package.
func allowedFor(pkg string) ([]string, bool) {
	if isAgentPackage(pkg) {
		return agentImports, true
	}
	allowed, ok := allowedImports[pkg]
	return allowed, ok
}

// isAgentPackage reports whether pkg is an agent's package, hooks/agents/NAME.
func isAgentPackage(pkg string) bool {
	name, ok := strings.CutPrefix(pkg, "hooks/agents/")
	return ok && name != "" && !strings.Contains(name, "/")
}

// allows reports whether allowed lets a package import imp.
func allows(allowed []string, imp string) bool {
	return contains(allowed, imp) || (contains(allowed, agentPackage) && isAgentPackage(imp))
}

// TestLayering fails when a package's non-test files import a package of this module that
// the dependency order does not allow.
func TestLayering(t *testing.T) {
	const module = "github.com/git-loop/git-loop"
	dirs, _ := filepath.Glob("hooks/agents/*")
	for dir := range allowedImports {
		dirs = append(dirs, dir)
	}
	for _, dir := range dirs {
		dir = filepath.ToSlash(dir)
		allowed, ok := allowedFor(dir)
		if !ok {
			continue
		}
		for _, imp := range moduleImports(t, dir, module) {
			if !allows(allowed, imp) {
				t.Errorf("package %s imports %s; it may import only %v (see allowedImports)", dir, imp, allowed)
			}
		}
	}
}

// moduleImports lists the module-relative imports of the non-test Go files in dir.
func moduleImports(t *testing.T, dir, module string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		parsed, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, spec := range parsed.Imports {
			path, _ := strconv.Unquote(spec.Path.Value)
			if rel, ok := strings.CutPrefix(path, module+"/"); ok {
				seen[rel] = true
			}
		}
	}
	var out []string
	for p := range seen {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// TestLayeringCoversEveryPackage keeps allowedImports in step with the packages on disk.
func TestLayeringCoversEveryPackage(t *testing.T) {
	err := filepath.WalkDir(".", func(path string, d os.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		if name := d.Name(); path != "." && (strings.HasPrefix(name, ".") || name == "testdata") {
			return filepath.SkipDir
		}
		if goFiles, _ := filepath.Glob(filepath.Join(path, "*.go")); len(goFiles) > 0 {
			if _, ok := allowedFor(filepath.ToSlash(path)); !ok {
				t.Errorf("package %s is not in allowedImports; add it with the packages it may import", path)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
