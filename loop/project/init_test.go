package project

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/git-loop/git-loop/gitstore"
	"github.com/git-loop/git-loop/loop"
	"github.com/git-loop/git-loop/loop/gates"
)

// writeTree creates files (path → content) under dir.
func writeTree(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, text := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o777); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o666); err != nil {
			t.Fatal(err)
		}
	}
}

func TestDetectProjects(t *testing.T) {
	for _, tc := range []struct {
		name  string
		files map[string]string
		want  []string // "dir lang: gate=run, …"
	}{
		{"go module", map[string]string{"go.mod": "module x\n"},
			[]string{" go: build=go build ./..., vet=go vet ./..., test=go test -cover ./..."}},
		{"rust workspace covers its members", map[string]string{"Cargo.toml": "[workspace]\nmembers = [\"a\"]\n", "a/Cargo.toml": "[package]\n"},
			[]string{" rust: build=cargo build --workspace --all-targets, lint=cargo clippy --workspace --all-targets -- -D warnings, test=cargo test --workspace"}},
		{"node scripts and pnpm", map[string]string{"package.json": `{"scripts":{"build":"tsc","lint":"eslint .","test":"vitest"}}`, "pnpm-lock.yaml": ""},
			[]string{" node: build=pnpm run build, lint=pnpm run lint, test=pnpm run test"}},
		{"node default test script, jest dependency", map[string]string{"package.json": `{"scripts":{"test":"echo \"Error: no test specified\" && exit 1"},"devDependencies":{"jest":"^29"}}`},
			[]string{" node: test=npx jest --ci"}},
		{"node tooling only is no project", map[string]string{"package.json": `{"devDependencies":{"prettier":"3"}}`}, nil},
		{"python with ruff and pytest-cov", map[string]string{"pyproject.toml": "[tool.ruff]\n[project.optional-dependencies]\ndev = [\"pytest-cov\"]\n"},
			[]string{" python: lint=ruff check ., test=python3 -m pytest --cov --cov-report=term"}},
		{"python requirements, flake8", map[string]string{"requirements.txt": "requests\n", ".flake8": "[flake8]\n"},
			[]string{" python: lint=python3 -m flake8, test=python3 -m pytest"}},
		{"monorepo, skipping dependencies and hidden dirs", map[string]string{
			"go.mod": "module x\n", "web/package.json": `{"scripts":{"test":"jest"}}`, "tools/gen/go.mod": "module gen\n",
			"web/node_modules/dep/package.json": `{"scripts":{"test":"x"}}`, ".cache/go.mod": "module c\n", "vendor/v/go.mod": "module v\n",
			"testdata/fixture/go.mod": "module f\n", "svc/api/pyproject.toml": "", "svc/api/pkg/setup.py": ""},
			[]string{" go: build=go build ./..., vet=go vet ./..., test=go test -cover ./...",
				"svc/api python: test=python3 -m pytest",
				"tools/gen go: build=go build ./..., vet=go vet ./..., test=go test -cover ./...",
				"web node: test=npm run test"}},
		{"go.work covers nested modules", map[string]string{"go.work": "go 1.22\n", "a/go.mod": "module a\n"},
			[]string{" go: build=go build ./..., vet=go vet ./..., test=go test -cover ./..."}},
		{"nothing", map[string]string{"README.md": "hi"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			writeTree(t, dir, tc.files)
			projects, err := detectProjects(dir)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, p := range projects {
				var gates []string
				for _, g := range p.Gates {
					gates = append(gates, g.Name+"="+g.Run)
				}
				got = append(got, p.Dir+" "+p.Lang+": "+strings.Join(gates, ", "))
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
}

// TestRenderGitloopGitReadsIt checks the written file with git itself: every gate and
// command comes back from `git config -f .gitloop --list` as written, awkward directory
// names included, and git-loop's own reader agrees.
func TestRenderGitloopGitReadsIt(t *testing.T) {
	projects := []Project{
		{Dir: "", Lang: langGo, Gates: []gates.Gate{{Name: "build", Run: "go build ./..."}, {Name: "test", Run: "go test -cover ./...", Require: []string{"coverage >= 80"}}}},
		{Dir: "", Lang: langNode, Gates: []gates.Gate{{Name: "test", Run: "npm run test"}}},
		{Dir: `we"b #1`, Lang: langNode, Gates: []gates.Gate{{Name: "test", Run: `npm run test -- --grep "a;b" \x`}}},
	}
	text := renderGitloop(projects)
	path := filepath.Join(t.TempDir(), ".gitloop")
	if err := os.WriteFile(path, []byte(text), 0o666); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("git", "config", "-f", path, "--list").CombinedOutput()
	if err != nil {
		t.Fatalf("git config: %v\n%s\n%s", err, out, text)
	}
	want := strings.Join([]string{
		"gate.go-build.run=go build ./...",
		"gate.go-test.run=go test -cover ./...",
		"gate.go-test.require=coverage >= 80",
		"gate.node-test.run=npm run test",
		`gate.we"b #1/test.run=cd 'we"b #1' && npm run test -- --grep "a;b" \x`,
	}, "\n") + "\n"
	if string(out) != want {
		t.Errorf("git reads\n%s\nwant\n%s\nfile:\n%s", out, want, text)
	}
	cfg, err := gitstore.ParseConfig(path, []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	if err := loop.CheckKnownKeys(cfg); err != nil {
		t.Fatal(err)
	}
	var s loop.Settings
	if err := s.Apply(cfg, ".gitloop"); err != nil || len(s.Gates) != 4 || s.Gates[1].Require[0] != "coverage >= 80" {
		t.Fatalf("git-loop reads %+v, %v", s.Gates, err)
	}
}

func TestInitRefusesOverwriteAndCoverage(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"go.mod": "module x\n", ".gitloop": "[loop]\n\tmaxIterations = 3\n"})
	if _, err := Init(InitOptions{Dir: dir}); !errors.Is(err, ErrInitExists) || !errors.Is(err, loop.ErrConfig) || !strings.Contains(err.Error(), "--force") {
		t.Fatalf("overwrite: %v", err)
	}
	res, err := Init(InitOptions{Dir: dir, DryRun: true, Coverage: 80})
	if err != nil || res.Path != "" || !strings.Contains(res.Text, "require = coverage >= 80") {
		t.Fatalf("dry run: %+v, %v", res, err)
	}
	if data, _ := os.ReadFile(filepath.Join(dir, ".gitloop")); !strings.Contains(string(data), "maxIterations = 3") {
		t.Fatalf("dry run changed the file: %s", data)
	}
	if _, err := Init(InitOptions{Dir: dir, Force: true}); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(filepath.Join(dir, ".gitloop")); !strings.Contains(string(data), `[gate "vet"]`) {
		t.Fatalf("--force did not replace: %s", data)
	}
	py := t.TempDir()
	writeTree(t, py, map[string]string{"requirements.txt": "requests\n"})
	if _, err := Init(InitOptions{Dir: py, Coverage: 80}); !errors.Is(err, loop.ErrConfig) || !strings.Contains(err.Error(), "measures coverage") {
		t.Fatalf("coverage without a measuring gate: %v", err)
	}
	if _, err := Init(InitOptions{Dir: t.TempDir()}); !errors.Is(err, loop.ErrConfig) || !strings.Contains(err.Error(), "no Go, Rust, Node or Python project") {
		t.Fatalf("empty: %v", err)
	}
}
