package qwen

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-loop/git-loop/hooks/kit"
	"github.com/git-loop/git-loop/testdata/realagents"
)

const trustOn = `{"security": {"folderTrust": {"enabled": true}}}`

func TestQwenTrustProblem(t *testing.T) {
	for _, tc := range []struct {
		name, folders, user, system string
		env                         map[string]string
		link                        bool // the project is reached through a symlink
		bad                         bool
	}{
		{name: "folder trust off, as by default"},
		{name: "folder trust off, said so", user: `{"security": {"folderTrust": {"enabled": false}}}`},
		{name: "on, no file", user: trustOn, bad: true},
		{name: "on, the folder", user: trustOn, folders: `{"REPO": "TRUST_FOLDER"}`},
		{name: "on, a parent folder", user: trustOn, folders: `{"ROOT": "TRUST_FOLDER"}`},
		{name: "TRUST_PARENT names a child of the parent", user: trustOn, folders: `{"REPO/x": "TRUST_PARENT"}`},
		{name: "TRUST_PARENT of the folder itself is its parent, which holds it", user: trustOn, folders: `{"REPO": "TRUST_PARENT"}`},
		{name: "a sibling", user: trustOn, folders: `{"ROOT/other": "TRUST_FOLDER"}`, bad: true},
		{name: "the deepest rule wins", user: trustOn, folders: `{"ROOT": "TRUST_FOLDER", "REPO": "DO_NOT_TRUST"}`, bad: true},
		{name: "the deepest rule wins, the other way", user: trustOn, folders: `{"ROOT": "DO_NOT_TRUST", "REPO": "TRUST_FOLDER"}`},
		{name: "a tie goes to DO_NOT_TRUST", user: trustOn, folders: `{"REPO/x": "TRUST_PARENT", "REPO": "DO_NOT_TRUST"}`, bad: true},
		{name: "an unknown level is skipped", user: trustOn, folders: `{"ROOT": "TRUST_FOLDER", "REPO": "MAYBE"}`},
		{name: "only an unknown level", user: trustOn, folders: `{"REPO": "MAYBE"}`, bad: true},
		{name: "comments, as Qwen allows", user: trustOn, folders: "// mine\n{\"REPO\": /* yes */ \"TRUST_FOLDER\"}"},
		{name: "a file that is no object, which Qwen refuses", user: trustOn, folders: `["REPO"]`, bad: true},
		{name: "an unreadable file", user: trustOn, folders: `{"REPO": `, bad: true},
		{name: "the file's place from the environment", user: trustOn, env: map[string]string{"QWEN_CODE_TRUSTED_FOLDERS_PATH": "ROOT/tf.json"}, folders: `{"REPO": "TRUST_FOLDER"}`},
		{name: "the user directory from the environment", env: map[string]string{"QWEN_HOME": "ROOT/qh"}, user: trustOn, folders: `{"ROOT/elsewhere": "TRUST_FOLDER"}`, bad: true},
		{name: "the system turns it on", system: trustOn, bad: true},
		{name: "the system turns it off over the user", system: `{"security": {"folderTrust": {"enabled": false}}}`, user: trustOn},
		{name: "a version 1 file", user: `{"folderTrust": true}`, bad: true},
		{name: "a version 1 key in a version 4 file is no setting", user: `{"$version": 4, "folderTrust": true}`},
		{name: "the real path of a linked folder", user: trustOn, folders: `{"REPO": "TRUST_FOLDER"}`, link: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			home, repo := realagents.DoctorWorld(t)
			root := filepath.Dir(repo)
			fill := func(s string) string { return strings.NewReplacer("ROOT", root, "REPO", repo).Replace(s) }
			etc := t.TempDir()
			t.Setenv("QWEN_CODE_SYSTEM_SETTINGS_PATH", filepath.Join(etc, "settings.json"))
			for k, v := range tc.env {
				t.Setenv(k, fill(v))
			}
			if tc.system != "" {
				realagents.WriteString(t, filepath.Join(etc, "settings.json"), tc.system)
			}
			if tc.user != "" {
				realagents.WriteString(t, userFile(home), tc.user)
			}
			if tc.folders != "" {
				path := os.Getenv("QWEN_CODE_TRUSTED_FOLDERS_PATH")
				if path == "" {
					path = filepath.Join(userDir(home), "trustedFolders.json")
				}
				realagents.WriteString(t, path, fill(tc.folders))
			}
			dir := repo
			if tc.link {
				dir = filepath.Join(root, "link")
				if err := os.Symlink(repo, dir); err != nil {
					t.Skip(err)
				}
			}
			p, bad := trustProblem(dir, home)
			if bad != tc.bad {
				t.Errorf("bad = %v (%+v), want %v", bad, p, tc.bad)
			}
			if bad && (p.Why == "" || p.Fix == "") {
				t.Errorf("a problem without why or fix: %+v", p)
			}
		})
	}
}

// TestQwenCheck: doctor's check of each copy, the project's and the user's: folder trust
// stops only the project's hooks; disableAllHooks stops both, read as Qwen Code merges it.
func TestQwenCheck(t *testing.T) {
	for _, tc := range []struct {
		name, user, project, folders string
		projectBad, userBad          bool
	}{
		{name: "nothing in the way"},
		{name: "an untrusted folder", user: trustOn, projectBad: true},
		{name: "a trusted folder", user: trustOn, folders: `{"REPO": "TRUST_FOLDER"}`},
		{name: "hooks off for the user", user: `{"disableAllHooks": true}`, projectBad: true, userBad: true},
		{name: "hooks off in the project", project: `{"disableAllHooks": true}`, projectBad: true, userBad: true},
		{name: "the project turns them on again", user: `{"disableAllHooks": true}`, project: `{"disableAllHooks": false}`},
		{name: "an untrusted project's setting is not read", user: `{"security": {"folderTrust": {"enabled": true}}, "disableAllHooks": true}`, project: `{"disableAllHooks": false}`, projectBad: true, userBad: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			home, repo := realagents.DoctorWorld(t)
			t.Setenv("QWEN_CODE_SYSTEM_SETTINGS_PATH", filepath.Join(t.TempDir(), "settings.json"))
			fill := strings.NewReplacer("REPO", repo).Replace
			for path, text := range map[string]string{userFile(home): tc.user, projectFile(repo): tc.project, filepath.Join(userDir(home), "trustedFolders.json"): fill(tc.folders)} {
				if text != "" {
					realagents.WriteString(t, path, text)
				}
			}
			for _, user := range []bool{false, true} {
				problems, _ := check(kit.HookCheck{Dir: repo, Home: home, User: user})
				if want := tc.projectBad && !user || tc.userBad && user; (len(problems) > 0) != want {
					t.Errorf("user %v: problems %+v, want some: %v", user, problems, want)
				}
			}
		})
	}
}
