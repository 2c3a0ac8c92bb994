package kit

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"
)

// othersSettings is a project's settings with other tools' hooks (a Stop hook of their own,
// PreToolUse with matchers) and keys git-loop has no business with, in an order and a
// number and string spelling that a decode/encode round trip would not keep.
const othersSettings = `{
  "$schema": "https://json.schemastore.org/claude-code-settings.json",
  "permissions": {
    "allow": ["Bash(npm run lint)", "Read(~/.zshrc)"],
    "deny": ["Read(./.env)"]
  },
  "env": {"FOO": "caf\u00e9", "RATIO": 1.50, "BIG": 1e3},
  "hooks": {
    "PreToolUse": [
      {
        "matcher": "Bash",
        "hooks": [{"type": "command", "command": "~/bin/check-bash", "timeout": 5}]
      },
      {
        "matcher": "Edit|Write",
        "hooks": [{"type": "command", "command": "prettier --write \"$CLAUDE_PROJECT_DIR\""}]
      }
    ],
    "Stop": [
      {
        "hooks": [
          {
            "type": "command",
            "command": "notify-send 'Claude is done'"
          }
        ]
      }
    ]
  },
  "model": "opus",
  "includeCoAuthoredBy": false
}
`

func writeSettings(t *testing.T, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), ".claude", "settings.json")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// ourGroup is the group install adds for h, decoded.
func ourGroup(h installedHook) any {
	return map[string]any{"hooks": []any{map[string]any{"type": "command", "command": h.Command, "timeout": json.Number(itoa(h.Timeout))}}}
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}

func decode(t testing.TB, b []byte) any {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(bytes.TrimPrefix(b, []byte("\xef\xbb\xbf"))))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("decode %q: %v", b, err)
	}
	return v
}

// checkMerged checks that out is in with git-loop's hooks merged: every other key, hook and
// matcher the same, each event's existing groups the same and first, and exactly one group
// of ours added to each event that did not run ours yet.
func checkMerged(t testing.TB, in, out []byte) {
	t.Helper()
	before, _ := decode(t, in).(map[string]any)
	after, ok := decode(t, out).(map[string]any)
	if !ok {
		t.Fatalf("result is not an object: %s", out)
	}
	if before == nil {
		before = map[string]any{}
	}
	for k, v := range before {
		if k != "hooks" && !reflect.DeepEqual(after[k], v) {
			t.Errorf("key %q changed: %v → %v", k, v, after[k])
		}
	}
	for k := range after {
		if _, ok := before[k]; !ok && k != "hooks" {
			t.Errorf("key %q appeared", k)
		}
	}
	hb, _ := before["hooks"].(map[string]any)
	ha, ok := after["hooks"].(map[string]any)
	if !ok {
		t.Fatalf("result has no hooks object: %s", out)
	}
	ours := map[string]installedHook{}
	for _, h := range installedHooks {
		ours[h.Event] = h
	}
	for k, v := range hb {
		if _, ok := ours[k]; !ok && !reflect.DeepEqual(ha[k], v) {
			t.Errorf("hooks.%s changed: %v → %v", k, v, ha[k])
		}
	}
	for event, h := range ours {
		old, _ := hb[event].([]any)
		now, ok := ha[event].([]any)
		if !ok {
			t.Fatalf("hooks.%s is not an array: %v", event, ha[event])
		}
		if len(now) < len(old) || (len(old) > 0 && !reflect.DeepEqual(now[:len(old)], old)) {
			t.Errorf("hooks.%s: existing groups changed: %v → %v", event, old, now)
			continue
		}
		added := now[len(old):]
		if hadOurs(old, h) {
			if len(added) != 0 {
				t.Errorf("hooks.%s ran git-loop already, yet %v was added", event, added)
			}
		} else if len(added) != 1 || !reflect.DeepEqual(added[0], ourGroup(h)) {
			t.Errorf("hooks.%s: added %v, want one group %v", event, added, ourGroup(h))
		}
	}
}

