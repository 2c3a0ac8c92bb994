package hooks

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/git-loop/git-loop/hooks/agents"
	"github.com/git-loop/git-loop/hooks/kit"
)

// TestRegistryAgreesWithHookFiles: each listed agent is whole (its files, start command,
// timeout key and unit, a handler for every event), its hook file names its own product,
// and the hooks install writes run its own events (so dispatch knows every command install
// writes).
func TestRegistryAgreesWithHookFiles(t *testing.T) {
	seen := map[string]bool{}
	for _, a := range agents.All {
		if a.Name == "" || seen[a.Name] {
			t.Errorf("agent %q: a name, and a name of its own, please", a.Name)
		}
		seen[a.Name] = true
		if a.File.Product != a.Product {
			t.Errorf("%s: its hook file names %q, want its own product %q", a.Name, a.File.Product, a.Product)
		}
		if a.ProjectFile == nil || a.UserFile == nil {
			t.Errorf("%s: no project or user hook file", a.Name)
		}
		if a.Command == "" || a.TimeoutKey == "" || a.TimeoutUnit <= 0 {
			t.Errorf("%s: start command %q, timeout key %q, unit %v: want all three", a.Name, a.Command, a.TimeoutKey, a.TimeoutUnit)
		}
		var events []string
		for _, e := range a.Events {
			if e.Run == nil {
				t.Errorf("%s %s: no handler", a.Name, e.Name)
			}
			events = append(events, e.Name)
		}
		for _, h := range a.File.Hooks {
			agent, event, ok := kit.GitLoopHookArgs(h.Command)
			if !ok || agent != a.Name || !slices.Contains(events, event) {
				t.Errorf("%s: install writes %q, which is not one of its events %v", a.Name, h.Command, events)
			}
		}
	}
	if got := Agents(); got[0] != "claude" || !slices.IsSorted(got[1:]) {
		t.Errorf("Agents() = %v, want claude first, then the others by name", got)
	}
}

// TestNoAgentSwitchOutsideItsFiles: in the module's code (tests aside), an agent's name is
// compared (`== "codex"`, `case "codex":`) only inside that agent's own package,
// hooks/agents/NAME, so that adding an agent means adding its package and its line in the
// list (hooks/agents), nothing else.
func TestNoAgentSwitchOutsideItsFiles(t *testing.T) {
	root := ".."
	names := Agents()
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != root && (name == "testdata" || strings.HasPrefix(name, ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
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
				if slices.Contains(names, agent) && !strings.HasPrefix(rel, "hooks/agents/"+agent+"/") {
					t.Errorf("%s: compares with agent %q outside its package; put it in hooks/agents/%s", fset.Position(lit.Pos()), agent, agent)
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
