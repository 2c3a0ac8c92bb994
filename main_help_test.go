package main

import (
	"io"
	"strings"
	"testing"
)

// TestEveryCommandHasAGroup: `git loop help` lists a command only under its group, so a
// command without one would vanish from the help.
func TestEveryCommandHasAGroup(t *testing.T) {
	for _, c := range commands(io.Discard, io.Discard) {
		if !contains(commandGroups, c.Category) {
			t.Errorf("command %s has category %q; give it one of %q", c.Name, c.Category, commandGroups)
		}
	}
}

// TestEveryCommandHasAnExample: each command's help ends with at least one example.
func TestEveryCommandHasAnExample(t *testing.T) {
	names := map[string]bool{}
	for _, c := range commands(io.Discard, io.Discard) {
		names[c.Name] = true
		if strings.TrimSpace(examples[c.Name]) == "" {
			t.Errorf("command %s has no example; add one to examples in main_help.go", c.Name)
		}
	}
	for name := range examples {
		if !names[name] {
			t.Errorf("examples has %q, which is no command", name)
		}
	}
}

// TestHelpWidth keeps every line of the help within helpWidth columns.
func TestHelpWidth(t *testing.T) {
	app := newApp(strings.NewReader(""), io.Discard, io.Discard)
	var b strings.Builder
	writeCommandIndex(&b, app.Usage, app.Commands)
	for _, c := range app.Commands {
		writeCommandHelp(&b, c)
	}
	for _, line := range strings.Split(b.String(), "\n") {
		if n := len([]rune(line)); n > helpWidth {
			t.Errorf("help line of %d columns (at most %d): %s", n, helpWidth, line)
		}
	}
}

func TestWrapText(t *testing.T) {
	for _, tc := range []struct {
		text          string
		indent, width int
		want          string
	}{
		{"a b c", 0, 10, "a b c"},
		{"aaaa bbbb cccc", 0, 9, "aaaa bbbb\ncccc"},
		{"aaaa bbbb cccc", 2, 11, "aaaa bbbb\n  cccc"},
		{"averylongword next", 0, 5, "averylongword\nnext"},
		{"", 3, 10, ""},
	} {
		if got := wrapText(tc.text, tc.indent, tc.width); got != tc.want {
			t.Errorf("wrapText(%q, %d, %d) = %q, want %q", tc.text, tc.indent, tc.width, got, tc.want)
		}
	}
}

// TestCheckPromiseArgs: a promise that is not valid UTF-8 is refused before the flag package
// turns its bad bytes into U+FFFD; everything else passes.
func TestCheckPromiseArgs(t *testing.T) {
	for _, tc := range []struct {
		args []string
		bad  bool
	}{
		{[]string{"git-loop", "start", "--promise", "ok\xff"}, true},
		{[]string{"git-loop", "start", "--promise=ok\xff"}, true},
		{[]string{"git-loop", "start", "--completion-promise", "\xc3"}, true},
		{[]string{"git-loop", "start", "--promise", "x<y & é"}, false},
		{[]string{"git-loop", "run", "--", "agent", "--promise", "\xff"}, false}, // the agent's own
		{[]string{"git-loop", "start", "-p", "caf\xe9"}, false},
	} {
		if err := checkPromiseArgs(tc.args); (err != nil) != tc.bad {
			t.Errorf("%q: %v, want refused %v", tc.args, err, tc.bad)
		}
	}
}
