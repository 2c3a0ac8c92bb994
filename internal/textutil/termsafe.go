package textutil

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// TerminalSafe renders the control characters of s visibly, so that text stored in a loop
// (the agent's messages, gate output, reasons, prompts, names from a fetched loop) cannot
// drive the terminal it is printed on: set its title, clear the screen, move the cursor.
// Newlines and tabs are kept; every other C0 control and DEL becomes \xHH (ESC is \x1b),
// a C1 control (U+0080–U+009F) \u00HH, and a byte that is not UTF-8 \xHH. Text with none of
// them is returned as is.
func TerminalSafe(s string) string {
	i := unsafeAt(s)
	if i < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	b.WriteString(s[:i])
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r < 0x20 && r != '\n' && r != '\t', r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		case r >= 0x80 && r <= 0x9f:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// unsafeAt is the offset of the first character terminalSafe must render, or -1.
func unsafeAt(s string) int {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 && c != '\n' && c != '\t' || c == 0x7f {
			return i
		}
		if c < utf8.RuneSelf {
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 || r >= 0x80 && r <= 0x9f {
			return i
		}
		i += size - 1
	}
	return -1
}
