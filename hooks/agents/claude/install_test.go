package claude

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

func TestClaudeSettingsPaths(t *testing.T) {
	if got, want := projectSettings("/w"), filepath.Join("/w", ".claude", "settings.json"); got != want {
		t.Errorf("projectSettings = %q, want %q", got, want)
	}
	home := t.TempDir()
	t.Setenv("CLAUDE_CONFIG_DIR", "/cfg/claude")
	if got := userSettings(home); got != filepath.Join("/cfg/claude", "settings.json") {
		t.Errorf("with CLAUDE_CONFIG_DIR: %q", got)
	}
	t.Setenv("CLAUDE_CONFIG_DIR", "")
	if got := userSettings(home); got != filepath.Join(home, ".claude", "settings.json") {
		t.Errorf("default: %q", got)
	}
}

func TestInstallSlashCommand(t *testing.T) {
	dir := t.TempDir()
	res, err := installSlashCommand(dir)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, ".claude", "commands", "git-loop.md")
	if res.Path != path || !res.Created || len(res.Added) != 1 || res.Kept != "" || len(res.Removed) != 0 {
		t.Errorf("result %+v", res)
	}
	got := string(readFile(t, path))
	for _, want := range []string{
		"---\ndescription: ", "\nallowed-tools: Bash(git-loop start:*)\n", "\nargument-hint: \"TASK [--completion-promise TEXT] [--max-iterations N]",
		"\n```!\ngit-loop start ", " --slash-args=- 2>&1 <<'GIT_LOOP_ARGS' || exit\n$ARGUMENTS\n" + SlashArgsEnd + "\nGIT_LOOP_ARGS\n```\n",
		"--session=\"${CLAUDE_SESSION_ID}\"", "show the user\nexactly what git-loop printed",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("git-loop.md lacks %q:\n%s", want, got)
		}
	}
	if strings.Count(got, "$ARGUMENTS") != 1 {
		t.Errorf("$ARGUMENTS reaches the model as well as git-loop:\n%s", got)
	}
	if _, err := os.Lstat(filepath.Join(dir, ".claude", "commands", "loop.md")); err == nil {
		t.Error("a loop.md was written: it would hide Claude Code's own /loop")
	}
	// Idempotent.
	old := time.Now().Add(-time.Hour)
	os.Chtimes(path, old, old)
	res, err = installSlashCommand(dir)
	if err != nil || res.Changed() || len(res.Present) != 1 || res.Kept != "" {
		t.Errorf("second install: %+v, %v", res, err)
	}
	if fi, _ := os.Stat(path); !fi.ModTime().Equal(old) {
		t.Error("second install rewrote git-loop.md")
	}
	// git on Windows may check it out with CRLF: still ours.
	os.WriteFile(path, []byte(strings.ReplaceAll(slashCommand, "\n", "\r\n")), 0o644)
	if res, err := installSlashCommand(dir); err != nil || len(res.Present) != 1 {
		t.Errorf("CRLF copy: %+v, %v", res, err)
	}
	// The user's own (or an edited one) is left alone, and the result says so.
	mine := "---\ndescription: my loop\n---\nDo the thing: $ARGUMENTS\n"
	os.WriteFile(path, []byte(mine), 0o644)
	res, err = installSlashCommand(dir)
	if err != nil || res.Changed() || len(res.Present) != 0 || !strings.Contains(res.Kept, path) || !strings.Contains(res.String(), "left as it is") {
		t.Errorf("user's file: %+v, %v", res, err)
	}
	if string(readFile(t, path)) != mine {
		t.Error("the user's git-loop.md was overwritten")
	}
}

