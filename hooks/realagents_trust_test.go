//go:build unix

package hooks

import (
	"bufio"
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

	"github.com/git-loop/git-loop/testdata/realagents"
)

// These tests hold doctor (and install) to what the real agents do, with the versions the
// README names, installed as the real-agent suite installs them (testdata/realagents'
// Require: into ${XDG_CACHE_HOME:-~/.cache}/git-loop/agents/<package>@<version> on first use,
// or skipped saying why where npm or the registry is missing; GITLOOP_REAL_AGENTS=0 skips
// them all, and -short skips them unless GITLOOP_REAL_AGENTS is 1 or names the agent). The
// agents run in a throwaway home and talk to nothing but a stub model on 127.0.0.1 (Codex
// needs none: its app-server reports each hook's trust).

// realAgentPaths are the agents' executables inside their install directory, as globs.
var realAgentPaths = map[string]string{
	"claude":  "node_modules/@anthropic-ai/claude-code-*/claude",
	"codex":   "node_modules/@openai/codex-*/vendor/*/bin/codex",
	"gemini":  "node_modules/@google/gemini-cli/bundle/gemini.js",
	"copilot": "node_modules/@github/copilot-*/copilot",
}

// realAgent returns the command that runs agent, installing it first when it is not cached,
// or skips t. Call it before changing HOME.
func realAgent(t *testing.T, agent string) []string {
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

// hookRecorder puts a git-loop on PATH that records each hook call in a file and lets the
// agent stop; calls returns the calls so far ("AGENT EVENT" lines).
func hookRecorder(t *testing.T) (calls func() string) {
	t.Helper()
	bin := t.TempDir()
	log := filepath.Join(bin, "calls")
	script := "#!/bin/sh\nif [ \"$1\" = hook ]; then cat >/dev/null; echo \"$2 $3\" >> " + strconv.Quote(log) + "; echo '{}'; fi\nexit 0\n"
	writeString(t, filepath.Join(bin, "git-loop"), script)
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

// stubModel answers every model request with "Done." and ends the turn: Anthropic Messages
// (Claude Code, Copilot CLI) and Gemini's generateContent, streamed or not.
func stubModel(t *testing.T) string {
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

// runAgent runs argv in dir with extra environment, bounded by two minutes.
func runAgent(t *testing.T, dir string, extra []string, argv ...string) (code int, output string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir, cmd.Env, cmd.Stdin = dir, append(os.Environ(), extra...), nil
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		t.Fatalf("%s did not finish in time: %s", filepath.Base(argv[len(argv)-1]), tailString(string(out), 2000))
	}
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode(), string(out)
	} else if err != nil {
		t.Fatal(err)
	}
	return 0, string(out)
}

func tailString(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}

// doctorVerdict is doctor's verdict on agent's hook of scope in dir ("" when none is found).
func doctorVerdict(dir, agent, scope string) string {
	for _, a := range Doctor(dir).Agents {
		for _, h := range a.Hooks {
			if a.Agent == agent && h.Scope == scope {
				return strconv.FormatBool(h.Runs)
			}
		}
	}
	return ""
}

// codexListed is one hook as codex app-server's hooks/list reports it.
type codexListed struct {
	Key         string `json:"key"`
	Command     string `json:"command"`
	CurrentHash string `json:"currentHash"`
	TrustStatus string `json:"trustStatus"`
	Enabled     bool   `json:"enabled"`
}

// codexHooksList asks `codex app-server` (JSON-RPC over its standard input and output)
// which hooks apply in dir.
func codexHooksList(t *testing.T, exe, dir string) []codexListed {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, exe, "app-server")
	cmd.Dir = dir
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { in.Close(); cancel(); cmd.Wait() }()
	fmt.Fprintf(in, "%s\n%s\n%s\n",
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"clientInfo":{"name":"git-loop-test","version":"0"}}}`,
		`{"jsonrpc":"2.0","method":"initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"hooks/list","params":{"cwds":[`+strconv.Quote(dir)+`]}}`)
	sc := bufio.NewScanner(out)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var resp struct {
			ID     int             `json:"id"`
			Error  json.RawMessage `json:"error"`
			Result struct {
				Data []struct {
					Hooks []codexListed `json:"hooks"`
				} `json:"data"`
			} `json:"result"`
		}
		if json.Unmarshal(sc.Bytes(), &resp) != nil || resp.ID != 2 {
			continue
		}
		if resp.Error != nil {
			t.Fatalf("hooks/list: %s", resp.Error)
		}
		var hooks []codexListed
		for _, d := range resp.Result.Data {
			hooks = append(hooks, d.Hooks...)
		}
		return hooks
	}
	t.Fatalf("codex app-server gave no answer to hooks/list: %s", tailString(stderr.String(), 2000))
	return nil
}

