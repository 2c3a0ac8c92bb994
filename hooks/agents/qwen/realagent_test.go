//go:build unix

package qwen_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/git-loop/git-loop/hooks/agents/qwen"
	"github.com/git-loop/git-loop/testdata/mockmodel"
	"github.com/git-loop/git-loop/testdata/realagents"
)

func TestMain(m *testing.M) { realagents.Main(m) }

// TestRealAgent runs Qwen Code through every scenario the agents share.
func TestRealAgent(t *testing.T) {
	t.Parallel()
	realagents.RunScenarios(t, "qwen")
}

// hookScript is a stop hook of the test's own: it counts its calls in dir (a file each), sleeps
// for sleep seconds at its first call, and answers block (the reason "Keep going.") at its
// first block calls, and {} after.
func hookScript(t *testing.T, e *realagents.Env, sleep, block int) (calls func() int) {
	t.Helper()
	dir := filepath.Join(e.Root, "calls")
	realagents.WriteString(t, filepath.Join(dir, ".keep"), "")
	script := fmt.Sprintf(`#!/bin/sh
cat > /dev/null
n=$(ls %[1]s | wc -l)
touch %[1]s/$n
if [ "$n" = 0 ]; then sleep %[2]d; fi
if [ "$n" -lt %[3]d ]; then echo '{"decision":"block","reason":"Keep going."}'; else echo '{}'; fi
`, dir, sleep, block)
	hook := filepath.Join(e.Root, "hook.sh")
	realagents.WriteString(t, hook, script)
	if err := os.Chmod(hook, 0o755); err != nil {
		t.Fatal(err)
	}
	return func() int {
		entries, _ := os.ReadDir(dir)
		return len(entries) - 1 // .keep
	}
}

// settingsWithHook writes the project's settings: hook as its Stop hook, with timeout when
// it is not empty.
func settingsWithHook(t *testing.T, e *realagents.Env, timeout string) {
	t.Helper()
	hook := fmt.Sprintf(`{"type": "command", "command": %q`, filepath.Join(e.Root, "hook.sh"))
	if timeout != "" {
		hook += `, "timeout": ` + timeout
	}
	realagents.WriteString(t, filepath.Join(e.Repo, ".qwen", "settings.json"), `{"hooks": {"Stop": [{"hooks": [`+hook+`}]}]}}`)
}

// TestRealAgentQwenBlockCap: Qwen Code ends the turn at the block that reaches its cap (8,
// or QWEN_CODE_STOP_HOOK_BLOCK_CAP), honouring one block fewer, whatever git-loop does; with
// git-loop's hook and a cap of 3, the third stop is let through and pauses the loop.
func TestRealAgentQwenBlockCap(t *testing.T) {
	t.Parallel()
	inst := realagents.Require(t, "qwen")
	for _, tc := range []struct {
		env  []string
		want int
	}{{nil, 8}, {[]string{"QWEN_CODE_STOP_HOOK_BLOCK_CAP=3"}, 3}} {
		e := realagents.New(t, inst, "/bin/false", mockmodel.Script{{Text: "Still looking into it."}})
		calls := hookScript(t, e, 0, 1000)
		settingsWithHook(t, e, "")
		// in text mode, where Qwen Code says so on stderr
		r := e.Run(realagents.AgentTimeout, tc.env, e.Exe, "--yolo", realagents.Task)
		said := fmt.Sprintf("Stop hook blocked continuation %d consecutive times; overriding and ending the turn.", tc.want)
		if n := calls(); r.Code != 0 || n != tc.want || !strings.Contains(r.Stderr, said) {
			t.Errorf("%v: Qwen Code exited %d after %d stops, want 0 after %d, saying %q:\n%s", tc.env, r.Code, n, tc.want, said, r.Stderr)
		}
		if main := len(e.Mock.MainRequests()); main != tc.want {
			t.Errorf("%v: %d model calls, want %d: the first and one per honoured block", tc.env, main, tc.want)
		}
	}

	e := realagents.New(t, inst, realagents.BuiltGitLoop(t), mockmodel.Script{{Text: "Still looking into it."}})
	e.InstallHooks()
	for _, key := range []string{"loop.sameErrorLimit", "loop.noProgressLimit", "loop.stuckLimit", "loop.reworkLimit"} {
		e.Git("config", key, "50")
	}
	e.StartLoop()
	r := e.Run(realagents.AgentTimeout, []string{"QWEN_CODE_STOP_HOOK_BLOCK_CAP=3"}, e.Exe, e.HookedArgs(realagents.Task)...)
	stops := e.StopHooks()
	st := e.Status("fix")
	if r.Code != 0 || len(stops) != 3 || stops[0].Reason() == "" || stops[1].Reason() == "" || stops[2].Reason() != "" {
		t.Errorf("with a cap of 3, want 2 stops sent back and the third let through; exit %d, %d stops", r.Code, len(stops))
	}
	if want := "Qwen Code stops honouring a stop hook after 2 blocks in a row"; st.Status != "paused" || st.Iteration != 3 || !strings.Contains(st.Reason, want) {
		t.Errorf("loop %s at iteration %d (%s), want paused at 3 saying %q", st.Status, st.Iteration, st.Reason, want)
	}
	e.Fsck()
}

