package gitstore

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
)

// git-loop parses git-config syntax itself rather than through go-git's parser: it follows
// git's own reader (config.c) byte for byte, so every file git accepts is read as git reads it
// (go-git rejects the old [section.sub] form, among others), and it keeps go-git's config
// packages, whose initialisation costs every process start, out of the binary's hot path.

// configEntry is one "key" or "key = value" line as git reads it.
type configEntry struct {
	base  string // the section stem as git names it: "core", "remote.origin", "a.b" for [a.B]
	key   string // lowercased
	value string
	bare  bool // written without "=": true as a boolean, no value as a string
	line  int
}

// section returns the entry's lowercased section and its subsection ("" when none).
func (e configEntry) section() (section, sub string) {
	section, sub, _ = strings.Cut(e.base, ".")
	return section, sub
}

// name is the entry's full name as `git config --list` prints it.
func (e configEntry) name() string {
	if e.base == "" {
		return e.key
	}
	return e.base + "." + e.key
}

// errConfigLine is the reason git gives for every syntax error: "bad config line N".
var errConfigLine = errors.New("bad config line")

// configLineError is a syntax error at a line, with what the parser expected there.
type configLineError struct {
	line int
	why  string
}

func (e *configLineError) Error() string { return fmt.Sprintf("line %d: %s", e.line, e.why) }

func (e *configLineError) Unwrap() error { return errConfigLine }

// configReader reads git-config bytes the way git's get_next_char does: CRLF is one newline
// and the end of input reads as a final newline.
type configReader struct {
	data []byte
	pos  int
	line int // the line the next byte is on
	cur  int // the line of the last byte read (a newline belongs to the line it ends)
	eof  bool
}

func (r *configReader) next() byte {
	r.cur = r.line
	if r.pos >= len(r.data) {
		r.eof = true
		return '\n'
	}
	c := r.data[r.pos]
	r.pos++
	if c == '\r' && r.pos < len(r.data) && r.data[r.pos] == '\n' {
		c = '\n'
		r.pos++
	}
	if c == '\n' {
		r.line++
	}
	return c
}

func (r *configReader) fail(why string) error {
	return &configLineError{line: r.cur, why: why}
}

// isConfigSpace, isConfigAlpha and isKeyChar are git's ASCII-only character classes.
func isConfigSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func isConfigAlpha(c byte) bool { return (c|0x20) >= 'a' && (c|0x20) <= 'z' }

func isKeyChar(c byte) bool { return isConfigAlpha(c) || (c >= '0' && c <= '9') || c == '-' }

func lowerASCII(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// parseConfigEntries parses data in git-config syntax into its entries, in file order.
func parseConfigEntries(data []byte) ([]configEntry, error) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	r := &configReader{data: data, line: 1}
	var entries []configEntry
	base, comment := "", false
	for {
		c := r.next()
		switch {
		case c == '\n':
			if r.eof {
				return entries, nil
			}
			comment = false
		case comment || isConfigSpace(c):
		case c == '#' || c == ';':
			comment = true
		case c == '[':
			b, err := r.sectionHeader()
			if err != nil {
				return nil, err
			}
			base = b
		case isConfigAlpha(c):
			line := r.cur
			e, err := r.keyValue(c)
			if err != nil {
				return nil, err
			}
			e.base, e.line = base, line
			entries = append(entries, e)
		default:
			return nil, r.fail(fmt.Sprintf("unexpected %q where a key or [section] starts", c))
		}
	}
}

// sectionHeader reads what follows '[': a name of key characters and dots (lowercased), or
// a name, whitespace and a quoted subsection kept as written.
func (r *configReader) sectionHeader() (string, error) {
	var name []byte
	for {
		c := r.next()
		switch {
		case r.eof:
			return "", r.fail("unterminated [section] header")
		case c == ']':
			if len(name) == 0 {
				return "", r.fail("empty [section] name")
			}
			return string(name), nil
		case isConfigSpace(c):
			return r.subsection(name, c)
		case isKeyChar(c) || c == '.':
			name = append(name, lowerASCII(c))
		default:
			return "", r.fail(fmt.Sprintf("%q in a [section] name", c))
		}
	}
}

// subsection reads the `"sub"]` of a `[section "sub"]` header, after the whitespace c.
func (r *configReader) subsection(name []byte, c byte) (string, error) {
	for isConfigSpace(c) {
		if c == '\n' {
			return "", r.fail("unterminated [section] header")
		}
		c = r.next()
	}
	if c != '"' {
		return "", r.fail(`a subsection must be quoted: [section "sub"]`)
	}
	name = append(name, '.')
	for {
		c = r.next()
		if c == '\n' {
			return "", r.fail("unterminated subsection name")
		}
		if c == '"' {
			break
		}
		if c == '\\' {
			if c = r.next(); c == '\n' {
				return "", r.fail("unterminated subsection name")
			}
		}
		if c == 0 {
			return "", r.fail("NUL byte in subsection name")
		}
		name = append(name, c)
	}
	if r.next() != ']' {
		return "", r.fail(`expected ] after [section "sub"`)
	}
	if len(name) == 1 {
		return "", r.fail("empty [section] name")
	}
	return string(name), nil
}

// keyValue reads a key starting with first, then nothing (a bare key) or "=" and a value.
func (r *configReader) keyValue(first byte) (configEntry, error) {
	key := []byte{lowerASCII(first)}
	var c byte
	for {
		c = r.next()
		if r.eof || !isKeyChar(c) {
			break
		}
		key = append(key, lowerASCII(c))
	}
	for c == ' ' || c == '\t' {
		c = r.next()
	}
	e := configEntry{key: string(key)}
	if c == '\n' {
		e.bare = true
		return e, nil
	}
	if c != '=' {
		return e, r.fail(fmt.Sprintf("%q after key %q (want = and a value)", c, key))
	}
	v, err := r.value()
	if err != nil {
		return e, err
	}
	e.value = v
	return e, nil
}

// value reads a value up to the end of its line as git does: outside quotes each whitespace
// byte between words becomes one space and leading and trailing ones are dropped,
// '#' and ';' start a comment outside quotes, and \n \t \b \\ \" and a backslash-newline
// continuation are the only escapes, exactly as git reads them.
func (r *configReader) value() (string, error) {
	var v []byte
	quote, comment, spaces := false, false, 0
	for {
		c := r.next()
		if c == '\n' {
			if quote {
				return "", r.fail("unterminated quote in value")
			}
			return string(v), nil
		}
		if comment {
			continue
		}
		if isConfigSpace(c) && !quote {
			if len(v) > 0 {
				spaces++
			}
			continue
		}
		if !quote && (c == '#' || c == ';') {
			comment = true
			continue
		}
		for ; spaces > 0; spaces-- {
			v = append(v, ' ')
		}
		switch c {
		case '\\':
			esc := r.next()
			switch esc {
			case '\n':
				continue
			case 't':
				v = append(v, '\t')
			case 'b':
				v = append(v, '\b')
			case 'n':
				v = append(v, '\n')
			case '\\', '"':
				v = append(v, esc)
			default:
				return "", r.fail(fmt.Sprintf(`unknown escape \%c in value`, esc))
			}
		case '"':
			quote = !quote
		case 0:
			return "", r.fail("NUL byte in value")
		default:
			v = append(v, c)
		}
	}
}
