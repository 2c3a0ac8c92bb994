package gates

import (
	"context"
	"encoding/json"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// These tests use commands that mean the same to sh and cmd.exe; the Unix-only ones are in
// gates_unix_test.go.

func TestRunGatesExitCodes(t *testing.T) {
	tests := []struct {
		name, run, exitCodes string
		status               string
		code                 int
	}{
		{"pass", "exit 0", "", StatusPass, 0},
		{"fail", "exit 1", "", StatusFail, 1},
		{"make's failed recipe", "exit 2", "", StatusFail, 2},
		{"pytest internal error", "exit 3", "", StatusFail, 3},
		{"other", "exit 4", "", StatusFail, 4},
		{"high", "exit 42", "", StatusFail, 42},
		{"cargo panic", "exit 101", "", StatusFail, 101},
		{"ci spelled out", "exit 2", "ci", StatusFail, 2},
		{"layered blocked", "exit 2", "layered", StatusBlocked, 2},
		{"layered skip", "exit 3", "layered", StatusSkip, 3},
		{"layered fail", "exit 1", "layered", StatusFail, 1},
		{"layered other", "exit 4", "layered", StatusFail, 4},
		{"declared skip", "exit 5", "5=skip", StatusSkip, 5},
		{"declared pass", "exit 1", "1=pass", StatusPass, 1},
		{"layered and a pair", "exit 3", "layered, 3=fail 5=skip", StatusFail, 3},
		{"undeclared under a map", "exit 2", "5=skip", StatusFail, 2},
		{"invalid rule falls back to ci", "exit 3", "3=maybe", StatusFail, 3},
	}
	var gates []Gate
	for _, tt := range tests {
		gates = append(gates, Gate{Name: tt.name, Run: tt.run, ExitCodes: tt.exitCodes})
	}
	res := Run(context.Background(), gates, RunOptions{Dir: t.TempDir()})
	if len(res) != len(gates) {
		t.Fatalf("got %d results for %d gates", len(res), len(gates))
	}
	for i, r := range res {
		tt := tests[i]
		if r.Name != tt.name || r.Layer != i+1 {
			t.Errorf("result %d is %q layer %d, want %q layer %d", i, r.Name, r.Layer, tt.name, i+1)
		}
		if r.Status != tt.status || r.ExitCode != tt.code {
			t.Errorf("%s: status %s exit %d, want %s exit %d (tail %q)", r.Name, r.Status, r.ExitCode, tt.status, tt.code, r.Tail)
		}
		wantFP := r.Status == StatusFail || r.Status == StatusBlocked
		if (r.Fingerprint != "") != wantFP {
			t.Errorf("%s: fingerprint %q, want one: %v", r.Name, r.Fingerprint, wantFP)
		}
		if r.Fingerprint != "" && len(r.Fingerprint) != 12 {
			t.Errorf("%s: fingerprint %q is not 12 hex digits", r.Name, r.Fingerprint)
		}
		if r.Duration <= 0 {
			t.Errorf("%s: duration %v", r.Name, r.Duration)
		}
	}
	if tail := res[len(res)-1].Tail; !strings.Contains(tail, `exitCodes "3=maybe" ignored`) {
		t.Errorf("an invalid rule is ignored without saying so: %q", tail)
	}
}

func TestRunGatesCannotStart(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "no-such-dir")
	res := Run(context.Background(), []Gate{{Name: "x", Run: "exit 0"}}, RunOptions{Dir: missing})
	r := res[0]
	if r.Status != StatusError || r.ExitCode != -1 || r.Fingerprint == "" || !strings.Contains(r.Tail, "cannot start") {
		t.Fatalf("got %+v, want an error result", r)
	}
}

