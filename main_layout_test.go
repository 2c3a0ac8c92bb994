package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// sharedFiles are the CLI's files every main_*.go file may use: the app's assembly
// (main.go), the plumbing several commands share (main_cli.go) and the rendering of help
// (main_help.go). See CONTRIBUTING.md, "Adding things".
var sharedFiles = []string{"main.go", "main_cli.go", "main_help.go"}

// TestCommandFilesStandAlone keeps one command to a file: a main_*.go file (a command's, or
// the man page's) uses, of the identifiers this package declares, only its own and those of
// sharedFiles, never another command file's. A helper a second command needs moves to
// main_cli.go. main.go, which lists the commands, may use them all.
func TestCommandFilesStandAlone(t *testing.T) {
	uses, err := crossFileUses(".")
	if err != nil {
		t.Fatal(err)
	}
	plumbing := 0
	for file, decls := range uses {
		if file != "main_cli.go" {
			plumbing += len(decls["main_cli.go"])
		}
	}
	if plumbing == 0 {
		t.Fatal("no file uses main_cli.go's identifiers, which every command does: the check has gone blind")
	}
	for _, file := range slices.Sorted(maps.Keys(uses)) {
		if !strings.HasPrefix(file, "main_") {
			continue // main.go puts the commands together; doc.go declares nothing
		}
		for _, decl := range slices.Sorted(maps.Keys(uses[file])) {
			if decl == file || slices.Contains(sharedFiles, decl) {
				continue
			}
			for _, name := range uses[file][decl] {
				t.Errorf("%s uses %s, declared in %s: a main_*.go file uses only its own identifiers and those of %s (move a helper two commands share to main_cli.go)",
					file, name, decl, strings.Join(sharedFiles, ", "))
			}
		}
	}
}

// crossFileUses type-checks the package in dir (its non-test files) and returns, for each
// file, the package-level identifiers it uses, by the file that declares them:
// uses[file][decl] are names, sorted. Imports are not read: the type errors that leaves
// (every use of an imported package) are ignored, and the package's own identifiers still
// resolve, in every expression.
func crossFileUses(dir string) (map[string]map[string][]string, error) {
	names, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return nil, err
	}
	fset := token.NewFileSet()
	var files []*ast.File
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		if f.Name.Name == "main" {
			files = append(files, f)
		}
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("no package main in %s", dir)
	}
	info := &types.Info{Uses: map[*ast.Ident]types.Object{}}
	conf := types.Config{Importer: noImports{}, Error: func(error) {}}
	pkg, _ := conf.Check("main", fset, files, info)
	seen := map[string]map[string]map[string]bool{}
	for id, obj := range info.Uses {
		if obj.Pkg() != pkg || obj.Parent() != pkg.Scope() {
			continue // not one of the package's own top-level identifiers
		}
		file, decl := filepath.Base(fset.File(id.Pos()).Name()), filepath.Base(fset.File(obj.Pos()).Name())
		if seen[file] == nil {
			seen[file] = map[string]map[string]bool{}
		}
		if seen[file][decl] == nil {
			seen[file][decl] = map[string]bool{}
		}
		seen[file][decl][obj.Name()] = true
	}
	uses := map[string]map[string][]string{}
	for file, decls := range seen {
		uses[file] = map[string][]string{}
		for decl, names := range decls {
			uses[file][decl] = slices.Sorted(maps.Keys(names))
		}
	}
	return uses, nil
}

// noImports reads no imported package: crossFileUses needs only the package's own
// identifiers, and reading the imports would mean building them.
type noImports struct{}

func (noImports) Import(path string) (*types.Package, error) {
	return nil, fmt.Errorf("%s: not read", path)
}
