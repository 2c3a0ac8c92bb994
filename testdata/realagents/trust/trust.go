//go:build unix

// Package trust is what the agents' trust tests (hooks/agents/NAME/trust_test.go) share:
// they hold doctor's (and install's) verdicts to what each real agent does, running the
// versions the README names, installed as the real-agent suite installs them
// (realagents.Require: into ${XDG_CACHE_HOME:-~/.cache}/git-loop/agents/<package>@<version>
// on first use, or skipped saying why where npm or the registry is missing;
// GITLOOP_REAL_AGENTS=0 skips them all, and -short skips them unless GITLOOP_REAL_AGENTS is 1
// or names the agent). The agents run in a throwaway home and talk to nothing but a stub
// model on 127.0.0.1 (Codex needs none: its app-server reports each hook's trust).
//
// It is a package of its own, not part of realagents, because it imports hooks: package
// hooks' own tests and package loop's import realagents, so realagents importing hooks
// would be an import cycle.
//
// The world they run in (realagents.DoctorWorld and the file helpers) is realagents', which
// hooks' own tests use too. The helpers change the process's environment (HOME, PATH) with
// t.Setenv, so a test that uses them cannot run in parallel with another.
package trust

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/git-loop/git-loop/hooks"
	"github.com/git-loop/git-loop/testdata/realagents"
)

// realAgentPaths are the agents' executables inside their install directory, as globs.
var realAgentPaths = map[string]string{
	"claude":  "node_modules/@anthropic-ai/claude-code-*/claude",
	"codex":   "node_modules/@openai/codex-*/vendor/*/bin/codex",
	"gemini":  "node_modules/@google/gemini-cli/bundle/gemini.js",
	"copilot": "node_modules/@github/copilot-*/copilot",
	"droid":   "node_modules/@factory/cli-*/bin/droid",
}

// RealAgent returns the command that runs agent, installing it first when it is not cached,
// or skips t as realagents.Require does. Call it before changing HOME.
func RealAgent(t *testing.T, agent string) []string {
	t.Helper()
	inst := realagents.Require(t, agent)
	dir := filepath.Dir(filepath.Dir(filepath.Dir(inst.Exe))) // DIR/node_modules/.bin/NAME
	matches, _ := filepath.Glob(filepath.Join(dir, realAgentPaths[agent]))
	if len(matches) == 0 {
		t.Fatalf("real %s: no %s in %s", agent, realAgentPaths[agent], dir)
	}
	if agent == "gemini" {
		node, err := exec.LookPath("node")
		if err != nil {
			t.Skipf("SKIP real gemini: no node on PATH")
		}
		return []string{node, matches[0]}
	}
	return matches[:1]
}

// InstallText installs git-loop's hooks for agent (hooks.Install: the project at dir, or
// the user's when user is set), failing t if it fails, and returns what install says.
func InstallText(t *testing.T, agent, dir string, user bool) string {
	t.Helper()
	out, err := hooks.Install(agent, dir, user)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, r := range out {
		b.WriteString(r.String())
	}
	return b.String()
}

// DoctorVerdict is doctor's verdict (hooks.Doctor) on agent's hook of scope ("project" or
// "user") in dir: "true" when it says the agent runs it, "false" when not, "" when it finds
// none.
func DoctorVerdict(dir, agent, scope string) string {
	for _, a := range hooks.Doctor(dir).Agents {
		for _, h := range a.Hooks {
			if a.Agent == agent && h.Scope == scope {
				return strconv.FormatBool(h.Runs)
			}
		}
	}
	return ""
}

