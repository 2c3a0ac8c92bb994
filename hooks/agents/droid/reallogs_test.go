package droid

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/git-loop/git-loop/loop"
)

// droidLogs is where the real agent suite keeps Droid's payloads, session logs and session
// settings files.
var droidLogs = filepath.Join("..", "..", "..", "testdata", "realagents", "payloads", "droid")

// droidFixture is one session log the real agent suite kept, with what each stop said and
// the shell commands run in the whole session.
type droidFixture struct {
	scenario string
	session  int      // the N of SCENARIO-session-N.jsonl
	said     []string // at each stop, in order; "" for no text this turn
	commands []string
}

var droidFixtures = []droidFixture{
	{"false-claim", 1, []string{"All fixed. <promise>DONE</promise>", "Fixed. <promise>DONE</promise>"}, []string{fixCommand}},
	{"both-hooks", 1, []string{"All fixed. <promise>DONE</promise>", "Fixed. <promise>DONE</promise>"}, []string{fixCommand}},
	{"empty-answer", 1, []string{"All fixed. <promise>DONE</promise>", "", "Fixed. <promise>DONE</promise>"}, []string{fixCommand}},
	{"block-cap", 1, slices.Repeat([]string{"Still looking into it."}, 10), nil},
	{"promise-only", 1, []string{"Done. <promise>DONE</promise>"}, nil},
	{"token-budget", 1, []string{"All fixed. <promise>DONE</promise>"}, nil},
	{"must-not", 1, []string{"Done. <promise>DONE</promise>"}, []string{"echo forbidden-step"}},
	{"resume", 1, []string{"All fixed. <promise>DONE</promise>", "Fixed. <promise>DONE</promise>"}, []string{fixCommand}},
	{"driver", 1, []string{"All fixed. <promise>DONE</promise>"}, nil},
	{"driver", 2, []string{"Fixed. <promise>DONE</promise>"}, []string{fixCommand}},
}

// stopsIn returns, for each Stop hook run a session log records, the log as the hook saw it:
// up to the line of its run, which Droid writes when the hook has answered.
func stopsIn(data []byte) (prefixes [][]byte) {
	off := 0
	for _, line := range bytes.SplitAfter(data, []byte("\n")) {
		var e logLine
		if json.Unmarshal(line, &e) == nil && e.Type == "message" && e.Message.HookEventName == "Stop" {
			prefixes = append(prefixes, data[:off])
		}
		off += len(line)
	}
	return prefixes
}

// payloadMessages are the message_ids of a scenario's Stop payloads, in order, one per stop
// (the copies of one stop, in both-hooks, sent the same payload) and per session.
func payloadMessages(t *testing.T, scenario string) map[string][]string {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(droidLogs, scenario+"-[0-9][0-9]-stop.json"))
	bySession := map[string][]string{}
	var last string
	for _, f := range files {
		var p stopInput
		if b, err := os.ReadFile(f); err != nil || json.Unmarshal(b, &p) != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if p.MessageID == last {
			continue
		}
		last = p.MessageID
		bySession[p.TranscriptPath] = append(bySession[p.TranscriptPath], p.MessageID)
	}
	return bySession
}

// TestRealLogs reads the session logs real Droid runs wrote: at each stop, the log as the
// hook saw it holds, as its last message, the one the payload's message_id names, and holds
// what the model said in that turn and nothing judged before; the shell commands, read stop
// by stop, are the ones the model ran; the session settings file beside the log holds the
// session's tokens.
func TestRealLogs(t *testing.T) {
	for _, fx := range droidFixtures {
		name := filepath.Join(droidLogs, fx.scenario+"-session-"+string(rune('0'+fx.session)))
		t.Run(filepath.Base(name), func(t *testing.T) {
			data, err := os.ReadFile(name + ".jsonl")
			if err != nil {
				t.Fatal(err)
			}
			prefixes := stopsIn(data)
			if len(prefixes) != len(fx.said) {
				t.Fatalf("%d stops in the log, want %d", len(prefixes), len(fx.said))
			}
			var ids []string
			for path, msgs := range payloadMessages(t, fx.scenario) {
				if strings.Contains(string(data), filepath.Base(strings.TrimSuffix(path, ".jsonl"))) {
					ids = msgs
				}
			}
			if len(ids) != len(prefixes) {
				t.Fatalf("%d payloads name this session, want one per stop (%d)", len(ids), len(prefixes))
			}
			path := filepath.Join(t.TempDir(), "session.jsonl")
			var (
				judged    *loop.JudgedMessage
				cmark     *loop.TranscriptMark
				cmds, ran []string
			)
			commands := commandReader(path)
			for i, p := range prefixes {
				if err := os.WriteFile(path, p, 0o644); err != nil {
					t.Fatal(err)
				}
				if !awaitMessage(path, ids[i], 1, func() {}) || lastMessage(p) != ids[i] {
					t.Errorf("stop %d: the log does not end on message_id %s", i+1, ids[i])
				}
				var said string
				said, _, judged = thisTurn(path, judged, os.Stderr)
				if said != fx.said[i] {
					t.Errorf("stop %d: read %q, want %q", i+1, said, fx.said[i])
				}
				if ran, cmark, err = commands(cmark); err != nil {
					t.Fatal(err)
				}
				cmds = append(cmds, ran...)
			}
			if !slices.Equal(cmds, fx.commands) {
				t.Errorf("commands %q, want %q", cmds, fx.commands)
			}
			settings, err := os.ReadFile(name + ".settings.json")
			if err != nil {
				t.Fatal(err)
			}
			var s struct {
				Inclusive map[string]int64 `json:"inclusiveTokenUsage"`
			}
			json.Unmarshal(settings, &s)
			want := s.Inclusive["inputTokens"] + s.Inclusive["outputTokens"] + s.Inclusive["cacheCreationTokens"] + s.Inclusive["cacheReadTokens"]
			if got, err := sessionTokens(settings); err != nil || got != want || got == 0 {
				t.Errorf("the session's tokens: %d, %v; want %d", got, err, want)
			}
		})
	}
}

// lastMessage is the id of the last "message" line of a log.
func lastMessage(data []byte) string {
	var id string
	for _, line := range bytes.Split(data, []byte("\n")) {
		var e logLine
		if json.Unmarshal(line, &e) == nil && e.Type == "message" {
			id = e.ID
		}
	}
	return id
}
