package claude

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/git-loop/git-loop/hooks/sessionlog"
	"github.com/git-loop/git-loop/hooks/sessionlog/logtest"
)

// The real Claude Code transcripts are in testdata/transcripts (MIT, from marot/spotter; see
// the README and licence there). GITLOOP_TRANSCRIPTS points elsewhere.
const bigTranscript = "4d5611e5-241a-462a-8d15-5122611a9569.jsonl"

var corpusFiles = []string{"short.jsonl", "tool_heavy.jsonl", "subagent.jsonl", bigTranscript}

func corpusDir(tb testing.TB) string {
	tb.Helper()
	dir := os.Getenv("GITLOOP_TRANSCRIPTS")
	if dir == "" {
		dir = filepath.Join("..", "..", "..", "testdata", "transcripts")
	}
	if _, err := os.Stat(filepath.Join(dir, bigTranscript)); err != nil {
		tb.Fatalf("transcript corpus not found (set GITLOOP_TRANSCRIPTS): %v", err)
	}
	return dir
}

func readCorpus(tb testing.TB, name string) []byte {
	tb.Helper()
	data, err := os.ReadFile(filepath.Join(corpusDir(tb), name))
	if err != nil {
		tb.Fatal(err)
	}
	return data
}

// --- the reference: forward, whole file in memory, written from the rules, not the code ---

type refLine struct {
	Type    string `json:"type"`
	IsMeta  bool   `json:"isMeta"`
	Message struct {
		ID      string          `json:"id"`
		Content json.RawMessage `json:"content"`
	} `json:"message"`
}

type refBlock struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// refBlocks reads message.content: a string is one text block, an array its blocks.
func refBlocks(raw json.RawMessage) []refBlock {
	if t := bytes.TrimSpace(raw); len(t) > 0 && t[0] == '"' {
		var s string
		if json.Unmarshal(t, &s) != nil {
			return nil
		}
		return []refBlock{{"text", s}}
	}
	var bl []refBlock
	if json.Unmarshal(raw, &bl) != nil {
		return nil
	}
	return bl
}

// refTurn walks lines forward: a real user message starts a new turn (no text yet), an
// assistant text block becomes the turn's text. Lines over maxLine bytes are skipped.
type refTurn struct {
	text  string
	found bool
}

func (r *refTurn) feed(l []byte, maxLine int) {
	if len(l) > maxLine {
		return
	}
	var e refLine
	if json.Unmarshal(l, &e) != nil {
		return
	}
	switch e.Type {
	case "user":
		for _, b := range refBlocks(e.Message.Content) {
			if b.Type == "text" && (strings.HasPrefix(strings.TrimSpace(b.Text), "Stop hook feedback:") || strings.HasPrefix(strings.TrimSpace(b.Text), "SubagentStop hook feedback:")) {
				*r = refTurn{} // a stop hook's block: what came before was judged
				return
			}
		}
		if e.IsMeta {
			return
		}
		toolResult := false
		for _, b := range refBlocks(e.Message.Content) {
			toolResult = toolResult || b.Type == "tool_result"
		}
		if !toolResult {
			*r = refTurn{}
		}
	case "assistant":
		for _, b := range refBlocks(e.Message.Content) {
			if b.Type == "text" && strings.TrimSpace(b.Text) != "" {
				*r = refTurn{b.Text, true}
			}
		}
	}
}

// refLastText is the reference answer for a whole transcript.
func refLastText(data []byte, maxLine int) (string, bool) {
	var r refTurn
	for _, l := range bytes.Split(data, []byte("\n")) {
		r.feed(l, maxLine)
	}
	return r.text, r.found
}

// refPrefixes answers for every prefix of data cheaply: the state after each complete line.
type refPrefixes struct {
	data   []byte
	starts []int     // starts[k]: offset of line k
	states []refTurn // states[k]: after lines 0..k-1
}

func newRefPrefixes(data []byte, maxLine int) *refPrefixes {
	p := &refPrefixes{data: data, starts: []int{0}, states: []refTurn{{}}}
	var r refTurn
	for i, c := range data {
		if c == '\n' {
			r.feed(data[p.starts[len(p.starts)-1]:i], maxLine)
			p.starts = append(p.starts, i+1)
			p.states = append(p.states, r)
		}
	}
	return p
}

