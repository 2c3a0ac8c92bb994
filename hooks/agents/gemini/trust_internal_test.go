package gemini

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-loop/git-loop/testdata/realagents"
)

func TestGeminiTrustProblem(t *testing.T) {
	for _, tc := range []struct {
		name, folders, settings string
		env                     map[string]string
		bad                     bool
	}{
		{name: "no file", bad: true},
		{name: "the folder", folders: `{"REPO": "TRUST_FOLDER"}`},
		{name: "a parent folder", folders: `{"ROOT": "TRUST_FOLDER"}`},
		{name: "TRUST_PARENT names a child of the parent", folders: `{"REPO/x": "TRUST_PARENT"}`},
		{name: "TRUST_PARENT of the folder itself is its parent, which holds it", folders: `{"REPO": "TRUST_PARENT"}`},
		{name: "a sibling", folders: `{"ROOT/other": "TRUST_FOLDER"}`, bad: true},
		{name: "the longest rule wins", folders: `{"ROOT": "TRUST_FOLDER", "REPO": "DO_NOT_TRUST"}`, bad: true},
		{name: "the longest rule wins, the other way", folders: `{"ROOT": "DO_NOT_TRUST", "REPO": "TRUST_FOLDER"}`},
		{name: "comments, as Gemini allows", folders: "// mine\n{\"REPO\": /* yes */ \"TRUST_FOLDER\"}"},
		{name: "an unknown level, which Gemini refuses", folders: `{"ROOT": "TRUST_FOLDER", "REPO": "MAYBE"}`, bad: true},
		{name: "folder trust off", settings: `{"security": {"folderTrust": {"enabled": false}}}`},
		{name: "folder trust on", settings: `{"security": {"folderTrust": {"enabled": true}}}`, bad: true},
		{name: "the environment trusts", env: map[string]string{"GEMINI_CLI_TRUST_WORKSPACE": "true"}},
		{name: "the environment distrusts", folders: `{"REPO": "TRUST_FOLDER"}`, env: map[string]string{"GEMINI_CLI_TRUST_WORKSPACE": "false"}, bad: true},
		{name: "restricted mode", folders: `{"REPO": "TRUST_FOLDER"}`, env: map[string]string{"GEMINI_RESTRICTED_MODE": "true"}, bad: true},
		{name: "the file's place from the environment", env: map[string]string{"GEMINI_CLI_TRUSTED_FOLDERS_PATH": "ROOT/tf.json"}, folders: `{"REPO": "TRUST_FOLDER"}`},
		{name: "an unreadable file", folders: `{"REPO": `, bad: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			home, repo := realagents.DoctorWorld(t)
			root := filepath.Dir(repo)
			fill := func(s string) string { return strings.NewReplacer("ROOT", root, "REPO", repo).Replace(s) }
			for k, v := range tc.env {
				t.Setenv(k, fill(v))
			}
			if tc.folders != "" {
				path := os.Getenv("GEMINI_CLI_TRUSTED_FOLDERS_PATH")
				if path == "" {
					path = filepath.Join(home, ".gemini", "trustedFolders.json")
				}
				realagents.WriteString(t, path, fill(tc.folders))
			}
			if tc.settings != "" {
				realagents.WriteString(t, filepath.Join(home, ".gemini", "settings.json"), tc.settings)
			}
			p, bad := trustProblem(repo, home)
			if bad != tc.bad {
				t.Errorf("bad = %v (%+v), want %v", bad, p, tc.bad)
			}
			if bad && (p.Why == "" || p.Fix == "") {
				t.Errorf("a problem without why or fix: %+v", p)
			}
		})
	}
}