// TestRealAgentQwenTimeoutUnit: Qwen Code 0.24 reads a command hook's timeout in seconds
// below 1000 and in milliseconds from 1000 on: a hook that takes 3 s is waited for with 10,
// and killed with 1000, the agent then stopping as if let through; readTimeout reads both so.
func TestRealAgentQwenTimeoutUnit(t *testing.T) {
	t.Parallel()
	inst := realagents.Require(t, "qwen")
	for _, tc := range []struct {
		timeout string
		waited  bool
	}{{"10", true}, {"1000", false}} {
		e := realagents.New(t, inst, "/bin/false", mockmodel.Script{{Text: "First answer."}, {Text: "Second answer."}})
		calls := hookScript(t, e, 3, 1)
		settingsWithHook(t, e, tc.timeout)
		r := e.RunAgent(realagents.AgentTimeout, realagents.Task)
		main := len(e.Mock.MainRequests())
		if r.Code != 0 || (main == 2) != tc.waited || calls() != main {
			t.Errorf("timeout %s: exit %d, %d model calls, %d stops; want the 3 s hook's block honoured: %v", tc.timeout, r.Code, main, calls(), tc.waited)
		}
		n, _ := strconv.ParseFloat(tc.timeout, 64)
		if got, long := qwen.Agent.ReadTimeout(n), tc.waited; (got > 3*time.Second) != long {
			t.Errorf("git-loop reads timeout %s as %v", tc.timeout, got)
		}
	}
}

// TestRealAgentQwenRewritesSettings: Qwen Code rewrites a project's settings file as it
// loads it (it moves version 1 keys into their sections and adds "$version": 4); install
// finds its hook in the rewritten file, adds nothing and leaves it byte for byte, and Qwen
// Code runs the hook from it.
func TestRealAgentQwenRewritesSettings(t *testing.T) {
	t.Parallel()
	inst := realagents.Require(t, "qwen")
	e := realagents.New(t, inst, realagents.BuiltGitLoop(t), mockmodel.Script{{Text: "Done."}})
	path := filepath.Join(e.Repo, ".qwen", "settings.json")
	realagents.WriteString(t, path, "{\n  \"autoAccept\": true,\n  \"theme\": \"Default\"\n}\n")
	e.InstallHooks()
	installed := realagents.ReadString(t, path)
	for run := 1; run <= 2; run++ {
		if r := e.RunAgent(realagents.AgentTimeout, "hi"); r.Code != 0 {
			t.Fatalf("run %d: Qwen Code exited %d", run, r.Code)
		}
		if n := len(e.StopHooks()); n != run {
			t.Fatalf("run %d: the hook ran %d times in all, want %d", run, n, run)
		}
		rewritten := realagents.ReadString(t, path)
		if run == 1 && (rewritten == installed || !strings.Contains(rewritten, `"$version": 4`)) {
			t.Errorf("Qwen Code left the settings as install wrote them; the test needs a rewritten file:\n%s", rewritten)
		}
		if out := e.Loop("install", "qwen"); !strings.Contains(out, "already present") || strings.Contains(out, "added") {
			t.Errorf("install into the rewritten file said:\n%s", out)
		}
		if again := realagents.ReadString(t, path); again != rewritten {
			t.Errorf("install changed the file Qwen Code rewrote:\n%s\nto\n%s", rewritten, again)
		}
	}
}
