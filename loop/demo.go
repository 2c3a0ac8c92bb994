package loop

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/git-loop/git-loop/gitstore"
)

// demoStep is one scripted agent iteration: files it writes, then a checkpoint.
type demoStep struct {
	say   string
	files map[string]string
}

var demoSteps = []demoStep{
	{"the agent adds a test and a first (wrong) fix", map[string]string{
		"calc.go":      "package calc\n\n// Add returns a+b.\nfunc Add(a, b int) int { return a - b + 0 }\n",
		"calc_test.go": "package calc\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n\tif Add(2, 2) != 4 {\n\t\tt.Fatal(\"2+2 != 4\")\n\t}\n}\n",
	}},
	{"the agent fixes Add", map[string]string{
		"calc.go": "package calc\n\n// Add returns a+b.\nfunc Add(a, b int) int { return a + b }\n",
	}},
	{"the agent stops without changing anything", nil},
}

// Demo runs a loop in a scratch repository with a scripted agent and shows its history with
// plain git. It leaves the repository in place for exploring and prints its path.
func Demo(w io.Writer) error {
	dir, err := os.MkdirTemp("", "git-loop-demo-")
	if err != nil {
		return fmt.Errorf("demo: %w", err)
	}
	fmt.Fprintf(w, "== scratch repository %s\n", dir)
	if err := demoRepo(dir); err != nil {
		return err
	}
	r, err := gitstore.Open(dir)
	if err != nil {
		return err
	}
	s := NewStore(r)
	max := len(demoSteps)
	st, err := s.Start(StartOptions{Name: "demo", Flags: Settings{
		Prompt: "Make Add add. Done when `go test ./...` passes.", Promises: []string{"ADD WORKS"},
		Gates: []Gate{{Name: "test", Run: "go test ./..."}}, MaxIterations: &max,
	}})
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "== git loop start demo: iteration %d, snapshot %s\n", st.Iteration, short(st.Snapshot))
	for _, step := range demoSteps {
		for name, content := range step.files {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o666); err != nil {
				return fmt.Errorf("demo: %w", err)
			}
		}
		st, rec, err := s.Checkpoint("demo")
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "== %s -> git loop checkpoint: iteration %s, changed=%v\n", step.say, formatIteration(rec.Number, st.MaxIterations), rec.Changed)
	}
	if _, err := s.SetStatus("demo", Pause); err != nil {
		return err
	}
	fmt.Fprintln(w, "== the demo pauses the loop (git loop pause demo): gates and the decision engine come next")
	for _, args := range [][]string{
		{"log", "--first-parent", "--format=%h %s", "refs/loop/demo"},
		{"diff", "--stat", "refs/loop/demo^2~1", "refs/loop/demo^2"},
		{"show", "refs/loop/demo:state.json"},
	} {
		fmt.Fprintf(w, "\n$ git %s\n", shellJoin(args))
		out, err := demoGit(dir, args...)
		if err != nil {
			return err
		}
		fmt.Fprint(w, out)
	}
	fmt.Fprintf(w, "\nExplore it with `cd %s && git loop status demo`; remove it with `rm -rf %s`.\n", dir, dir)
	return nil
}

// shellJoin quotes arguments that a shell would split, so printed commands can be pasted.
func shellJoin(args []string) string {
	out := make([]string, len(args))
	for i, a := range args {
		if strings.ContainsAny(a, " %'\"$") {
			a = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
		out[i] = a
	}
	return strings.Join(out, " ")
}

func demoRepo(dir string) error {
	files := map[string]string{
		"go.mod":  "module example.com/calc\n\ngo 1.21\n",
		"calc.go": "package calc\n\n// Add returns a+b.\nfunc Add(a, b int) int { return a - b }\n",
	}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o666); err != nil {
			return fmt.Errorf("demo: %w", err)
		}
	}
	for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}, {"commit", "-qm", "calc: Add"}} {
		if _, err := demoGit(dir, args...); err != nil {
			return err
		}
	}
	return nil
}

func demoGit(dir string, args ...string) (string, error) {
	full := append([]string{"-c", "user.name=git-loop demo", "-c", "user.email=demo@git-loop.invalid", "-c", "init.defaultBranch=main"}, args...)
	cmd := exec.Command("git", full...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("demo: git %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(string(out)))
	}
	return string(out), nil
}
