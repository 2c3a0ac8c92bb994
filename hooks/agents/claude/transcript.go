package claude

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/git-loop/git-loop/hooks/sessionlog"
)

// Claude Code transcripts are JSONL: one JSON object per line, appended as the session runs.
// Every line has a top-level "type". The ones that matter here:
//
//	assistant  one content block of an assistant message per line ("text", "thinking",
//	           "tool_use"), all lines of one message sharing message.id; message.usage is
//	           repeated on each, growing while the message streams (output_tokens).
//	user       a prompt (content a string, or text/image blocks), a tool result (content
//	           blocks of type "tool_result"), or an injected line with "isMeta": true.
//	progress, system, file-history-snapshot, queue-operation, ...: bookkeeping, skipped.

// ErrNoAssistantText is returned (wrapped, naming the transcript) by [LastAssistantText] when
// the last turn holds no assistant text: the transcript is empty, holds only bookkeeping
// lines, or ends with a user line that is not a tool result (a prompt or an interrupt).
var ErrNoAssistantText = sessionlog.ErrNoText

// LastAssistantText returns the text of the last assistant turn of the Claude Code transcript
// at path: the last non-blank "text" content block of the run of assistant lines that follows
// the last real user message.
//
// It reads the file backwards from its end in chunks, so its cost depends on how far back the
// answer (or the end of the search) lies, not on the size of the file. Walking back:
//   - an assistant line with a non-blank text block ends the search: its last such block is
//     the answer ("thinking", "tool_use" and whitespace-only text blocks are not text);
//   - a user line whose content holds a "tool_result" block belongs to the turn, as does one
//     marked "isMeta": true (injected context); both are passed over, except the feedback a
//     Stop hook's block injects ("Stop hook feedback: …"), which starts a turn: the text
//     before it was judged by that hook already;
//   - any other user line (a prompt, or Claude Code's "[Request interrupted by user]" marker)
//     ends the turn, and with it the search: ErrNoAssistantText. An interrupted turn is not a
//     finished answer, so nothing before the interrupt is returned;
//   - every other line (progress, system, file-history-snapshot, unknown types), a line that
//     is not valid JSON or does not fit the transcript's shape (such as a torn last line still
//     being written), and a line over 64 MiB are skipped.
//
// Text is returned as written (not trimmed); invalid UTF-8 in it comes back as U+FFFD.
// Errors opening or reading the file are returned wrapped (they name the path), as is
// ErrNoAssistantText; a path that is not a regular file is an error.
func LastAssistantText(path string) (string, error) {
	text, _, err := ThisTurnText(path)
	return text, err
}

// ThisTurnText is LastAssistantText that also returns the uuid of the transcript line the
// text came from, so a later stop can tell the same answer from a new one.
func ThisTurnText(path string) (text, id string, err error) {
	return sessionlog.TurnText(path, turnLine)
}

// lastAssistantText is ThisTurnText over the first size bytes of r.
func lastAssistantText(r io.ReaderAt, size int64, lim sessionlog.Limits) (text, id string, err error) {
	return sessionlog.LastTurnText(r, size, lim, turnLine)
}

// TurnRanTool reports whether the agent ran a tool in the transcript's last turn (since the
// last prompt or stop hook feedback): Claude Code counts the blocks between which no tool
// ran, and stops honouring them past its cap.
func TurnRanTool(path string) (bool, error) {
	f, size, err := sessionlog.Open(path)
	if err != nil {
		return false, err
	}
	defer f.Close()
	br := sessionlog.NewBackReader(f, size, sessionlog.DefaultLimits)
	for {
		line, err := br.Prev()
		if err == io.EOF {
			return false, nil
		}
		if err != nil {
			return false, sessionlog.ReadError(path, err)
		}
		if peekType(line) == kindOther {
			continue
		}
		if _, _, v := turnLine(line); v == sessionlog.EndsTurn {
			return false, nil
		}
		if bytes.Contains(line, []byte(`"tool_use"`)) && hasToolUse(line) {
			return true, nil
		}
	}
}

