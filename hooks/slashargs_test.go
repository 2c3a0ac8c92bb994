package hooks

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

// testOptions are start's options as main gives them: name → takes a value.
var testOptions = map[string]bool{
	"prompt": true, "p": true, "max-iterations": true, "unlimited": false, "promise": true, "completion-promise": true,
	"gate": true, "exit": true, "session": true, "shape": true, "force": false, "name": true,
}

func TestSplitSlashWords(t *testing.T) {
	tests := []struct {
		name, text string
		want       []string
	}{
		{"plain", "fix the bug", []string{"fix", "the", "bug"}},
		{"white space of any kind", " a\tb\n\nc\r\n", []string{"a", "b", "c"}},
		{"double quotes", `"Build a REST API" --completion-promise "COMPLETE"`, []string{"Build a REST API", "--completion-promise", "COMPLETE"}},
		{"single quotes", `--completion-promise 'TASK COMPLETE'`, []string{"--completion-promise", "TASK COMPLETE"}},
		{"empty quotes are a word", `a "" b`, []string{"a", "", "b"}},
		{"apostrophes are text", `Fix Bob's and Alice's code`, []string{"Fix", "Bob's", "and", "Alice's", "code"}},
		{"a quote inside quotes", `'it's done' "say "hi" now"`, []string{"it's done", `say "hi`, `now"`}},
		{"escaped quotes in double quotes", `"say \"hi\" now" "a\\b"`, []string{`say "hi" now`, `a\b`}},
		{"backslash kept in single quotes", `'a\"b'`, []string{`a\"b`}},
		{"quote after =", `--promise="ALL DONE" --gate test='go test ./...'`, []string{"--promise=ALL DONE", "--gate", "test=go test ./..."}},
		{"quote mid-word is text", `don"t x"y`, []string{`don"t`, `x"y`}},
		{"escaped space and quotes", `a\ b \"c\" \'d \\e`, []string{"a b", `"c"`, "'d", `\e`}},
		{"other backslashes are text", `C:\Users\me \n`, []string{`C:\Users\me`, `\n`}},
		{"line continuation", "a\\\nb c \\\n d", []string{"ab", "c", "d"}},
		{"trailing backslash", `a\`, []string{`a\`}},
		{"multi-line quoted", "\"line one\n\nline two\"", []string{"line one\n\nline two"}},
		{"unicode", "ünï \"cödé ✓\"", []string{"ünï", "cödé ✓"}},
		{"promise tag in quotes", `"Output <promise>COMPLETE</promise> when done."`, []string{"Output <promise>COMPLETE</promise> when done."}},
		{"nothing", "  \n", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			words, err := splitSlashWords(tt.text)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, w := range words {
				got = append(got, w.text)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestSplitSlashWordsUnterminated(t *testing.T) {
	for _, tt := range []struct{ text, want string }{
		{`"Build a REST API --max-iterations 5`, `the " quote that opens "\"Build a REST API --max-…" is never closed; end the quoted text with " followed by a space`},
		{`fix it --promise 'DONE`, `the ' quote that opens "'DONE" is never closed`},
		{`'Twas broken`, `write a quote that opens nothing as \'`},
		{`"a"b`, `is never closed`},
	} {
		_, err := splitSlashWords(tt.text)
		if !errors.Is(err, ErrSlashArgs) || !strings.Contains(err.Error(), tt.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("splitSlashWords(%q) = %v, want one line with %q", tt.text, err, tt.want)
		}
	}
}

func TestParseSlashArgs(t *testing.T) {
	tests := []struct {
		name, text string
		prompt     string
		flags      []string
	}{
		{"the plugin's README example",
			`"Build a REST API for todos. Requirements: CRUD operations, input validation, tests. Output <promise>COMPLETE</promise> when done." --completion-promise "COMPLETE" --max-iterations 50`,
			"Build a REST API for todos. Requirements: CRUD operations, input validation, tests. Output <promise>COMPLETE</promise> when done.",
			[]string{"--completion-promise=COMPLETE", "--max-iterations=50"}},
		{"the plugin's unquoted words around options", `Build a todo API --completion-promise 'DONE' --max-iterations 20`,
			"Build a todo API", []string{"--completion-promise=DONE", "--max-iterations=20"}},
		{"options first", `--max-iterations 10 Fix the auth bug`, "Fix the auth bug", []string{"--max-iterations=10"}},
		{"options between words", `Fix --max-iterations 3 the bug`, "Fix the bug", []string{"--max-iterations=3"}},
		{"git-loop's own options", `--promise DONE --gate 'test=go test ./...' --gate=build='go build ./...' --exit both --unlimited --name fix -- Fix it`,
			"Fix it", []string{"--promise=DONE", "--gate=test=go test ./...", "--gate=build=go build ./...", "--exit=both", "--unlimited", "--name=fix"}},
		{"-p", `-p "the task"`, "", []string{"--p=the task"}},
		{"a multi-line task keeps its lines", "Fix the parser.\n\nThen add a test for Bob's case.", "Fix the parser.\n\nThen add a test for Bob's case.", nil},
		{"-- ends the options", `--max-iterations 2 -- fix the --verbose flag`, "fix the --verbose flag", []string{"--max-iterations=2"}},
		{"words that are no option", `fix -5 -x --- and - too`, "fix -5 -x --- and - too", nil},
		{"a quoted word with spaces is a task word", `"--verbose is broken"`, "--verbose is broken", nil},
		{"a value may start with -", `--promise --done-- task`, "task", []string{"--promise=--done--"}},
		{"switch with a value", `--unlimited=true t`, "t", []string{"--unlimited=true"}},
		{"nothing", "\n", "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args, err := ParseSlashArgs(tt.text, testOptions)
			if err != nil {
				t.Fatal(err)
			}
			if args.Prompt != tt.prompt || !reflect.DeepEqual(args.Flags, tt.flags) || args.Help {
				t.Errorf("got prompt %q flags %q help %v; want %q %q", args.Prompt, args.Flags, args.Help, tt.prompt, tt.flags)
			}
		})
	}
	for text, help := range map[string]bool{"--help": true, "task -h": true, "--max-iterations 3 --help=x": true, "-- x --help": false} {
		if args, err := ParseSlashArgs(text, testOptions); err != nil || args.Help != help {
			t.Errorf("%q: %+v, %v (want help %v)", text, args, err, help)
		}
	}
}

