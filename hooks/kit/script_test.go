package kit

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// scriptAgent is an agent whose hook file is a script stating its timeout in seconds.
func scriptAgent() *Agent {
	text := func(n int) string { return fmt.Sprintf("#!/bin/sh\nlimit = %d\nexec git-loop hook tool idle\n", n) }
	return &Agent{Name: "tool", Product: "Tool", TimeoutKey: "limit", TimeoutUnit: time.Second,
		Events: []Event{{Name: "idle", Judges: true}},
		File:   HookFile{Product: "Tool", Script: text, Hooks: []FileHook{{Event: "idle", Command: "git-loop hook tool idle"}}}}
}

// TestInstallScript: a script hook file is written whole when missing, left alone when it is
// git-loop's (line endings aside), rewritten when it is git-loop's at another timeout, and
// never touched when it is anything else; a symlink is followed.
func TestInstallScript(t *testing.T) {
	a := scriptAgent()
	ours := a.File.Script(StopTimeout)
	for _, tc := range []struct {
		name, have string // "" for none
		link       bool   // the path is a symlink to the file
		want       string // the file afterwards
		says       string
		changed    bool
	}{
		{name: "missing", want: ours, says: `added idle hook "git-loop hook tool idle" to `, changed: true},
		{name: "git-loop's", have: ours, want: ours, says: "already present in "},
		{name: "git-loop's, checked out with CRLF", have: strings.ReplaceAll(ours, "\n", "\r\n"), want: strings.ReplaceAll(ours, "\n", "\r\n"), says: "already present in "},
		{name: "git-loop's at another timeout", have: a.File.Script(30), want: ours, says: fmt.Sprintf("its limit now %d (was 30)", StopTimeout), changed: true},
		{name: "edited", have: ours + "echo mine\n", want: ours + "echo mine\n", says: "exists and is not the file git-loop writes there"},
		{name: "someone else's", have: "limit = 5\n", want: "limit = 5\n", says: "exists and is not the file git-loop writes there"},
		{name: "a symlink to git-loop's at another timeout", have: a.File.Script(30), link: true, want: ours, says: "(was 30)", changed: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "hooks", "git-loop.sh")
			target := path
			if tc.link {
				target = filepath.Join(dir, "dotfiles", "git-loop.sh")
				os.MkdirAll(filepath.Dir(path), 0o755)
				os.Symlink(target, path)
			}
			if tc.have != "" {
				os.MkdirAll(filepath.Dir(target), 0o755)
				os.WriteFile(target, []byte(tc.have), 0o644)
			}
			res, err := a.InstallHookFile(path, dir)
			if err != nil {
				t.Fatal(err)
			}
			if got, _ := os.ReadFile(target); string(got) != tc.want {
				t.Errorf("the file holds %q, want %q", got, tc.want)
			}
			if !strings.Contains(res.String(), tc.says) || res.Changed() != tc.changed {
				t.Errorf("install says %q (changed %v), want %q (changed %v)", res.String(), res.Changed(), tc.says, tc.changed)
			}
			if fi, err := os.Lstat(path); tc.link && (err != nil || fi.Mode()&os.ModeSymlink == 0) {
				t.Errorf("the symlink was replaced")
			}
		})
	}
}

func TestScriptHooksAndTimeout(t *testing.T) {
	a := scriptAgent()
	for _, tc := range []struct {
		name, text       string
		missing, present int
		timeout          int
		ours             bool
	}{
		{"git-loop's", a.File.Script(42), 0, 1, 42, true},
		{"edited, still running the hook", a.File.Script(42) + "# mine\n", 0, 1, 42, false},
		{"no hook", "limit = 42\n", 1, 0, 42, false},
		{"no timeout", "git-loop hook tool idle\n", 0, 1, 0, false},
		{"a timeout of 0", "limit = 0\ngit-loop hook tool idle\n", 0, 1, 0, false},
		{"a key that only ends like it", "nolimit = 42\n", 1, 0, 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			missing, present, err := a.FindHooks([]byte(tc.text), "f")
			if err != nil || len(missing) != tc.missing || len(present) != tc.present {
				t.Errorf("FindHooks = %v, %v, %v; want %d missing, %d present", missing, present, err, tc.missing, tc.present)
			}
			if n, ours := ScriptTimeout(a.File, a.TimeoutKey, []byte(tc.text)); n != tc.timeout || ours != tc.ours {
				t.Errorf("ScriptTimeout = %d, %v; want %d, %v", n, ours, tc.timeout, tc.ours)
			}
			if d := a.timeoutIn([]byte(tc.text), "idle"); tc.present > 0 && d != time.Duration(tc.timeout)*a.TimeoutUnit || tc.present == 0 && d != 0 {
				t.Errorf("a stop reads back %v", d)
			}
		})
	}
}
