package loop

import (
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
	"sync"
)

// Signals is what an agent's last message says about completion.
type Signals struct {
	// Promise is the configured promise the message made, exactly, outside code.
	Promise string `json:"promise,omitempty"`
	// Marker is a configured completion marker found outside code.
	Marker string `json:"marker,omitempty"`
	// Status is the parsed status block, when the message has one.
	Status *StatusBlock `json:"status,omitempty"`
	// QuotedPromise: a configured promise appears only inside code, where it does not count
	// (the agent is told so).
	QuotedPromise bool `json:"quoted_promise,omitempty"`
}

// Exit reports whether the agent signalled that it is done.
func (s Signals) Exit() bool {
	return s.Promise != "" || s.Marker != "" || (s.Status != nil && s.Status.ExitSignal)
}

// StatusBlock is a ---LOOP_STATUS--- … ---END_STATUS--- (or ---RALPH_STATUS--- …
// ---END_RALPH_STATUS---) block: KEY: value lines.
type StatusBlock struct {
	ExitSignal bool            `json:"exit_signal"`
	Criteria   map[string]bool `json:"criteria,omitempty"` // CRITERIA: {"name": true, …}
	StuckCount int             `json:"stuck_count,omitempty"`
	Next       string          `json:"next,omitempty"`
	Fields     map[string]string
}

var (
	promiseTag  = lazyRegexp(`<promise>([^<]*)</promise>`) // phrases hold no "<": the innermost tag counts
	statusBlock = lazyRegexp(`(?s)---(LOOP_STATUS|RALPH_STATUS)---(.*?)---(END_STATUS|END_RALPH_STATUS)---`)
	htmlComment = lazyRegexp(`(?s)<!--.*?-->`)
)

// ParseSignals reads a message for the configured promises and markers (outside fenced and
// inline code, so quoting the phrase does not count) and for a status block.
func ParseSignals(msg string, promises, markers []string) Signals {
	var s Signals
	prose := stripCode(msg)
	for _, m := range promiseTag().FindAllStringSubmatch(prose, -1) {
		said := normalizeSpace(m[1])
		for _, p := range promises {
			if said == normalizeSpace(p) && said != "" {
				s.Promise = p
			}
		}
	}
	for _, mk := range markers {
		if mk != "" && strings.Contains(prose, mk) {
			s.Marker = mk
		}
	}
	if m := statusBlock().FindAllStringSubmatch(prose, -1); len(m) > 0 {
		s.Status = parseStatusBlock(m[len(m)-1][2])
	}
	if s.Promise == "" && prose != msg { // something was code: was the promise in it?
		s.QuotedPromise = promiseIn(msg, promises)
	}
	return s
}

// promiseIn reports whether text holds one of the promises in a <promise> tag.
func promiseIn(text string, promises []string) bool {
	for _, m := range promiseTag().FindAllStringSubmatch(text, -1) {
		said := normalizeSpace(m[1])
		for _, p := range promises {
			if said != "" && said == normalizeSpace(p) {
				return true
			}
		}
	}
	return false
}

// stripCode blanks what Markdown shows as code, and HTML comments, so a phrase quoted there
// does not count: fenced blocks (``` or ~~~, any length, closed by a fence at least as
// long; unclosed runs to the end), indented blocks, and inline spans of any backtick count
// (a run with no closing run of the same length is plain text, as in CommonMark).
func stripCode(msg string) string {
	msg = htmlComment().ReplaceAllString(msg, " ")
	return stripInlineCode(stripCodeBlocks(msg))
}

// stripCodeBlocks blanks fenced and indented code blocks, line by line.
func stripCodeBlocks(msg string) string {
	lines := strings.Split(msg, "\n")
	fenceChar, fenceLen := byte(0), 0
	prevBlank, inIndented := true, false
	for i, line := range lines {
		trimmed := strings.TrimLeft(line, " ")
		indent := len(line) - len(trimmed)
		switch {
		case fenceLen > 0:
			if indent <= 3 && fenceRun(trimmed, fenceChar) >= fenceLen && strings.TrimSpace(strings.TrimLeft(trimmed, string(fenceChar))) == "" {
				fenceLen = 0
			}
			lines[i] = ""
			continue
		case indent <= 3 && (fenceRun(trimmed, '`') >= 3 || fenceRun(trimmed, '~') >= 3):
			fenceChar = trimmed[0]
			fenceLen = fenceRun(trimmed, fenceChar)
			lines[i] = ""
			continue
		}
		blank := strings.TrimSpace(line) == ""
		indented := !blank && (indent >= 4 || strings.HasPrefix(line, "\t"))
		if indented && (prevBlank || inIndented) {
			lines[i], inIndented = "", true
		} else if !blank {
			inIndented = false
		}
		prevBlank = blank
	}
	return strings.Join(lines, "\n")
}

// fenceRun counts the leading run of c in s.
func fenceRun(s string, c byte) int {
	n := 0
	for n < len(s) && s[n] == c {
		n++
	}
	return n
}

// stripInlineCode blanks inline code spans: a run of n backticks up to the next run of
// exactly n backticks.
func stripInlineCode(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		if s[i] != '`' {
			b.WriteByte(s[i])
			i++
			continue
		}
		n := fenceRun(s[i:], '`')
		if end := closingRun(s, i+n, n); end >= 0 {
			b.WriteByte(' ')
			i = end + n
			continue
		}
		b.WriteString(s[i : i+n]) // unmatched: literal backticks
		i += n
	}
	return b.String()
}

// closingRun finds the next run of exactly n backticks at or after from, or -1.
func closingRun(s string, from, n int) int {
	for j := from; j < len(s); {
		if s[j] != '`' {
			j++
			continue
		}
		run := fenceRun(s[j:], '`')
		if run == n {
			return j
		}
		j += run
	}
	return -1
}

func normalizeSpace(s string) string { return strings.Join(strings.Fields(s), " ") }

func parseStatusBlock(body string) *StatusBlock {
	b := &StatusBlock{Fields: map[string]string{}}
	for _, line := range strings.Split(body, "\n") {
		key, val, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		key = strings.ToUpper(strings.TrimSpace(key))
		val = strings.TrimSpace(val)
		b.Fields[key] = val
		switch key {
		case "EXIT_SIGNAL":
			b.ExitSignal = strings.EqualFold(val, "true")
		case "STUCK_COUNT":
			b.StuckCount, _ = strconv.Atoi(val)
		case "NEXT":
			b.Next = val
		case "CRITERIA":
			var c map[string]bool
			if json.Unmarshal([]byte(val), &c) == nil {
				b.Criteria = c
			}
		}
	}
	return b
}

// lazyRegexp compiles a pattern on first use: compiled at start-up, the loop package's
// patterns cost every command (the hook's idle path included) a tenth of a millisecond.
func lazyRegexp(pattern string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(pattern) })
}
