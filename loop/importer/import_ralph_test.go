package importer

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/git-loop/git-loop/loop"
	"github.com/git-loop/git-loop/loop/internal/looptest"
)

// officialRalph is a state file as the ralph-loop plugin's setup-ralph-loop.sh writes it for
// `/ralph-loop "Build a REST API" --completion-promise 'say "DONE" & C:\x' --max-iterations 20`
// in session 4d5611e5-…: the promise between quotes as typed, which is not valid YAML.
const officialRalph = `---
active: true
iteration: 1
session_id: 4d5611e5-241a-462a-8d15-5122611a9569
max_iterations: 20
completion_promise: "say "DONE" & C:\x"
started_at: "2026-01-02T03:04:05Z"
---

Build a REST API
`

// TestParseRalphAsTheHookReadsIt: the front matter is read as the plugin's stop hook reads
// it (the line after "key: ", surrounding double quotes removed, nothing decoded), so the
// promise is the phrase the hook compared, and the session is the one it judged.
func TestParseRalphAsTheHookReadsIt(t *testing.T) {
	tests := []struct {
		name, data string
		promises   []string
		session    string
		max        *int
		skipped    []string
	}{
		{"official file, invalid YAML", officialRalph, []string{`say "DONE" & C:\x`}, "4d5611e5-241a-462a-8d15-5122611a9569", intp(20), []string{"iteration: 1", "started_at"}},
		{"a < and an &", "---\ncompletion_promise: \"x<y & z\"\n---\nt\n", []string{"x<y & z"}, "", nil, nil},
		{"escapes are not decoded", "---\ncompletion_promise: \"a\\\"b\\\\n\"\n---\nt\n", []string{`a\"b\\n`}, "", nil, nil},
		{"single quotes are kept", "---\ncompletion_promise: 'DONE'\n---\nt\n", []string{"'DONE'"}, "", nil, nil},
		{"null promise", "---\ncompletion_promise: null\nmax_iterations: 5\n---\nt\n", nil, "", intp(5), nil},
		{"quoted null is null to the hook", "---\ncompletion_promise: \"null\"\n---\nt\n", nil, "", nil, nil},
		{"no space after the colon", "---\ncompletion_promise:\"DONE\"\n---\nt\n", []string{"DONE"}, "", nil, nil},
		{"CRLF line ends", "---\r\ncompletion_promise: \"X\"\r\nsession_id: s1\r\n---\r\nt\r\n", []string{"X"}, "s1", nil, nil},
		{"empty session_id binds nothing", "---\nsession_id: \nmax_iterations: 0\n---\nt\n", nil, "", nil, []string{"max_iterations: 0 (no limit in the Claude Code ralph-loop plugin): the new loop stops at git-loop's iteration limit"}},
		{"other lines are listed", "---\nactive: true\n  nested: 1\n# comment\n\n---\nt\n", nil, "", nil, []string{`front matter line 3: "  nested: 1" (not a key: value line`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			im, err := parseImport(".claude/ralph-loop.local.md", []byte(tt.data), "")
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(im.Promises, tt.promises) || im.Session != tt.session || !reflect.DeepEqual(im.MaxIterations, tt.max) {
				t.Errorf("promises %q session %q max %v; want %q %q %v", im.Promises, im.Session, im.MaxIterations, tt.promises, tt.session, tt.max)
			}
			checkSkipped(t, im.NotCarried, tt.skipped)
			if strings.Contains(strings.Join(im.NotCarried, "\n"), "session_id") {
				t.Errorf("session_id listed as not carried over: %q", im.NotCarried)
			}
		})
	}
}

// TestImportKeepsTheSession: the imported loop is bound to the file's session, --session
// replaces it, and the default ($CLAUDE_CODE_SESSION_ID) applies only when neither names one.
func TestImportKeepsTheSession(t *testing.T) {
	dir := looptest.NewRepo(t)
	s := openImportStore(t, dir)
	path := filepath.Join(dir, ".claude", "ralph-loop.local.md")
	os.MkdirAll(filepath.Dir(path), 0o777)
	os.WriteFile(path, []byte(officialRalph), 0o666)
	for _, tt := range []struct{ flag, def, want string }{
		{"", "env-session", "4d5611e5-241a-462a-8d15-5122611a9569"},
		{"flag-session", "env-session", "flag-session"},
	} {
		res, err := Import(s, ImportOptions{File: path, DryRun: true, StartOptions: loop.StartOptions{Session: tt.flag}, DefaultSession: tt.def})
		if err != nil || res.Session != tt.want {
			t.Errorf("--session %q, default %q: bound to %q (%v), want %q", tt.flag, tt.def, res.Session, err, tt.want)
		}
	}
	os.WriteFile(path, []byte("---\ncompletion_promise: \"D\"\n---\nt\n"), 0o666)
	if res, err := Import(s, ImportOptions{File: path, DryRun: true, DefaultSession: "env-session"}); err != nil || res.Session != "env-session" {
		t.Errorf("no session in the file: bound to %q (%v)", res.Session, err)
	}
	os.WriteFile(path, []byte(officialRalph), 0o666)
	res, err := Import(s, ImportOptions{File: path})
	if err != nil {
		t.Fatal(err)
	}
	if res.State.Session != "4d5611e5-241a-462a-8d15-5122611a9569" {
		t.Errorf("started loop's session %q", res.State.Session)
	}
	_, cfg, err := s.Status(res.State.Name)
	if err != nil || !reflect.DeepEqual(cfg.Promises, []string{`say "DONE" & C:\x`}) {
		t.Errorf("promises %q, %v", cfg.Promises, err)
	}
}
