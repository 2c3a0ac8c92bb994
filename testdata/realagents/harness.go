//go:build unix

package realagents

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/git-loop/git-loop/testdata/mockmodel"
)

// Env is one scenario's world: a throwaway home, a git repository holding a small Go
// project whose test fails, git-loop on PATH behind a wrapper that keeps every hook call,
// the agent configured for a mock model server that this Env started.
type Env struct {
	T testing.TB
	Installed
	// Root holds everything below; Home is the agent's HOME (and CODEX_HOME, COPILOT_HOME
	// below it); Repo is the project; HookDir holds the hook calls the wrapper kept.
	Root, Home, Repo, HookDir string
	// Mock is the model server the agent talks to.
	Mock *mockmodel.Server

	bin  string // the wrapper's directory, first on PATH
	logs string

	server *server // OpenCode's, once started (OpenCodeServer)
}

// The project: Sub adds instead of subtracting, and its test says so.
const (
	goMod    = "module example.com/calc\n\ngo 1.21\n"
	calcGo   = "// Package calc does arithmetic.\npackage calc\n\n// Sub returns a minus b.\nfunc Sub(a, b int) int { return a + b }\n"
	calcTest = "package calc\n\nimport \"testing\"\n\nfunc TestSub(t *testing.T) {\n\tif got := Sub(5, 3); got != 2 {\n\t\tt.Fatalf(\"Sub(5, 3) = %d, want 2\", got)\n\t}\n}\n"
)

// FixCommand is the shell command that fixes the project's bug.
const FixCommand = `sed -i.bak 's/a + b/a - b/' calc/calc.go && rm calc/calc.go.bak`

// New makes a scenario's world for agent inst, with gitLoop the git-loop executable under
// test and the mock model answering conversation i with scripts[i]. Everything is removed
// when the test ends; when it failed, what the agent, its hooks and the mock saw is logged
// first.
func New(t testing.TB, inst Installed, gitLoop string, scripts ...mockmodel.Script) *Env {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir()) // the paths agents and git print
	if err != nil {
		t.Fatal(err)
	}
	e := &Env{T: t, Installed: inst, Root: root, Home: filepath.Join(root, "home"), Repo: filepath.Join(root, "repo"),
		HookDir: filepath.Join(root, "hooks"), bin: filepath.Join(root, "bin"), logs: filepath.Join(root, "logs")}
	for _, d := range []string{e.Home, e.Repo, e.HookDir, e.bin, e.logs} {
		if err := os.MkdirAll(d, 0o777); err != nil {
			t.Fatal(err)
		}
	}
	// maintenance off: no background roll-up may outlive the test that removes the repository
	gitconfig := "[user]\n\tname = Loop Tester\n\temail = tester@example.com\n[init]\n\tdefaultBranch = main\n[advice]\n\tdetachedHead = false\n[maintenance]\n\tauto = false\n"
	if err := os.WriteFile(filepath.Join(e.Home, ".gitconfig"), []byte(gitconfig), 0o666); err != nil {
		t.Fatal(err)
	}
	if err := e.writeWrapper(gitLoop); err != nil {
		t.Fatal(err)
	}
	e.Mock, err = mockmodel.Start(scripts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		e.Mock.Close()
		if t.Failed() {
			e.logDiagnostics()
		}
	})
	for name, text := range map[string]string{"go.mod": goMod, "calc/calc.go": calcGo, "calc/calc_test.go": calcTest} {
		p := filepath.Join(e.Repo, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o777); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o666); err != nil {
			t.Fatal(err)
		}
	}
	e.Git("init", "-q")
	e.Git("add", "-A")
	e.Git("commit", "-q", "-m", "calc: Sub")
	if err := e.configure(); err != nil {
		t.Fatal(err)
	}
	return e
}