// codexRuns is whether Codex lists a git-loop hook under key as one it runs.
func codexRuns(hooks []codexListed, key string) bool {
	for _, h := range hooks {
		if h.Key == key {
			return h.Enabled && h.TrustStatus == "trusted"
		}
	}
	return false
}

// TestCodexReviewsMatchCodex holds Codex's hash, keys and trust rules as git-loop computes
// them to what codex app-server reports, and doctor's verdict to whether Codex would run
// the hook.
func TestCodexReviewsMatchCodex(t *testing.T) {
	exe := realAgent(t, "codex")[0]
	home, repo := doctorWorld(t)
	cfg := filepath.Join(home, ".codex", "config.toml")
	writeString(t, cfg, "# offline\ncheck_for_update_on_startup = false\n\n[analytics]\nenabled = false\n")
	key := filepath.Join(repo, ".codex", "hooks.json") + ":stop:0:0"
	check := func(step, dir, scope, key string, want bool) {
		t.Helper()
		listed := codexHooksList(t, exe, dir)
		if got := codexRuns(listed, key); got != want {
			t.Fatalf("%s: codex runs %s: %v, want %v (hooks/list: %+v)", step, key, got, want, listed)
		}
		if got := doctorVerdict(dir, "codex", scope); got != strconv.FormatBool(want) {
			t.Fatalf("%s: doctor says runs=%s, codex %v:\n%s", step, got, want, Doctor(dir))
		}
	}

	installText(t, "codex", repo, false)
	check("untrusted project", repo, "project", key, false)
	writeString(t, cfg, readString(t, cfg)+"\n[projects."+tomlQuote(repo)+"]\ntrust_level = \"trusted\"\n")
	check("trusted project, reviewed by install", repo, "project", key, true)
	if !strings.HasPrefix(readString(t, cfg), "# offline\ncheck_for_update_on_startup = false\n\n[analytics]\nenabled = false\n") {
		t.Errorf("install did not keep config.toml:\n%s", readString(t, cfg))
	}

	// Every handler's hash as Codex computes it, git-loop's and others, odd fields and all.
	hooksFile := filepath.Join(repo, ".codex", "hooks.json")
	writeString(t, hooksFile, `{"hooks": {
	  "SessionStart": [{"matcher": "startup", "hooks": [{"type": "command", "command": "echo s"}]}],
	  "Stop": [
	    {"hooks": [{"type": "command", "command": "echo other"}]},
	    {"matcher": "*", "hooks": [{"type": "command", "command": "echo x", "timeout": 30},
	      {"type": "command", "command": "git-loop hook codex stop <&> \"q\" é \u2028 \u0001\b\f\\", "timeout": 0, "statusMessage": "judging…", "async": true}]},
	    {"hooks": [{"type": "command", "command": "/usr/local/bin/git-loop hook codex stop", "timeout": 5, "statusMessage": null}]}
	  ]}}`)
	listed := codexHooksList(t, exe, repo)
	var file struct {
		Hooks struct {
			Stop []struct {
				Hooks []map[string]json.RawMessage `json:"hooks"`
			} `json:"Stop"`
		} `json:"hooks"`
	}
	json.Unmarshal([]byte(readString(t, hooksFile)), &file)
	n := 0
	for g, group := range file.Hooks.Stop {
		for h, handler := range group.Hooks {
			k := fmt.Sprintf("%s:stop:%d:%d", hooksFile, g, h)
			want, why := CodexHookHash("stop", handler)
			found := false
			for _, l := range listed {
				if l.Key == k {
					found = true
					if l.CurrentHash != want {
						t.Errorf("%s: git-loop's hash %s (%s), Codex's %s", k, want, why, l.CurrentHash)
					}
				}
			}
			if !found {
				t.Errorf("codex does not list %s: %+v", k, listed)
			}
			n++
		}
	}
	if n != 4 {
		t.Fatalf("%d Stop handlers compared", n)
	}
	installText(t, "codex", repo, false) // reviews the two git-loop hooks
	for _, k := range []string{hooksFile + ":stop:1:1", hooksFile + ":stop:2:0"} {
		check("two git-loop hooks, reviewed", repo, "project", k, true)
	}
	if listed := codexHooksList(t, exe, repo); codexRuns(listed, hooksFile+":stop:0:0") {
		t.Errorf("install reviewed a hook that is not git-loop's: %+v", listed)
	}

	// An edited hook is one Codex no longer runs; a new install reviews it again.
	writeString(t, hooksFile, `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "git-loop hook codex stop", "timeout": 300}]}]}}`)
	check("edited since its review", repo, "project", key, false)
	installText(t, "codex", repo, false)
	check("reviewed again", repo, "project", key, true)
	header := "[hooks.state." + tomlQuote(key) + "]\n"
	reviewed := readString(t, cfg)
	writeString(t, cfg, strings.Replace(reviewed, header, header+"enabled = false\n", 1))
	check("turned off in /hooks", repo, "project", key, false)
	writeString(t, cfg, reviewed)

	// A linked worktree: Codex reads the main checkout's hooks, under the main's key.
	git(t, repo, "add", ".codex/hooks.json")
	git(t, repo, "commit", "-q", "-m", "codex hook")
	wt := filepath.Join(filepath.Dir(repo), "wt")
	git(t, repo, "worktree", "add", "-q", wt)
	installText(t, "codex", wt, false)
	check("linked worktree", wt, "project", key, true)
	if file, _ := CodexProjectHooks(wt); file+":stop:0:0" != key {
		t.Errorf("CodexProjectHooks(wt) = %s", file)
	}

	// The user's hooks, CODEX_HOME through a symlink: the key names the resolved directory.
	real := filepath.Join(filepath.Dir(home), "codex-real")
	if err := os.MkdirAll(real, 0o755); err != nil {
		t.Fatal(err)
	}
	writeString(t, filepath.Join(real, "config.toml"), "check_for_update_on_startup = false\n")
	link := filepath.Join(filepath.Dir(home), "codex-link")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	t.Setenv("CODEX_HOME", link)
	installText(t, "codex", "", true)
	check("the user's hook", repo, "user", filepath.Join(real, "hooks.json")+":stop:0:0", true)
}