func hadOurs(groups []any, h installedHook) bool {
	want := strings.Fields(h.Command)[3]
	for _, g := range groups {
		gm, _ := g.(map[string]any)
		hs, _ := gm["hooks"].([]any)
		for _, x := range hs {
			xm, _ := x.(map[string]any)
			if c, ok := xm["command"].(string); ok {
				if arg, ok := gitLoopHookArg(c); ok && arg == want {
					return true
				}
			}
		}
	}
	return false
}

func TestInstallClaudeNoFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "proj", ".claude", "settings.json")
	res, err := installClaude(path)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Created || !res.Changed() || len(res.Added) != len(installedHooks) || len(res.Present) != 0 || res.Path != path {
		t.Errorf("result %+v", res)
	}
	got := readFile(t, path)
	checkMerged(t, []byte("{}"), got)
	if !bytes.HasPrefix(got, []byte("{\n  \"hooks\": {\n    \"Stop\": [\n      {\n        \"hooks\": [\n")) || !bytes.HasSuffix(got, []byte("\n}\n")) {
		t.Errorf("a new file is not in Claude Code's two-space style:\n%s", got)
	}
	if runtime.GOOS != "windows" {
		if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o644 {
			t.Errorf("new file mode %v, want 0644", fi.Mode().Perm())
		}
	}
	for _, h := range installedHooks {
		if !strings.Contains(res.String(), h.Command) {
			t.Errorf("result text does not name %q:\n%s", h.Command, res)
		}
	}
	checkIdempotent(t, path)
}

// checkIdempotent installs again: nothing added, the file not even rewritten.
func checkIdempotent(t *testing.T, path string) {
	t.Helper()
	before := readFile(t, path)
	fi1, _ := os.Stat(path)
	old := time.Now().Add(-time.Hour)
	os.Chtimes(path, old, old)
	res, err := installClaude(path)
	if err != nil {
		t.Fatalf("second install: %v", err)
	}
	if res.Changed() || res.Created || len(res.Present) != len(installedHooks) {
		t.Errorf("second install: %+v", res)
	}
	if after := readFile(t, path); !bytes.Equal(before, after) {
		t.Errorf("second install changed the file:\n%s\n→\n%s", before, after)
	}
	if fi2, _ := os.Stat(path); !fi2.ModTime().Equal(old) || fi2.Mode() != fi1.Mode() {
		t.Error("second install rewrote the file")
	}
}

