//go:build unix

package realagents

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Codex CLI reads project configuration (.codex/hooks.json among it) only in a trusted
// project, and even there runs a hook only once its hash is recorded as reviewed, which the
// TUI's /hooks review does by writing [hooks.state."FILE:EVENT:I:J"] trusted_hash into
// $CODEX_HOME/config.toml. The suite does what a person does once: trust the project, and
// review the hooks git-loop installed, with the hashes `codex app-server`'s hooks/list
// reports.

func (e *Env) codexConfigPath() string { return filepath.Join(e.Home, ".codex", "config.toml") }

func (e *Env) writeCodexConfig() error {
	cfg := fmt.Sprintf(`model = "gpt-5.5"
model_provider = "mock"
approval_policy = "never"
sandbox_mode = "danger-full-access"
check_for_update_on_startup = false

[analytics]
enabled = false

[model_providers.mock]
name = "mock"
base_url = %s
wire_api = "responses"
env_key = "MOCK_API_KEY"
request_max_retries = 0
stream_max_retries = 0

[projects.%s]
trust_level = "trusted"
`, strconv.Quote(e.Mock.URL+"/v1"), strconv.Quote(e.Repo))
	if err := os.MkdirAll(filepath.Dir(e.codexConfigPath()), 0o777); err != nil {
		return fmt.Errorf("configure codex: %w", err)
	}
	if err := os.WriteFile(e.codexConfigPath(), []byte(cfg), 0o666); err != nil {
		return fmt.Errorf("configure codex: %w", err)
	}
	return nil
}

// CodexHook is one hook as `codex app-server`'s hooks/list reports it.
type CodexHook struct {
	Key         string `json:"key"`
	EventName   string `json:"eventName"`
	Command     string `json:"command"`
	SourcePath  string `json:"sourcePath"`
	Source      string `json:"source"`
	Enabled     bool   `json:"enabled"`
	CurrentHash string `json:"currentHash"`
	TrustStatus string `json:"trustStatus"`
}

// CodexHooks asks `codex app-server` (JSON-RPC on its standard input and output) which
// hooks apply in the repository, with their trust.
func (e *Env) CodexHooks() ([]CodexHook, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, e.Exe, "app-server")
	cmd.Dir, cmd.Env = e.Repo, e.environ()
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("codex app-server: %w", err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("codex app-server: %w", err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("codex app-server: %w", err)
	}
	defer func() {
		in.Close()
		cancel()
		cmd.Wait()
	}()
	for _, msg := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"clientInfo":{"name":"git-loop-e2e","version":"0"}}}`,
		`{"jsonrpc":"2.0","method":"initialized"}`,
		fmt.Sprintf(`{"jsonrpc":"2.0","id":2,"method":"hooks/list","params":{"cwds":[%s]}}`, strconv.Quote(e.Repo)),
	} {
		if _, err := io.WriteString(in, msg+"\n"); err != nil {
			return nil, fmt.Errorf("codex app-server: write: %w", err)
		}
	}
	sc := bufio.NewScanner(out)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var resp struct {
			ID     *int `json:"id"`
			Result struct {
				Data []struct {
					Hooks []CodexHook `json:"hooks"`
				} `json:"data"`
			} `json:"result"`
			Error json.RawMessage `json:"error"`
		}
		if json.Unmarshal(sc.Bytes(), &resp) != nil || resp.ID == nil || *resp.ID != 2 {
			continue
		}
		if resp.Error != nil {
			return nil, fmt.Errorf("codex app-server: hooks/list: %s", resp.Error)
		}
		var hooks []CodexHook
		for _, d := range resp.Result.Data {
			hooks = append(hooks, d.Hooks...)
		}
		return hooks, nil
	}
	return nil, fmt.Errorf("codex app-server: no answer to hooks/list (%v): %s", sc.Err(), tail(stderr.String(), 400))
}

// TrustCodexHooks reviews every git-loop hook Codex reports as not trusted, as /hooks does:
// it records the hash hooks/list expects, then checks that Codex now calls them trusted.
func (e *Env) TrustCodexHooks() error {
	hooks, err := e.CodexHooks()
	if err != nil {
		return err
	}
	var add strings.Builder
	n := 0
	for _, h := range hooks {
		if !strings.Contains(h.Command, "git-loop") {
			continue
		}
		n++
		if h.TrustStatus != "trusted" {
			fmt.Fprintf(&add, "\n[hooks.state.%s]\ntrusted_hash = %s\n", strconv.Quote(h.Key), strconv.Quote(h.CurrentHash))
		}
	}
	if n == 0 {
		return fmt.Errorf("codex reports no git-loop hook in %s (hooks/list: %+v)", e.Repo, hooks)
	}
	f, err := os.OpenFile(e.codexConfigPath(), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		return fmt.Errorf("trust codex hooks: %w", err)
	}
	if _, err := f.WriteString(add.String()); err != nil {
		f.Close()
		return fmt.Errorf("trust codex hooks: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("trust codex hooks: %w", err)
	}
	hooks, err = e.CodexHooks()
	if err != nil {
		return err
	}
	for _, h := range hooks {
		if strings.Contains(h.Command, "git-loop") && (h.TrustStatus != "trusted" || !h.Enabled) {
			return fmt.Errorf("codex still does not run hook %s after its review: trust %q, enabled %v", h.Key, h.TrustStatus, h.Enabled)
		}
	}
	return nil
}
