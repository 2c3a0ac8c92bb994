package qwen

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/git-loop/git-loop/hooks/sessionlog"
	"github.com/git-loop/git-loop/hooks/sessionlog/logtest"
	"github.com/git-loop/git-loop/loop"
)

// Lines of a Qwen Code 0.24.4 chat log, shortened from the real ones.
const (
	qwPrompt   = `{"uuid":"u1","parentUuid":null,"sessionId":"s","timestamp":"t","type":"user","message":{"role":"user","parts":[{"text":"Fix Sub"}]}}`
	qwSnapshot = `{"uuid":"s1","type":"system","subtype":"attribution_snapshot","systemPayload":{"snapshot":{"promptCount":1}}}`
	qwCall     = `{"uuid":"t1","type":"system","subtype":"ui_telemetry","systemPayload":{"uiEvent":{"event.name":"qwen-code.api_response","response_id":"chatcmpl_0001","input_token_count":19688,"output_token_count":10,"cached_content_token_count":0,"thoughts_token_count":0,"total_token_count":19698}}}`
	qwAskShell = `{"uuid":"a1","type":"assistant","model":"m","message":{"role":"model","parts":[{"functionCall":{"id":"call_0001","name":"run_shell_command","args":{"command":"echo forbidden-step"}}}]},"usageMetadata":{"promptTokenCount":19688,"candidatesTokenCount":10,"totalTokenCount":19698}}`
	qwToolCall = `{"uuid":"t2","type":"system","subtype":"ui_telemetry","systemPayload":{"uiEvent":{"event.name":"qwen-code.tool_call","call_id":"call_0001","function_name":"run_shell_command","function_args":{"command":"echo forbidden-step"}}}}`
	qwResult   = `{"uuid":"r1","type":"tool_result","message":{"role":"user","parts":[{"functionResponse":{"id":"call_0001","name":"run_shell_command","response":{"output":"forbidden-step"}}}]}}`
	qwCall2    = `{"uuid":"t3","type":"system","subtype":"ui_telemetry","systemPayload":{"uiEvent":{"event.name":"qwen-code.api_response","response_id":"chatcmpl_0003","input_token_count":19790,"output_token_count":10,"total_token_count":19800}}}`
	qwDone     = `{"uuid":"a2","type":"assistant","model":"m","message":{"role":"model","parts":[{"text":"Done. <promise>DONE</promise>"}]},"usageMetadata":{"promptTokenCount":19790,"candidatesTokenCount":10,"totalTokenCount":19800}}`
	qwThought  = `{"uuid":"a3","type":"assistant","message":{"role":"model","parts":[{"text":"thinking","thought":true},{"text":"Done."}]}}`
	qwNoTotal  = `{"type":"system","subtype":"ui_telemetry","systemPayload":{"uiEvent":{"event.name":"qwen-code.api_response","input_token_count":100,"output_token_count":20,"thoughts_token_count":3}}}`
	qwNegative = `{"type":"system","subtype":"ui_telemetry","systemPayload":{"uiEvent":{"event.name":"qwen-code.api_response","input_token_count":-5,"output_token_count":7}}}`
	qwMemory   = `{"type":"system","subtype":"ui_telemetry","systemPayload":{"uiEvent":{"event.name":"qwen-code.api_response","total_token_count":11244,"prompt_id":"s#managed-auto-memory-extractor-1#0","subagent_id":"managed-auto-memory-extractor-1"}}}`
	qwTwoCmds  = `{"type":"assistant","message":{"role":"model","parts":[{"text":"Running."},{"functionCall":{"id":"c2","name":"read_file","args":{"absolute_path":"/x"}}},{"functionCall":{"id":"c3","name":"run_shell_command","args":{"command":"go test ./...","is_background":false}}},{"functionCall":{"id":"c4","name":"run_shell_command","args":{"command":["bash","-c","ls"]}}}]}}`
	qwUserCmd  = `{"type":"user","message":{"role":"user","parts":[{"functionCall":{"id":"c5","name":"run_shell_command","args":{"command":"rm -rf /"}}}]}}`
)

func TestQwenCallTokens(t *testing.T) {
	for _, tc := range []struct {
		line string
		n    int64
		ok   bool
	}{
		{qwCall, 19698, true},
		{qwCall2, 19800, true},
		{qwNoTotal, 123, true},  // no total: the parts (input holds the cached tokens)
		{qwNegative, 7, true},   // a negative count counts as none
		{qwMemory, 11244, true}, // the memory extraction's call is spent too
		{qwAskShell, 0, false},  // an answer's usageMetadata: its call's event counts
		{qwToolCall, 0, false},
		{qwPrompt, 0, false},
		{`{"type":"user","message":{"parts":[{"text":"qwen-code.api_response"}]}}`, 0, false},
		{`{"type":"system","subtype":"ui_telemetry","systemPayload":{"uiEvent":{"event.name":"qwen-code.api_response","total_token_count":"x"}}}`, 0, false},
		{`{"type":"system","subtype":"ui_telemetry","systemPayload":`, 0, false},
	} {
		if n, ok := callTokens([]byte(tc.line)); n != tc.n || ok != tc.ok {
			t.Errorf("%s: %d %v, want %d %v", tc.line, n, ok, tc.n, tc.ok)
		}
	}
}