func TestInstallClaudeMerges(t *testing.T) {
	tests := []struct{ name, settings string }{
		{"empty object", "{}\n"},
		{"empty object, no newline", "{}"},
		{"empty file", ""},
		{"white space only", " \n"},
		{"others' hooks and keys", othersSettings},
		{"empty hooks", `{"hooks": {}}`},
		{"null hooks", "{\n  \"hooks\": null\n}\n"},
		{"null event", "{\n  \"hooks\": {\n    \"Stop\": null\n  }\n}\n"},
		{"empty event arrays", `{"hooks":{"Stop":[],"SubagentStop":[],"SessionStart":[]}}`},
		{"SessionStart with matchers", `{"hooks":{"SessionStart":[{"matcher":"startup","hooks":[{"type":"command","command":"echo hi"}]},{"matcher":"compact","hooks":[]}]}}`},
		{"four-space indent", "{\n    \"model\": \"opus\",\n    \"hooks\": {\n        \"Stop\": [\n            {\n                \"hooks\": []\n            }\n        ]\n    }\n}\n"},
		{"tab indent", "{\n\t\"hooks\": {\n\t\t\"Notification\": []\n\t}\n}\n"},
		{"compact", `{"model":"opus","hooks":{"Stop":[{"hooks":[{"type":"command","command":"x"}]}]}}`},
		{"CRLF", "{\r\n  \"model\": \"opus\",\r\n  \"hooks\": {\r\n    \"Stop\": [\r\n      {\r\n        \"hooks\": []\r\n      }\r\n    ]\r\n  }\r\n}\r\n"},
		{"byte order mark", "\xef\xbb\xbf{\n  \"model\": \"opus\"\n}\n"},
		{"duplicate hooks key: the last counts", `{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"git-loop hook claude stop"}]}]},"hooks":{"Stop":[]}}`},
		{"strings with brackets and escapes", `{"a":"}]\"{[\\","hooks":{"Stop":[{"hooks":[{"type":"command","command":"echo \"]}\""}]}]},"z":"\\"}`},
		{"nested deep", `{"x":{"y":[[[{"z":[]}]]]},"hooks":{"PreToolUse":[{"matcher":"*","hooks":[{"type":"command","command":"a","timeout":1}]}]}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := writeSettings(t, tt.settings)
			res, err := installClaude(path)
			if err != nil {
				t.Fatal(err)
			}
			if res.Created || !res.Changed() {
				t.Errorf("result %+v", res)
			}
			got := readFile(t, path)
			in := tt.settings
			if strings.TrimSpace(in) == "" {
				in = "{}"
			}
			checkMerged(t, []byte(in), got)
			checkKeptBytes(t, []byte(tt.settings), got)
			checkStyle(t, tt.settings, got)
			checkIdempotent(t, path)
		})
	}
}

// checkKeptBytes checks that each member of the original (top level and in "hooks") and
// each existing group of git-loop's events is still in the file byte for byte, in order.
func checkKeptBytes(t *testing.T, in, out []byte) {
	t.Helper()
	in = bytes.TrimPrefix(in, []byte("\xef\xbb\xbf"))
	if len(bytes.TrimSpace(in)) == 0 {
		return
	}
	var pieces [][]byte
	top := objectAt(in, jsWS(in, 0))
	for _, m := range top.members {
		if m.key == "hooks" && in[m.val.start] == 'n' {
			continue // null, replaced by git-loop's hooks
		}
		if m.key != "hooks" || in[m.val.start] != '{' {
			pieces = append(pieces, in[m.keyAt:m.val.end])
			continue
		}
		for _, e := range objectAt(in, m.val.start).members {
			if in[e.val.start] == 'n' {
				continue
			}
			if in[e.val.start] != '[' {
				pieces = append(pieces, in[e.keyAt:e.val.end])
				continue
			}
			for _, el := range arrayAt(in, e.val.start).elems {
				pieces = append(pieces, in[el.start:el.end])
			}
		}
	}
	rest := out
	for _, p := range pieces {
		i := bytes.Index(rest, p)
		if i < 0 {
			t.Errorf("%q is no longer in the file (in order):\n%s", p, out)
			return
		}
		rest = rest[i+len(p):]
	}
}

// checkStyle checks that the additions follow the file's line endings, indentation and
// layout.
func checkStyle(t *testing.T, in string, out []byte) {
	t.Helper()
	s := string(out)
	if strings.Contains(in, "\r\n") && strings.Count(s, "\n") != strings.Count(s, "\r\n") {
		t.Errorf("a CRLF file got bare LF line ends:\n%q", s)
	}
	if strings.HasPrefix(in, "\xef\xbb\xbf") != strings.HasPrefix(s, "\xef\xbb\xbf") {
		t.Error("the byte order mark was not kept")
	}
	body := strings.TrimSpace(strings.TrimPrefix(in, "\xef\xbb\xbf"))
	if body != "" && body != "{}" && !strings.Contains(body, "\n") && strings.Contains(strings.TrimSpace(s), "\n") {
		t.Errorf("a one-line file became several lines:\n%s", s)
	}
	if strings.Contains(in, "\n\t") && strings.Contains(s, "\n  ") {
		t.Errorf("a tab-indented file got spaces:\n%s", s)
	}
	if strings.HasPrefix(in, "{\n    \"") && !strings.Contains(s, "\n                        \"command\": \"git-loop hook claude stop\"") {
		t.Errorf("a four-space file got other indentation:\n%s", s)
	}
	if strings.Contains(s, "\n\n") || strings.Contains(s, "\r\n\r\n") {
		t.Errorf("blank line in the result:\n%s", s)
	}
}

func TestInstallClaudeOthersLayout(t *testing.T) {
	path := writeSettings(t, othersSettings)
	if _, err := installClaude(path); err != nil {
		t.Fatal(err)
	}
	got := string(readFile(t, path))
	// Ours goes after the other tool's Stop group, at its indentation; the events the file
	// lacked go at the end of "hooks"; nothing before the insertion point moves.
	wantStop := `            "command": "notify-send 'Claude is done'"
          }
        ]
      },
      {
        "hooks": [
          {
            "type": "command",
            "command": "git-loop hook claude stop",
            "timeout": 660
          }
        ]
      }
    ],
    "SubagentStop": [`
	if !strings.Contains(got, wantStop) {
		t.Errorf("unexpected layout:\n%s", got)
	}
	cut := strings.Index(othersSettings, "\n      }\n    ]\n  },")
	if !strings.HasPrefix(got, othersSettings[:cut+len("\n      }")]) {
		t.Errorf("the file before the insertion changed:\n%s", got)
	}
	if !strings.HasSuffix(got, "\n  },\n  \"model\": \"opus\",\n  \"includeCoAuthoredBy\": false\n}\n") {
		t.Errorf("the file after the hooks changed:\n%s", got)
	}
}

func TestInstallClaudeRecognisesOurs(t *testing.T) {
	for _, cmd := range []string{
		"git-loop hook claude stop",
		"  git-loop   hook claude stop  ",
		"/usr/local/bin/git-loop hook claude stop",
		`"/home/u/go/bin/git-loop" hook claude stop`,
		`C:\Users\u\go\bin\git-loop.exe hook claude stop`,
		"git loop hook claude stop",
		"git-loop hook claude stop --verbose",
	} {
		settings := `{"hooks":{"Stop":[{"hooks":[{"type":"command","command":` + string(must(json.Marshal(cmd))) + `,"timeout":900}]}]}}`
		path := writeSettings(t, settings)
		res, err := installClaude(path)
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Present) != 1 || !strings.HasPrefix(res.Present[0], "Stop ") || len(res.Added) != len(installedHooks)-1 {
			t.Errorf("%q: %+v", cmd, res)
		}
		checkMerged(t, []byte(settings), readFile(t, path))
	}
	for _, cmd := range []string{
		"git-loop hook claude subagent-stop", // ours, but another event's
		"git-loop hook codex stop",
		"echo git-loop hook claude stop",
		"my-git-loop hook claude stop",
		"git-loop",
	} {
		settings := `{"hooks":{"Stop":[{"hooks":[{"type":"command","command":` + string(must(json.Marshal(cmd))) + `}]}]}}`
		path := writeSettings(t, settings)
		res, err := installClaude(path)
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Added) != len(installedHooks) {
			t.Errorf("%q counted as git-loop's Stop hook: %+v", cmd, res)
		}
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

func TestInstallClaudePartly(t *testing.T) {
	path := writeSettings(t, `{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"git-loop hook claude stop","timeout":600}]}]}}`)
	res, err := installClaude(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Present) != 1 || len(res.Added) != 2 {
		t.Errorf("result %+v", res)
	}
	var s struct {
		Hooks map[string][]json.RawMessage `json:"hooks"`
	}
	if err := json.Unmarshal(readFile(t, path), &s); err != nil {
		t.Fatal(err)
	}
	if len(s.Hooks["Stop"]) != 1 || len(s.Hooks["SubagentStop"]) != 1 || len(s.Hooks["SessionStart"]) != 1 {
		t.Errorf("hooks after install: %v", s.Hooks)
	}
}

func TestInstallClaudeRefuses(t *testing.T) {
	tests := []struct {
		name, settings string
		mention        []string
	}{
		{"truncated", `{"hooks": {`, []string{"not valid JSON", "line 1"}},
		{"trailing comma", "{\n  \"model\": \"opus\",\n}\n", []string{"not valid JSON", "line 3, column 1"}},
		{"comments", "// settings\n{}", []string{"not valid JSON", "line 1, column 1"}},
		{"two objects", "{}{}", []string{"not valid JSON"}},
		{"array", `[]`, []string{"JSON array", "object"}},
		{"string", `"x"`, []string{"JSON string"}},
		{"hooks an array", `{"hooks": []}`, []string{`"hooks" is a JSON array`, "object"}},
		{"hooks a string", `{"hooks": "none"}`, []string{`"hooks" is a JSON string`}},
		{"event an object", `{"hooks": {"Stop": {"hooks": []}}}`, []string{`"hooks"."Stop" is a JSON object`, "array"}},
		{"event a number", `{"hooks": {"SessionStart": 1}}`, []string{`"SessionStart" is a JSON number`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := writeSettings(t, tt.settings)
			old := time.Now().Add(-time.Hour)
			os.Chtimes(path, old, old)
			res, err := installClaude(path)
			if err == nil {
				t.Fatalf("installClaude = %+v, want an error", res)
			}
			for _, m := range append(tt.mention, path, "left untouched", "fix it") {
				if !strings.Contains(err.Error(), m) {
					t.Errorf("error %q does not mention %q", err, m)
				}
			}
			if got := readFile(t, path); string(got) != tt.settings {
				t.Errorf("file changed to %q", got)
			}
			if fi, _ := os.Stat(path); !fi.ModTime().Equal(old) {
				t.Error("file was rewritten")
			}
			entries, _ := os.ReadDir(filepath.Dir(path))
			if len(entries) != 1 {
				t.Errorf("directory holds %d entries, want only settings.json", len(entries))
			}
		})
	}
}

func TestInstallClaudeKeepsMode(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no Unix permissions")
	}
	path := writeSettings(t, "{}")
	if err := os.Chmod(path, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := installClaude(path); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600 kept", fi.Mode().Perm())
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Errorf("temporary files left behind: %v", entries)
	}
}

func TestInstallClaudeFollowsSymlink(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "dotfiles", "claude-settings.json")
	os.MkdirAll(filepath.Dir(target), 0o755)
	os.WriteFile(target, []byte(othersSettings), 0o644)
	link := filepath.Join(dir, "home", ".claude", "settings.json")
	os.MkdirAll(filepath.Dir(link), 0o755)
	if err := os.Symlink(target, link); err != nil {
		t.Skipf("no symlinks here: %v", err)
	}
	if _, err := installClaude(link); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatal("the symlink was replaced by a file")
	}
	checkMerged(t, []byte(othersSettings), readFile(t, target))
	checkIdempotent(t, link)

	dangling := filepath.Join(dir, "dangling.json")
	os.Symlink(filepath.Join(dir, "nowhere", "x.json"), dangling)
	if _, err := installClaude(dangling); err == nil || !strings.Contains(err.Error(), "symlink") {
		t.Errorf("dangling symlink: err = %v", err)
	}
}

func TestInstallClaudeUnwritable(t *testing.T) {
	if runtime.GOOS == "windows" || os.Geteuid() == 0 {
		t.Skip("needs Unix permissions and a non-root user")
	}
	path := writeSettings(t, "{}")
	dir := filepath.Dir(path)
	os.Chmod(dir, 0o555)
	defer os.Chmod(dir, 0o755)
	if _, err := installClaude(path); err == nil || !strings.Contains(err.Error(), path) {
		t.Errorf("err = %v, want one naming %s", err, path)
	}
	if got := readFile(t, path); string(got) != "{}" {
		t.Errorf("file changed to %q", got)
	}
}

// FuzzMergeClaudeHooks: whatever the file, the merge either refuses or yields valid JSON
// that is the file plus git-loop's hooks, which a second merge leaves alone.
func FuzzMergeClaudeHooks(f *testing.F) {
	for _, s := range []string{
		"", "{}", othersSettings, `{"hooks":null}`, `{"hooks":{"Stop":null}}`, `{"hooks":[]}`,
		`{"a":"}]\"{[\\","hooks":{"Stop":[{"hooks":[{"command":"git-loop hook claude stop"}]}]}}`,
		"{\r\n\t\"hooks\": {\r\n\t\t\"Stop\": [ ]\r\n\t}\r\n}", "\xef\xbb\xbf{}", `{"hooks":{"Stop":[1,"x",null,{"hooks":"y"}]}}`,
		`{"hooks":{},"hooks":{"SubagentStop":[{"hooks":[{"type":"command","command":"git loop hook claude subagent-stop"}]}]}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		out, added, _, err := MergeHooks(doc, "settings.json", hookFile)
		if err != nil {
			if strings.Contains(err.Error(), "internal error") {
				t.Fatalf("%q: %v", doc, err)
			}
			return
		}
		if len(added) == 0 {
			return
		}
		if !json.Valid(bytes.TrimPrefix(out, []byte("\xef\xbb\xbf"))) {
			t.Fatalf("%q → invalid %q", doc, out)
		}
		in := doc
		if len(bytes.TrimSpace(bytes.TrimPrefix(doc, []byte("\xef\xbb\xbf")))) == 0 {
			in = []byte("{}")
		}
		if deepEnough(in) {
			checkMerged(t, in, out)
		}
		if _, again, _, err := MergeHooks(out, "settings.json", hookFile); err != nil || len(again) != 0 {
			t.Fatalf("second merge of %q: added %v, err %v", out, again, err)
		}
	})
}