// TestGeminiTrustMatchesGemini runs Gemini CLI headless in folders it trusts or not and holds
// doctor's verdict to whether the project's hook ran.
func TestGeminiTrustMatchesGemini(t *testing.T) {
	gemini := realAgent(t, "gemini")
	home, repo := doctorWorld(t)
	calls := hookRecorder(t)
	url := stubModel(t)
	t.Setenv("GEMINI_API_KEY", "stub-not-a-key")
	t.Setenv("GOOGLE_GEMINI_BASE_URL", url)
	t.Setenv("GEMINI_CLI_NO_RELAUNCH", "true")
	t.Setenv("NO_BROWSER", "true")
	settings := filepath.Join(home, ".gemini", "settings.json")
	offline := func(security string) string {
		return `{"security": {"auth": {"selectedType": "gemini-api-key"}` + security + `},
		  "general": {"disableAutoUpdate": true, "disableUpdateNag": true}, "privacy": {"usageStatisticsEnabled": false}, "telemetry": {"enabled": false}}`
	}
	installText(t, "gemini", repo, false)
	folders := filepath.Join(home, ".gemini", "trustedFolders.json")
	parent := filepath.Dir(repo)
	for _, tc := range []struct {
		name, folders, folderTrust, env string
	}{
		{name: "no trust"},
		{name: "the folder", folders: `{"{REPO}": "TRUST_FOLDER"}`},
		{name: "TRUST_PARENT", folders: `{"{REPO}/x": "TRUST_PARENT"}`},
		{name: "a longer DO_NOT_TRUST", folders: `{"{PARENT}": "TRUST_FOLDER", "{REPO}": "DO_NOT_TRUST"}`},
		{name: "an unknown level", folders: `{"{REPO}": "TRUST"}`},
		{name: "folder trust off", folderTrust: `, "folderTrust": {"enabled": false}`},
		{name: "GEMINI_CLI_TRUST_WORKSPACE=true", env: "GEMINI_CLI_TRUST_WORKSPACE=true"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			os.Remove(folders)
			if tc.folders != "" {
				writeString(t, folders, strings.NewReplacer("{REPO}", repo, "{PARENT}", parent).Replace(tc.folders))
			}
			writeString(t, settings, offline(tc.folderTrust))
			if tc.env != "" {
				k, v, _ := strings.Cut(tc.env, "=")
				t.Setenv(k, v)
			}
			verdict := doctorVerdict(repo, "gemini", "project")
			code, out := runAgent(t, repo, nil, append(gemini, "-p", "hi", "--yolo", "--output-format", "json")...)
			ran := strings.Contains(calls(), "gemini after-agent")
			if verdict != strconv.FormatBool(ran) {
				t.Errorf("doctor says runs=%s; Gemini exited %d, hook ran: %v\n%s", verdict, code, ran, tailString(out, 1500))
			}
			if !ran && code != 55 && code != 52 { // 52: Gemini refuses a trustedFolders.json it cannot read
				t.Errorf("an untrusted folder: exit %d, want 55", code)
			}
		})
	}
	t.Run("the user's hook, --skip-trust", func(t *testing.T) {
		os.Remove(folders)
		writeString(t, settings, offline(""))
		os.RemoveAll(filepath.Join(repo, ".gemini"))
		installText(t, "gemini", "", true)
		verdict := doctorVerdict(repo, "gemini", "user")
		code, out := runAgent(t, repo, nil, append(gemini, "-p", "hi", "--yolo", "--skip-trust", "--output-format", "json")...)
		if ran := strings.Contains(calls(), "gemini after-agent"); !ran || verdict != "true" {
			t.Errorf("doctor says runs=%s; Gemini exited %d, hook ran: %v\n%s", verdict, code, ran, tailString(out, 1500))
		}
	})
}

