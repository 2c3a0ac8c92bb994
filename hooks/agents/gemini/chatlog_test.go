package gemini

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/git-loop/git-loop/hooks/sessionlog"
	"github.com/git-loop/git-loop/hooks/sessionlog/logtest"
	"github.com/git-loop/git-loop/loop"
)

var geminiLogs = filepath.Join("..", "..", "..", "testdata", "realagents", "payloads", "gemini")

// Lines of a Gemini CLI 0.61.0 chat log, shortened from the real ones.
const (
	gmMeta    = `{"sessionId":"s","projectHash":"p","startTime":"2026-11-25T00:43:33.711Z","lastUpdated":"2026-11-25T00:43:33.711Z","kind":"main"}`
	gmSet     = `{"$set":{"lastUpdated":"2026-11-25T00:43:33.812Z"}}`
	gmPrompt  = `{"id":"u1","timestamp":"t","type":"user","content":[{"text":"Fix Sub"}]}`
	gmAsk     = `{"id":"g1","timestamp":"t","type":"gemini","content":"","thoughts":[],"tokens":{"input":12122,"output":10,"cached":0,"thoughts":0,"tool":0,"total":12132},"model":"m"}`
	gmAskRan  = `{"id":"g1","timestamp":"t","type":"gemini","content":"","thoughts":[],"tokens":{"input":12122,"output":10,"cached":0,"thoughts":0,"tool":0,"total":12132},"model":"m","toolCalls":[{"id":"c1","name":"run_shell_command","args":{"command":"echo forbidden-step"},"status":"success"}]}`
	gmResp    = `{"id":"u2","timestamp":"t","type":"user","content":[{"functionResponse":{"id":"c1","name":"run_shell_command","response":{"output":"forbidden-step"}}}]}`
	gmDone    = `{"id":"g2","timestamp":"t","type":"gemini","content":"Done.","thoughts":[],"tokens":{"input":12232,"output":10,"cached":0,"thoughts":0,"tool":0,"total":12242},"model":"m"}`
	gmNoTotal = `{"id":"g3","type":"gemini","content":"x","tokens":{"input":100,"output":20,"thoughts":3,"tool":-5}}`
	gmRead    = `{"id":"g4","type":"gemini","content":"","tokens":{"total":7},"toolCalls":[{"id":"c2","name":"read_file","args":{"file_path":"a"}},{"id":"c3","name":"run_shell_command","args":{"command":"go test ./..."}}]}`
	gmUserCmd = `{"id":"u3","type":"user","tokens":{"total":99},"toolCalls":[{"id":"c4","name":"run_shell_command","args":{"command":"rm -rf /"}}]}`
)

func TestGeminiCallTokens(t *testing.T) {
	for _, tc := range []struct {
		line string
		id   string
		n    int64
		ok   bool
	}{
		{gmAsk, "g1", 12132, true},
		{gmAskRan, "g1", 12132, true},
		{gmDone, "g2", 12242, true},
		{gmNoTotal, "g3", 123, true}, // no total: the parts, a negative one as none
		{gmPrompt, "", 0, false},
		{gmUserCmd, "", 0, false}, // only the model's calls count
		{gmSet, "", 0, false},
		{gmMeta, "", 0, false},
		{`{"id":"g","type":"gemini","tokens":null}`, "", 0, false},
		{`{"id":"g","type":"gemini","tokens":`, "", 0, false},
	} {
		id, n, ok := callTokens([]byte(tc.line))
		if id != tc.id || n != tc.n || ok != tc.ok {
			t.Errorf("%s: %q %d %v, want %q %d %v", tc.line, id, n, ok, tc.id, tc.n, tc.ok)
		}
	}
}

func TestGeminiUsageFrom(t *testing.T) {
	for _, tc := range []struct {
		name  string
		lines []string
		from  usageMark // Offset is set to the end of the first line
		want  int64
	}{
		{"a call written twice counts once", []string{gmMeta, gmPrompt, gmAsk, gmSet, gmAskRan, gmResp, gmDone}, usageMark{}, 12132 + 12242},
		{"the rewrite after the mark", []string{gmMeta, gmAskRan, gmDone}, usageMark{LastID: "g1", Last: 12132}, 12242},
		{"a rise on rewrite counts", []string{gmMeta, gmAskRan}, usageMark{LastID: "g1", Last: 12000}, 132},
		{"another call", []string{gmMeta, gmNoTotal, gmRead}, usageMark{LastID: "g1", Last: 1}, 130},
		{"nothing after the mark", []string{gmMeta}, usageMark{}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := logtest.JSONLines(tc.lines...)
			from := tc.from
			from.Offset = int64(len(tc.lines[0]) + 1)
			n, next, err := usageIn(bytes.NewReader(data), int64(len(data)), from, sessionlog.DefaultLimits)
			if err != nil || n != tc.want || next.Offset != int64(len(data)) {
				t.Errorf("%d tokens to %d (%v), want %d to %d", n, next.Offset, err, tc.want, len(data))
			}
		})
	}
}

func TestGeminiCommands(t *testing.T) {
	data := logtest.JSONLines([]string{gmMeta, gmPrompt, gmAsk, gmAskRan, gmResp, gmDone, gmRead, gmUserCmd, `{"type":"gemini","toolCalls":[{"name":"run_shell_command","args":{"command":["bash","-c","ls"]}}]}`}...)
	data = append(data, gmAskRan...) // a torn last line waits
	cmds, next, err := commandsIn(bytes.NewReader(data), int64(len(data)), 0, sessionlog.DefaultLimits)
	if err != nil || next != int64(len(data)-len(gmAskRan)) {
		t.Fatalf("read to %d (%v), want %d", next, err, len(data)-len(gmAskRan))
	}
	if want := []string{"echo forbidden-step", "go test ./...", "ls"}; !slices.Equal(cmds, want) {
		t.Errorf("commands %q, want %q", cmds, want)
	}
}