// at is refLastText(data[:cut], maxLine).
func (p *refPrefixes) at(cut, maxLine int) (string, bool) {
	k, _ := slices.BinarySearch(p.starts, cut+1)
	k-- // the last line starting at or before cut
	r := p.states[k]
	r.feed(p.data[p.starts[k]:cut], maxLine)
	return r.text, r.found
}

type refUsageLine struct {
	Type    string `json:"type"`
	Message struct {
		ID    string `json:"id"`
		Usage *struct {
			InputTokens              int64 `json:"input_tokens"`
			OutputTokens             int64 `json:"output_tokens"`
			CacheCreationInputTokens int64 `json:"cache_creation_input_tokens"`
			CacheReadInputTokens     int64 `json:"cache_read_input_tokens"`
		} `json:"usage"`
	} `json:"message"`
}

// refUsage sums usage over the newline-terminated lines: each message id once, at the usage
// of its last line; lines without an id each on their own.
func refUsage(data []byte, maxLine int) Usage {
	var total Usage
	byID := map[string]Usage{}
	lines := bytes.Split(data, []byte("\n"))
	for _, l := range lines[:len(lines)-1] { // the last piece has no newline
		if len(l) > maxLine {
			continue
		}
		var e refUsageLine
		if json.Unmarshal(l, &e) != nil || e.Type != "assistant" || e.Message.Usage == nil {
			continue
		}
		m := e.Message.Usage
		u := Usage{m.InputTokens, m.OutputTokens, m.CacheCreationInputTokens, m.CacheReadInputTokens}
		if e.Message.ID == "" {
			total = total.add(u)
		} else {
			byID[e.Message.ID] = u
		}
	}
	for _, u := range byID {
		total = total.add(u)
	}
	return total
}

// --- helpers ---

// lastText runs the backwards reader over data in memory.
// Reads start at chunk bytes and grow to 16 times that.
func lastText(data []byte, chunk, maxLine int) (string, error) {
	text, _, err := lastAssistantText(bytes.NewReader(data), int64(len(data)), logtest.Limits(chunk, maxLine))
	return text, err
}

const readChunk = 64 << 10 // a chunk size for tests, in the range of the real ones

// checkAgainstRef fails when the reader and the reference disagree on data.
func checkAgainstRef(t *testing.T, what string, data []byte, chunk, maxLine int) {
	t.Helper()
	want, found := refLastText(data, maxLine)
	checkAgainst(t, what, data, chunk, maxLine, want, found)
}

// checkAgainst fails when the reader does not find want (or nothing, when !found) in data.
func checkAgainst(t *testing.T, what string, data []byte, chunk, maxLine int, want string, found bool) {
	t.Helper()
	got, err := lastText(data, chunk, maxLine)
	switch {
	case err != nil && !errors.Is(err, ErrNoAssistantText):
		t.Fatalf("%s (chunk %d, maxLine %d): %v", what, chunk, maxLine, err)
	case found && err != nil:
		t.Fatalf("%s (chunk %d, maxLine %d): %v, reference found %.80q", what, chunk, maxLine, err, want)
	case !found && err == nil:
		t.Fatalf("%s (chunk %d, maxLine %d): got %.80q, reference found nothing", what, chunk, maxLine, got)
	case got != want:
		t.Fatalf("%s (chunk %d, maxLine %d): got %.80q, reference %.80q", what, chunk, maxLine, got, want)
	}
}

// lineEnds are the offsets just past each newline of data.
func lineEnds(data []byte) []int {
	var ends []int
	for i, c := range data {
		if c == '\n' {
			ends = append(ends, i+1)
		}
	}
	return ends
}

// Lines of a synthetic transcript in Claude Code's shape.
func promptLine(s string) string {
	return fmt.Sprintf(`{"type":"user","message":{"role":"user","content":%q},"uuid":"u"}`, s)
}

func toolResultLine(content string) string {
	return fmt.Sprintf(`{"type":"user","message":{"role":"user","content":[{"tool_use_id":"toolu_1","type":"tool_result","content":%q}]}}`, content)
}

func textLine(id, text string, out int) string {
	return fmt.Sprintf(`{"type":"assistant","message":{"id":%q,"role":"assistant","content":[{"type":"text","text":%q}],"usage":{"input_tokens":3,"output_tokens":%d,"cache_creation_input_tokens":10,"cache_read_input_tokens":100}}}`, id, text, out)
}

