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
	codeFence   = lazyRegexp("(?s)```.*?(```|$)|~~~.*?(~~~|$)")
	inlineCode  = lazyRegexp("`[^`\n]*`")
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
	return s
}

// stripCode blanks fenced code blocks and inline code spans.
func stripCode(msg string) string {
	msg = codeFence().ReplaceAllString(msg, " ")
	return inlineCode().ReplaceAllString(msg, " ")
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