// TestGeminiRealLogs reads the real chat logs as the stops did, each stop seeing the log up
// to its own model call: tokens and commands read stop by stop are the whole log's.
func TestGeminiRealLogs(t *testing.T) {
	for _, tc := range []struct {
		file     string
		tokens   int64
		commands []string
	}{
		{"token-budget-session-1.jsonl", 12137 + 12325 + 12513, nil},
		{"must-not-session-1.jsonl", 12130 + 12241 + 12415 + 12602 /* the first call, written twice, once */, []string{"echo forbidden-step"}},
	} {
		t.Run(tc.file, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join(geminiLogs, tc.file))
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(t.TempDir(), "session.jsonl")
			count, commands := counter(path), commandReader(path)
			var (
				mark, cmark *loop.TranscriptMark
				cmds, ran   []string
				stops       int
			)
			for i := 0; i < len(data); i++ {
				if data[i] != '\n' || !bytes.Contains(data[bytes.LastIndexByte(data[:i], '\n')+1:i], []byte(`"type":"gemini"`)) {
					continue
				}
				stops++
				if err := os.WriteFile(path, data[:i+1], 0o644); err != nil {
					t.Fatal(err)
				}
				if mark, err = count(mark); err != nil {
					t.Fatal(err)
				}
				if ran, cmark, err = commands(cmark); err != nil {
					t.Fatal(err)
				}
				cmds = append(cmds, ran...)
			}
			if stops == 0 || mark.Tokens != tc.tokens {
				t.Errorf("%d reads counted %d tokens, want %d", stops, mark.Tokens, tc.tokens)
			}
			if !slices.Equal(cmds, tc.commands) {
				t.Errorf("commands %q, want %q", cmds, tc.commands)
			}
		})
	}
}

func TestGeminiMarkOutsideLog(t *testing.T) {
	path := filepath.Join(t.TempDir(), "session.jsonl")
	os.WriteFile(path, []byte(gmMeta+"\n"), 0o644)
	if _, _, err := usageInFile(path, usageMark{Offset: 1 << 20}); err == nil {
		t.Error("an offset past the end of the log was accepted")
	}
	if _, _, err := commandsInFile(path, -1); err == nil {
		t.Error("a negative offset was accepted")
	}
}

// FuzzGeminiLog: on any bytes, usage read in pieces, cut anywhere, adds up to one read of the
// whole, and the commands read in pieces are the whole's (a call written again across a cut
// may be reported again: harmless for must-not rules).
func FuzzGeminiLog(f *testing.F) {
	f.Add(logtest.JSONLines([]string{gmMeta, gmPrompt, gmAsk, gmSet, gmAskRan, gmResp, gmDone, gmNoTotal, gmRead}...), uint16(7), uint64(1))
	f.Add(append(logtest.JSONLines(gmAsk), gmAskRan[:40]...), uint16(64), uint64(2))
	f.Add([]byte("\xff\n{}\n\n"+gmDone), uint16(1), uint64(3))
	if data, err := os.ReadFile(filepath.Join(geminiLogs, "must-not-session-1.jsonl")); err == nil {
		f.Add(data, uint16(512), uint64(4))
	}
	f.Fuzz(func(t *testing.T, data []byte, chunk uint16, seed uint64) {
		lim := logtest.Limits(16+int(chunk)%4096, sessionlog.MaxLineBytes)
		size := int64(len(data))
		wantTokens, whole, err := usageIn(bytes.NewReader(data), size, usageMark{}, lim)
		if err != nil {
			t.Fatal(err)
		}
		wantCmds, wantNext, err := commandsIn(bytes.NewReader(data), size, 0, lim)
		if err != nil || wantNext != whole.Offset || wantNext != int64(bytes.LastIndexByte(data, '\n')+1) {
			t.Fatalf("commands read to %d, usage to %d: %v", wantNext, whole.Offset, err)
		}
		rng := rand.New(rand.NewPCG(seed, 9))
		cuts := []int{rng.IntN(len(data) + 1), rng.IntN(len(data) + 1)}
		slices.Sort(cuts)
		var tokens int64
		var mark usageMark
		var cmds []string
		for _, cut := range append(cuts, len(data)) {
			if int64(cut) < mark.Offset {
				continue
			}
			r := bytes.NewReader(data[:cut])
			n, next, err := usageIn(r, int64(cut), mark, lim)
			if err != nil || n < 0 {
				t.Fatal(n, err)
			}
			ran, at, err := commandsIn(r, int64(cut), mark.Offset, lim)
			if err != nil || at != next.Offset {
				t.Fatalf("commands read to %d, usage to %d: %v", at, next.Offset, err)
			}
			tokens, mark, cmds = tokens+n, next, append(cmds, ran...)
		}
		if tokens != wantTokens || mark != whole {
			t.Fatalf("cuts %v: %d tokens to %+v; whole: %d to %+v", cuts, tokens, mark, wantTokens, whole)
		}
		if got, want := slices.Compact(slices.Sorted(slices.Values(cmds))), slices.Compact(slices.Sorted(slices.Values(wantCmds))); !slices.Equal(got, want) {
			t.Fatalf("cuts %v: commands %q; whole: %q", cuts, cmds, wantCmds)
		}
	})
}