// hasToolUse reports whether an assistant line holds a tool_use block.
func hasToolUse(line []byte) bool {
	var e entry
	if json.Unmarshal(line, &e) != nil || e.Type != "assistant" {
		return false
	}
	for _, b := range decodeContent(e.Message.Content) {
		if b.Type == "tool_use" {
			return true
		}
	}
	return false
}

// entry is the part of a transcript line that the text search needs.
type entry struct {
	Type    string `json:"type"`
	UUID    string `json:"uuid"`
	IsMeta  bool   `json:"isMeta"`
	Message struct {
		Content json.RawMessage `json:"content"`
	} `json:"message"`
}

// contentBlock is one element of message.content.
type contentBlock struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// hookFeedback starts the user line Claude Code writes when a Stop (or SubagentStop) hook
// blocks: the hook's reason, sent back as the agent's next instruction. It is injected
// ("isMeta": true), but it starts a turn: what the agent said before it was judged already.
var hookFeedback = []string{"Stop hook feedback:", "SubagentStop hook feedback:"}

// turnLine classifies one line, returning the text of an assistant line that has one, and
// the line's uuid.
func turnLine(line []byte) (string, string, sessionlog.Verdict) {
	switch peekType(line) {
	case kindOther:
		return "", "", sessionlog.Skip
	}
	var e entry
	if json.Unmarshal(line, &e) != nil {
		return "", "", sessionlog.Skip
	}
	switch e.Type {
	case "assistant":
		blocks := decodeContent(e.Message.Content)
		for i := len(blocks) - 1; i >= 0; i-- {
			if b := blocks[i]; b.Type == "text" && strings.TrimSpace(b.Text) != "" {
				return b.Text, e.UUID, sessionlog.Text
			}
		}
		return "", "", sessionlog.Skip
	case "user":
		blocks := decodeContent(e.Message.Content)
		for _, b := range blocks {
			if b.Type == "text" && isHookFeedback(b.Text) {
				return "", "", sessionlog.EndsTurn
			}
		}
		if e.IsMeta {
			return "", "", sessionlog.Skip
		}
		for _, b := range blocks {
			if b.Type == "tool_result" {
				return "", "", sessionlog.Skip
			}
		}
		return "", "", sessionlog.EndsTurn
	}
	return "", "", sessionlog.Skip
}

// isHookFeedback reports whether a user line's text is a stop hook's feedback.
func isHookFeedback(text string) bool {
	text = strings.TrimLeft(text, " \t\r\n")
	for _, p := range hookFeedback {
		if strings.HasPrefix(text, p) {
			return true
		}
	}
	return false
}

// decodeContent reads message.content: a string is one text block, an array its blocks;
// anything else (missing, null, malformed) has no blocks.
func decodeContent(raw json.RawMessage) []contentBlock {
	raw = bytes.TrimLeft(raw, " \t\r\n")
	if len(raw) == 0 {
		return nil
	}
	if raw[0] == '"' {
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return nil
		}
		return []contentBlock{{Type: "text", Text: s}}
	}
	var blocks []contentBlock
	if json.Unmarshal(raw, &blocks) != nil {
		return nil
	}
	return blocks
}

// Usage is token usage summed from assistant lines' message.usage.
type Usage struct {
	Input         int64 // input_tokens
	Output        int64 // output_tokens
	CacheCreation int64 // cache_creation_input_tokens
	CacheRead     int64 // cache_read_input_tokens
}

// Total is the sum of all four counts.
func (u Usage) Total() int64 { return u.Input + u.Output + u.CacheCreation + u.CacheRead }

func (u Usage) add(v Usage) Usage {
	return Usage{u.Input + v.Input, u.Output + v.Output, u.CacheCreation + v.CacheCreation, u.CacheRead + v.CacheRead}
}

func (u Usage) sub(v Usage) Usage {
	return Usage{u.Input - v.Input, u.Output - v.Output, u.CacheCreation - v.CacheCreation, u.CacheRead - v.CacheRead}
}

