package opencode

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/git-loop/git-loop/hooks/kit"
	"github.com/git-loop/git-loop/loop"
)

// TestPluginStatesItsTimeout: the embedded plugin is what install writes with the default
// timeout, and states it once, so that install can write another and a stop read it back;
// any other text (edited) is not git-loop's.
func TestPluginStatesItsTimeout(t *testing.T) {
	if n := strings.Count(plugin, timeoutStatement(defaultTimeout)); n != 1 {
		t.Fatalf("git-loop.js states %q %d times, want once", timeoutStatement(defaultTimeout), n)
	}
	if want := int(loop.HookTimeout(nil, nil) / time.Millisecond); defaultTimeout != want {
		t.Errorf("the default timeout is %d ms, want loop.HookTimeout's %d", defaultTimeout, want)
	}
	for _, tc := range []struct {
		name  string
		text  string
		ms    int
		ours  bool
		found bool
	}{
		{"default", pluginText(defaultTimeout), defaultTimeout, true, true},
		{"a slow gate's", pluginText(1860000), 1860000, true, true},
		{"checked out with CRLF", strings.ReplaceAll(pluginText(5000), "\n", "\r\n"), 5000, true, true},
		{"edited", strings.Replace(pluginText(5000), "session stops", "session ends", 1), 5000, false, true},
		{"no timeout", strings.Replace(plugin, timeoutStatement(defaultTimeout), "const hookTimeoutMs = x;", 1), 0, false, false},
		{"someone else's", "export const Mine = async () => ({});\n", 0, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n, ours := kit.ScriptTimeout(pluginFile, timeoutKey, []byte(tc.text))
			if n != tc.ms || ours != tc.ours {
				t.Errorf("ScriptTimeout = %d, %v; want %d, %v", n, ours, tc.ms, tc.ours)
			}
			// A stop reads back what the plugin states, edited or not: that is what it applies.
			dir := t.TempDir()
			t.Setenv("HOME", t.TempDir())
			t.Setenv("XDG_CONFIG_HOME", "")
			os.MkdirAll(filepath.Dir(projectFile(dir)), 0o755)
			os.WriteFile(projectFile(dir), []byte(tc.text), 0o644)
			got, from := Agent.InstalledStopTimeout("session-idle", dir)
			if want := time.Duration(tc.ms) * time.Millisecond; got != want || tc.found && from != projectFile(dir) {
				t.Errorf("a stop reads back %v from %q, want %v", got, from, want)
			}
		})
	}
}

// pluginRun is what the plugin did under drive-plugin.mjs: the names it exports, what it
// asked of OpenCode's client, and the payloads its hook read.
type pluginRun struct {
	Exports []string         `json:"exports"`
	Calls   []map[string]any `json:"calls"`
	// Payloads are what the hook read on its standard input, one per run.
	Payloads []string
	Took     time.Duration
}

func (r pluginRun) prompts() []map[string]any {
	var out []map[string]any
	for _, c := range r.Calls {
		if p, ok := c["prompt"].(map[string]any); ok {
			out = append(out, p)
		}
	}
	return out
}

func (r pluginRun) said(kind string) string {
	var out []string
	for _, c := range r.Calls {
		if s, ok := c[kind].(string); ok {
			out = append(out, s)
		}
	}
	return strings.Join(out, "\n")
}

// runPlugin runs the plugin (text) with node, as OpenCode would at events, serving the
// session in session.json; the hook is a shell script whose body is hook ("" for none on
// PATH) after it saved what it read.
func runPlugin(t *testing.T, text, session, hook string, events ...string) pluginRun {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed: the plugin is not run")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "bin")
	os.MkdirAll(bin, 0o755)
	if hook != "" {
		script := "#!/bin/sh\ncat > " + dir + "/payload-$$.json\n" + hook + "\n"
		if err := os.WriteFile(filepath.Join(bin, "git-loop"), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	pluginPath := filepath.Join(dir, "git-loop.js")
	sessionPath := filepath.Join(dir, "session.json")
	os.WriteFile(pluginPath, []byte(text), 0o644)
	os.WriteFile(sessionPath, []byte(session), 0o644)
	os.WriteFile(filepath.Join(dir, "package.json"), []byte(`{"type": "module"}`), 0o644)
	if len(events) == 0 {
		events = []string{`{"type":"session.idle","properties":{"sessionID":"ses_1"}}`}
	}
	driver, _ := filepath.Abs(filepath.Join("testdata", "drive-plugin.mjs"))
	cmd := exec.Command(node, driver, pluginPath, sessionPath, "["+strings.Join(events, ",")+"]")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "PATH="+bin+":/usr/bin:/bin") // no other git-loop
	start := time.Now()
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node: %v: %s", err, out)
	}
	var r pluginRun
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatalf("node printed %q: %v", out, err)
	}
	r.Took = time.Since(start)
	payloads, _ := filepath.Glob(filepath.Join(dir, "payload-*.json"))
	for _, p := range payloads {
		b, _ := os.ReadFile(p)
		r.Payloads = append(r.Payloads, string(b))
	}
	return r
}

