package textutil

import "testing"

// TestTerminalSafe: control characters that could drive a terminal are shown, not sent;
// text, newlines, tabs and non-ASCII letters pass unchanged.
func TestTerminalSafe(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"plain", "all gates pass", "all gates pass"},
		{"newline and tab", "a\n\tb\n", "a\n\tb\n"},
		{"non-ASCII", "café — ✓ 日本", "café — ✓ 日本"},
		{"window title", "\x1b]0;pwned\x07done", `\x1b]0;pwned\x07done`},
		{"clear screen", "\x1b[2J\x1b[H", `\x1b[2J\x1b[H`},
		{"carriage return", "ok\rFAIL", `ok\x0dFAIL`},
		{"NUL and DEL", "a\x00b\x7f", `a\x00b\x7f`},
		{"C1 CSI as a rune", "a\u009b2Jb", `a\u009b2Jb`},
		{"C1 OSC as a rune", "\u009d0;x\u009c", `\u009d0;x\u009c`},
		{"lone C1 byte", "a\x9b2J", `a\x9b2J`},
		{"invalid UTF-8", "\xff\xfe", `\xff\xfe`},
		{"U+00A0 is text", "a\u00a0b", "a\u00a0b"},
		{"empty", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := TerminalSafe(tt.in); got != tt.want {
				t.Fatalf("terminalSafe(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}
