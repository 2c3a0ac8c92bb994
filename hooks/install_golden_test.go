package hooks_test

import (
	"bytes"
	"flag"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-loop/git-loop/hooks"
	"github.com/rogpeppe/go-internal/txtar"
)

var updateGolden = flag.Bool("update", false, "rewrite testdata/install/*.txtar from what install writes now")

// installCase is one situation install meets: where it writes, and what is there already.
type installCase struct {
	name  string
	user  bool
	setup func(t *testing.T, agent, dir, home string)
}

// foreignHookFile is a file of the agent's that install finds with someone else's content:
// tab-indented, a key of its own and another event's hooks, all of which must stay as they
// are.
const foreignHookFile = "{\n\t\"theirs\": [1, 2],\n\t\"hooks\": {\n\t\t\"Other\": []\n\t}\n}\n"

var installCases = []installCase{
	{name: "project"},
	{name: "user", user: true},
	{name: "project-slow-gate", setup: func(t *testing.T, _, dir, _ string) {
		gitIn(t, dir, "config", "-f", ".gitloop", "gate.slow.run", "go test ./...")
		gitIn(t, dir, "config", "-f", ".gitloop", "gate.slow.timeout", "30m")
	}},
	{name: "project-foreign-file", setup: func(t *testing.T, agent, dir, home string) {
		path := hookFilePath(t, agent, dir)
		os.RemoveAll(home) // the probe's install may have written there
		os.MkdirAll(home, 0o755)
		if err := os.WriteFile(path, []byte(foreignHookFile), 0o644); err != nil {
			t.Fatal(err)
		}
	}},
}

// TestInstallWritesGoldenFiles: what install writes for every agent, project and user, into
// nothing or into someone else's file, and what it prints, byte for byte as recorded in
// testdata/install/AGENT.txtar (go test -run TestInstallWritesGoldenFiles -update rewrites
// them). A refactoring of the agents must leave every byte as it was; a change a user sees
// shows up as a diff of these files in review.
func TestInstallWritesGoldenFiles(t *testing.T) {
	for _, agent := range hooks.Agents() {
		t.Run(agent, func(t *testing.T) {
			var got txtar.Archive
			for _, c := range installCases {
				root := t.TempDir()
				dir, home := filepath.Join(root, "repo"), filepath.Join(root, "home")
				isolateAgentHome(t, home)
				os.MkdirAll(home, 0o755)
				gitIn(t, root, "init", "-q", dir)
				if c.setup != nil {
					c.setup(t, agent, dir, home)
				}
				first := printed(t, agent, dir, c.user)
				again := printed(t, agent, dir, c.user)
				got.Files = append(got.Files, txtar.File{Name: c.name + "/printed", Data: []byte(normalize(first, root))},
					txtar.File{Name: c.name + "/printed-again", Data: []byte(normalize(again, root))})
				got.Files = append(got.Files, treeFiles(t, root, c.name)...)
			}
			golden := filepath.Join("testdata", "install", agent+".txtar")
			data := txtar.Format(&got)
			if *updateGolden {
				os.MkdirAll(filepath.Dir(golden), 0o755)
				if err := os.WriteFile(golden, data, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (go test -run TestInstallWritesGoldenFiles -update writes it)", err)
			}
			if !bytes.Equal(data, want) {
				t.Errorf("install %s wrote or printed something else than %s records (diff it with -update and git diff):\n%s", agent, golden, data)
			}
		})
	}
}

// printed is what install prints: each result's lines, or the error.
func printed(t *testing.T, agent, dir string, user bool) string {
	t.Helper()
	res, err := hooks.Install(agent, dir, user)
	var b strings.Builder
	for _, r := range res {
		b.WriteString(r.String())
	}
	if err != nil {
		b.WriteString("error: " + err.Error() + "\n")
	}
	return b.String()
}

func installAt(t *testing.T, agent, dir string, user bool) []hooks.InstallResult {
	t.Helper()
	res, err := hooks.Install(agent, dir, user)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// hookFilePath is the file install writes the agent's project hooks to (the first result).
func hookFilePath(t *testing.T, agent, dir string) string {
	t.Helper()
	root := t.TempDir()
	probe := filepath.Join(root, "probe")
	os.MkdirAll(probe, 0o755)
	res := installAt(t, agent, probe, false)
	rel, err := filepath.Rel(probe, res[0].Path)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, rel)
	os.MkdirAll(filepath.Dir(path), 0o755)
	return path
}

// treeFiles are the files under root (but for .git), named CASE/PATH.
func treeFiles(t *testing.T, root, prefix string) []txtar.File {
	t.Helper()
	var files []txtar.File
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == ".git" {
				return filepath.SkipDir
			}
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		files = append(files, txtar.File{Name: prefix + "/" + filepath.ToSlash(rel), Data: []byte(normalize(string(data), root))})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// normalize writes the case's temporary directory as $ROOT, so that the files compare
// across runs.
func normalize(s, root string) string {
	if real, err := filepath.EvalSymlinks(root); err == nil && real != root {
		s = strings.ReplaceAll(s, real, "$ROOT")
	}
	return strings.ReplaceAll(s, root, "$ROOT")
}

// isolateAgentHome points HOME at home and unsets what would send the agents' user files
// elsewhere.
func isolateAgentHome(t *testing.T, home string) {
	t.Setenv("HOME", home)
	for _, k := range []string{"CODEX_HOME", "COPILOT_HOME", "CLAUDE_CONFIG_DIR", "GEMINI_CLI_HOME",
		"GEMINI_CLI_TRUSTED_FOLDERS_PATH", "GEMINI_CLI_TRUST_WORKSPACE", "GEMINI_RESTRICTED_MODE", "COPILOT_ALLOW_ALL",
		"QWEN_HOME", "QWEN_CODE_TRUSTED_FOLDERS_PATH", "FACTORY_HOME_OVERRIDE", "XDG_CONFIG_HOME"} {
		t.Setenv(k, "")
		os.Unsetenv(k)
	}
}

func gitIn(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}
