package loop

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/git-loop/git-loop/internal/textutil"
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

// The tag an agent writes a promise in. A phrase is matched literally between them: it may
// hold "<", "&", quotes or backslashes, but not the tags themselves (checkPromise).
const (
	promiseOpen  = "<promise>"
	promiseClose = "</promise>"
)

var (
	statusBlock = textutil.LazyRegexp(`(?s)---(LOOP_STATUS|RALPH_STATUS)---(.*?)---(END_STATUS|END_RALPH_STATUS)---`)
	htmlComment = textutil.LazyRegexp(`(?s)<!--.*?-->`)
)

// parseSignals reads a message for the configured promises and markers (outside fenced and
// inline code, so quoting the phrase does not count) and for a status block. A promise is
// matched literally, whitespace normalised: the text between a <promise> and </promise>
// that both stand outside code.
func parseSignals(msg string, promises, markers []string) Signals {
	var s Signals
	prose := stripCode(msg) // same length as msg: a tag found in prose is at the same offset in msg
	if p := promiseAt(msg, promiseTags(prose), promises); p != "" {
		s.Promise = p
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
		s.QuotedPromise = promiseAt(msg, promiseTags(msg), promises) != ""
	}
	return s
}

// promiseAt returns the last of the promises said in one of the tags (content spans of
// text), or "".
func promiseAt(text string, tags [][2]int, promises []string) string {
	said := ""
	for _, t := range tags {
		phrase := textutil.NormalizeSpace(text[t[0]:t[1]])
		for _, p := range promises {
			if phrase != "" && phrase == textutil.NormalizeSpace(p) {
				said = p
			}
		}
	}
	return said
}

// promiseTags finds the <promise>…</promise> tags of s and returns their contents' spans.
// The innermost tag counts: each </promise> closes the last <promise> before it (since the
// previous </promise>), so "<promise>a <promise>DONE</promise>" says DONE.
func promiseTags(s string) [][2]int {
	var tags [][2]int
	for from := 0; ; {
		c := strings.Index(s[from:], promiseClose)
		if c < 0 {
			return tags
		}
		c += from
		if o := strings.LastIndex(s[from:c], promiseOpen); o >= 0 {
			tags = append(tags, [2]int{from + o + len(promiseOpen), c})
		}
		from = c + len(promiseClose)
	}
}

// checkPromise refuses a promise phrase that no agent message could match: one holding the
// tags it is written between, a line break (Markdown would split it), a control character
// an agent cannot write, or bytes that are not UTF-8 (messages are). Every phrase it
// accepts is matched literally, whitespace normalised, as parseSignals reads it.
func checkPromise(p string) error {
	switch {
	case !utf8.ValidString(p):
		return fmt.Errorf("%w: promise %q is not valid UTF-8, so no agent message can hold it; retype the phrase", ErrConfig, p)
	case strings.Contains(p, promiseOpen) || strings.Contains(p, promiseClose):
		return fmt.Errorf("%w: promise %q holds a <promise> or </promise> tag, which would break the tag the agent writes it in; choose a phrase without them", ErrConfig, p)
	case strings.ContainsAny(p, "\n\r"):
		return fmt.Errorf("%w: promise %q spans lines, but the agent writes it on one line as <promise>PHRASE</promise>; give it on one line", ErrConfig, p)
	}
	for _, r := range p {
		if r != '\t' && unicode.IsControl(r) {
			return fmt.Errorf("%w: promise %q holds the control character %U, which an agent cannot write; remove it", ErrConfig, p, r)
		}
	}
	return nil
}

// stripCode blanks what Markdown shows as code, and HTML comments, so a phrase quoted there
// does not count: fenced blocks (``` or ~~~, any length, closed by a fence at least as
// long; unclosed runs to the end), indented blocks, and inline spans of any backtick count
// (a run with no closing run of the same length is plain text, as in CommonMark). Blanked
// bytes become spaces and line breaks stay, so the result has msg's length and offsets.
func stripCode(msg string) string {
	b := []byte(msg)
	for _, loc := range htmlComment().FindAllStringIndex(msg, -1) {
		blank(b[loc[0]:loc[1]])
	}
	stripCodeBlocks(b)
	stripInlineCode(b)
	return string(b)
}

// blank turns every byte of b but line breaks into a space.
func blank(b []byte) {
	for i := range b {
		if b[i] != '\n' {
			b[i] = ' '
		}
	}
}

// stripCodeBlocks blanks fenced and indented code blocks, line by line.
func stripCodeBlocks(b []byte) {
	fenceChar, fenceLen := byte(0), 0
	prevBlank, inIndented := true, false
	for start := 0; start <= len(b); {
		end := bytes.IndexByte(b[start:], '\n')
		if end < 0 {
			end = len(b)
		} else {
			end += start
		}
		line := string(b[start:end])
		next := end + 1
		trimmed := strings.TrimLeft(line, " ")
		indent := len(line) - len(trimmed)
		switch {
		case fenceLen > 0:
			if indent <= 3 && fenceRun(trimmed, fenceChar) >= fenceLen && strings.TrimSpace(strings.TrimLeft(trimmed, string(fenceChar))) == "" {
				fenceLen = 0
			}
			blank(b[start:end])
			start = next
			continue
		case indent <= 3 && (fenceRun(trimmed, '`') >= 3 || fenceRun(trimmed, '~') >= 3):
			fenceChar = trimmed[0]
			fenceLen = fenceRun(trimmed, fenceChar)
			blank(b[start:end])
			start = next
			continue
		}
		isBlank := strings.TrimSpace(line) == ""
		indented := !isBlank && (indent >= 4 || strings.HasPrefix(line, "\t"))
		if indented && (prevBlank || inIndented) {
			blank(b[start:end])
			inIndented = true
		} else if !isBlank {
			inIndented = false
		}
		prevBlank = isBlank
		start = next
	}
}

// fenceRun counts the leading run of c in s.
func fenceRun(s string, c byte) int {
	n := 0
	for n < len(s) && s[n] == c {
		n++
	}
	return n
}

// bytesRun counts the leading run of c in b.
func bytesRun(b []byte, c byte) int {
	n := 0
	for n < len(b) && b[n] == c {
		n++
	}
	return n
}

// stripInlineCode blanks inline code spans: a run of n backticks up to the next run of
// exactly n backticks.
func stripInlineCode(b []byte) {
	for i := 0; i < len(b); {
		if b[i] != '`' {
			i++
			continue
		}
		n := bytesRun(b[i:], '`')
		if end := closingRun(b, i+n, n); end >= 0 {
			blank(b[i : end+n])
			i = end + n
			continue
		}
		i += n // unmatched: literal backticks
	}
}

// closingRun finds the next run of exactly n backticks at or after from, or -1.
func closingRun(b []byte, from, n int) int {
	for j := from; j < len(b); {
		if b[j] != '`' {
			j++
			continue
		}
		run := bytesRun(b[j:], '`')
		if run == n {
			return j
		}
		j += run
	}
	return -1
}

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