// HookRecorder puts a git-loop on PATH that records each hook call in a file and lets the
// agent stop; calls returns the calls since the last (one "AGENT EVENT" line each).
func HookRecorder(t *testing.T) (calls func() string) {
	t.Helper()
	bin := t.TempDir()
	log := filepath.Join(bin, "calls")
	script := "#!/bin/sh\nif [ \"$1\" = hook ]; then cat >/dev/null; echo \"$2 $3\" >> " + strconv.Quote(log) + "; echo '{}'; fi\nexit 0\n"
	realagents.WriteString(t, filepath.Join(bin, "git-loop"), script)
	if err := os.Chmod(filepath.Join(bin, "git-loop"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	return func() string {
		b, _ := os.ReadFile(log)
		os.Remove(log)
		return string(b)
	}
}

// StubModel starts a model server, stopped when t ends, that answers every model request
// with "Done." and ends the turn: Anthropic Messages (Claude Code, Copilot CLI) and Gemini's
// generateContent, streamed or not. It returns the server's URL.
func StubModel(t *testing.T) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var req struct {
			Stream bool   `json:"stream"`
			Model  string `json:"model"`
			Config struct {
				Schema map[string]any `json:"responseJsonSchema"`
			} `json:"generationConfig"`
		}
		json.Unmarshal(body, &req)
		sse := func(events ...string) {
			w.Header().Set("Content-Type", "text/event-stream")
			for _, e := range events {
				io.WriteString(w, e+"\n\n")
			}
		}
		text := "Done."
		if req.Config.Schema != nil { // a side request wanting JSON: give it some
			b, _ := json.Marshal(fillSchema(req.Config.Schema))
			text = string(b)
		}
		gemini := `{"candidates":[{"content":{"role":"model","parts":[{"text":` + strconv.Quote(text) + `}]},"finishReason":"STOP","index":0}],` +
			`"usageMetadata":{"promptTokenCount":1,"candidatesTokenCount":1,"totalTokenCount":2}}`
		switch p := r.URL.Path; {
		case strings.HasSuffix(p, "/v1/messages/count_tokens"):
			io.WriteString(w, `{"input_tokens":1}`)
		case strings.HasSuffix(p, "/v1/messages") && !req.Stream:
			fmt.Fprintf(w, `{"id":"msg_1","type":"message","role":"assistant","model":%q,"content":[{"type":"text","text":"Done."}],"stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":1,"output_tokens":1}}`, req.Model)
		case strings.HasSuffix(p, "/v1/messages"):
			sse(fmt.Sprintf(`event: message_start`+"\n"+`data: {"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":%q,"content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":1,"output_tokens":1}}}`, req.Model),
				`event: content_block_start`+"\n"+`data: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`,
				`event: content_block_delta`+"\n"+`data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Done."}}`,
				`event: content_block_stop`+"\n"+`data: {"type":"content_block_stop","index":0}`,
				`event: message_delta`+"\n"+`data: {"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":1}}`,
				`event: message_stop`+"\n"+`data: {"type":"message_stop"}`)
		case strings.Contains(p, ":streamGenerateContent"):
			sse("data: " + gemini)
		case strings.Contains(p, ":generateContent"):
			io.WriteString(w, gemini)
		case strings.Contains(p, ":countTokens"):
			io.WriteString(w, `{"totalTokens":1}`)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// fillSchema is a value of the JSON schema s: the first of an enum, else the simplest of its
// type, every property of an object filled.
func fillSchema(s map[string]any) any {
	if enum, ok := s["enum"].([]any); ok && len(enum) > 0 {
		return enum[0]
	}
	switch typ, _ := s["type"].(string); strings.ToLower(typ) {
	case "object":
		out := map[string]any{}
		props, _ := s["properties"].(map[string]any)
		for k, v := range props {
			sub, _ := v.(map[string]any)
			out[k] = fillSchema(sub)
		}
		return out
	case "array":
		return []any{}
	case "integer", "number":
		return 1
	case "boolean":
		return false
	}
	return "x"
}

// RunAgent runs argv in dir with extra environment, bounded by two minutes (running out of
// them fails t), and returns its exit code and combined output.
func RunAgent(t *testing.T, dir string, extra []string, argv ...string) (code int, output string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir, cmd.Env, cmd.Stdin = dir, append(os.Environ(), extra...), nil
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		t.Fatalf("%s did not finish in time: %s", filepath.Base(argv[len(argv)-1]), TailString(string(out), 2000))
	}
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode(), string(out)
	} else if err != nil {
		t.Fatal(err)
	}
	return 0, string(out)
}

// TailString is the last n bytes of s, or s when it is shorter.
func TailString(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}