// TestCopilotTrustMatchesCopilot runs Copilot CLI headless with and without folder trust and
// holds doctor's verdict to whether the project's hook ran.
func TestCopilotTrustMatchesCopilot(t *testing.T) {
	copilot := realAgent(t, "copilot")[0]
	home, repo := doctorWorld(t)
	calls := hookRecorder(t)
	url := stubModel(t)
	for k, v := range map[string]string{"COPILOT_OFFLINE": "true", "COPILOT_AUTO_UPDATE": "false", "COPILOT_PROVIDER_TYPE": "anthropic",
		"COPILOT_PROVIDER_BASE_URL": url, "COPILOT_PROVIDER_API_KEY": "stub-not-a-key", "COPILOT_MODEL": "claude-sonnet-4.5"} {
		t.Setenv(k, v)
	}
	installText(t, "copilot", repo, false)
	config := filepath.Join(home, ".copilot", "config.json")
	args := []string{copilot, "-p", "hi", "--allow-all-tools", "--disable-client-telemetry", "--output-format", "json"}
	for _, tc := range []struct {
		name, config, allowAll string
	}{
		{name: "no trust"},
		{name: "the folder", config: `{"trustedFolders": ["{REPO}"]}`},
		{name: "a parent", config: "// managed\n{\"trustedFolders\": [\"{PARENT}\"]}"},
		{name: "COPILOT_ALLOW_ALL=true", allowAll: "true"},
		{name: "COPILOT_ALLOW_ALL=1", allowAll: "1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			os.Remove(config)
			if tc.config != "" {
				writeString(t, config, strings.NewReplacer("{REPO}", repo, "{PARENT}", filepath.Dir(repo)).Replace(tc.config))
			}
			t.Setenv("COPILOT_ALLOW_ALL", tc.allowAll)
			verdict := doctorVerdict(repo, "copilot", "project")
			code, out := runAgent(t, repo, nil, args...)
			if ran := strings.Contains(calls(), "copilot agent-stop"); verdict != strconv.FormatBool(ran) {
				t.Errorf("doctor says runs=%s; Copilot exited %d, hook ran: %v\n%s", verdict, code, ran, tailString(out, 1500))
			}
		})
	}
	t.Run("--trust-folder", func(t *testing.T) {
		os.Remove(config)
		code, out := runAgent(t, repo, nil, append(args, "--trust-folder")...)
		if !strings.Contains(calls(), "copilot agent-stop") {
			t.Errorf("the project hook did not run with --trust-folder (exit %d)\n%s", code, tailString(out, 1500))
		}
	})
	t.Run("the user's hook", func(t *testing.T) {
		os.Remove(config)
		os.RemoveAll(filepath.Join(repo, ".github"))
		installText(t, "copilot", "", true)
		verdict := doctorVerdict(repo, "copilot", "user")
		code, out := runAgent(t, repo, nil, args...)
		if ran := strings.Contains(calls(), "copilot agent-stop"); !ran || verdict != "true" {
			t.Errorf("doctor says runs=%s; Copilot exited %d, hook ran: %v\n%s", verdict, code, ran, tailString(out, 1500))
		}
	})
}

// TestClaudeRunsProjectHooks: Claude Code runs a project's hooks in -p mode with nothing
// more to do, as doctor says.
func TestClaudeRunsProjectHooks(t *testing.T) {
	claude := realAgent(t, "claude")[0]
	_, repo := doctorWorld(t)
	calls := hookRecorder(t)
	url := stubModel(t)
	for k, v := range map[string]string{"ANTHROPIC_BASE_URL": url, "ANTHROPIC_API_KEY": "stub-not-a-key", "DISABLE_TELEMETRY": "1",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1", "DISABLE_AUTOUPDATER": "1", "DISABLE_ERROR_REPORTING": "1", "IS_SANDBOX": "1"} {
		t.Setenv(k, v)
	}
	installText(t, "claude", repo, false)
	verdict := doctorVerdict(repo, "claude", "project")
	code, out := runAgent(t, repo, nil, claude, "-p", "hi", "--dangerously-skip-permissions", "--output-format", "json")
	if ran := strings.Contains(calls(), "claude stop"); !ran || verdict != "true" {
		t.Errorf("doctor says runs=%s; Claude Code exited %d, stop hook ran: %v\n%s", verdict, code, ran, tailString(out, 1500))
	}
}
