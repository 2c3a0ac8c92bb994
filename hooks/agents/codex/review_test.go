package codex

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-loop/git-loop/hooks/fileedit"
	"github.com/git-loop/git-loop/hooks/kit"
	"github.com/git-loop/git-loop/testdata/realagents"
)

// The hashes below are what codex app-server 0.169.0's hooks/list reported as currentHash
// for these handlers of a Stop group (hooks/agents/codex's TestCodexReviewsMatchCodex checks
// them live).
func TestCodexHookHash(t *testing.T) {
	for _, tc := range []struct {
		name, handler, want string
	}{
		{"git-loop's own", `{"type": "command", "command": "git-loop hook codex stop", "timeout": 600}`,
			"sha256:ecdf97a20fdbc6067cf5c3bc509c142f16542c1f72a3279fd6de5d2f3b859b21"},
		{"no timeout is 600", `{"type": "command", "command": "git-loop hook codex stop"}`,
			"sha256:ecdf97a20fdbc6067cf5c3bc509c142f16542c1f72a3279fd6de5d2f3b859b21"},
		{"nulls are no fields", `{"type": "command", "command": "git-loop hook codex stop", "timeout": null, "statusMessage": null, "async": null}`,
			"sha256:ecdf97a20fdbc6067cf5c3bc509c142f16542c1f72a3279fd6de5d2f3b859b21"},
		{"another command", `{"type": "command", "command": "echo other"}`,
			"sha256:6c809232879e7b395cebff7e2948458815867d284465aff3b230d7834b76a8e0"},
		{"a timeout", `{"type": "command", "command": "echo x", "timeout": 30}`,
			"sha256:72a54c31ad9a17f3f001d6f399fe6538896263472289c6562ff542b40c103b2a"},
		{"timeout 0 is 1, escapes as serde_json writes them",
			`{"type": "command", "command": "git-loop hook codex stop <&> \"q\" é \u2028 \u0001\b\f", "timeout": 0, "statusMessage": "judging", "async": true}`,
			"sha256:ec1d307d30e97231032300e07bbfdd8e9ba10c9598dc3fc7e0f00e9a3b5571e4"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var h map[string]json.RawMessage
			if err := json.Unmarshal([]byte(tc.handler), &h); err != nil {
				t.Fatal(err)
			}
			got, why := HookHash("stop", h)
			if got != tc.want || why != "" {
				t.Errorf("hash %s (%s), want %s", got, why, tc.want)
			}
		})
	}
	for _, bad := range []string{
		`{"type": "prompt", "command": "git-loop hook codex stop"}`,
		`{"type": "command", "command": "git-loop hook codex stop", "timeout": -1}`,
		`{"type": "command", "command": "git-loop hook codex stop", "timeout": 1.5}`,
		`{"type": "command", "command": "git-loop hook codex stop", "async": "yes"}`,
		`{"type": "command", "command": "git-loop hook codex stop", "additionalContextLimit": 5}`,
	} {
		var h map[string]json.RawMessage
		json.Unmarshal([]byte(bad), &h)
		if got, why := HookHash("stop", h); got != "" || why == "" {
			t.Errorf("%s: hash %q, want none and why", bad, got)
		}
	}
}

func TestSerdeJSON(t *testing.T) {
	got := string(serdeJSON(map[string]any{"b": []any{true, uint64(7)}, "a": "\"\\/\x1f\x7f\u2028é\t"}))
	want := `{"a":"\"\\/\u001f` + "\x7f\u2028é" + `\t","b":[true,7]}`
	if got != want {
		t.Errorf("got %s\nwant %s", got, want)
	}
}