// deepEnough reports whether encoding/json can decode doc into any (it limits nesting).
func deepEnough(doc []byte) bool {
	var v any
	return json.Unmarshal(bytes.TrimPrefix(doc, []byte("\xef\xbb\xbf")), &v) == nil
}

// gitLoopHookArg returns the event argument of a "git-loop hook claude EVENT" command.
func gitLoopHookArg(command string) (string, bool) {
	agent, event, ok := GitLoopHookArgs(command)
	if !ok || agent != "claude" {
		return "", false
	}
	return event, true
}

// installedHook is one hook of hookFile, as the tests compare it.
type installedHook struct {
	Event, Command string
	Timeout        int
}

// installedHooks are hookFile's hooks.
var installedHooks = func() []installedHook {
	var hs []installedHook
	for _, h := range hookFile.Hooks {
		hs = append(hs, installedHook{h.Event, h.Command, h.Entry.(HookGroup).Hooks[0].Timeout})
	}
	return hs
}()

// installClaude merges the hooks of hookFile into the file at path.
func installClaude(path string) (InstallResult, error) { return InstallHooks(path, hookFile) }

// hookFile is a hook file of Claude Code's shape, the grouped one the merge's tests were
// written for (the other shapes are held to their golden files in package hooks).
var hookFile = HookFile{Product: "Claude Code", Grouped: true, CommandKeys: []string{"command"}, Hooks: []FileHook{
	groupedHook("Stop", "git-loop hook claude stop", StopTimeout),
	groupedHook("SubagentStop", "git-loop hook claude subagent-stop", StopTimeout),
	groupedHook("SessionStart", "git-loop hook claude session-start", 60),
}}

func groupedHook(event, command string, timeout int) FileHook {
	return FileHook{Event: event, Command: command, Entry: HookGroup{Hooks: []HookCommand{{Type: "command", Command: command, Timeout: timeout}}}}
}
