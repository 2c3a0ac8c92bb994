package gates

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestGateRequire runs real gates whose output carries metrics and checks how their
// requirements turn into statuses and tail lines.
func TestGateRequire(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name    string
		gate    Gate
		status  string
		tailHas string
	}{
		{"below the bar fails", Gate{Run: "echo 'TOTAL 10 3 70%'", Require: []string{"coverage >= 85"}}, StatusFail, "coverage 70% < 85%"},
		{"above the bar passes", Gate{Run: "echo 'TOTAL 10 1 90%'", Require: []string{"coverage >= 85"}}, StatusPass, ""},
		{"absent metric blocks", Gate{Run: "echo all good", Require: []string{"coverage >= 85"}}, StatusBlocked, "shows no coverage"},
		{"exit 1 stays fail, with the unmet line", Gate{Run: "echo '1 failed, 2 passed in 0.1s'; exit 1", Require: []string{"failed == 0"}}, StatusFail, "failed 1 != 0"},
		{"absent metric on a failing gate stays fail", Gate{Run: "exit 1", Require: []string{"coverage >= 85"}}, StatusFail, ""},
		{"errors count from nothing is zero", Gate{Run: "true", Require: []string{"errors == 0"}}, StatusPass, ""},
		{"every requirement counts", Gate{Run: "echo '3 passed in 0.1s'; echo 'TOTAL 9 1 90%'", Require: []string{"coverage >= 85", "passed >= 4"}}, StatusFail, "passed 3 < 4"},
		{"stale report is absent", Gate{Run: "true", Coverage: "old.out", Require: []string{"coverage >= 1"}}, StatusBlocked, "older than this run"},
		{"fresh report wins over output", Gate{Run: "echo 'TOTAL 1 0 100%'; printf 'mode: set\\na.go:1.1,2.2 1 0\\na.go:3.1,4.2 1 1\\n' > new.out", Coverage: "new.out", Require: []string{"coverage >= 60"}}, StatusFail, "coverage 50% < 60%"},
		{"missing report", Gate{Run: "true", Coverage: "none.out", Require: []string{"coverage >= 1"}}, StatusBlocked, "was not written"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			old := filepath.Join(dir, "old.out")
			os.WriteFile(old, []byte("mode: set\na.go:1.1,2.2 1 1\n"), 0o666)
			past := time.Now().Add(-time.Hour)
			os.Chtimes(old, past, past)
			tc.gate.Name = "g"
			res := Run(context.Background(), []Gate{tc.gate}, RunOptions{Dir: dir})[0]
			if res.Status != tc.status {
				t.Errorf("status %s, want %s; tail:\n%s", res.Status, tc.status, res.Tail)
			}
			if tc.tailHas != "" && !strings.Contains(res.Tail, tc.tailHas) {
				t.Errorf("tail lacks %q:\n%s", tc.tailHas, res.Tail)
			}
			if res.Failed() && res.Fingerprint == "" {
				t.Errorf("a %s gate has no fingerprint", res.Status)
			}
		})
	}
}

// TestGateRequireRealGoTest runs `go test -cover` on a small module made here, so the
// coverage line is the one this Go toolchain really prints.
func TestGateRequireRealGoTest(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go is not installed")
	}
	dir := t.TempDir()
	files := map[string]string{
		"go.mod":       "module example.com/half\n\ngo 1.22\n",
		"half.go":      "package half\n\nfunc A() int { return 1 }\n\nfunc B() int { return 2 }\n",
		"half_test.go": "package half\n\nimport \"testing\"\n\nfunc TestA(t *testing.T) {\n\tif A() != 1 {\n\t\tt.Fatal(\"A\")\n\t}\n}\n",
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o666); err != nil {
			t.Fatal(err)
		}
	}
	gate := Gate{Name: "coverage", Run: "go test -cover ./...", Require: []string{"coverage >= 85"}}
	res := Run(context.Background(), []Gate{gate}, RunOptions{Dir: dir})[0]
	if res.Status != StatusFail || !strings.Contains(res.Tail, "coverage 50% < 85%") {
		t.Fatalf("status %s, tail:\n%s", res.Status, res.Tail)
	}
	if res.ExitCode != 0 || res.Diagnostics == nil || res.Diagnostics.String() != "0 failed; coverage 50%" {
		t.Fatalf("exit %d, diagnostics %v", res.ExitCode, res.Diagnostics)
	}
}

// TestRequireFingerprintFollowsTheFigure: the same unmet figure is the same failure (so the
// same-error breaker can see a stuck loop), a better one is not.
func TestRequireFingerprintFollowsTheFigure(t *testing.T) {
	dir := t.TempDir()
	run := func(total string) string {
		g := Gate{Name: "cov", Run: "echo 'TOTAL 10 3 " + total + "'", Require: []string{"coverage >= 85"}}
		res := Run(context.Background(), []Gate{g}, RunOptions{Dir: dir})[0]
		if res.Status != StatusFail || res.Fingerprint == "" {
			t.Fatalf("status %s, fingerprint %q", res.Status, res.Fingerprint)
		}
		return res.Fingerprint
	}
	if a, b := run("70%"), run("70%"); a != b {
		t.Errorf("same figure, fingerprints %s and %s", a, b)
	}
	if a, b := run("70%"), run("80%"); a == b {
		t.Errorf("70%% and 80%% share fingerprint %s", a)
	}
}
