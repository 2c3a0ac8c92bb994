//go:build unix

package codex_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/git-loop/git-loop/hooks"
	"github.com/git-loop/git-loop/hooks/agents/codex"
	"github.com/git-loop/git-loop/testdata/realagents"
	"github.com/git-loop/git-loop/testdata/realagents/trust"
)

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
		var listed []codexListed
		for _, d := range resp.Result.Data {
			listed = append(listed, d.Hooks...)
		}
		return listed
	}
	t.Fatalf("codex app-server gave no answer to hooks/list: %s", trust.TailString(stderr.String(), 2000))
	return nil
}

// codexRuns is whether Codex lists a git-loop hook under key as one it runs.
func codexRuns(listed []codexListed, key string) bool {
	for _, h := range listed {
		if h.Key == key {
			return h.Enabled && h.TrustStatus == "trusted"
		}
	}
	return false
}

// tomlQuote is s as a TOML basic string, as git-loop writes the keys of config.toml: enough
// for the paths of a temporary directory, which hold no control character.
func tomlQuote(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}

// TestCodexReviewsMatchCodex holds Codex's hash, keys and trust rules as git-loop computes
// them to what codex app-server reports, and doctor's verdict to whether Codex would run
// the hook.
func TestCodexReviewsMatchCodex(t *testing.T) {
	exe := trust.RealAgent(t, "codex")[0]
	home, repo := realagents.DoctorWorld(t)
	cfg := filepath.Join(home, ".codex", "config.toml")
	realagents.WriteString(t, cfg, "# offline\ncheck_for_update_on_startup = false\n\n[analytics]\nenabled = false\n")
	key := filepath.Join(repo, ".codex", "hooks.json") + ":stop:0:0"
	check := func(step, dir, scope, key string, want bool) {
		t.Helper()
		listed := codexHooksList(t, exe, dir)
		if got := codexRuns(listed, key); got != want {
			t.Fatalf("%s: codex runs %s: %v, want %v (hooks/list: %+v)", step, key, got, want, listed)
		}
		if got := trust.DoctorVerdict(dir, "codex", scope); got != strconv.FormatBool(want) {
			t.Fatalf("%s: doctor says runs=%s, codex %v:\n%s", step, got, want, hooks.Doctor(dir))
		}
	}

	trust.InstallText(t, "codex", repo, false)
	check("untrusted project", repo, "project", key, false)
	realagents.WriteString(t, cfg, realagents.ReadString(t, cfg)+"\n[projects."+tomlQuote(repo)+"]\ntrust_level = \"trusted\"\n")
	check("trusted project, reviewed by install", repo, "project", key, true)
	if !strings.HasPrefix(realagents.ReadString(t, cfg), "# offline\ncheck_for_update_on_startup = false\n\n[analytics]\nenabled = false\n") {
		t.Errorf("install did not keep config.toml:\n%s", realagents.ReadString(t, cfg))
	}

	// Every handler's hash as Codex computes it, git-loop's and others, odd fields and all.
	hooksFile := filepath.Join(repo, ".codex", "hooks.json")
	realagents.WriteString(t, hooksFile, `{"hooks": {
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
	json.Unmarshal([]byte(realagents.ReadString(t, hooksFile)), &file)
	n := 0
	for g, group := range file.Hooks.Stop {
		for h, handler := range group.Hooks {
			k := fmt.Sprintf("%s:stop:%d:%d", hooksFile, g, h)
			want, why := codex.HookHash("stop", handler)
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
	trust.InstallText(t, "codex", repo, false) // reviews the two git-loop hooks
	for _, k := range []string{hooksFile + ":stop:1:1", hooksFile + ":stop:2:0"} {
		check("two git-loop hooks, reviewed", repo, "project", k, true)
	}
	if listed := codexHooksList(t, exe, repo); codexRuns(listed, hooksFile+":stop:0:0") {
		t.Errorf("install reviewed a hook that is not git-loop's: %+v", listed)
	}

	// An edited hook is one Codex no longer runs; a new install reviews it again.
	realagents.WriteString(t, hooksFile, `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "git-loop hook codex stop", "timeout": 300}]}]}}`)
	check("edited since its review", repo, "project", key, false)
	trust.InstallText(t, "codex", repo, false)
	check("reviewed again", repo, "project", key, true)
	header := "[hooks.state." + tomlQuote(key) + "]\n"
	reviewed := realagents.ReadString(t, cfg)
	realagents.WriteString(t, cfg, strings.Replace(reviewed, header, header+"enabled = false\n", 1))
	check("turned off in /hooks", repo, "project", key, false)
	realagents.WriteString(t, cfg, reviewed)

	// A linked worktree: Codex reads the main checkout's hooks, under the main's key.
	realagents.Git(t, repo, "add", ".codex/hooks.json")
	realagents.Git(t, repo, "commit", "-q", "-m", "codex hook")
	wt := filepath.Join(filepath.Dir(repo), "wt")
	realagents.Git(t, repo, "worktree", "add", "-q", wt)
	trust.InstallText(t, "codex", wt, false)
	check("linked worktree", wt, "project", key, true)
	if file, _ := codex.ProjectHooks(wt); file+":stop:0:0" != key {
		t.Errorf("CodexProjectHooks(wt) = %s", file)
	}

	// The user's hooks, CODEX_HOME through a symlink: the key names the resolved directory.
	real := filepath.Join(filepath.Dir(home), "codex-real")
	if err := os.MkdirAll(real, 0o755); err != nil {
		t.Fatal(err)
	}
	realagents.WriteString(t, filepath.Join(real, "config.toml"), "check_for_update_on_startup = false\n")
	link := filepath.Join(filepath.Dir(home), "codex-link")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	t.Setenv("CODEX_HOME", link)
	trust.InstallText(t, "codex", "", true)
	check("the user's hook", repo, "user", filepath.Join(real, "hooks.json")+":stop:0:0", true)
}
