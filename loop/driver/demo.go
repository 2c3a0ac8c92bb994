package driver

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/git-loop/git-loop/gitstore"
	"github.com/git-loop/git-loop/internal/textutil"
	"github.com/git-loop/git-loop/loop"
	"github.com/git-loop/git-loop/loop/gates"
	"github.com/git-loop/git-loop/loop/report"
	"github.com/git-loop/git-loop/loop/spec"
)

// demoTurn is one scripted agent turn: files it writes, then what it says when it stops.
type demoTurn struct {
	does    string
	files   map[string]string
	message string
}

const demoPromise = "ADD WORKS"

var demoTurns = []demoTurn{
	{"adds a test and a first fix, then claims it is done", map[string]string{
		"calc.go":      "package calc\n\n// Add returns a+b.\nfunc Add(a, b int) int { return a - b + 0 }\n",
		"calc_test.go": "package calc\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n\tif got := Add(2, 2); got != 4 {\n\t\tt.Fatalf(\"Add(2, 2) = %d, want 4\", got)\n\t}\n}\n",
	}, "I fixed Add and added a test.\n<promise>" + demoPromise + "</promise>"},
	{"reads the failure it was sent back with and fixes Add", map[string]string{
		"calc.go": "package calc\n\n// Add returns a+b.\nfunc Add(a, b int) int { return a + b }\n",
	}, "Add now adds; `go test` passes.\n<promise>" + demoPromise + "</promise>"},
}

// Demo runs a complete loop in a scratch repository with a scripted agent, through the same
// engine the hooks use: real snapshots, a real `go test` gate, real decisions. The agent's
// first claim is rejected by the gate; its fix completes the loop. It then shows the loop's
// history with plain git and leaves the repository in place for exploring.
func Demo(ctx context.Context, w io.Writer) error {
	gitstore.UnsetGitEnv() // GIT_DIR and kin name the user's repository, never the demo's
	dir, err := os.MkdirTemp("", "git-loop-demo-")
	if err != nil {
		return fmt.Errorf("demo: %w", err)
	}
	fmt.Fprintf(w, "== scratch repository %s: Add subtracts, and nothing tests it\n", dir)
	if err := demoRepo(dir); err != nil {
		return err
	}
	s, err := report.OpenStore(dir)
	if err != nil {
		return err
	}
	max := 5
	st, err := s.Start(loop.StartOptions{Name: "demo", Session: "demo-agent", Flags: loop.Settings{
		Prompt: "Make Add in calc.go return a+b, with a test that proves it. Only change calc.go and calc_test.go; keep Add's signature.", Promises: []string{demoPromise},
		Gates: []gates.Gate{{Name: "vet", Run: "go vet ./..."}, {Name: "test", Run: "go test ./..."}}, MaxIterations: &max,
		Shape: spec.ShapeTool, // a scripted agent: nobody to answer a colleague's checkpoints
	}})
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "== git loop start demo: gates vet, test; promise %q; snapshot %s\n", demoPromise, textutil.Short(st.Snapshot))
	if _, cfg, err := s.Status("demo"); err == nil && cfg.Spec != nil {
		fmt.Fprintf(w, "== its spec scores %s (`git loop score` explains)\n", cfg.Spec.Summary())
	}
	for i, turn := range demoTurns {
		if err := demoWrite(dir, turn.files); err != nil {
			return err
		}
		fmt.Fprintf(w, "\n== agent turn %d: %s, and stops saying:\n%s\n", i+1, turn.does, indent(turn.message))
		res, err := s.Stop(ctx, "demo", loop.StopInput{Session: "demo-agent", Message: turn.message, MessageKnown: true, Kind: "stop"})
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "== stop hook: %s (%s)\n", res.Verdict.Decision, res.Verdict.Reason)
		if res.Verdict.Decision == loop.DecideContinue {
			fmt.Fprintf(w, "   sent back with:\n%s", indent(res.Verdict.ForAgent))
		}
		if res.State.Ended() {
			break
		}
	}
	return demoReview(w, dir)
}

func demoReview(w io.Writer, dir string) error {
	for _, args := range [][]string{
		{"log", "--first-parent", "--format=%h %s", "refs/loop/demo"},
		{"diff", "--stat", "refs/loop/demo^2~2", "refs/loop/demo^2"},
		{"show", "refs/loop/demo:report.md"},
	} {
		fmt.Fprintf(w, "\n$ git %s\n", shellJoin(args))
		out, err := demoGit(dir, args...)
		if err != nil {
			return err
		}
		fmt.Fprint(w, out)
	}
	fmt.Fprintf(w, "\nExplore it: cd %s && git loop status demo; remove it: rm -rf %s\n", dir, dir)
	return nil
}

func indent(s string) string {
	s = strings.TrimRight(s, "\n")
	return "   | " + strings.ReplaceAll(s, "\n", "\n   | ") + "\n"
}

func demoWrite(dir string, files map[string]string) error {
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o666); err != nil {
			return fmt.Errorf("demo: %w", err)
		}
	}
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
	if err := demoWrite(dir, map[string]string{
		"go.mod":  "module example.com/calc\n\ngo 1.21\n",
		"calc.go": "package calc\n\n// Add returns a+b.\nfunc Add(a, b int) int { return a - b }\n",
	}); err != nil {
		return err
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
