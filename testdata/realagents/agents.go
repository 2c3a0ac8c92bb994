//go:build unix

// Package realagents runs the real coding agents — Claude Code, Codex CLI, Gemini CLI and
// Copilot CLI, pinned versions installed from npm into a cache — against git-loop's hooks,
// offline: each agent talks only to a mockmodel server on 127.0.0.1, in a throwaway home with
// a hermetic git configuration and telemetry off. It holds the scenarios every agent is run
// through (RunScenarios); the tests that run them are each agent's package, hooks/agents/NAME
// (a package under testdata/ is not part of `go test ./...`).
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
}

// Agents are the agents the suite runs, at the versions it was written against.
var Agents = []Agent{
	{Name: "claude", Package: "@anthropic-ai/claude-code", Version: "2.1.197", Bin: "claude", Event: "stop"},
	{Name: "codex", Package: "@openai/codex", Version: "0.169.0", Bin: "codex", Event: "stop"},
	{Name: "gemini", Package: "@google/gemini-cli", Version: "0.61.0", Bin: "gemini", Event: "after-agent"},
	{Name: "copilot", Package: "@github/copilot", Version: "1.0.102", Bin: "copilot", Event: "agent-stop"},
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

// dirName is the agent's directory in the cache: the spec with the scope's @ dropped and /
// as +, e.g. anthropic-ai+claude-code@2.1.197.
func (a Agent) dirName() string {
	return strings.ReplaceAll(strings.TrimPrefix(a.Spec(), "@"), "/", "+")
}

// apiKey is the key every agent is given: the mock accepts anything, and no real key must
// ever be sent.
const apiKey = "mock-key-not-a-secret"

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
	}
	return nil
}

// codexHookPrompt is how Codex CLI hands a Stop hook's reason to the model: as XML text
// (&lt; for <) inside <hook_prompt hook_run_id="stop:0:FILE">…</hook_prompt>.
var codexHookPrompt = regexp.MustCompile(`(?s)^<hook_prompt hook_run_id="[^"]*">(.*)</hook_prompt>$`)

// copilotDatetime is what Copilot CLI puts before every user message it sends.
var copilotDatetime = regexp.MustCompile(`^<current_datetime>[^<]*</current_datetime>\n\n`)

// Feedback unwraps a user message the agent sent its model after a stop hook blocked: the
// hook's reason as the model got it, without what the agent adds around it (Claude Code's
// "Stop hook feedback:" line, Codex's <hook_prompt> element, Copilot's current time), or
// "" when the message is not wrapped as this agent wraps a hook's reason.
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
