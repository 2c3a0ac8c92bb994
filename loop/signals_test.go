package loop

import (
	"errors"
	"strings"
	"testing"
)

func TestParseSignals(t *testing.T) {
	promises := []string{"ALL TESTS PASS", "DONE"}
	markers := []string{"<loop-complete>", "ALL_GATES_PASS", "<moai>DONE</moai>"}
	tests := []struct {
		name, msg           string
		promise, marker     string
		exit, statusPresent bool
	}{
		{"exact promise", "Fixed.\n<promise>ALL TESTS PASS</promise>", "ALL TESTS PASS", "", true, false},
		{"whitespace normalised", "<promise>  ALL\n TESTS   PASS </promise>", "ALL TESTS PASS", "", true, false},
		{"other phrase", "<promise>ALL TESTS PASSED</promise>", "", "", false, false},
		{"case matters", "<promise>all tests pass</promise>", "", "", false, false},
		{"second promise", "<promise>DONE</promise>", "DONE", "", true, false},
		{"inside fenced code", "Write this when done:\n```\n<promise>DONE</promise>\n```", "", "", false, false},
		{"inside inline code", "I will write `<promise>DONE</promise>` later", "", "", false, false},
		{"unterminated fence hides the rest", "```\n<promise>DONE</promise>", "", "", false, false},
		{"empty tag", "<promise></promise>", "", "", false, false},
		{"marker", "work finished <loop-complete>", "", "<loop-complete>", true, false},
		{"moai marker", "<moai>DONE</moai>", "", "<moai>DONE</moai>", true, false},
		{"marker in code", "`ALL_GATES_PASS`", "", "", false, false},
		{"status exit true", "---LOOP_STATUS---\nEXIT_SIGNAL: true\nCRITERIA: {\"docs\": true}\nSTUCK_COUNT: 2\nNEXT: ship\n---END_STATUS---", "", "", true, true},
		{"status exit false", "---LOOP_STATUS---\nEXIT_SIGNAL: false\n---END_STATUS---", "", "", false, true},
		{"ralph status", "---RALPH_STATUS---\nEXIT_SIGNAL: TRUE\n---END_RALPH_STATUS---", "", "", true, true},
		{"nothing", "I fixed the bug.", "", "", false, false},
		{"double-backtick span", "Say ``<promise>DONE</promise>`` at the end", "", "", false, false},
		{"span across lines", "I will write `the\n<promise>DONE</promise>` tag", "", "", false, false},
		{"indented code block", "Example:\n\n    <promise>DONE</promise>\n", "", "", false, false},
		{"four-backtick fence around a three", "````\n```\n````\n", "", "", false, false},
		{"inside a 4-backtick fence holding ```", "````md\n```\n<promise>DONE</promise>\n```\n````", "", "", false, false},
		{"html comment", "<!-- <promise>DONE</promise> -->", "", "", false, false},
		{"stray triple backticks in prose", "I used ``` in a sentence.\n<promise>DONE</promise>", "DONE", "", true, false},
		{"promise after a closed fence", "```\ncode\n```\n<promise>DONE</promise>", "DONE", "", true, false},
		{"unmatched single backtick", "it`s done\n<promise>DONE</promise>", "DONE", "", true, false},
		{"innermost tag", "<promise>I am <promise>DONE</promise>", "DONE", "", true, false},
		{"tag closed inside code", "<promise>DONE `</promise>`", "", "", false, false},
		{"span inside the tag", "<promise>DO`x`NE</promise>", "", "", false, false},
		{"status block in indented code", "Format:\n\n    ---LOOP_STATUS---\n    EXIT_SIGNAL: true\n    ---END_STATUS---\n", "", "", false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := parseSignals(tt.msg, promises, markers)
			if s.Promise != tt.promise || s.Marker != tt.marker || s.Exit() != tt.exit || (s.Status != nil) != tt.statusPresent {
				t.Errorf("got %+v (exit %v), want promise %q marker %q exit %v status %v", s, s.Exit(), tt.promise, tt.marker, tt.exit, tt.statusPresent)
			}
		})
	}
	s := parseSignals("---LOOP_STATUS---\nCRITERIA: {\"docs\": true, \"perf\": false}\nSTUCK_COUNT: 2\nNEXT: ship\n---END_STATUS---", nil, nil)
	if !s.Status.Criteria["docs"] || s.Status.Criteria["perf"] || s.Status.StuckCount != 2 || s.Status.Next != "ship" {
		t.Errorf("status block parsed as %+v", s.Status)
	}
}

// FuzzParseSignals: never panics; a promise appended in plain prose outside any code is
// always seen, and one inside a closed fence never is.
func FuzzParseSignals(f *testing.F) {
	f.Add("Fixed it.\n<promise>DONE</promise>")
	f.Add("---LOOP_STATUS---\nEXIT_SIGNAL: true\n---END_STATUS---")
	f.Add("```go\nx := 1\n```\n`inline`")
	f.Fuzz(func(t *testing.T, msg string) {
		parseSignals(msg, []string{"DONE"}, []string{"<loop-complete>"})
		if strings.ContainsAny(msg, "`~") {
			return // the fuzzed text may open a code span around what follows
		}
		if s := parseSignals(msg+"\n<promise>DONE</promise>", []string{"DONE"}, nil); s.Promise != "DONE" {
			t.Fatalf("promise after %q not seen", msg)
		}
		if s := parseSignals("```\n<promise>DONE</promise>\n```\n"+msg, []string{"DONE"}, nil); s.Promise != "" && !strings.Contains(msg, "<promise>") {
			t.Fatalf("promise inside a fence was seen")
		}
	})
}