// writeWrapper puts git-loop on PATH as a script that keeps each hook call's payload,
// answer and stderr in HookDir, then runs the real git-loop (exec for everything else).
// Each call's files are named after the number of files already there, so they sort in
// the order the calls started.
func (e *Env) writeWrapper(gitLoop string) error {
	script := fmt.Sprintf(`#!/bin/sh
if [ "$1" = hook ]; then
	f=%[1]s/$(printf %%06d "$(ls %[1]s | wc -l)")-$$-$2-$3
	cat > "$f.in"
	%[2]s "$@" < "$f.in" > "$f.out" 2> "$f.err"
	rc=$?
	cat "$f.out"
	cat "$f.err" >&2
	exit $rc
fi
exec %[2]s "$@"
`, shellQuote(e.HookDir), shellQuote(gitLoop))
	return os.WriteFile(filepath.Join(e.bin, "git-loop"), []byte(script), 0o777)
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// environ is the environment of everything the Env runs: nothing of the developer's but
// PATH (the wrapper first), the language and the Go caches; a throwaway home; git reading
// only the Env's configuration; the agent pointed at the mock.
func (e *Env) environ() []string {
	path := e.bin + string(os.PathListSeparator)
	if e.OwnNode { // the agent's Node.js before the machine's
		path += filepath.Join(e.Dir, "node_modules", ".bin") + string(os.PathListSeparator)
	}
	env := []string{
		"PATH=" + path + os.Getenv("PATH"),
		"HOME=" + e.Home, "USER=tester", "LOGNAME=tester", "SHELL=/bin/bash", "TERM=dumb", "NO_COLOR=1",
		"LANG=C.UTF-8", "TZ=UTC", "TMPDIR=" + os.TempDir(),
		"XDG_CONFIG_HOME=" + filepath.Join(e.Home, ".config"), "XDG_CACHE_HOME=" + filepath.Join(e.Home, ".cache"),
		"XDG_DATA_HOME=" + filepath.Join(e.Home, ".local", "share"), "XDG_STATE_HOME=" + filepath.Join(e.Home, ".local", "state"),
		"CODEX_HOME=" + filepath.Join(e.Home, ".codex"), "COPILOT_HOME=" + filepath.Join(e.Home, ".copilot"),
		"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=" + filepath.Join(e.Home, ".gitconfig"),
		// The gates run go test: the developer's caches keep them fast; nothing is downloaded.
		"GOCACHE=" + goEnv("GOCACHE"), "GOMODCACHE=" + goEnv("GOMODCACHE"), "GOPATH=" + goEnv("GOPATH"),
		"GOTOOLCHAIN=local", "GOFLAGS=", "GOPROXY=off",
	}
	if mark, ok := os.LookupEnv(SuiteMarkEnv); ok { // the suite checks nothing it started outlives it
		env = append(env, SuiteMarkEnv+"="+mark)
	}
	return append(env, e.agentEnv(e.Mock.URL)...)
}

// Result is what a command did.
type Result struct {
	Stdout, Stderr string
	Code           int
	Took           time.Duration
	TimedOut       bool
}

// Run runs name with args in the repository, in its own process group (all of it killed
// at timeout, and whatever it left behind when it exits), with extra added to the Env's
// environment.
func (e *Env) Run(timeout time.Duration, extra []string, name string, args ...string) Result {
	e.T.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.Command(name, args...)
	cmd.Dir, cmd.Env = e.Repo, append(e.environ(), extra...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	if err := cmd.Start(); err != nil {
		e.T.Fatalf("start %s: %v", name, err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var err error
	timedOut := false
	select {
	case err = <-done:
	case <-ctx.Done():
		timedOut = true
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		err = <-done
	}
	syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) // what it left running in the background
	r := Result{Stdout: stdout.String(), Stderr: stderr.String(), Took: time.Since(start), TimedOut: timedOut}
	var exitErr *exec.ExitError
	switch {
	case errors.As(err, &exitErr):
		r.Code = exitErr.ExitCode()
	case err != nil:
		e.T.Fatalf("run %s: %v", name, err)
	}
	return r
}

// Git runs git in the repository and returns its output; it fails the test if git fails.
func (e *Env) Git(args ...string) string {
	e.T.Helper()
	r := e.Run(time.Minute, nil, "git", args...)
	if r.Code != 0 {
		e.T.Fatalf("git %s: exit %d: %s%s", strings.Join(args, " "), r.Code, r.Stdout, r.Stderr)
	}
	return r.Stdout
}

// Loop runs `git loop ARGS…` (through git, as a person types it) and fails the test unless
// it exits 0.
func (e *Env) Loop(args ...string) string {
	e.T.Helper()
	r := e.Run(2*time.Minute, nil, "git", append([]string{"loop"}, args...)...)
	if r.Code != 0 {
		e.T.Fatalf("git loop %s: exit %d: %s%s", strings.Join(args, " "), r.Code, r.Stdout, r.Stderr)
	}
	return r.Stdout
}

// InstallHooks runs `git loop install AGENT` and whatever the agent needs before it runs
// the project's hooks (for Codex, the review of their hashes).
func (e *Env) InstallHooks() {
	e.T.Helper()
	e.Loop("install", e.Agent.Name)
	if e.Agent.Name == "codex" {
		if err := e.TrustCodexHooks(); err != nil {
			e.T.Fatal(err)
		}
	}
}

// RunAgent runs the agent headless on prompt (HookedArgs), bounded by timeout, and keeps
// its output in the logs. For OpenCode it also waits until its server has done what its
// plugins started when the run's session went idle (a continuation), within the same
// timeout, and counts that in Took.
func (e *Env) RunAgent(timeout time.Duration, prompt string) Result {
	e.T.Helper()
	r := e.Run(timeout, nil, e.Exe, e.HookedArgs(prompt)...)
	e.keepLog("agent", r)
	if r.TimedOut {
		e.T.Fatalf("%s did not finish within %v", e.Agent.Name, timeout)
	}
	e.settle(timeout, &r)
	return r
}

// settle waits, after an OpenCode run, until the server is settled (awaitSettled), within
// what is left of timeout, and adds the wait to r.Took.
func (e *Env) settle(timeout time.Duration, r *Result) {
	e.T.Helper()
	if e.server == nil {
		return
	}
	start := time.Now()
	if err := e.server.awaitSettled(e.Repo, max(timeout-r.Took, 10*time.Second)); err != nil {
		e.T.Fatal(err)
	}
	r.Took += time.Since(start)
}

func (e *Env) keepLog(name string, r Result) {
	os.WriteFile(filepath.Join(e.logs, name+".stdout"), []byte(r.Stdout), 0o666)
	os.WriteFile(filepath.Join(e.logs, name+".stderr"), []byte(r.Stderr), 0o666)
}

// ResumeAgent runs the agent headless on prompt in the session it ran last (ResumeArgs),
// bounded by timeout, and keeps its output in the logs.
func (e *Env) ResumeAgent(timeout time.Duration, prompt string) Result {
	e.T.Helper()
	r := e.Run(timeout, e.ResumeEnv(), e.Exe, e.ResumeArgs(prompt)...)
	e.keepLog("resume", r)
	if r.TimedOut {
		e.T.Fatalf("%s (resumed) did not finish within %v", e.Agent.Name, timeout)
	}
	e.settle(timeout, &r)
	return r
}

// RunLoop runs `git loop run ARGS… -- AGENT…` (driver mode, DriverArgs) bounded by
// timeout, and keeps its output in the logs.
func (e *Env) RunLoop(timeout time.Duration, args ...string) Result {
	e.T.Helper()
	argv := append(append([]string{"loop", "run"}, args...), "--")
	r := e.Run(timeout, nil, "git", append(argv, e.DriverArgs()...)...)
	e.keepLog("run", r)
	if r.TimedOut {
		e.T.Fatalf("git loop run -- %s did not finish within %v", e.Agent.Name, timeout)
	}
	return r
}

// HookCall is one run of git-loop's hook by the agent, as the wrapper kept it.
type HookCall struct {
	// Agent and Event are the hook's arguments (git loop hook AGENT EVENT).
	Agent, Event string
	// Payload is what the agent wrote on the hook's standard input; Answer what git-loop
	// printed; Stderr what it said there.
	Payload, Answer, Stderr string
}

// Decode unmarshals the payload into v, failing the test if it is not JSON.
func (h HookCall) Decode(t testing.TB, v any) {
	t.Helper()
	if err := json.Unmarshal([]byte(h.Payload), v); err != nil {
		t.Fatalf("hook %s %s payload is not JSON: %v: %s", h.Agent, h.Event, err, h.Payload)
	}
}

// Reason is the reason of a blocking answer ({"decision":"block"|"deny","reason":…}), or "".
func (h HookCall) Reason() string {
	var a struct {
		Decision string `json:"decision"`
		Reason   string `json:"reason"`
	}
	if json.Unmarshal([]byte(h.Answer), &a) != nil || (a.Decision != "block" && a.Decision != "deny") {
		return ""
	}
	return a.Reason
}

// Hooks returns the hook calls so far, oldest first.
func (e *Env) Hooks() []HookCall {
	e.T.Helper()
	ins, err := filepath.Glob(filepath.Join(e.HookDir, "*.in"))
	if err != nil {
		e.T.Fatal(err)
	}
	sort.Strings(ins) // named by the time they started
	var calls []HookCall
	for _, in := range ins {
		base := strings.TrimSuffix(in, ".in")
		parts := strings.SplitN(filepath.Base(base), "-", 4) // NUMBER-PID-AGENT-EVENT
		if len(parts) != 4 {
			e.T.Fatalf("unexpected hook capture %s", in)
		}
		read := func(ext string) string {
			b, _ := os.ReadFile(base + ext)
			return string(b)
		}
		calls = append(calls, HookCall{Agent: parts[2], Event: parts[3], Payload: read(".in"), Answer: read(".out"), Stderr: read(".err")})
	}
	return calls
}

// StopHooks returns the calls of the agent's stop hook (Event), oldest first.
func (e *Env) StopHooks() []HookCall {
	var out []HookCall
	for _, h := range e.Hooks() {
		if h.Agent == e.Agent.Name && h.Event == e.Agent.Event {
			out = append(out, h)
		}
	}
	return out
}

// State is the part of `git loop status --json` the scenarios check.
type State struct {
	Name      string `json:"name"`
	Status    string `json:"status"`
	Iteration int    `json:"iteration"`
	Reason    string `json:"reason"`
	Session   string `json:"session"`
}

// Status is `git loop status NAME --json`'s state.
func (e *Env) Status(name string) State {
	e.T.Helper()
	var s struct {
		State State `json:"state"`
	}
	out := e.Loop("status", name, "--json")
	if err := json.Unmarshal([]byte(out), &s); err != nil {
		e.T.Fatalf("git loop status --json: %v: %s", err, out)
	}
	return s.State
}

// Iteration is one line of `git loop log --json`.
type Iteration struct {
	Iteration int    `json:"iteration"`
	Kind      string `json:"kind"` // start, stop (a hook), run (the driver)…
	Decision  string `json:"decision"`
	Reason    string `json:"reason"`
	// Set by Show only (git loop log leaves them out):
	Message string `json:"message"` // the agent's message the iteration judged
	Tokens  int64  `json:"tokens"`  // the loop's tokens so far, as counted at this iteration
	Session string `json:"session"`
}

// Show is the record of iteration n of loop name (`git loop show NAME N --json`).
func (e *Env) Show(name string, n int) Iteration {
	e.T.Helper()
	var v struct {
		Record Iteration `json:"record"`
	}
	out := e.Loop("show", name, fmt.Sprint(n), "--json")
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		e.T.Fatalf("git loop show --json: %v: %s", err, out)
	}
	return v.Record
}

// Log is `git loop log NAME --json`, oldest iteration first.
func (e *Env) Log(name string) []Iteration {
	e.T.Helper()
	var its []Iteration
	out := e.Loop("log", name, "--json")
	if err := json.Unmarshal([]byte(out), &its); err != nil {
		e.T.Fatalf("git loop log --json: %v: %s", err, out)
	}
	sort.Slice(its, func(i, j int) bool { return its[i].Iteration < its[j].Iteration })
	return its
}

// Fsck fails the test unless `git fsck --strict` finds the repository clean: no error, no
// warning (dangling objects are not reported: unreachable is not broken).
func (e *Env) Fsck() {
	e.T.Helper()
	r := e.Run(time.Minute, nil, "git", "fsck", "--strict", "--no-progress", "--no-dangling")
	if r.Code != 0 || strings.TrimSpace(r.Stdout+r.Stderr) != "" {
		e.T.Fatalf("git fsck --strict: exit %d: %s%s", r.Code, r.Stdout, r.Stderr)
	}
}

// logDiagnostics logs what explains a failure: the agent's output, each hook call, and the
// mock's requests (main ones with the last user message).
func (e *Env) logDiagnostics() {
	t := e.T
	for _, name := range []string{"agent.stdout", "agent.stderr", "resume.stdout", "resume.stderr", "run.stdout", "run.stderr", "server.stdout", "server.stderr"} {
		if b, err := os.ReadFile(filepath.Join(e.logs, name)); err == nil && len(b) > 0 {
			t.Logf("%s (end):\n%s", name, tailLines(string(b), 40))
		}
	}
	for i, h := range e.Hooks() {
		t.Logf("hook call %d (%s %s):\n  payload: %s\n  answer: %s\n  stderr: %s", i+1, h.Agent, h.Event,
			strings.TrimSpace(h.Payload), strings.TrimSpace(h.Answer), strings.TrimSpace(h.Stderr))
	}
	for _, r := range e.Mock.Requests() {
		t.Logf("request %d: %s %s kind=%s conversation=%d step=%d last user: %.300q", r.Seq, r.Method, r.Path, r.Kind, r.Conversation, r.Step, r.LastUser)
	}
}

func tailLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

var goEnvCache sync.Map

// goEnv is `go env NAME`, asked once per process.
func goEnv(name string) string {
	if v, ok := goEnvCache.Load(name); ok {
		return v.(string)
	}
	out, _ := exec.Command("go", "env", name).Output()
	v := strings.TrimSpace(string(out))
	goEnvCache.Store(name, v)
	return v
}

// SaveEnvVar, when set to 1, makes SavePayloads write the hook payloads the agents sent
// into the source tree (testdata/realagents/payloads), as fixtures for unit tests.
const SaveEnvVar = "GITLOOP_REAL_AGENTS_SAVE"

// SavePayloads writes every hook payload of the run, when SaveEnvVar is 1, to
// dir/AGENT/SCENARIO-NN-EVENT.json, and the session logs of SessionLogs to
// dir/AGENT/SCENARIO-session-N.jsonl (and the ID.settings.json beside a log, Factory
// Droid's token totals, to SCENARIO-session-N.settings.json): the bytes the agent wrote,
// with the Env's temporary root (also in the dash-separated form Claude Code names its
// project directories by) replaced by /tmp/git-loop-e2e.
func (e *Env) SavePayloads(dir, scenario string) {
	e.T.Helper()
	if os.Getenv(SaveEnvVar) != "1" {
		return
	}
	dir = filepath.Join(dir, e.Agent.Name)
	if err := os.MkdirAll(dir, 0o777); err != nil {
		e.T.Fatal(err)
	}
	old, _ := filepath.Glob(filepath.Join(dir, scenario+"-*.json"))
	logs, _ := filepath.Glob(filepath.Join(dir, scenario+"-session-*.jsonl"))
	for _, f := range append(old, logs...) {
		os.Remove(f)
	}
	const placeholder = "/tmp/git-loop-e2e"
	r := strings.NewReplacer(e.Root, placeholder, strings.ReplaceAll(e.Root, "/", "-"), strings.ReplaceAll(placeholder, "/", "-"))
	for i, h := range e.Hooks() {
		name := fmt.Sprintf("%s-%02d-%s.json", scenario, i+1, h.Event)
		if err := os.WriteFile(filepath.Join(dir, name), []byte(r.Replace(h.Payload)), 0o666); err != nil {
			e.T.Fatal(err)
		}
	}
	for i, log := range e.SessionLogs() {
		b, err := os.ReadFile(log)
		if err != nil {
			e.T.Fatal(err)
		}
		name := fmt.Sprintf("%s-session-%d.jsonl", scenario, i+1)
		if err := os.WriteFile(filepath.Join(dir, name), []byte(r.Replace(string(b))), 0o666); err != nil {
			e.T.Fatal(err)
		}
		// Factory Droid keeps the session's token totals beside its log, in ID.settings.json.
		if b, err := os.ReadFile(strings.TrimSuffix(log, ".jsonl") + ".settings.json"); err == nil {
			name := fmt.Sprintf("%s-session-%d.settings.json", scenario, i+1)
			if err := os.WriteFile(filepath.Join(dir, name), []byte(r.Replace(string(b))), 0o666); err != nil {
				e.T.Fatal(err)
			}
		}
	}
}

// SessionLogs are the session logs the agent wrote that git-loop reads and the hook
// payloads do not already hold: Copilot CLI's events.jsonl files, Gemini CLI's chat logs and
// Factory Droid's session logs (one per session, in the order the sessions began), for the
// fixtures of their readers.
func (e *Env) SessionLogs() []string {
	e.T.Helper()
	if e.Agent.Name == "droid" {
		// ~/.factory/sessions/PROJECT/ID.jsonl: a session_start line, then messages with
		// timestamps (ISO 8601 in UTC: they sort as text)
		logs, err := filepath.Glob(filepath.Join(e.Home, ".factory", "sessions", "*", "*.jsonl"))
		if err != nil {
			e.T.Fatal(err)
		}
		began := map[string]string{}
		for _, l := range logs {
			b, _ := os.ReadFile(l)
			for _, line := range bytes.Split(b, []byte("\n")) {
				var m struct {
					Timestamp string `json:"timestamp"`
				}
				if json.Unmarshal(line, &m) == nil && m.Timestamp != "" {
					began[l] = m.Timestamp
					break
				}
			}
		}
		sort.SliceStable(logs, func(i, j int) bool { return began[logs[i]] < began[logs[j]] })
		return logs
	}
	if e.Agent.Name == "gemini" {
		// session-YYYY-MM-DDTHH-MM-ID.jsonl: sorts by start time as text
		logs, err := filepath.Glob(filepath.Join(e.Home, ".gemini", "tmp", "*", "chats", "session-*.jsonl"))
		if err != nil {
			e.T.Fatal(err)
		}
		sort.Strings(logs)
		return logs
	}
	if e.Agent.Name == "qwen" {
		// ~/.qwen/projects/PROJECT/chats/ID.jsonl: each line has a timestamp (ISO 8601 in
		// UTC: they sort as text)
		logs, err := filepath.Glob(filepath.Join(e.Home, ".qwen", "projects", "*", "chats", "*.jsonl"))
		if err != nil {
			e.T.Fatal(err)
		}
		began := map[string]string{}
		for _, l := range logs {
			b, _ := os.ReadFile(l)
			line, _, _ := bytes.Cut(b, []byte("\n"))
			var m struct {
				Timestamp string `json:"timestamp"`
			}
			json.Unmarshal(line, &m)
			began[l] = m.Timestamp
		}
		sort.SliceStable(logs, func(i, j int) bool { return began[logs[i]] < began[logs[j]] })
		return logs
	}
	if e.Agent.Name != "copilot" {
		return nil
	}
	logs, err := filepath.Glob(filepath.Join(e.Home, ".copilot", "session-state", "*", "events.jsonl"))
	if err != nil {
		e.T.Fatal(err)
	}
	began := map[string]string{} // the start time of the session.start event on a log's first line
	for _, l := range logs {
		b, _ := os.ReadFile(l)
		line, _, _ := bytes.Cut(b, []byte("\n"))
		var start struct {
			Data struct {
				StartTime string `json:"startTime"`
			} `json:"data"`
		}
		json.Unmarshal(line, &start)
		began[l] = start.Data.StartTime // ISO 8601 in UTC: sorts as text
	}
	sort.SliceStable(logs, func(i, j int) bool { return began[logs[i]] < began[logs[j]] })
	return logs
}