func toolUseLine(id string, out int) string {
	return fmt.Sprintf(`{"type":"assistant","message":{"id":%q,"role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"Bash","input":{"command":"ls"}}],"usage":{"input_tokens":3,"output_tokens":%d,"cache_creation_input_tokens":10,"cache_read_input_tokens":100}}}`, id, out)
}

func progressLine(data string) string {
	return fmt.Sprintf(`{"type":"progress","data":{"type":"hook_progress","message":{"type":"assistant","content":[{"type":"text","text":%q}]}}}`, data)
}

// --- LastAssistantText ---

// TestLastAssistantTextCorpus checks what each real transcript yields, read through the file.
func TestLastAssistantTextCorpus(t *testing.T) {
	dir := corpusDir(t)
	for _, tc := range []struct {
		file string
		want string // prefix of the text; "" for ErrNoAssistantText
	}{
		// Ends with "[Request interrupted by user for tool use]" after the tool results: the
		// interrupt is a user line that is no tool result, so the turn it closes is not taken.
		{"short.jsonl", ""},
		// The last assistant line is a tool_use, then tool results, then an interrupt.
		{"tool_heavy.jsonl", ""},
		// Ends with progress and system lines after the final text.
		{"subagent.jsonl", "## Beads Created\n\nEpic `spotter-0p7`"},
		// A <task-notification> prompt, a tool round, then the final text and bookkeeping.
		{bigTranscript, "Background task completed successfully — all 15 SessionLive"},
	} {
		t.Run(tc.file, func(t *testing.T) {
			got, err := LastAssistantText(filepath.Join(dir, tc.file))
			if tc.want == "" {
				if !errors.Is(err, ErrNoAssistantText) {
					t.Fatalf("got %.80q, %v; want ErrNoAssistantText", got, err)
				}
				if !strings.Contains(err.Error(), tc.file) {
					t.Errorf("error %q does not name the file", err)
				}
				return
			}
			if err != nil || !strings.HasPrefix(got, tc.want) {
				t.Fatalf("got %.80q, %v; want %q…", got, err, tc.want)
			}
		})
	}
}

// TestLastAssistantTextBeforeInterrupt pins what comes back when the interrupt is not there
// yet: the last non-blank text of the turn, skipping the "\n\n" text block Claude Code writes
// before thinking, the thinking block and the tool_use blocks after it.
func TestLastAssistantTextBeforeInterrupt(t *testing.T) {
	short := readCorpus(t, "short.jsonl")
	ends := lineEnds(short)
	got, err := lastText(short[:ends[11]], readChunk, sessionlog.MaxLineBytes) // through the tool results
	if err != nil || got != "Let me check the project structure and try running the server to see the error." {
		t.Errorf("short.jsonl before its interrupt: got %q, %v", got, err)
	}

	// tool_heavy's last turn has only a blank text block, thinking and tool_use: no text.
	heavy := readCorpus(t, "tool_heavy.jsonl")
	ends = lineEnds(heavy)
	for _, n := range []int{29, 34, 38} { // after a tool_use, after the last tool_use, before the interrupt
		if got, err := lastText(heavy[:ends[n-1]], readChunk, sessionlog.MaxLineBytes); !errors.Is(err, ErrNoAssistantText) {
			t.Errorf("tool_heavy.jsonl through line %d: got %q, %v; want ErrNoAssistantText", n, got, err)
		}
	}
}

// TestLastAssistantTextMatchesReference compares the backwards reader with the forward
// reference on every corpus file, at every line boundary of the smaller ones (each a
// transcript as it stood mid-session) and with torn lines, with chunks from 1 byte up.
func TestLastAssistantTextMatchesReference(t *testing.T) {
	for _, name := range corpusFiles {
		data := readCorpus(t, name)
		t.Run(name, func(t *testing.T) {
			ref := newRefPrefixes(data, sessionlog.MaxLineBytes)
			want, found := ref.at(len(data), sessionlog.MaxLineBytes)
			for _, chunk := range []int{1, 7, 100, 4096, readChunk} {
				checkAgainst(t, "whole file", data, chunk, sessionlog.MaxLineBytes, want, found)
			}
			check := func(cut, chunk int) {
				want, found := ref.at(cut, sessionlog.MaxLineBytes)
				checkAgainst(t, fmt.Sprintf("%s[:%d]", name, cut), data[:cut], chunk, sessionlog.MaxLineBytes, want, found)
			}
			cuts := []int{0, -1, -2, 10, -40} // around each newline: torn lines of all kinds
			if name == bigTranscript {
				cuts = cuts[:1] // the small files cover torn lines; here every line end
			}
			for _, end := range lineEnds(data) {
				for _, d := range cuts {
					cut := end + d
					if cut >= 0 && cut <= len(data) {
						check(cut, 1000)
					}
				}
			}
			if name == "short.jsonl" {
				for cut := range len(data) + 1 { // every byte prefix, torn anywhere
					check(cut, 512)
				}
			}
			// Small line caps skip the long lines: still the same as the reference.
			for _, maxLine := range []int{500, 2000, 10000} {
				checkAgainstRef(t, "capped", data, 300, maxLine)
			}
		})
	}
}