// usageEntry is the part of a transcript line that usage needs.
type usageEntry struct {
	Type    string `json:"type"`
	Message struct {
		ID    string `json:"id"`
		Usage *struct {
			Input         int64 `json:"input_tokens"`
			Output        int64 `json:"output_tokens"`
			CacheCreation int64 `json:"cache_creation_input_tokens"`
			CacheRead     int64 `json:"cache_read_input_tokens"`
		} `json:"usage"`
	} `json:"message"`
}

// lineUsage returns the message id and usage of an assistant line that carries a usage.
func lineUsage(line []byte) (id string, u Usage, ok bool) {
	if k := peekType(line); k == kindOther || k == kindUser {
		return "", Usage{}, false
	}
	var e usageEntry
	if json.Unmarshal(line, &e) != nil || e.Type != "assistant" || e.Message.Usage == nil {
		return "", Usage{}, false
	}
	m := e.Message.Usage
	return e.Message.ID, Usage{m.Input, m.Output, m.CacheCreation, m.CacheRead}, true
}

// UsageFrom sums the token usage of the assistant lines of the transcript at path, reading
// forward from byte offset from (0, or a next returned earlier) to the end of the file. It
// returns the sum, next (the offset just past the last newline-terminated line read: a torn
// line still being written is left for the next call) and lastSeenID (the message.id of the
// last assistant line counted, or lastID when none was), to pass as from and lastID to the
// next call. Summing the u of successive calls gives the same total as one call from 0.
//
// Claude Code writes a message as one line per content block, each with the same message.id
// and the usage so far: output_tokens grows from line to line, the last line holding the
// final count. A message is therefore counted once, at the usage of its last line: a line
// whose id is the previous counted line's replaces that line's contribution. When a call
// starts in the middle of a message (its first assistant line has id lastID), it looks back
// from from for the line the previous call counted and adds only the difference, so
// incremental calls never count a message twice nor undercount its output. Lines of a message
// are consecutive in Claude Code transcripts; an id that came back after another message would
// be counted again. An assistant line with no id is counted on its own.
//
// Lines that are not assistant lines with a well-formed usage (invalid JSON, torn, over
// 64 MiB) count for nothing. from beyond the end of the file (the file was replaced or
// truncated) is an error, as are a negative from and errors opening or reading the file (they
// name the path). On an error u is zero and next and lastSeenID are from and lastID.
func UsageFrom(path string, from int64, lastID string) (u Usage, next int64, lastSeenID string, err error) {
	f, size, err := sessionlog.Open(path)
	if err != nil {
		return Usage{}, from, lastID, err
	}
	defer f.Close()
	if from < 0 || from > size {
		return Usage{}, from, lastID, fmt.Errorf("hooks: usage offset %d outside transcript %s (%d bytes)", from, path, size)
	}
	u, next, lastSeenID, err = usageFrom(f, size, from, lastID, sessionlog.DefaultLimits)
	if err != nil {
		return Usage{}, from, lastID, sessionlog.ReadError(path, err)
	}
	return u, next, lastSeenID, nil
}

// usageFrom is UsageFrom over the first size bytes of r.
func usageFrom(r io.ReaderAt, size, from int64, lastID string, lim sessionlog.Limits) (Usage, int64, string, error) {
	var (
		total    Usage
		curID    = lastID                   // id of the last counted line
		curUsage Usage                      // what was counted for curID
		lookBack = from > 0 && lastID != "" // curUsage still to be found before from
	)
	next, err := sessionlog.Forward(r, size, from, lim, func(line []byte) error {
		id, u, ok := lineUsage(line)
		if !ok {
			return nil
		}
		switch {
		case id != "" && id == curID:
			if lookBack {
				var err error
				if curUsage, err = countedBefore(r, from, lastID, lim); err != nil {
					return err
				}
			}
			total = total.add(u.sub(curUsage))
		default:
			total = total.add(u)
			curID = id
		}
		curUsage, lookBack = u, false
		return nil
	})
	if err != nil {
		return Usage{}, from, lastID, err
	}
	return total, next, curID, nil
}

