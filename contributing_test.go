package main

import (
	"os"
	"os/exec"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// TestContributingPackageMap keeps CONTRIBUTING.md's package map true: it lists exactly the
// packages `go list ./...` finds (one row, hooks/agents/NAME, standing for every agent's
// package), and each row's "may import" column is what allowedImports (and so TestLayering)
// enforces.
func TestContributingPackageMap(t *testing.T) {
	guide, err := os.ReadFile("CONTRIBUTING.md")
	if err != nil {
		t.Fatal(err)
	}
	rows := packageMapRows(string(guide))
	if len(rows) == 0 {
		t.Fatal("CONTRIBUTING.md has no package map (rows like | `loop` | job | `gitstore` |)")
	}
	out, err := exec.Command("go", "list", "./...").Output()
	if err != nil {
		t.Fatalf("go list ./...: %v", err)
	}
	const module = "github.com/git-loop/git-loop"
	var listed, mapped []string
	for _, p := range strings.Fields(string(out)) {
		if rel, ok := strings.CutPrefix(p, module+"/"); ok {
			listed = append(listed, rel)
		} else if p == module {
			listed = append(listed, ".")
		}
	}
	for pkg, imports := range rows {
		if pkg != agentPackage {
			mapped = append(mapped, pkg)
		}
		allowed, _ := allowedFor(pkg)
		want := append([]string(nil), allowed...)
		sort.Strings(want)
		if !reflect.DeepEqual(imports, want) && !(len(imports) == 0 && len(want) == 0) {
			t.Errorf("CONTRIBUTING.md: %s may import %v; allowedImports says %v", pkg, imports, want)
		}
	}
	// The row of agentPackage stands for every agent's package.
	if _, ok := rows[agentPackage]; ok {
		for _, p := range listed {
			if isAgentPackage(p) {
				mapped = append(mapped, p)
			}
		}
	}
	sort.Strings(listed)
	sort.Strings(mapped)
	if !reflect.DeepEqual(listed, mapped) {
		t.Errorf("CONTRIBUTING.md's package map lists %v;\ngo list ./... finds %v", mapped, listed)
	}
}

// packageMapRows reads the guide's table: the package of each row, and the packages its
// last column names, sorted.
func packageMapRows(guide string) map[string][]string {
	row := regexp.MustCompile("(?m)^\\| `([^`]+)` \\|.*\\| ([^|]*) \\|$")
	code := regexp.MustCompile("`([^`]+)`")
	rows := map[string][]string{}
	for _, m := range row.FindAllStringSubmatch(guide, -1) {
		var imports []string
		for _, c := range code.FindAllStringSubmatch(m[2], -1) {
			imports = append(imports, c[1])
		}
		sort.Strings(imports)
		rows[m[1]] = imports
	}
	return rows
}