func TestLastAssistantTextTornLine(t *testing.T) {
	done := textLine("msg_1", "all done", 5)
	torn := textLine("msg_2", "half written", 5)
	for _, tc := range []struct {
		name string
		data string
		want string
	}{
		{"torn text line", string(logtest.JSONLines(promptLine("go"), done)) + torn[:len(torn)/2], "all done"},
		{"torn before its newline", string(logtest.JSONLines(promptLine("go"), done)) + torn[:len(torn)-1], "all done"},
		{"torn prompt", string(logtest.JSONLines(promptLine("go"), done)) + promptLine("next")[:20], "all done"},
		{"complete last line without newline", string(logtest.JSONLines(promptLine("go"), done)) + torn, "half written"},
		{"CRLF", strings.ReplaceAll(string(logtest.JSONLines(promptLine("go"), done, progressLine("p"))), "\n", "\r\n"), "all done"},
		{"blank lines", "\n\n" + string(logtest.JSONLines(promptLine("go"), done, "", "")) + "\n", "all done"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := LastAssistantText(logtest.Write(t, []byte(tc.data)))
			if err != nil || got != tc.want {
				t.Errorf("got %q, %v; want %q", got, err, tc.want)
			}
			checkAgainstRef(t, tc.name, []byte(tc.data), 16, sessionlog.MaxLineBytes)
		})
	}
}

