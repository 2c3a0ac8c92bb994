package qwen

import (
	"path/filepath"
	"testing"

	"github.com/git-loop/git-loop/testdata/realagents"
)

func TestQwenConfiguredCap(t *testing.T) {
	for _, tc := range []struct {
		name, env                       string
		system, project, user, defaults string
		want                            int
	}{
		{name: "nothing set", want: 8},
		{name: "the variable", env: "3", want: 3},
		{name: "the variable, spaced", env: " 5 ", want: 5},
		{name: "the variable over the settings", env: "4", project: `{"stopHookBlockingCap": 20}`, want: 4},
		{name: "a fraction in the variable is no integer", env: "2.5", user: `{"stopHookBlockingCap": 20}`, want: 8},
		{name: "words in the variable", env: "many", want: 8},
		{name: "zero in the variable", env: "0", want: 8},
		{name: "too many in the variable", env: "1000", want: 100},
		{name: "blank variable: the settings", env: "  ", user: `{"stopHookBlockingCap": 12}`, want: 12},
		{name: "the user's", user: `// mine` + "\n" + `{"stopHookBlockingCap": 12}`, want: 12},
		{name: "the project's over the user's", project: `{"stopHookBlockingCap": 4}`, user: `{"stopHookBlockingCap": 12}`, want: 4},
		{name: "the system's over all", system: `{"stopHookBlockingCap": 30}`, project: `{"stopHookBlockingCap": 4}`, want: 30},
		{name: "system defaults last", defaults: `{"stopHookBlockingCap": 9}`, want: 9},
		{name: "a fraction in the settings, down", user: `{"stopHookBlockingCap": 3.7}`, want: 3},
		{name: "below 1 in the settings", user: `{"stopHookBlockingCap": 0.5}`, want: 8},
		{name: "a string in the settings", user: `{"stopHookBlockingCap": "3"}`, want: 8},
		{name: "over 100 in the settings", user: `{"stopHookBlockingCap": 250}`, want: 100},
	} {
		t.Run(tc.name, func(t *testing.T) {
			home, repo := realagents.DoctorWorld(t)
			etc := t.TempDir()
			t.Setenv("QWEN_CODE_SYSTEM_SETTINGS_PATH", filepath.Join(etc, "settings.json"))
			t.Setenv("QWEN_CODE_SYSTEM_DEFAULTS_PATH", "")
			t.Setenv(blockCapEnv, tc.env)
			for path, text := range map[string]string{filepath.Join(etc, "settings.json"): tc.system, filepath.Join(etc, "system-defaults.json"): tc.defaults,
				projectFile(repo): tc.project, userFile(home): tc.user} {
				if text != "" {
					realagents.WriteString(t, path, text)
				}
			}
			if got := configuredCap(repo, home); got != tc.want {
				t.Errorf("cap %d, want %d", got, tc.want)
			}
		})
	}
}

// TestQwenBlockCap: Qwen Code honours one block fewer than its cap, counts every block
// whatever ran in between, and restarts its count where stop_hook_active is false.
func TestQwenBlockCap(t *testing.T) {
	realagents.DoctorWorld(t)
	t.Setenv(blockCapEnv, "")
	c := blockCap(true, "")
	if c.Limit != 7 || c.Agent != "Qwen Code" || !c.Continued || c.Acted == nil || *c.Acted || c.How == "" {
		t.Errorf("cap %+v, want 7 blocks honoured, counting every one", c)
	}
	t.Setenv(blockCapEnv, "3")
	if c := blockCap(false, ""); c.Limit != 2 || c.Continued {
		t.Errorf("with a cap of 3: %+v", c)
	}
}