func TestQwenCommands(t *testing.T) {
	data := logtest.JSONLines(qwPrompt, qwSnapshot, qwCall, qwAskShell, qwToolCall, qwResult, qwCall2, qwDone, qwTwoCmds, qwUserCmd, qwAskShell)
	data = append(data, qwTwoCmds...) // a torn last line waits
	cmds, next, err := sessionlog.CommandsIn(bytes.NewReader(data), int64(len(data)), 0, sessionlog.DefaultLimits, lineCommands())
	if err != nil || next != int64(len(data)-len(qwTwoCmds)) {
		t.Fatalf("read to %d (%v), want %d", next, err, len(data)-len(qwTwoCmds))
	}
	// the second copy of call_0001 is the same call; a user line runs nothing
	if want := []string{"echo forbidden-step", "go test ./...", "ls"}; !slices.Equal(cmds, want) {
		t.Errorf("commands %q, want %q", cmds, want)
	}
}

func TestQwenLastAnswer(t *testing.T) {
	for _, tc := range []struct {
		lines []string
		text  string
		err   error
	}{
		{[]string{qwPrompt, qwCall, qwAskShell, qwResult, qwCall2, qwDone}, "Done. <promise>DONE</promise>", nil},
		{[]string{qwPrompt, qwCall, qwAskShell, qwToolCall, qwResult}, "", nil}, // the last answer only called a tool
		{[]string{qwPrompt, qwThought, qwSnapshot}, "Done.", nil},
		{[]string{qwDone, qwPrompt, qwCall}, "", sessionlog.ErrNoText}, // not yet answered
	} {
		data := logtest.JSONLines(tc.lines...)
		text, _, err := sessionlog.LastTurnText(bytes.NewReader(data), int64(len(data)), sessionlog.DefaultLimits, lastAnswer)
		if text != tc.text || err != tc.err {
			t.Errorf("%d lines: %q, %v; want %q, %v", len(tc.lines), text, err, tc.text, tc.err)
		}
	}
}

// TestQwenAwaitAnswer: a stop waits for the chat log to hold the turn's answer, and no longer.
func TestQwenAwaitAnswer(t *testing.T) {
	defer func(w time.Duration) { answerWait = w }(answerWait)
	answerWait = 10 * time.Second
	path := logtest.Write(t, logtest.JSONLines(qwPrompt, qwCall))
	go func() {
		time.Sleep(300 * time.Millisecond)
		os.WriteFile(path, logtest.JSONLines(qwPrompt, qwCall, qwDone), 0o644)
	}()
	start := time.Now()
	awaitAnswer(path, ptr("Done. <promise>DONE</promise>"))
	if took := time.Since(start); took < 250*time.Millisecond || took > 5*time.Second {
		t.Errorf("waited %v for an answer written after 300ms", took)
	}
	for _, answer := range []*string{nil, ptr(""), ptr(noResponseText)} {
		start = time.Now()
		awaitAnswer(path+".missing", answer)
		if took := time.Since(start); took > time.Second {
			t.Errorf("waited %v with no answer to recognise (%q)", took, deref(answer))
		}
	}
	answerWait = 200 * time.Millisecond
	start = time.Now()
	awaitAnswer(path, ptr("Another answer."))
	if took := time.Since(start); took < 200*time.Millisecond || took > 5*time.Second {
		t.Errorf("gave up after %v, want after answerWait", took)
	}
}

// TestQwenRealLogs reads the real chat logs as the stops did, a stop after each answer:
// tokens and commands read stop by stop are the whole log's, every model call counted once
// (the empty answers Qwen Code asked for again, and its memory extraction, included).
func TestQwenRealLogs(t *testing.T) {
	for _, tc := range []struct {
		file     string
		tokens   int64
		commands []string
	}{
		{"token-budget-session-1.jsonl", 19708 + 11262, nil},
		{"must-not-session-1.jsonl", 19700 + 19802, []string{"echo forbidden-step"}},
		{"empty-answer-session-1.jsonl", 19728 + 19935 + 5*20057 + 20163, []string{realagentsFix}},
		{"resume-session-1.jsonl", 19698 + 11244 + 19734 + 19855, []string{realagentsFix}},
		{"block-cap-session-1.jsonl", 19702 + 19889 + 20075 + 20262 + 20448 + 20635 + 20821 + 21008, nil},
	} {
		t.Run(tc.file, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join(payloads, tc.file))
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
				if data[i] != '\n' || !bytes.Contains(data[bytes.LastIndexByte(data[:i], '\n')+1:i], []byte(`"type":"assistant"`)) && i != len(data)-1 {
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
			if stops < 2 || mark.Tokens != tc.tokens || mark.Offset != int64(len(data)) {
				t.Errorf("%d reads counted %d tokens to offset %d, want %d to %d", stops, mark.Tokens, mark.Offset, tc.tokens, len(data))
			}
			if !slices.Equal(cmds, tc.commands) {
				t.Errorf("commands %q, want %q", cmds, tc.commands)
			}
		})
	}
}