// countedBefore is what a call that ended at offset end counted for message id: the usage of
// the last assistant line with a usage before end, when that line has this id.
func countedBefore(r io.ReaderAt, end int64, id string, lim sessionlog.Limits) (Usage, error) {
	br := sessionlog.NewBackReader(r, end, lim)
	for {
		line, err := br.Prev()
		if err == io.EOF {
			return Usage{}, nil
		}
		if err != nil {
			return Usage{}, err
		}
		if lid, u, ok := lineUsage(line); ok {
			if lid == id {
				return u, nil
			}
			return Usage{}, nil
		}
	}
}

// kind is what peekType tells of a line from its top-level "type" alone.
type kind uint8

const (
	kindOther     kind = iota // not an assistant or user line (or not valid JSON): skip it
	kindAssistant             // "type": "assistant"
	kindUser                  // "type": "user"
	kindUnknown               // cannot tell cheaply: decode it
)

// peekType finds the top-level "type" of a JSON line without decoding it: it walks the
// object's members, skipping values, which is several times faster than encoding/json on the
// long progress and tool-result lines that make up most of a transcript.
//
// On valid JSON it agrees with json.Unmarshal into a struct with a Type string `json:"type"`
// field, or says kindUnknown: for a member whose key only folds to "type" ("Type"), has
// escapes, or whose value is not a plain string (the last "type" member wins, as in
// encoding/json). On invalid JSON any answer is safe: kindOther lines are skipped, and the
// others are decoded, which fails.
func peekType(b []byte) kind {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return kindOther
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return kindOther
	}
	k := kindOther
	for {
		if i >= len(b) || b[i] != '"' {
			return kindOther
		}
		end := skipString(b, i)
		if end < 0 {
			return kindOther
		}
		key := b[i+1 : end-1]
		isType := false
		switch {
		case bytes.IndexByte(key, '\\') >= 0:
			return kindUnknown
		case string(key) == "type":
			isType = true
		case len(key) == 4 && bytes.EqualFold(key, []byte("type")):
			return kindUnknown
		}
		i = skipSpace(b, end)
		if i >= len(b) || b[i] != ':' {
			return kindOther
		}
		i = skipSpace(b, i+1)
		if isType {
			if i >= len(b) || b[i] != '"' {
				return kindUnknown
			}
			end = skipString(b, i)
			if end < 0 {
				return kindOther
			}
			switch v := b[i+1 : end-1]; {
			case bytes.IndexByte(v, '\\') >= 0:
				return kindUnknown
			case string(v) == "assistant":
				k = kindAssistant
			case string(v) == "user":
				k = kindUser
			default:
				k = kindOther
			}
			i = end
		} else if i = skipValue(b, i); i < 0 {
			return kindOther
		}
		i = skipSpace(b, i)
		if i >= len(b) {
			return kindOther
		}
		switch b[i] {
		case ',':
			i = skipSpace(b, i+1)
		case '}':
			if skipSpace(b, i+1) != len(b) {
				return kindOther
			}
			return k
		default:
			return kindOther
		}
	}
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipString returns the index after the string that starts with the quote at b[i], or -1.
func skipString(b []byte, i int) int {
	j := i + 1
	for {
		q := bytes.IndexByte(b[j:], '"')
		if q < 0 {
			return -1
		}
		q += j
		bs := 0
		for k := q - 1; b[k] == '\\'; k-- {
			bs++
		}
		if bs%2 == 0 {
			return q + 1
		}
		j = q + 1
	}
}

// skipValue returns the index after the value that starts at b[i], or -1. It checks only
// enough of the syntax to find the value's end.
func skipValue(b []byte, i int) int {
	if i >= len(b) {
		return -1
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for i < len(b) {
			switch b[i] {
			case '"':
				if i = skipString(b, i); i < 0 {
					return -1
				}
				continue
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1
				}
			}
			i++
		}
		return -1
	}
	j := i
	for j < len(b) {
		switch b[j] {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
			return j
		}
		j++
	}
	return j
}