func readSession(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "session.json"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestPluginContinuesOnBlock runs the plugin with node against the session OpenCode 1.18.33
// served (testdata/session.json: a prompt; an answer that ran `echo hello-step`; "First
// answer."; a hook's reason; an empty answer) and a hook that answers each way git-loop
// might, or fails: only a block with a reason sends the reason as the next prompt, with the
// session's agent and model; a message for the person is a toast; anything else lets the
// session stop, and nothing the hook does throws.
func TestPluginContinuesOnBlock(t *testing.T) {
	session := readSession(t)
	block := `{"decision":"block","reason":"Not done yet: gate test.","systemMessage":"iteration 1: test fails"}`
	for _, tc := range []struct {
		name, hook string
		prompt     string // the reason sent as the next prompt, or ""
		toast, log string // what the person is shown, and OpenCode's log, or ""
	}{
		{"block", "echo '" + block + "'", "Not done yet: gate test.", "iteration 1: test fails", ""},
		{"block, saying why on stderr", "echo '" + block + "'; echo 'git-loop: note' >&2", "Not done yet: gate test.", "iteration 1: test fails", "info: git-loop: note"},
		{"complete", `echo '{"systemMessage":"loop fix completed"}'`, "", "loop fix completed", ""},
		{"let stop silently", "exit 0", "", "", ""},
		{"block with no reason", `echo '{"decision":"block","reason":" "}'`, "", "", ""},
		{"block, then a failure", "echo '" + block + "'; exit 1", "", "", ""},
		{"not JSON", "echo 'Traceback (most recent call last):'", "", "", ""},
		{"a JSON string", `echo '"block"'`, "", "", ""},
		{"git-loop missing", "", "", "", "warn: git-loop: cannot run git-loop hook opencode session-idle: "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := runPlugin(t, plugin, session, tc.hook)
			if strings.Join(r.Exports, ",") != "GitLoop" {
				t.Errorf("the plugin exports %v: OpenCode calls every export as a plugin", r.Exports)
			}
			prompts := r.prompts()
			switch {
			case tc.prompt == "" && len(prompts) > 0:
				t.Errorf("the session was continued: %v", prompts)
			case tc.prompt != "" && len(prompts) != 1:
				t.Errorf("the session was continued %d times, want once: %v", len(prompts), r.Calls)
			case tc.prompt != "":
				b, _ := json.Marshal(prompts[0])
				want := `{"body":{"agent":"build","model":{"modelID":"mock-model","providerID":"mock"},"parts":[{"text":"` + tc.prompt + `","type":"text"}]},"path":{"id":"ses_1"}}`
				if string(b) != want {
					t.Errorf("promptAsync(%s), want %s", b, want)
				}
			}
			if got := r.said("toast"); got != tc.toast {
				t.Errorf("toast %q, want %q", got, tc.toast)
			}
			if got := r.said("log"); tc.log == "" && got != "" || !strings.HasPrefix(got, tc.log) {
				t.Errorf("logged %q, want %q", got, tc.log)
			}
			if want := map[bool]int{true: 1}[tc.hook != ""]; len(r.Payloads) != want {
				t.Errorf("the hook read %d payloads, want %d", len(r.Payloads), want)
			}
		})
	}
}

