package opencode

import (
	_ "embed"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/git-loop/git-loop/hooks/kit"
)

// OpenCode 1.18 loads plugins from {plugin,plugins}/*.{js,ts} of each of its configuration
// directories (read from its bundle): $XDG_CONFIG_HOME/opencode (~/.config/opencode when
// unset, on every platform), every .opencode from the session's directory up to its git
// worktree's root, ~/.opencode and $OPENCODE_CONFIG_DIR. It runs them without asking, and
// installs @opencode-ai/plugin from npm into each such directory (a package.json,
// node_modules and a .gitignore that ignores them). Every named export of a plugin file is
// called as a plugin: git-loop.js exports only GitLoop.

// plugin is git-loop's plugin as install writes it when the gates need no more than the
// default timeout: the file beside this one.
//
//go:embed git-loop.js
var plugin string

// timeoutKey is the constant the plugin states its hook timeout in, in milliseconds.
const timeoutKey = "hookTimeoutMs"

// defaultTimeout is the timeout the embedded plugin states: kit.StopTimeout, in milliseconds.
var defaultTimeout = int(time.Duration(kit.StopTimeout) * time.Second / time.Millisecond)

// pluginText is the plugin with a hook timeout of ms milliseconds.
func pluginText(ms int) string {
	return strings.Replace(plugin, timeoutStatement(defaultTimeout), timeoutStatement(ms), 1)
}

// timeoutStatement is the plugin's line of code that sets its hook timeout to ms.
func timeoutStatement(ms int) string { return fmt.Sprintf("const %s = %d;", timeoutKey, ms) }

// pluginFile is the plugin as kit's hook file: a script, running the session-idle hook.
var pluginFile = kit.HookFile{Product: "OpenCode", Script: pluginText, Hooks: []kit.FileHook{
	{Event: "session.idle", Command: "git-loop hook opencode session-idle"},
}}

// projectFile is the plugin of the project at dir, userFile the user's.
func projectFile(dir string) string { return filepath.Join(dir, ".opencode", "plugin", "git-loop.js") }
func userFile(home string) string {
	return filepath.Join(configHome(home), "opencode", "plugin", "git-loop.js")
}

// configHome is $XDG_CONFIG_HOME, or home's .config where it is unset, as OpenCode reads it.
func configHome(home string) string {
	return kit.EnvOr("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
}

// check is doctor's check of one installed plugin. OpenCode runs it without asking; but a
// copy that is not git-loop's (edited, or an older git-loop's) may not run the hook as this
// git-loop expects, and the continuation works only where OpenCode keeps running.
func check(c kit.HookCheck) ([]kit.Problem, []string) {
	var notes []string
	if text, err := os.ReadFile(c.File); err == nil {
		if _, ours := kit.ScriptTimeout(pluginFile, timeoutKey, text); !ours {
			notes = append(notes, fmt.Sprintf("%s is not the plugin this git-loop writes (edited, or an older git-loop's): git-loop cannot tell what it runs; move it away and `%s` for git-loop's", c.File, c.Install))
		}
	}
	notes = append(notes, "the plugin continues a session only where OpenCode keeps running after the turn: the TUI (`opencode`), or `opencode serve` with `opencode run --attach URL`; plain `opencode run` exits at the first idle: drive it with `git loop run -- opencode run {prompt}`")
	return nil, notes
}