func TestParseSlashArgsErrors(t *testing.T) {
	for _, tt := range []struct{ text, want string }{
		{`fix --max-iteration 5`, "unknown option --max-iteration; the options are --completion-promise, --exit, "},
		{`fix --x`, "unknown option --x"},
		{`fix --max-iterations`, "--max-iterations needs a value after it"},
		{`"fix it`, "is never closed"},
	} {
		_, err := ParseSlashArgs(tt.text, testOptions)
		if !errors.Is(err, ErrSlashArgs) || !strings.Contains(err.Error(), tt.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("ParseSlashArgs(%q) = %v, want one line with %q", tt.text, err, tt.want)
		}
	}
}

// quoteSlashWord writes w so that splitSlashWords reads it back: in double quotes, with
// \" and \\ escaped.
func quoteSlashWord(w string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(w) + `"`
}

// FuzzSplitSlashWords: no text panics the splitter; an error is one line; words quoted
// with quoteSlashWord come back as they were, whatever they hold; and text without quotes,
// backslashes or option-like words is a task word for word.
func FuzzSplitSlashWords(f *testing.F) {
	f.Add(`"Build a REST API" --completion-promise "COMPLETE" --max-iterations 50`, "a\"b")
	f.Add(`Fix Bob's bug --promise='x<y & z' -- --verbose`, `C:\x`)
	f.Add("a\\\n \"b\\\"c\" 'd'e' \\", "")
	f.Fuzz(func(t *testing.T, text, word string) {
		words, err := splitSlashWords(text)
		if err != nil {
			if !errors.Is(err, ErrSlashArgs) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("error %q", err)
			}
		} else {
			for _, w := range words {
				if w.start < 0 || w.end > len(text) || w.start >= w.end {
					t.Fatalf("word %+v out of %q", w, text)
				}
			}
		}
		if args, err := ParseSlashArgs(text, testOptions); err == nil {
			for _, fl := range args.Flags {
				name, _, _ := strings.Cut(strings.TrimPrefix(fl, "--"), "=")
				if _, ok := testOptions[name]; !ok {
					t.Fatalf("unknown option %q passed on", fl)
				}
			}
		}
		in := []string{word, text, "x"}
		var quoted []string
		for _, w := range in {
			quoted = append(quoted, quoteSlashWord(w))
		}
		got, err := splitSlashWords(strings.Join(quoted, " \n"))
		if err != nil {
			t.Fatalf("quoted words %q: %v", in, err)
		}
		for i := range got {
			if i >= len(in) || got[i].text != in[i] {
				t.Fatalf("quoted words %q came back as %+v", in, got)
			}
		}
		if len(got) != len(in) {
			t.Fatalf("quoted words %q came back as %+v", in, got)
		}
		if utf8.ValidString(text) && !strings.ContainsAny(text, `'"\-`) {
			args, err := ParseSlashArgs(text, testOptions)
			if err != nil || args.Prompt != strings.Trim(text, "\t\n\r\v\f ") {
				t.Fatalf("plain text %q: prompt %q, %v", text, args.Prompt, err)
			}
		}
	})
}