// TestPluginBoundsTheHook: a hook that outlives the plugin's timeout is stopped and the
// session stops; a hook runs once per session at a time, and only at session.idle.
func TestPluginBoundsTheHook(t *testing.T) {
	session := readSession(t)
	t.Run("timeout", func(t *testing.T) {
		r := runPlugin(t, pluginText(300), session, "exec sleep 30")
		if len(r.prompts()) != 0 || !strings.Contains(r.said("log"), "ran longer than 300 ms; the session stops") {
			t.Errorf("calls %v", r.Calls)
		}
		if r.Took > 20*time.Second {
			t.Errorf("the plugin waited %v for a hook it gives 300 ms", r.Took)
		}
	})
	t.Run("timeout, SIGTERM ignored", func(t *testing.T) {
		r := runPlugin(t, pluginText(300), session, "trap '' TERM; sleep 7 & wait; wait")
		if len(r.prompts()) != 0 || r.Took > 25*time.Second {
			t.Errorf("after %v: calls %v", r.Took, r.Calls)
		}
	})
	t.Run("a process of the hook's holds its output", func(t *testing.T) {
		r := runPlugin(t, plugin, session, `echo '{"decision":"block","reason":"go on"}'; sleep 7 &`)
		if len(r.prompts()) != 1 || r.Took > 6*time.Second {
			t.Errorf("after %v: calls %v", r.Took, r.Calls)
		}
	})
	t.Run("one at a time", func(t *testing.T) {
		idle := `{"type":"session.idle","properties":{"sessionID":"ses_1"}}`
		r := runPlugin(t, plugin, session, "sleep 1; echo '{}'", idle, idle, `{"type":"session.idle","properties":{"sessionID":"ses_2"}}`)
		if len(r.Payloads) != 2 {
			t.Errorf("the hook ran %d times for two sessions' idles, one sent twice at once; want 2", len(r.Payloads))
		}
	})
	t.Run("other events", func(t *testing.T) {
		r := runPlugin(t, plugin, session, "echo '{}'", `{"type":"session.updated","properties":{"sessionID":"ses_1"}}`,
			`{"type":"session.idle","properties":{}}`, `{"type":"session.idle"}`, `{}`)
		if len(r.Payloads) != 0 || len(r.Calls) != 0 {
			t.Errorf("the hook ran %d times, calls %v", len(r.Payloads), r.Calls)
		}
	})
}

// TestPluginPayload: what the plugin sends is what the stop reads: the real session's
// digest, the turn's text only (here an empty answer after a hook's reason), each answer's
// tokens and shell commands; and a session too big for the bound loses its oldest messages
// first, saying how many.
func TestPluginPayload(t *testing.T) {
	r := runPlugin(t, plugin, readSession(t), "echo '{}'")
	if len(r.Payloads) != 1 {
		t.Fatalf("%d payloads", len(r.Payloads))
	}
	var in idleInput
	if err := kit.ReadPayload(strings.NewReader(r.Payloads[0]), "session.idle", &in); err != nil {
		t.Fatal(err)
	}
	var roles, texts []string
	for _, m := range in.Messages {
		roles = append(roles, m.Role)
		if m.Text != nil {
			texts = append(texts, fmt.Sprintf("%s %q", m.ID, *m.Text))
		}
	}
	if in.HookEventName != "session.idle" || in.SessionID != "ses_1" || in.ParentID != "" || in.Directory == "" || in.Omitted != 0 ||
		strings.Join(roles, " ") != "user assistant assistant user assistant" {
		t.Errorf("payload %s", r.Payloads[0])
	}
	if want := `msg_222ce25e4001b0cpgp6GDP5MNk ""`; strings.Join(texts, ", ") != want {
		t.Errorf("texts sent: %s, want only the turn's: %s", texts, want)
	}
	msg, _, judged := thisTurn(in.Messages, nil)
	tokens, _ := in.tokenCounter(nil)
	cmds, _, _ := in.commandReader(nil)
	if msg != "" || judged != nil || tokens.Tokens != 7736+7796+7817 || strings.Join(cmds, ";") != "echo hello-step" {
		t.Errorf("the stop reads message %q (%v), %d tokens, commands %q", msg, judged, tokens.Tokens, cmds)
	}

	// 100 answers of a 64 KiB command each (kept to 64 KiB): over the 4 MiB bound.
	var msgs []string
	for i := range 100 {
		msgs = append(msgs, fmt.Sprintf(`{"info":{"id":"msg_%03d","role":"assistant","tokens":{"total":1}},"parts":[{"type":"tool","tool":"bash","state":{"input":{"command":"echo %d %s"}}}]}`, i, i, strings.Repeat("x", 70<<10)))
	}
	r = runPlugin(t, plugin, `{"info":{},"messages":[`+strings.Join(msgs, ",")+`]}`, "echo '{}'")
	if len(r.Payloads) != 1 || len(r.Payloads[0]) > 4<<20 {
		t.Fatalf("%d payloads, the first %d bytes", len(r.Payloads), len(r.Payloads[0]))
	}
	in = idleInput{}
	if err := json.Unmarshal([]byte(r.Payloads[0]), &in); err != nil {
		t.Fatal(err)
	}
	last := in.Messages[len(in.Messages)-1]
	if in.Omitted == 0 || in.Omitted+len(in.Messages) != 100 || last.ID != "msg_099" || len(last.Commands[0]) != 64<<10 {
		t.Errorf("%d messages omitted, %d sent, the last %s with a command of %d bytes", in.Omitted, len(in.Messages), last.ID, len(last.Commands[0]))
	}
}
