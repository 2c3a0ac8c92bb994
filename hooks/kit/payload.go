package kit

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// MaxPayload is what a hook reads from stdin in one go. The agents' payloads are small
// (ids, paths, and at most the last assistant message); a longer one is read on up to
// MaxLongPayload, so that a very long message is judged all the same.
const MaxPayload = 8 << 20

// MaxLongPayload bounds a payload: reading it takes a quarter of a second or so, and a
// writer that never stops cannot hold the hook.
const MaxLongPayload = 64 << 20

var (
	// ErrPayloadTooLarge: stdin held more than MaxLongPayload bytes.
	ErrPayloadTooLarge = fmt.Errorf("hooks: hook payload larger than %d MiB", MaxLongPayload>>20)
	// ErrPayloadEmpty: stdin was empty (or only white space): the command was not run by an
	// agent as a hook.
	ErrPayloadEmpty = errors.New("hooks: empty hook payload on stdin (is this command run by an agent as a hook?)")
)

// WrongEvent is the error for a payload of another hook event than want: the hook is
// installed under the wrong event in the agent's settings.
func WrongEvent(got, want string) error {
	return fmt.Errorf("hooks: payload is for hook event %q, not %s: the hook is installed under the wrong event in the agent's settings", got, want)
}

// ReadPayload reads one JSON object from r into v (unknown fields ignored), at most
// MaxPayload bytes, or on up to 64 MiB for a very long message. event names the payload in
// errors: ErrPayloadTooLarge, ErrPayloadEmpty, or one line naming what is wrong with the
// JSON (its position, or the field of the wrong type).
func ReadPayload(r io.Reader, event string, v any) error {
	data, err := io.ReadAll(io.LimitReader(r, MaxPayload+1))
	if err != nil {
		return fmt.Errorf("hooks: read %s payload: %w", event, err)
	}
	if len(data) > MaxPayload {
		// A very long message: read on, within a bound, rather than let the agent stop
		// unjudged (or see a broken pipe). Only past the bound is the payload refused.
		rest, err := io.ReadAll(io.LimitReader(r, int64(MaxLongPayload-len(data)+1)))
		if err != nil {
			return fmt.Errorf("hooks: read %s payload: %w", event, err)
		}
		if data = append(data, rest...); len(data) > MaxLongPayload {
			return ErrPayloadTooLarge
		}
	}
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")) // a byte order mark is not JSON
	data = bytes.TrimSpace(data)
	if len(data) == 0 {
		return ErrPayloadEmpty
	}
	// JSON text is UTF-8 (RFC 8259), and Claude Code writes it so. encoding/json would
	// silently turn invalid bytes into U+FFFD, and a session id or path changed that way
	// names something else: refuse instead.
	if !utf8.Valid(data) {
		return fmt.Errorf("hooks: %s payload is not valid UTF-8 (first bad byte at offset %d)", event, invalidUTF8At(data))
	}
	if data[0] != '{' {
		if !json.Valid(data) {
			return payloadError(event, data, json.Unmarshal(data, new(any)))
		}
		return fmt.Errorf("hooks: %s payload is a JSON %s, want an object", event, jsonKind(data[0]))
	}
	if err := json.Unmarshal(data, v); err != nil {
		return payloadError(event, data, err)
	}
	return nil
}

// payloadError turns a decoding error into one line that names the problem and where it is.
func payloadError(event string, data []byte, err error) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		line, col := lineCol(data, syn.Offset)
		return fmt.Errorf("hooks: %s payload is not valid JSON: %s (line %d, column %d)", event, OneLine(syn.Error()), line, col)
	case errors.As(err, &typ) && typ.Field != "":
		return fmt.Errorf("hooks: %s payload: field %q is a JSON %s, want %s", event, typ.Field, typ.Value, goKind(typ.Type.Kind().String()))
	}
	return fmt.Errorf("hooks: %s payload is not valid JSON: %s", event, OneLine(err.Error()))
}

// lineCol converts a byte offset (the end of the bad token, as json.SyntaxError reports
// it) to a 1-based line and column.
func lineCol(data []byte, off int64) (line, col int) {
	if off > int64(len(data))+1 {
		off = int64(len(data)) + 1
	}
	if off < 1 {
		off = 1
	}
	before := data[:off-1]
	line = bytes.Count(before, []byte("\n")) + 1
	col = len(before) - bytes.LastIndexByte(before, '\n')
	return line, col
}

// OneLine is s on one line.
func OneLine(s string) string { return strings.ReplaceAll(s, "\n", " ") }

func invalidUTF8At(b []byte) int {
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n == 1 {
			return i
		}
		i += n
	}
	return -1
}

// jsonKind names the kind of the JSON value that starts with first.
func jsonKind(first byte) string {
	switch first {
	case '{':
		return "object"
	case '[':
		return "array"
	case '"':
		return "string"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	}
	return "number"
}

func goKind(k string) string {
	switch k {
	case "bool":
		return "a boolean"
	case "string":
		return "a string"
	case "ptr":
		return "a string or null"
	}
	return k
}