func TestLastAssistantTextTurns(t *testing.T) {
	for _, tc := range []struct {
		name  string
		lines []string
		want  string // "" for ErrNoAssistantText
	}{
		{"text then tools", []string{promptLine("go"), textLine("m1", "first", 1), toolUseLine("m1", 2), toolResultLine("ok"), toolUseLine("m2", 1), toolResultLine("ok"), progressLine("last")}, "first"},
		{"last text of the run", []string{promptLine("go"), textLine("m1", "first", 1), toolResultLine("ok"), textLine("m2", "second", 1), toolUseLine("m2", 2)}, "second"},
		{"prompt after text", []string{promptLine("go"), textLine("m1", "old", 1), promptLine("again")}, ""},
		{"previous turn not used", []string{promptLine("go"), textLine("m1", "old", 1), promptLine("again"), toolUseLine("m2", 1), toolResultLine("x")}, ""},
		{"interrupt", []string{promptLine("go"), textLine("m1", "partial", 1), `{"type":"user","message":{"role":"user","content":[{"type":"text","text":"[Request interrupted by user]"}]}}`}, ""},
		{"meta user line inside the turn", []string{promptLine("go"), textLine("m1", "kept", 1), `{"type":"user","isMeta":true,"message":{"role":"user","content":[{"type":"text","text":"skill body"}]}}`, toolUseLine("m2", 1)}, "kept"},
		{"stop hook feedback ends the judged turn", []string{promptLine("go"), textLine("m1", "All fixed. <promise>DONE</promise>", 1), hookFeedbackLine("Stop hook feedback:\ntest fails"), toolUseLine("m2", 1), toolResultLine("ok")}, ""},
		{"text after stop hook feedback", []string{promptLine("go"), textLine("m1", "old", 1), hookFeedbackLine("Stop hook feedback:\ngo on"), textLine("m2", "new", 1)}, "new"},
		{"subagent hook feedback", []string{promptLine("go"), textLine("m1", "old", 1), `{"type":"user","message":{"role":"user","content":[{"type":"text","text":"SubagentStop hook feedback: x"}]}}`}, ""},
		{"blank text is not text", []string{promptLine("go"), textLine("m1", "real", 1), textLine("m2", "\n\n", 1)}, "real"},
		{"thinking is not text", []string{promptLine("go"), textLine("m1", "real", 1), `{"type":"assistant","message":{"id":"m2","content":[{"type":"thinking","thinking":"hmm","signature":"s"}]}}`}, "real"},
		{"several blocks on one line", []string{promptLine("go"), `{"type":"assistant","message":{"id":"m1","content":[{"type":"text","text":"a"},{"type":"text","text":"b"},{"type":"tool_use","name":"x"}]}}`}, "b"},
		{"string content", []string{promptLine("go"), `{"type":"assistant","message":{"content":"plain"}}`}, "plain"},
		{"progress holding assistant text", []string{promptLine("go"), textLine("m1", "mine", 1), progressLine("subagent text")}, "mine"},
		{"no prompt at all", []string{textLine("m1", "alone", 1), progressLine("p")}, "alone"},
		{"only progress", []string{progressLine("a"), progressLine("b"), `{"type":"system","subtype":"turn_duration"}`}, ""},
		{"empty", nil, ""},
		{"not JSON", []string{"\xff\xfe garbage", "{{{", `["type","assistant"]`, "null"}, ""},
		{"escaped type", []string{promptLine("go"), `{"type":"\u0061ssistant","message":{"content":[{"type":"text","text":"escaped"}]}}`}, "escaped"},
		{"Type folds to type", []string{promptLine("go"), `{"Type":"assistant","message":{"content":[{"type":"text","text":"folded"}]}}`}, "folded"},
		{"last type member wins", []string{promptLine("go"), `{"type":"progress","type":"assistant","message":{"content":[{"type":"text","text":"dup"}]}}`, `{"type":"assistant","type":"progress","message":{"content":[{"type":"text","text":"not me"}]}}`}, "dup"},
		{"wrong shape is skipped", []string{promptLine("go"), textLine("m1", "good", 1), `{"type":"assistant","message":{"content":[{"type":"text","text":5}]}}`, `{"type":"assistant","isMeta":"yes","message":{"content":"bad"}}`}, "good"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := logtest.JSONLines(tc.lines...)
			if tc.lines == nil {
				data = nil
			}
			got, err := LastAssistantText(logtest.Write(t, data))
			if tc.want == "" {
				if !errors.Is(err, ErrNoAssistantText) {
					t.Errorf("got %q, %v; want ErrNoAssistantText", got, err)
				}
			} else if err != nil || got != tc.want {
				t.Errorf("got %q, %v; want %q", got, err, tc.want)
			}
			for _, chunk := range []int{1, 5, 64} {
				checkAgainstRef(t, tc.name, data, chunk, sessionlog.MaxLineBytes)
			}
		})
	}
}

// hookFeedbackLine is the user line Claude Code writes when a Stop hook blocks.
func hookFeedbackLine(text string) string {
	b, _ := json.Marshal(text)
	return `{"type":"user","isMeta":true,"uuid":"fb","message":{"role":"user","content":` + string(b) + `}}`
}

// TestThisTurnTextNamesItsLine: the text comes with the uuid of its line, so a later stop
// knows an answer it judged already.
func TestThisTurnTextNamesItsLine(t *testing.T) {
	data := logtest.JSONLines(promptLine("go"), `{"type":"assistant","uuid":"a-1","message":{"id":"m1","content":[{"type":"text","text":"done"}]}}`)
	text, id, err := ThisTurnText(logtest.Write(t, data))
	if err != nil || text != "done" || id != "a-1" {
		t.Fatalf("got %q, %q, %v; want done from a-1", text, id, err)
	}
}

func TestLastAssistantTextInvalidUTF8(t *testing.T) {
	data := logtest.JSONLines(promptLine("go"), `{"type":"assistant","message":{"content":[{"type":"text","text":"caf`+"\xe9"+` ok"}]}}`)
	got, err := LastAssistantText(logtest.Write(t, data))
	if err != nil || got != "caf\uFFFD ok" {
		t.Errorf("got %q, %v; want invalid UTF-8 replaced by U+FFFD", got, err)
	}
}

