//go:build unix

package realagents_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/git-loop/git-loop/testdata/mockmodel"
	"github.com/git-loop/git-loop/testdata/realagents"
)

// The marker the probe's stop hook gives as its reason to continue.
const marker = "MARKER-123"

// probeHook is the probe's stop hook: it keeps its payload and answer in the Env's HookDir,
// named as the git-loop wrapper names them (so Env.Hooks and Env.SavePayloads read them),
// and a copy of the transcript the payload names as it is when the hook starts; it asks
// once to continue with the marker as its reason, then lets the agent stop.
const probeHook = `#!/bin/sh
d=%[1]s
f="$d/$(printf %%06d "$(ls "$d" | wc -l)")-$$-%[2]s-%[3]s"
cat > "$f.in"
t=$(sed -n 's/.*"transcript_path":"\([^"]*\)".*/\1/p' "$f.in")
if [ -n "$t" ]; then cp "$t" "$f.transcript"; fi
if [ "$(ls "$d" | grep -c '\.in$')" = 1 ]; then a='{"decision":"block","reason":"%[4]s"}'; else a='{}'; fi
printf '%%s\n' "$a" > "$f.out"
printf '%%s\n' "$a"
`

// probePlugin is the probe's OpenCode plugin: at session.idle it runs the hook with the
// event OpenCode gave it (and the plugin's directory and worktree) on standard input, and
// when the hook answers block, continues the session with the reason as the next prompt.
// spawnSync holds OpenCode's server while the hook runs, as a command hook holds the others.
const probePlugin = `import { spawnSync } from "node:child_process";

export const Probe = async ({ client, directory, worktree }) => ({
  event: async ({ event }) => {
    if (event.type !== "session.idle") return;
    const r = spawnSync(%[1]q, [], { input: JSON.stringify({ event, directory, worktree }), encoding: "utf8" });
    let answer = {};
    try { answer = JSON.parse(r.stdout || "{}"); } catch {}
    if (answer.decision === "block") {
      await client.session.promptAsync({
        path: { id: event.properties.sessionID },
        body: { parts: [{ type: "text", text: answer.reason }] },
      });
    }
  },
});
`

// TestHarnessRunsNewAgents runs OpenCode offline in the harness with a stop hook of its own
// kind written by hand (git-loop's support for it is issue 26's): a project plugin. (Qwen Code
// and Factory Droid, which it probed first, run the real scenarios now, in hooks/agents/qwen
// and hooks/agents/droid.) The hook asks once to continue with a
// marker; the marker must reach the model as the next user message, the hook run again at
// the second answer and let the agent exit 0, and no request but the two answers take a
// step of the script. Then the session is resumed (ResumeArgs) with a new prompt, which
// must reach the model in the same conversation and end at a third stop of the same
// session. GITLOOP_REAL_AGENTS_SAVE=1 keeps the payloads as fixtures (probe-NN-EVENT.json).
func TestHarnessRunsNewAgents(t *testing.T) {
	for _, name := range []string{"opencode"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			inst := realagents.Require(t, name)
			// git-loop plays no part: the hook is the probe's.
			e := realagents.New(t, inst, "/bin/false", mockmodel.Script{{Text: "First answer."}, {Text: "Second answer."}, {Text: "Third answer."}})
			hook := filepath.Join(e.Root, "probe-hook.sh")
			script := fmt.Sprintf(probeHook, shellQuote(e.HookDir), name, inst.Event, marker)
			if err := os.WriteFile(hook, []byte(script), 0o777); err != nil {
				t.Fatal(err)
			}
			file, text := ".opencode/plugin/probe.js", fmt.Sprintf(probePlugin, hook)
			if err := os.MkdirAll(filepath.Dir(filepath.Join(e.Repo, file)), 0o777); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(e.Repo, file), []byte(text), 0o666); err != nil {
				t.Fatal(err)
			}

			r := e.RunAgent(realagents.AgentTimeout, realagents.Task)
			t.Logf("%s %s ran in %v", name, inst.Version, r.Took.Round(100*time.Millisecond))
			e.SavePayloads(realagents.PayloadDir(), "probe")
			if r.Code != 0 {
				t.Errorf("%s exited %d", name, r.Code)
			}
			hooks := e.StopHooks()
			if len(hooks) != 2 {
				t.Fatalf("the stop hook ran %d times, want 2 (asked to continue once, then not)", len(hooks))
			}
			got := e.MainRequest(0, 1).LastUser
			if fb := inst.Feedback(got); fb != marker {
				t.Errorf("the model's request after the block has the last user message %q (feedback %q), want %q", got, fb, marker)
			}
			if main := e.Mock.MainRequests(); len(main) != 2 {
				t.Errorf("%d requests took a step of the script, want 2:\n%s", len(main), steps(main))
			}

			// Resumed (ResumeArgs), the agent goes on in the same session, the new prompt the
			// last user message of the same conversation, and stops once more.
			r = e.ResumeAgent(realagents.AgentTimeout, "Go on.")
			t.Logf("%s resumed ran in %v", name, r.Took.Round(100*time.Millisecond))
			e.SavePayloads(realagents.PayloadDir(), "probe")
			if r.Code != 0 {
				t.Errorf("%s resumed exited %d", name, r.Code)
			}
			hooks = e.StopHooks()
			if len(hooks) != 3 || session(t, hooks[2]) != session(t, hooks[0]) {
				t.Fatalf("resumed, the stop hook ran %d times in all, want 3, the last in the first's session", len(hooks))
			}
			prompt := "Go on."
			if name == "opencode" { // opencode run puts an argument holding a space in double quotes
				prompt = `"Go on."`
			}
			main := e.Mock.MainRequests()
			if last := main[len(main)-1]; len(main) != 3 || last.Conversation != 0 || last.LastUser != prompt {
				t.Errorf("resumed, %d requests took a step, want 3, the last in conversation 0 after %s:\n%s", len(main), prompt, steps(main))
			}
			t.Logf("the resumed session's request took step %d", main[len(main)-1].Step)
		})
	}
}

// session is the session a stop hook's payload names: session_id, or OpenCode's event's
// sessionID (as the probe's plugin hands it on).
func session(t *testing.T, h realagents.HookCall) string {
	var p struct {
		Session string `json:"session_id"`
		Event   struct {
			Properties struct {
				Session string `json:"sessionID"`
			} `json:"properties"`
		} `json:"event"`
	}
	h.Decode(t, &p)
	if p.Session == "" {
		return p.Event.Properties.Session
	}
	return p.Session
}

// steps lists main requests, one a line.
func steps(main []mockmodel.Request) string {
	var lines []string
	for _, m := range main {
		lines = append(lines, fmt.Sprintf("conversation %d step %d (last user %.80q)", m.Conversation, m.Step, m.LastUser))
	}
	return strings.Join(lines, "\n")
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
