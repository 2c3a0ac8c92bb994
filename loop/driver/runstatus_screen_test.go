package driver

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/git-loop/git-loop/loop"
)

// screen is a tiny terminal: width columns, autowrap, \r, \n (as CR LF), ESC[2K.
func screen(out string, width int) []string {
	rows := [][]rune{{}}
	r, c := 0, 0
	put := func(ch rune) {
		if c == width {
			r, c = r+1, 0
		}
		for len(rows) <= r {
			rows = append(rows, []rune{})
		}
		for len(rows[r]) <= c {
			rows[r] = append(rows[r], ' ')
		}
		rows[r][c] = ch
		c++
	}
	for i := 0; i < len(out); {
		switch {
		case strings.HasPrefix(out[i:], "\x1b[2K"):
			for len(rows) <= r {
				rows = append(rows, []rune{})
			}
			rows[r] = []rune{}
			i += 4
		case out[i] == '\r':
			c = 0
			i++
		case out[i] == '\n':
			r, c = r+1, 0
			for len(rows) <= r {
				rows = append(rows, []rune{})
			}
			i++
		default:
			put(rune(out[i]))
			i++
		}
	}
	s := make([]string, len(rows))
	for i, row := range rows {
		s[i] = string(row)
	}
	return s
}

// TestStatusLineAboveLongLine: an agent line longer than maxPendingLine is shown in parts;
// each must stay on the screen, not be erased by the status line redrawn on its row (found in
// review).
func TestStatusLineAboveLongLine(t *testing.T) {
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	var term strings.Builder
	l := newStatusLine(&term, true, "fix", &loop.Config{MaxIterations: 3}, func() time.Time { return now })
	l.begin(1)
	a := l.above(&term)
	long := bytes.Repeat([]byte("q"), maxPendingLine+100) // not a multiple of the width
	a.Write(long)
	a.Write([]byte("END\n"))
	a.flush()
	got := strings.Count(strings.Join(screen(term.String(), 200), "\n"), "q")
	if got != len(long) {
		t.Fatalf("the agent wrote %d q's; the terminal shows %d (raw tail around the chunk: %q)",
			len(long), got, term.String()[len(term.String())-len(l.text())-40:])
	}
}