// TestInstallSlashCommandOldLoop: a .claude/commands/loop.md that an earlier git-loop wrote
// (any version, CRLF or not) is removed and the result says so; the user's own loop.md, an
// edited copy or a symlink is never touched.
func TestInstallSlashCommandOldLoop(t *testing.T) {
	for _, tt := range []struct {
		name, content    string
		symlink, removed bool
		note             string
	}{
		{"first version", slashCommandV1, false, true, ""},
		{"second version", slashCommandV2, false, true, ""},
		{"second version, CRLF", strings.ReplaceAll(slashCommandV2, "\n", "\r\n"), false, true, ""},
		{"the user's own", "---\ndescription: my loop\n---\nLoop over $ARGUMENTS\n", false, false, ""},
		{"an edited copy", strings.Replace(slashCommandV2, "Work on it now", "Work on it", 1), false, false, "runs git-loop but is not a copy git-loop wrote"},
		{"a symlink to an old version", slashCommandV2, true, false, ""},
		{"the current text under the old name", slashCommand, false, false, "runs git-loop but is not a copy"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			old := filepath.Join(dir, ".claude", "commands", "loop.md")
			os.MkdirAll(filepath.Dir(old), 0o755)
			if tt.symlink {
				target := filepath.Join(dir, "kept.md")
				os.WriteFile(target, []byte(tt.content), 0o644)
				if err := os.Symlink(target, old); err != nil {
					t.Skip(err)
				}
			} else {
				os.WriteFile(old, []byte(tt.content), 0o644)
			}
			res, err := installSlashCommand(dir)
			if err != nil {
				t.Fatal(err)
			}
			_, statErr := os.Lstat(old)
			if gone := statErr != nil; gone != tt.removed {
				t.Fatalf("loop.md removed: %v, want %v (%+v)", gone, tt.removed, res)
			}
			out := res.String()
			if tt.removed != strings.Contains(out, "removed "+old+": git-loop's old /loop command, which hid Claude Code's own /loop (it is /git-loop now)") {
				t.Errorf("output:\n%s", out)
			}
			if !tt.removed && string(readFile(t, old)) != tt.content {
				t.Error("loop.md changed")
			}
			if !strings.Contains(res.Note, tt.note) || (tt.note == "") != (res.Note == "") {
				t.Errorf("note %q, want %q", res.Note, tt.note)
			}
			if !res.Changed() {
				t.Errorf("nothing changed: %+v", res)
			}
		})
	}
}

// TestSlashCommandShell runs the command's "!" block as Claude Code would, after its
// substitutions, with a stand-in git-loop: the task reaches git-loop byte for byte whatever
// it holds, and the session id too (or nothing, when Claude Code does not substitute it).
func TestSlashCommandShell(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("needs a Unix shell and /dev/stdin")
	}
	for _, shell := range []string{"bash", "sh", "zsh"} {
		sh, err := exec.LookPath(shell)
		if err != nil {
			continue
		}
		t.Run(shell, func(t *testing.T) {
			bin := t.TempDir()
			out := filepath.Join(bin, "out")
			fake := "#!/bin/sh\nprintf '%s\\n' \"$@\" > " + out + ".args\ncat /dev/stdin > " + out + ".task\necho to-stderr >&2\n"
			if err := os.WriteFile(filepath.Join(bin, "git-loop"), []byte(fake), 0o755); err != nil {
				t.Fatal(err)
			}
			block := slashCommand[strings.Index(slashCommand, "```!\n")+5:]
			block = block[:strings.Index(block, "```")]
			for _, tc := range []struct{ task, session string }{
				{`fix "it" & it's $(echo INJECTED >&2) ` + "`echo INJECTED >&2` $HOME \\n \\ ; | > x", "4d5611e5-241a-462a-8d15-5122611a9569"},
				{"line one\nline two\n\n  indented\tand tab", ""},
				{"ünïcödé ✓ 🎉", "${CLAUDE_SESSION_ID}"}, // not substituted: the shell expands it
				{`"Build a REST API; rm -rf $HOME" --completion-promise "COMPLETE" --max-iterations 50`, "s"},
			} {
				script := strings.ReplaceAll(block, "$ARGUMENTS", tc.task)
				if tc.session != "${CLAUDE_SESSION_ID}" {
					script = strings.ReplaceAll(script, "${CLAUDE_SESSION_ID}", tc.session)
				}
				cmd := exec.Command(sh, "-c", script)
				cmd.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"), "CLAUDE_SESSION_ID=")
				var stderr bytes.Buffer
				cmd.Stderr = &stderr
				b, err := cmd.Output()
				if err != nil {
					t.Fatalf("%s: %v\n%s%s", script, err, b, stderr.Bytes())
				}
				if !bytes.Contains(b, []byte("to-stderr")) {
					t.Errorf("git-loop's standard error does not reach the output the model reads: %q", b)
				}
				if b = append(b, stderr.Bytes()...); bytes.Contains(b, []byte("INJECTED")) {
					t.Fatalf("the shell ran part of the task:\n%s", b)
				}
				if got, want := string(readFile(t, out+".task")), tc.task+"\n"+SlashArgsEnd+"\n"; got != want {
					t.Errorf("task reached git-loop as %q, want %q", got, want)
				}
				wantSession := tc.session
				if wantSession == "${CLAUDE_SESSION_ID}" {
					wantSession = ""
				}
				want := "start\n--session=" + wantSession + "\n--slash-args=-\n"
				if got := string(readFile(t, out+".args")); got != want {
					t.Errorf("git-loop ran with %q, want %q", got, want)
				}
			}
		})
	}
}

// readFile reads path, failing the test if it cannot.
func readFile(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}
