package hooks

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestRegistryAgreesWithHookFiles: each registry entry's hook file is the agent's own and
// says the same product, every event has a handler, and the hooks install writes are the
// entry's events (so dispatch knows every command install writes).
func TestRegistryAgreesWithHookFiles(t *testing.T) {
	for _, spec := range registry {
		if spec.file.agent != spec.name || spec.file.product != spec.product {
			t.Errorf("%s: its hook file is %s's (%q), want its own (%q)", spec.name, spec.file.agent, spec.file.product, spec.product)
		}
		if spec.projectFile == nil || spec.userFile == nil {
			t.Errorf("%s: no project or user hook file", spec.name)
		}
		if spec.command == "" || spec.timeoutKey == "" || spec.timeoutUnit <= 0 {
			t.Errorf("%s: start command %q, timeout key %q, unit %v: want all three", spec.name, spec.command, spec.timeoutKey, spec.timeoutUnit)
		}
		var events []string
		for _, e := range spec.events {
			if e.run == nil {
				t.Errorf("%s %s: no handler", spec.name, e.name)
			}
			events = append(events, e.name)
		}
		for _, h := range spec.file.hooks {
			agent, event, ok := gitLoopHookArgs(h.command)
			if !ok || agent != spec.name || !slices.Contains(events, event) {
				t.Errorf("%s: install writes %q, which is not one of its events %v", spec.name, h.command, events)
			}
		}
	}
	if got := Agents(); got[0] != "claude" || !slices.IsSorted(got[1:]) {
		t.Errorf("Agents() = %v, want claude first, then the others by name", got)
	}
}

// TestNoAgentSwitchOutsideItsFiles: outside the registry, an agent's name is compared
// (`== "codex"`, `case "codex":`) only in that agent's own files (whose names carry it), so
// that adding an agent means adding its files and its registry entry, nothing else.
func TestNoAgentSwitchOutsideItsFiles(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") || name == "registry.go" {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			var lits []ast.Expr
			switch n := n.(type) {
			case *ast.BinaryExpr:
				if n.Op == token.EQL || n.Op == token.NEQ {
					lits = []ast.Expr{n.X, n.Y}
				}
			case *ast.CaseClause:
				lits = n.List
			}
			for _, e := range lits {
				lit, ok := e.(*ast.BasicLit)
				if !ok || lit.Kind != token.STRING {
					continue
				}
				agent, _ := strconv.Unquote(lit.Value)
				if slices.Contains(Agents(), agent) && !strings.Contains(name, agent) {
					t.Errorf("%s: compares with agent %q outside that agent's files; put it in its registry entry (registry.go) or its own file", fset.Position(lit.Pos()), agent)
				}
			}
			return true
		})
	}
}