// TestPromiseLiteral: any phrase start accepts is matched literally, whitespace
// normalised, outside code.
func TestPromiseLiteral(t *testing.T) {
	tests := []struct{ promise, msg string }{
		{"x<y & z", "Done.\n<promise>x<y & z</promise>"},
		{"a < b > c", "<promise>a < b > c</promise>"},
		{`C:\path\to "it" & 'that'`, `<promise>C:\path\to "it" & 'that'</promise>`},
		{"$HOME costs $5", "<promise>$HOME costs $5</promise>"},
		{"ünïcödé ✓ 🎉", "<promise> ünïcödé\t✓  🎉 </promise>"},
		{"use `go test`", "<promise>use `go test`</promise>"},
		{"<!-- x -->", "<promise><!-- x --></promise>"},
		{"&lt;", "<promise>&lt;</promise>"},
		{"</promise", "<promise></promise</promise>"},
		{"<promise", "<promise><promise</promise>"},
		{"tab\there", "<promise>tab here</promise>"},
	}
	for _, tt := range tests {
		if err := checkPromise(tt.promise); err != nil {
			t.Errorf("checkPromise(%q) = %v", tt.promise, err)
		}
		if s := parseSignals(tt.msg, []string{tt.promise}, nil); s.Promise != tt.promise {
			t.Errorf("ParseSignals(%q, %q) = %+v", tt.msg, tt.promise, s)
		}
		if s := parseSignals("`"+tt.msg+"`", []string{tt.promise}, nil); s.Promise != "" {
			t.Errorf("in code: ParseSignals(%q, %q) = %+v", tt.msg, tt.promise, s)
		}
	}
}

// TestCheckPromise: a phrase no message could match is refused, naming the problem.
func TestCheckPromise(t *testing.T) {
	tests := []struct{ promise, want string }{
		{"a</promise>b", "holds a <promise> or </promise> tag"},
		{"<promise>x", "holds a <promise> or </promise> tag"},
		{"two\nlines", "spans lines"},
		{"cr\r", "spans lines"},
		{"bell\a", "control character U+0007"},
		{"esc\x1b[31m", "control character U+001B"},
		{"c1\u009b", "control character U+009B"},
		{"bad\xff", "not valid UTF-8"},
	}
	for _, tt := range tests {
		err := checkPromise(tt.promise)
		if !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), tt.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("checkPromise(%q) = %v, want one line with %q", tt.promise, err, tt.want)
		}
	}
	// At start: the same refusal, before anything is recorded.
	_, err := Settings{Prompt: "task", Promises: []string{"x</promise>"}}.resolve()
	if !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), "</promise>") {
		t.Errorf("resolve: %v", err)
	}
}

// FuzzPromiseLiteral: every phrase start accepts completes a loop when the agent writes it
// in the tag, and checking never panics.
func FuzzPromiseLiteral(f *testing.F) {
	for _, p := range []string{"DONE", "x<y & z", "a\\b", "`x`", "<!--", "</promise", "ü ✓", "\x00", "a\nb", "<promise>"} {
		f.Add(p)
	}
	f.Fuzz(func(t *testing.T, p string) {
		if strings.TrimSpace(p) == "" || checkPromise(p) != nil {
			return
		}
		for _, msg := range []string{"... <promise>" + p + "</promise>", "Done.\n\n<promise>" + p + "</promise>\n"} {
			if s := parseSignals(msg, []string{p}, nil); s.Promise != p {
				t.Fatalf("accepted promise %q not matched in %q: %+v", p, msg, s)
			}
		}
	})
}

// TestQuotedPromise: a promise only inside code does not count, and the agent is told why.
func TestQuotedPromise(t *testing.T) {
	for _, tc := range []struct {
		msg     string
		promise string
		quoted  bool
	}{
		{"done: `<promise>DONE</promise>`", "", true},
		{"```\n<promise>DONE</promise>\n```", "", true},
		{"`<promise>DONE</promise>` and <promise>DONE</promise>", "DONE", false},
		{"<promise>DONE</promise>", "DONE", false},
		{"`<promise>OTHER</promise>`", "", false},
		{"no code, no promise", "", false},
	} {
		s := parseSignals(tc.msg, []string{"DONE"}, nil)
		if s.Promise != tc.promise || s.QuotedPromise != tc.quoted {
			t.Errorf("ParseSignals(%q) = promise %q, quoted %v; want %q, %v", tc.msg, s.Promise, s.QuotedPromise, tc.promise, tc.quoted)
		}
	}
	cfg := &Config{Prompt: "task", Promises: []string{"DONE"}, Exit: exitPromise}
	msg := continuation(cfg, State{Iteration: 1, MaxIterations: 5}, Observation{MessageKnown: true}, []string{"exit signal"}, nil, "", GateResult{},
		parseSignals("`<promise>DONE</promise>`", cfg.Promises, nil))
	if !strings.Contains(msg, "inside code") {
		t.Errorf("the continuation does not say the promise was quoted:\n%s", msg)
	}
}