func TestLastAssistantTextErrors(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "missing.jsonl")
	if _, err := LastAssistantText(missing); !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), missing) {
		t.Errorf("missing file: %v", err)
	}
	if _, err := LastAssistantText(dir); err == nil || errors.Is(err, ErrNoAssistantText) || !strings.Contains(err.Error(), dir) {
		t.Errorf("directory: %v", err)
	}
	empty := filepath.Join(dir, "empty.jsonl")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := LastAssistantText(empty); !errors.Is(err, ErrNoAssistantText) || !strings.Contains(err.Error(), empty) {
		t.Errorf("empty file: %v", err)
	}
	if _, _, _, err := UsageFrom(missing, 0, ""); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("UsageFrom, missing file: %v", err)
	}
	if _, _, _, err := UsageFrom(dir, 0, ""); err == nil || !strings.Contains(err.Error(), dir) {
		t.Errorf("UsageFrom, directory: %v", err)
	}
}

// TestLastAssistantTextLongLines crosses lines longer than the chunk, and skips lines longer
// than the cap, in both directions of the boundaries.
func TestLastAssistantTextLongLines(t *testing.T) {
	big := strings.Repeat("x", 300<<10) // 300 KiB: over the 64 KiB chunk
	data := logtest.JSONLines(
		promptLine("go"),
		textLine("m1", "before the big lines", 1),
		toolUseLine("m1", 2),
		toolResultLine(big),
		progressLine(big+big),
		toolUseLine("m2", 1),
		progressLine("tail"),
	)
	got, err := LastAssistantText(logtest.Write(t, data))
	if err != nil || got != "before the big lines" {
		t.Errorf("got %q, %v", got, err)
	}
	for _, chunk := range []int{1000, 4096, readChunk} {
		for _, maxLine := range []int{100 << 10, 310 << 10, 700 << 10, sessionlog.MaxLineBytes} {
			checkAgainstRef(t, "big lines", data, chunk, maxLine)
		}
	}

	// A text line over the cap is skipped: the text before it comes back.
	data = logtest.JSONLines(promptLine("go"), textLine("m1", "small", 1), textLine("m2", big, 1), progressLine("p"))
	if got, err := lastText(data, 4096, 100<<10); err != nil || got != "small" {
		t.Errorf("text line over the cap: got %.20q, %v", got, err)
	}
	// Exactly at the cap it is kept.
	line := textLine("m2", big, 1)
	if got, err := lastText(data, 4096, len(line)); err != nil || got != big {
		t.Errorf("text line at the cap: got %.20q, %v", got, err)
	}
	// The first line of the file over the cap, with and without a newline.
	for _, d := range [][]byte{logtest.JSONLines(progressLine(big)), []byte(progressLine(big))} {
		if _, err := lastText(d, 1000, 100<<10); !errors.Is(err, ErrNoAssistantText) {
			t.Errorf("first line over the cap: %v", err)
		}
	}
}

// TestLastAssistantTextOverCap puts a line over the real 64 MiB cap between the text and the
// end, served by a reader that does not hold it.
func TestLastAssistantTextOverCap(t *testing.T) {
	if testing.Short() {
		t.Skip("reads 65 MiB")
	}
	r := &paddedReaderAt{
		head: append(logtest.JSONLines(promptLine("go"), textLine("m1", "survived", 1)), `{"type":"progress","data":"`...),
		pad:  sessionlog.MaxLineBytes + 1<<20,
		tail: append([]byte("\"}\n"), logtest.JSONLines(progressLine("end"))...),
	}
	got, _, err := lastAssistantText(r, r.size(), sessionlog.DefaultLimits)
	if err != nil || got != "survived" {
		t.Errorf("got %q, %v", got, err)
	}
}

// paddedReaderAt is head, pad bytes 'y', tail.
type paddedReaderAt struct {
	head, tail []byte
	pad        int64
}

func (p *paddedReaderAt) size() int64 { return int64(len(p.head)) + p.pad + int64(len(p.tail)) }

func (p *paddedReaderAt) ReadAt(b []byte, off int64) (int, error) {
	n := 0
	for n < len(b) && off < p.size() {
		var m int
		switch h, padEnd := int64(len(p.head)), int64(len(p.head))+p.pad; {
		case off < h:
			m = copy(b[n:], p.head[off:])
		case off < padEnd:
			m = int(min(int64(len(b)-n), padEnd-off))
			for i := range m {
				b[n+i] = 'y'
			}
		default:
			m = copy(b[n:], p.tail[off-padEnd:])
		}
		n += m
		off += int64(m)
	}
	if n < len(b) {
		return n, io.EOF
	}
	return n, nil
}

