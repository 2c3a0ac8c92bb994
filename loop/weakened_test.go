package loop

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-loop/git-loop/loop/checks"
	"github.com/git-loop/git-loop/loop/gates"
)

// startWithTests starts loop g over a Go test file of n tests, with a gate that passes.
func startWithTests(t *testing.T, n int) (*Store, string, string) {
	t.Helper()
	dir := newTestRepo(t)
	var b strings.Builder
	b.WriteString("package calc\n\nimport \"testing\"\n")
	for i := range n {
		fmt.Fprintf(&b, "\nfunc TestCase%d(t *testing.T) {\n\tif F(%d) != %d {\n\t\tt.Error(\"case %d\")\n\t}\n}\n", i, i, i, i)
	}
	src := b.String()
	if err := os.WriteFile(filepath.Join(dir, "calc_test.go"), []byte(src), 0o666); err != nil {
		t.Fatal(err)
	}
	s := openStoreAt(t, dir)
	if _, err := s.Start(StartOptions{Name: "g", Flags: Settings{Prompt: "make F right", Promises: []string{"DONE"},
		Gates: []gates.Gate{{Name: "test", Run: "true"}}}}); err != nil {
		t.Fatal(err)
	}
	return s, dir, src
}

// TestApproveAllTheStopFound: a person's approve allows every weakening the last stop found,
// also past the ten state.json keeps, so the next stop may complete as approve says.
func TestApproveAllTheStopFound(t *testing.T) {
	const n = maxStateWeakenings + 3
	s, dir, src := startWithTests(t, n)
	skipped := strings.ReplaceAll(src, "(t *testing.T) {\n", "(t *testing.T) {\n\tt.Skip()\n")
	if err := os.WriteFile(filepath.Join(dir, "calc_test.go"), []byte(skipped), 0o666); err != nil {
		t.Fatal(err)
	}
	r := stop(t, s, StopInput{Message: "<promise>DONE</promise>"})
	if r.Verdict.Decision != DecideContinue || len(r.Iteration.Weakened) != n {
		t.Fatalf("skips in %d tests: %s with %d weakenings", n, r.Verdict.Decision, len(r.Iteration.Weakened))
	}
	_, approved, err := s.Approve("g")
	if err != nil {
		t.Fatal(err)
	}
	if len(approved) != n {
		t.Errorf("approve allowed %d of the %d weakenings the stop found", len(approved), n)
	}
	r = stop(t, s, StopInput{Message: "<promise>DONE</promise>"})
	if r.Verdict.Decision != DecideComplete {
		t.Fatalf("after approve: %s: %s", r.Verdict.Decision, r.Verdict.Reason)
	}
}

// TestWeakenedTextBounded: a stop that weakened many tests (a test directory deleted, a skip
// in each) tells the agent of the first few, with how many more and where they are listed,
// not every one: the message goes into the agent's context at each stop.
func TestWeakenedTextBounded(t *testing.T) {
	s, dir, src := startWithTests(t, 300)
	skipped := strings.ReplaceAll(src, "(t *testing.T) {\n", "(t *testing.T) {\n\tt.Skip()\n")
	if err := os.WriteFile(filepath.Join(dir, "calc_test.go"), []byte(skipped), 0o666); err != nil {
		t.Fatal(err)
	}
	r := stop(t, s, StopInput{Message: "<promise>DONE</promise>"})
	msg := r.Verdict.ForAgent
	if got := strings.Count(msg, "was added to"); got != maxStateWeakenings {
		t.Errorf("the message lists %d weakenings, want the first %d", got, maxStateWeakenings)
	}
	if !strings.Contains(msg, "and 290 more (`git loop show g 1` lists them all)") || len(msg) > 8<<10 {
		t.Errorf("the message (%d bytes) does not say how many more:\n%s", len(msg), msg)
	}
}

// TestAllowedByTask: a task allows weakening a test file only where it asks to edit it, in
// the sentence that names it; asking for a test to pass never does.
func TestAllowedByTask(t *testing.T) {
	w := checks.Weakening{Path: "pkg/calc_test.go", Key: "k"}
	for _, tt := range []struct {
		task string
		want string
	}{
		{"Rewrite calc_test.go: it tests the old API", "the task asks to edit calc_test.go"},
		{"Remove the obsolete tests in pkg/", "the task asks to edit pkg/"},
		{"The tests in pkg/calc_test.go are wrong; update them to the new rounding", "the task asks to edit pkg/calc_test.go"},
		{"Make TestAdd in calc_test.go pass", ""},
		{"Fix Add so that calc_test.go passes", ""},
		{"Fix Add in calc.go. Only change calc.go", ""},
		{"Fix Add. The tests are in calc_test.go", ""},
		{"Update mycalc_test.go", ""},
		{"", ""},
	} {
		cfg := &Config{Prompt: tt.task}
		if got := allowedBy(cfg, &State{}, w); got != tt.want {
			t.Errorf("%q: %q, want %q", tt.task, got, tt.want)
		}
	}
	if got := allowedBy(&Config{Prompt: "Rewrite lib.rs"}, &State{}, checks.Weakening{Path: "src/lib.rs"}); got != "" {
		t.Errorf("a task naming Rust's lib.rs allowed weakening its tests: %q", got)
	}
}