func TestCodexGitLoopHooks(t *testing.T) {
	doc := `{"hooks": {
	  "SessionStart": [{"hooks": [{"type": "command", "command": "git-loop hook codex stop"}]}],
	  "Stop": [
	    {"hooks": [{"type": "command", "command": "echo first"}]},
	    {"matcher": "*", "hooks": [{"type": "command", "command": "echo x"}, {"type": "command", "command": "git-loop hook codex stop", "timeout": 600}]},
	    {"hooks": [{"type": "command", "command": "git-loop hook claude stop"}, {"type": "command", "command": "/opt/bin/git-loop hook codex stop", "x": 1}]}
	  ]}}`
	refs, err := gitLoopHooks([]byte(doc), "/p/.codex/hooks.json")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range refs {
		got = append(got, r.key+" "+r.hash+r.why)
	}
	want := []string{
		"/p/.codex/hooks.json:stop:1:1 sha256:ecdf97a20fdbc6067cf5c3bc509c142f16542c1f72a3279fd6de5d2f3b859b21",
		`/p/.codex/hooks.json:stop:2:1 it has a field git-loop does not know how Codex hashes ("x")`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if _, err := gitLoopHooks([]byte(`{"hooks": []}`), "f"); err == nil {
		t.Error("hooks that are not an object: no error")
	}
}

func TestRecordCodexReviews(t *testing.T) {
	ref := hookRef{key: "/p/.codex/hooks.json:stop:0:0", hash: "sha256:new"}
	t.Run("a missing file is created, private", func(t *testing.T) {
		cfg := filepath.Join(t.TempDir(), "codex", "config.toml")
		res, err := recordReviews(cfg, []hookRef{ref})
		if err != nil || !res.Created || len(res.Added) != 1 {
			t.Fatalf("%+v, %v", res, err)
		}
		if got := realagents.ReadString(t, cfg); got != "[hooks.state.\"/p/.codex/hooks.json:stop:0:0\"]\ntrusted_hash = \"sha256:new\"\n" {
			t.Errorf("wrote %q", got)
		}
		if fi, _ := os.Stat(cfg); fi.Mode().Perm() != 0o600 {
			t.Errorf("mode %v", fi.Mode())
		}
	})
	t.Run("the rest of the file is kept, a stale hash replaced, then nothing to do", func(t *testing.T) {
		cfg := filepath.Join(t.TempDir(), "config.toml")
		before := "# mine\nmodel = \"o3\"\n\n[hooks.state.\"/p/.codex/hooks.json:stop:0:0\"]\ntrusted_hash = \"sha256:old\"  # reviewed\n\n[x]\ny = 1\n"
		realagents.WriteString(t, cfg, before)
		os.Chmod(cfg, 0o640)
		res, err := recordReviews(cfg, []hookRef{ref, {key: "k2", why: "no hash"}})
		if err != nil || res.Created || len(res.Added) != 1 {
			t.Fatalf("%+v, %v", res, err)
		}
		if got, want := realagents.ReadString(t, cfg), strings.Replace(before, "sha256:old", "sha256:new", 1); got != want {
			t.Errorf("got\n%s\nwant\n%s", got, want)
		}
		if fi, _ := os.Stat(cfg); fi.Mode().Perm() != 0o640 {
			t.Errorf("mode changed to %v", fi.Mode())
		}
		res, err = recordReviews(cfg, []hookRef{ref})
		if err != nil || len(res.Added) != 0 || len(res.Present) != 1 {
			t.Errorf("second time: %+v, %v", res, err)
		}
	})
	t.Run("a file the review cannot join is left alone, saying why", func(t *testing.T) {
		for _, before := range []string{"[hooks]\nstate = {}\n", "model = \n"} {
			cfg := filepath.Join(t.TempDir(), "config.toml")
			realagents.WriteString(t, cfg, before)
			res, err := recordReviews(cfg, []hookRef{ref})
			if err != nil || len(res.Added) != 0 || !strings.Contains(res.Kept, "/hooks") {
				t.Errorf("%q: %+v, %v", before, res, err)
			}
			if realagents.ReadString(t, cfg) != before {
				t.Errorf("%q was changed", before)
			}
		}
	})
}

func TestCodexMainCheckout(t *testing.T) {
	root := kit.Physical(t.TempDir())
	main, wt := filepath.Join(root, "main"), filepath.Join(root, "wt")
	realagents.Git(t, root, "init", "-q", main)
	realagents.Git(t, main, "commit", "-q", "--allow-empty", "-m", "init")
	realagents.Git(t, main, "worktree", "add", "-q", wt)
	if got := mainCheckoutOf(main); got != "" {
		t.Errorf("main checkout: %q", got)
	}
	if got := mainCheckoutOf(wt); got != main {
		t.Errorf("linked worktree: %q, want %q", got, main)
	}
	if file, m := ProjectHooks(wt); file != filepath.Join(main, ".codex", "hooks.json") || m != main {
		t.Errorf("ProjectHooks(wt) = %q, %q", file, m)
	}
	sub := filepath.Join(root, "sub")
	realagents.Git(t, root, "init", "-q", sub)
	realagents.Git(t, sub, "commit", "-q", "--allow-empty", "-m", "init")
	realagents.Git(t, main, "-c", "protocol.file.allow=always", "submodule", "add", "-q", sub, "sub")
	if got := mainCheckoutOf(filepath.Join(main, "sub")); got != "" {
		t.Errorf("a submodule (its .git names modules/, not worktrees/): %q", got)
	}
}

func TestCodexProjectTrust(t *testing.T) {
	for _, tc := range []struct {
		name, cfg, level string
	}{
		{"none", "", ""},
		{"trusted", `[projects."/w/p"]` + "\ntrust_level = \"trusted\"\n", "trusted"},
		{"untrusted", `[projects."/w/p"]` + "\ntrust_level = \"untrusted\"\n", "untrusted"},
		{"the main checkout", `[projects."/w/main"]` + "\ntrust_level = \"trusted\"\n", "trusted"},
		{"the checkout first", `projects."/w/main".trust_level = "trusted"` + "\n" + `projects."/w/p".trust_level = "untrusted"` + "\n", "untrusted"},
		{"a parent is not the project", `[projects."/w"]` + "\ntrust_level = \"trusted\"\n", ""},
	} {
		d, err := fileedit.ScanTOML([]byte(tc.cfg))
		if err != nil {
			t.Fatal(err)
		}
		if level, _ := projectTrust(d, "/w/p", "/w/main"); level != tc.level {
			t.Errorf("%s: %q, want %q", tc.name, level, tc.level)
		}
	}
}