// countingReaderAt counts the bytes read through it.
type countingReaderAt struct {
	r io.ReaderAt
	n int64
}

func (c *countingReaderAt) ReadAt(p []byte, off int64) (int, error) {
	n, err := c.r.ReadAt(p, off)
	c.n += int64(n)
	return n, err
}

// repeatReaderAt is data repeated times times, without holding it.
type repeatReaderAt struct {
	data  []byte
	times int64
}

func (r repeatReaderAt) ReadAt(p []byte, off int64) (int, error) {
	size := int64(len(r.data)) * r.times
	n := 0
	for n < len(p) && off < size {
		m := copy(p[n:], r.data[off%int64(len(r.data)):])
		n += m
		off += int64(m)
	}
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// TestLastAssistantTextCostIndependentOfSize reads exactly as many bytes from the 3.1 MB
// transcript as from thirty copies of it end to end.
func TestLastAssistantTextCostIndependentOfSize(t *testing.T) {
	data := readCorpus(t, bigTranscript)
	small := &countingReaderAt{r: bytes.NewReader(data)}
	large := &countingReaderAt{r: repeatReaderAt{data, 30}}
	a, _, err1 := lastAssistantText(small, int64(len(data)), sessionlog.DefaultLimits)
	b, _, err2 := lastAssistantText(large, int64(len(data))*30, sessionlog.DefaultLimits)
	if err1 != nil || err2 != nil || a != b {
		t.Fatalf("different answers: %.40q, %v / %.40q, %v", a, err1, b, err2)
	}
	if small.n != large.n || small.n > int64(sessionlog.DefaultLimits.Chunk) {
		t.Errorf("read %d bytes of %d, %d bytes of %d: want the same, one chunk", small.n, len(data), large.n, 30*len(data))
	}
}

// --- peekType ---

// TestPeekTypeAgreesWithJSON: on valid JSON, peekType either says what encoding/json decodes
// into Type or kindUnknown.
func TestPeekTypeAgreesWithJSON(t *testing.T) {
	lines := []string{
		`{"type":"assistant"}`, `{"type":"user"}`, `{"type":"progress"}`, `{}`, `null`, `[]`, `"type"`, `5`,
		` { "a" : [1, {"type":"user"}] , "type" : "assistant" } `,
		`{"type":"assistant","Type":"user"}`, `{"TYPE":"user"}`, `{"type":"user","type":null}`,
		`{"type":"us\u0065r"}`, `{"typ\u0065":"user"}`, `{"type":5}`, `{"type":"user","type":"x"}`,
		`{"a":"\\","type":"user"}`, `{"a":"\\\"","type":"user","b":"}"}`, `{"a":tru,"type":"user"}`,
		`{"type":"user"} x`, `{"type":"assistant"`, `{"a":{"b":[{"c":"]}"}]},"type":"user"}`,
	}
	for _, name := range corpusFiles {
		for _, l := range bytes.Split(readCorpus(t, name), []byte("\n")) {
			lines = append(lines, string(l))
		}
	}
	for _, l := range lines {
		checkPeekType(t, []byte(l))
	}
}

func checkPeekType(t *testing.T, line []byte) {
	t.Helper()
	got := peekType(line)
	var v struct {
		Type string `json:"type"`
	}
	if !json.Valid(line) || json.Unmarshal(line, &v) != nil || got == kindUnknown {
		return // on invalid lines any answer is safe; unknown is always safe
	}
	want := kindOther
	switch v.Type {
	case "assistant":
		want = kindAssistant
	case "user":
		want = kindUser
	}
	if got != want {
		t.Fatalf("peekType(%.200q) = %d, encoding/json says type %q", line, got, v.Type)
	}
}

// --- UsageFrom ---

// The big transcript's usage, summed independently (Python): 139 message ids over 254
// assistant lines, each at its last line's usage. Counting first lines instead would give
// 7,933 output tokens.
var bigUsage = Usage{Input: 177, Output: 28755, CacheCreation: 479537, CacheRead: 11618567}

func TestUsageFromCorpus(t *testing.T) {
	dir := corpusDir(t)
	for _, name := range corpusFiles {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(dir, name)
			data := readCorpus(t, name)
			u, next, last, err := UsageFrom(path, 0, "")
			if err != nil {
				t.Fatal(err)
			}
			if want := refUsage(data, sessionlog.MaxLineBytes); u != want {
				t.Errorf("got %+v, reference %+v", u, want)
			}
			if name == bigTranscript && u != bigUsage {
				t.Errorf("got %+v, want %+v", u, bigUsage)
			}
			if next != int64(len(data)) || last == "" {
				t.Errorf("next %d of %d, last id %q", next, len(data), last)
			}
			// Nothing new: nothing counted, same place.
			u2, next2, last2, err := UsageFrom(path, next, last)
			if err != nil || u2 != (Usage{}) || next2 != next || last2 != last {
				t.Errorf("second call: %+v %d %q %v", u2, next2, last2, err)
			}
		})
	}
}