// realagentsFix is the shell command that fixes the scenarios' bug (realagents.FixCommand).
const realagentsFix = `sed -i.bak 's/a + b/a - b/' calc/calc.go && rm calc/calc.go.bak`

// TestQwenCounterAcrossLogs: a loop's tokens carry over to a new chat log (a new session),
// which is read from its start.
func TestQwenCounterAcrossLogs(t *testing.T) {
	first := logtest.Write(t, logtest.JSONLines(qwPrompt, qwCall))
	second := logtest.Write(t, logtest.JSONLines(qwPrompt, qwCall2))
	mark, err := counter(first)(nil)
	if err != nil || mark.Tokens != 19698 {
		t.Fatalf("first log: %+v, %v", mark, err)
	}
	if mark, err = counter(second)(mark); err != nil || mark.Tokens != 19698+19800 || mark.Path != second {
		t.Fatalf("second log: %+v, %v", mark, err)
	}
	if counter("") != nil || commandReader("") != nil {
		t.Error("readers without a chat log")
	}
	if _, _, err := usageInFile(second, 1<<20); err == nil {
		t.Error("an offset past the end of the log was accepted")
	}
	if _, err := counter(filepath.Join(t.TempDir(), "missing.jsonl"))(nil); err == nil {
		t.Error("a missing log read without an error")
	}
}

// FuzzQwenLog: on any bytes, tokens and commands read in pieces, cut anywhere, are one read
// of the whole's, and every reader of a line holds on any line.
func FuzzQwenLog(f *testing.F) {
	f.Add(logtest.JSONLines(qwPrompt, qwSnapshot, qwCall, qwAskShell, qwToolCall, qwResult, qwCall2, qwDone, qwNoTotal, qwTwoCmds), uint16(7), uint64(1))
	f.Add(append(logtest.JSONLines(qwCall), qwAskShell[:40]...), uint16(64), uint64(2))
	f.Add([]byte("\xff\n{}\n\n"+qwDone), uint16(1), uint64(3))
	for _, name := range []string{"must-not-session-1.jsonl", "empty-answer-session-1.jsonl"} {
		if data, err := os.ReadFile(filepath.Join(payloads, name)); err == nil {
			f.Add(data, uint16(512), uint64(4))
		}
	}
	f.Fuzz(func(t *testing.T, data []byte, chunk uint16, seed uint64) {
		lim := logtest.Limits(16+int(chunk)%4096, sessionlog.MaxLineBytes)
		size := int64(len(data))
		wantTokens, whole, err := usageIn(bytes.NewReader(data), size, 0, lim)
		if err != nil || wantTokens < 0 {
			t.Fatal(wantTokens, err)
		}
		wantCmds, wantNext, err := sessionlog.CommandsIn(bytes.NewReader(data), size, 0, lim, lineCommands())
		if err != nil || wantNext != whole || wantNext != int64(bytes.LastIndexByte(data, '\n')+1) {
			t.Fatalf("commands read to %d, usage to %d: %v", wantNext, whole, err)
		}
		sessionlog.LastTurnText(bytes.NewReader(data), size, lim, lastAnswer)
		rng := rand.New(rand.NewPCG(seed, 9))
		cuts := []int{rng.IntN(len(data) + 1), rng.IntN(len(data) + 1)}
		slices.Sort(cuts)
		var tokens, at int64
		var cmds []string
		for _, cut := range append(cuts, len(data)) {
			if int64(cut) < at {
				continue
			}
			r := bytes.NewReader(data[:cut])
			n, next, err := usageIn(r, int64(cut), at, lim)
			if err != nil {
				t.Fatal(err)
			}
			ran, cnext, err := sessionlog.CommandsIn(r, int64(cut), at, lim, lineCommands())
			if err != nil || cnext != next {
				t.Fatalf("commands read to %d, usage to %d: %v", cnext, next, err)
			}
			tokens, at, cmds = tokens+n, next, append(cmds, ran...)
		}
		if tokens != wantTokens || at != whole {
			t.Fatalf("cuts %v: %d tokens to %d; whole: %d to %d", cuts, tokens, at, wantTokens, whole)
		}
		if got, want := slices.Compact(slices.Sorted(slices.Values(cmds))), slices.Compact(slices.Sorted(slices.Values(wantCmds))); !slices.Equal(got, want) {
			t.Fatalf("cuts %v: commands %q; whole: %q", cuts, cmds, wantCmds)
		}
	})
}