func TestRunGatesSequentialStops(t *testing.T) {
	dir := t.TempDir()
	gates := []Gate{
		{Name: "a", Run: "exit 0"},
		{Name: "b", Run: "exit 3", ExitCodes: ExitCodesLayered},
		{Name: "c", Run: "exit 2", ExitCodes: ExitCodesLayered},
		{Name: "d", Run: "exit 0"},
		{Name: "e", Run: "exit 1"},
	}
	res := Run(context.Background(), gates, RunOptions{Dir: dir, Sequential: true})
	want := []string{StatusPass, StatusSkip, StatusBlocked, StatusSkip, StatusSkip}
	for i, r := range res {
		if r.Status != want[i] || r.Layer != i+1 || r.Name != gates[i].Name {
			t.Errorf("gate %d: %s layer %d status %s, want %s", i, r.Name, r.Layer, r.Status, want[i])
		}
	}
	for _, r := range res[3:] {
		if r.Tail != notRunTail || r.Duration != 0 || r.ExitCode != -1 || r.Fingerprint != "" {
			t.Errorf("%s: got %+v, want not run", r.Name, r)
		}
	}
	if res[1].Tail == notRunTail {
		t.Errorf("a gate that skipped by itself is marked not run")
	}

	// Parallel mode runs everything.
	res = Run(context.Background(), gates, RunOptions{Dir: dir})
	want = []string{StatusPass, StatusSkip, StatusBlocked, StatusPass, StatusFail}
	for i, r := range res {
		if r.Status != want[i] {
			t.Errorf("parallel gate %s: %s, want %s", r.Name, r.Status, want[i])
		}
	}
}

func TestRunGatesCancelledBeforeStart(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res := Run(ctx, []Gate{{Name: "x", Run: "exit 0"}}, RunOptions{Dir: t.TempDir()})
	if r := res[0]; r.Status != StatusTimeout || r.Fingerprint == "" {
		t.Fatalf("got %+v, want timeout", r)
	}
}

func TestRunGatesNone(t *testing.T) {
	if res := Run(context.Background(), nil, RunOptions{}); len(res) != 0 {
		t.Fatalf("got %v", res)
	}
}

// TestRunGatesDeadline: a deadline (a stop hook's timeout) cuts a gate's own timeout to
// leave time to stop it, and says so; past the deadline a gate is not started.
func TestRunGatesDeadline(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("sleep")
	}
	dir := t.TempDir()
	opts := RunOptions{Dir: dir, Deadline: time.Now().Add(KillGrace + PipeGrace + 300*time.Millisecond), DeadlineWhy: "the agent gives its stop hook 20s"}
	res := Run(context.Background(), []Gate{{Name: "hang", Run: "sleep 30"}}, opts)
	if r := res[0]; r.Status != StatusTimeout || !strings.Contains(r.Tail, "was cut off after") || !strings.Contains(r.Tail, "before its own timeout of 10m0s") || !strings.Contains(r.Tail, "the agent gives its stop hook 20s") {
		t.Errorf("hung gate: %s %q", r.Status, r.Tail)
	}
	opts.Deadline = time.Now()
	res = Run(context.Background(), []Gate{{Name: "late", Run: "exit 0"}}, opts)
	if r := res[0]; r.Status != StatusTimeout || !strings.HasPrefix(r.Tail, "not run: the stop's deadline had passed") {
		t.Errorf("gate past the deadline: %s %q", r.Status, r.Tail)
	}
}

func TestGateTimeoutParsing(t *testing.T) {
	def := 7 * time.Second
	for _, tt := range []struct {
		in   string
		want time.Duration
	}{
		{"", def}, {"90s", 90 * time.Second}, {" 2m ", 2 * time.Minute}, {"nonsense", def}, {"0s", def}, {"-1s", def},
	} {
		if got := (Gate{Timeout: tt.in}).TimeoutOr(def); got != tt.want {
			t.Errorf("TimeoutOr(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

func TestResultJSON(t *testing.T) {
	b, err := json.Marshal(Result{Name: "t", Layer: 2, Status: StatusPass, Duration: 1500 * time.Millisecond, Tail: "ok"})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"name":"t","layer":2,"status":"pass","exit_code":0,"duration_ns":1500000000,"tail":"ok"}`
	if string(b) != want {
		t.Fatalf("got  %s\nwant %s", b, want)
	}
}