// incremental sums usageFrom over growing prefixes of data, ending at each cut in turn.
func usageIncremental(t testing.TB, data []byte, cuts []int, chunk, maxLine int) Usage {
	var total Usage
	var next int64
	last := ""
	for _, cut := range append(cuts, len(data)) {
		if int64(cut) < next {
			continue // the file never shrinks
		}
		u, n, l, err := usageFrom(bytes.NewReader(data[:cut]), int64(cut), next, last, logtest.Limits(chunk, maxLine))
		if err != nil {
			t.Fatal(err)
		}
		if n < next || n > int64(cut) || (n > 0 && data[n-1] != '\n') {
			t.Fatalf("next %d after %d, cut at %d", n, next, cut)
		}
		total, next, last = total.add(u), n, l
	}
	return total
}

// TestUsageFromIncremental: the transcript as it grows, read at arbitrary sizes (torn lines,
// messages split across calls) sums to the same as one read of the whole.
func TestUsageFromIncremental(t *testing.T) {
	data := readCorpus(t, bigTranscript)
	want := refUsage(data, sessionlog.MaxLineBytes)
	rng := rand.New(rand.NewPCG(1, 2))
	for round := range 12 {
		var cuts []int
		for range 1 + rng.IntN(40) {
			cuts = append(cuts, rng.IntN(len(data)+1))
		}
		if round == 0 {
			cuts = lineEnds(data) // after every line: every message split at each of its lines
		}
		slices.Sort(cuts)
		if got := usageIncremental(t, data, cuts, readChunk, sessionlog.MaxLineBytes); got != want {
			t.Fatalf("round %d, %d cuts: got %+v, want %+v", round, len(cuts), got, want)
		}
	}
	// Small buffers: lines assembled from many pieces, and a capped line length.
	for _, maxLine := range []int{5000, 20000, sessionlog.MaxLineBytes} {
		want := refUsage(data, maxLine)
		if got := usageIncremental(t, data, []int{len(data) / 3, len(data) / 2}, 512, maxLine); got != want {
			t.Errorf("maxLine %d: got %+v, want %+v", maxLine, got, want)
		}
	}
}

// TestUsageFromAppends drives the real file: append, read the new part, and again.
func TestUsageFromAppends(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.jsonl")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var total Usage
	var next int64
	last := ""
	step := func(s string) {
		t.Helper()
		if _, err := f.WriteString(s); err != nil {
			t.Fatal(err)
		}
		u, n, l, err := UsageFrom(path, next, last)
		if err != nil {
			t.Fatal(err)
		}
		total, next, last = total.add(u), n, l
	}
	step(string(logtest.JSONLines(promptLine("go"), textLine("m1", "a", 1))))
	step(string(logtest.JSONLines(toolUseLine("m1", 40))))
	full := toolUseLine("m1", 90)
	step(full[:30]) // torn: not counted yet
	if total.Output != 40 {
		t.Errorf("after a torn line: %+v", total)
	}
	step(full[30:] + "\n")
	step(string(logtest.JSONLines(toolResultLine("ok"), textLine("m2", "b", 7), `{"type":"assistant","message":{"content":[],"usage":{"output_tokens":2}}}`)))
	want := Usage{Input: 6, Output: 90 + 7 + 2, CacheCreation: 20, CacheRead: 200}
	if total != want || total.Total() != 6+99+20+200 {
		t.Errorf("got %+v, want %+v", total, want)
	}
	if last != "" {
		t.Errorf("last id %q after a line without id", last)
	}
	if _, _, _, err := UsageFrom(path, next+1, last); err == nil {
		t.Error("offset beyond the end: no error")
	}
	if _, _, _, err := UsageFrom(path, -1, ""); err == nil {
		t.Error("negative offset: no error")
	}
}
