package qwen

import (
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/git-loop/git-loop/hooks/kit"
)

// Qwen Code reads hooks from .qwen/settings.json (the user's: ~/.qwen/settings.json, or
// $QWEN_HOME/settings.json), in Claude Code's shape:
//
//	{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "…", "timeout": 660000}]}]}}
//
// The timeout's unit changed: Qwen Code 0.15 read milliseconds; 0.24 reads seconds, but a
// value of 1000 or more still as milliseconds (so that old files keep working, and the only
// way to give a hook 1000 seconds or more). install writes milliseconds, which every version
// reads alike: a stop hook's timeout is always a thousand of them or more.

// hookFile is the hook install merges into a settings file. Stop runs the loop's gates, so
// install gives it the timeout the worktree's gates need (kit.Agent.InstallHookFile).
var hookFile = kit.HookFile{Product: "Qwen Code", Grouped: true, CommandKeys: []string{"command"}, Comments: true, Hooks: []kit.FileHook{{
	Event: "Stop", Command: "git-loop hook qwen stop",
	Entry: kit.HookGroup{Hooks: []kit.HookCommand{{Type: "command", Command: "git-loop hook qwen stop", Timeout: kit.StopTimeout * 1000}}},
}}}

// legacyMilliseconds is the timeout from which Qwen Code 0.24 reads milliseconds.
const legacyMilliseconds = 1000

// readTimeout is how long Qwen Code (0.24) lets a command hook whose timeout is n run: n
// seconds, but n milliseconds from 1000 on.
func readTimeout(n float64) time.Duration {
	if n >= legacyMilliseconds {
		return time.Duration(n * float64(time.Millisecond))
	}
	return time.Duration(n * float64(time.Second))
}

// projectFile is the settings file of the project at dir.
func projectFile(dir string) string { return filepath.Join(dir, ".qwen", "settings.json") }

// userFile is the user's settings file, in Qwen Code's user directory.
func userFile(home string) string { return filepath.Join(userDir(home), "settings.json") }

// userDir is Qwen Code's user directory: $QWEN_HOME when set (a leading ~ is the home
// directory, a relative path is taken from the working directory), else ~/.qwen.
func userDir(home string) string {
	dir := os.Getenv("QWEN_HOME")
	switch {
	case dir == "":
		return filepath.Join(home, ".qwen")
	case dir == "~":
		return home
	case strings.HasPrefix(dir, "~/"):
		return filepath.Join(home, dir[2:])
	}
	if abs, err := filepath.Abs(dir); err == nil {
		return abs
	}
	return dir
}
