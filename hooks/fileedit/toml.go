package fileedit

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// A minimal, position-keeping reader of TOML (toml.io, v1.0), enough to read and edit one
// value of a configuration file someone else owns (Codex CLI's config.toml) without
// touching anything else in it: comments, order, spacing and every other table stay byte
// for byte. It records where each table header and each key's value is; it does not build
// values, check types, or reject duplicate keys (the program that owns the file does that).

// tomlHeader is a [table] or [[array of tables]] header.
type tomlHeader struct {
	path    []string
	array   bool
	start   int // offset of the first '['
	lineEnd int // offset just past the header's line (its newline, or the end of the file)
}

// TOMLEntry is one key's value: at the top level or in a table (tableDepth is the length of
// the header's path), or inside an inline table. Values inside arrays are not recorded.
type TOMLEntry struct {
	path             []string // the key's full path: header, dotted key, inline tables
	tableDepth       int      // how many leading components of path the header gave
	valStart, valEnd int      // the value's bytes
	kind             byte     // 's' string, 't' inline table, 'a' array, 'o' anything else
	Str              string   // a string value, decoded
	Raw              string   // the value as written
	inline           bool     // defined inside an inline table
}

// TOMLDoc is what ScanTOML found.
type TOMLDoc struct {
	headers []tomlHeader
	entries []TOMLEntry
}

// ErrTOML: a document is not TOML that tomlScan can read.
var ErrTOML = errors.New("not valid TOML")

type tomlScanner struct {
	b   []byte
	i   int
	doc TOMLDoc
}

func (s *tomlScanner) errorf(format string, args ...any) error {
	line := 1 + bytes.Count(s.b[:min(s.i, len(s.b))], []byte("\n"))
	return fmt.Errorf("%w: line %d: %s", ErrTOML, line, fmt.Sprintf(format, args...))
}

// ScanTOML reads doc's headers and key/value pairs, or says where it is not TOML.
func ScanTOML(doc []byte) (TOMLDoc, error) {
	s := &tomlScanner{b: doc}
	if bytes.HasPrefix(doc, []byte("\xef\xbb\xbf")) {
		s.i = 3
	}
	var table []string
	for {
		s.skipSpace()
		if s.i >= len(s.b) {
			return s.doc, nil
		}
		switch c := s.b[s.i]; {
		case c == '\n' || c == '\r' || c == '#':
			if err := s.endLine(); err != nil {
				return s.doc, err
			}
		case c == '[':
			h := tomlHeader{start: s.i}
			s.i++
			if s.i < len(s.b) && s.b[s.i] == '[' {
				h.array = true
				s.i++
			}
			s.skipSpace()
			path, err := s.key()
			if err != nil {
				return s.doc, err
			}
			s.skipSpace()
			closing := "]"
			if h.array {
				closing = "]]"
			}
			if !bytes.HasPrefix(s.b[s.i:], []byte(closing)) {
				return s.doc, s.errorf("table header without %q", closing)
			}
			s.i += len(closing)
			if err := s.endLine(); err != nil {
				return s.doc, err
			}
			h.path, h.lineEnd = path, s.i
			s.doc.headers = append(s.doc.headers, h)
			table = path
		default:
			if err := s.keyValue(table, len(table), false); err != nil {
				return s.doc, err
			}
			if err := s.endLine(); err != nil {
				return s.doc, err
			}
		}
	}
}

// skipSpace skips spaces and tabs.
func (s *tomlScanner) skipSpace() {
	for s.i < len(s.b) && (s.b[s.i] == ' ' || s.b[s.i] == '\t') {
		s.i++
	}
}

// skipBlank skips white space, newlines and comments (inside arrays and inline tables).
func (s *tomlScanner) skipBlank() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		case '#':
			for s.i < len(s.b) && s.b[s.i] != '\n' {
				s.i++
			}
		default:
			return
		}
	}
}

// endLine accepts what may end a line after a header or value: spaces, a comment, then a
// newline or the end of the file.
func (s *tomlScanner) endLine() error {
	s.skipSpace()
	if s.i < len(s.b) && s.b[s.i] == '#' {
		for s.i < len(s.b) && s.b[s.i] != '\n' {
			s.i++
		}
	}
	switch {
	case s.i >= len(s.b):
		return nil
	case s.b[s.i] == '\n':
		s.i++
		return nil
	case s.b[s.i] == '\r' && s.i+1 < len(s.b) && s.b[s.i+1] == '\n':
		s.i += 2
		return nil
	}
	return s.errorf("unexpected %q after a value", s.b[s.i])
}

// key reads a dotted key: simple keys (bare, "basic" or 'literal') joined by dots.
func (s *tomlScanner) key() ([]string, error) {
	var path []string
	for {
		s.skipSpace()
		if s.i >= len(s.b) {
			return nil, s.errorf("a key is missing")
		}
		var part string
		switch c := s.b[s.i]; {
		case c == '"' || c == '\'':
			if bytes.HasPrefix(s.b[s.i:], []byte{c, c, c}) {
				return nil, s.errorf("a multi-line string cannot be a key")
			}
			start := s.i
			end, err := s.stringEnd()
			if err != nil {
				return nil, err
			}
			if part, err = tomlDecodeString(s.b[start:end]); err != nil {
				s.i = start
				return nil, s.errorf("%v", err)
			}
		case isBareKeyByte(c):
			start := s.i
			for s.i < len(s.b) && isBareKeyByte(s.b[s.i]) {
				s.i++
			}
			part = string(s.b[start:s.i])
		default:
			return nil, s.errorf("unexpected %q where a key should be", c)
		}
		path = append(path, part)
		s.skipSpace()
		if s.i < len(s.b) && s.b[s.i] == '.' {
			s.i++
			continue
		}
		return path, nil
	}
}

func isBareKeyByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}

// keyValue reads KEY = VALUE, recording it (and what an inline table holds) under table.
func (s *tomlScanner) keyValue(table []string, depth int, inline bool) error {
	key, err := s.key()
	if err != nil {
		return err
	}
	if s.i >= len(s.b) || s.b[s.i] != '=' {
		return s.errorf("a key without '='")
	}
	s.i++
	s.skipSpace()
	path := append(append([]string{}, table...), key...)
	return s.value(path, depth, inline, true)
}

// value reads one value starting at s.i; record says whether to keep it (values inside
// arrays are not kept).
func (s *tomlScanner) value(path []string, depth int, inline, record bool) error {
	if s.i >= len(s.b) {
		return s.errorf("a value is missing")
	}
	e := TOMLEntry{path: path, tableDepth: depth, valStart: s.i, inline: inline}
	idx := -1
	if record {
		idx = len(s.doc.entries)
		s.doc.entries = append(s.doc.entries, e)
	}
	switch c := s.b[s.i]; c {
	case '"', '\'':
		end, err := s.stringEnd()
		if err != nil {
			return err
		}
		e.kind = 's'
		if e.Str, err = tomlDecodeString(s.b[e.valStart:end]); err != nil {
			s.i = e.valStart
			return s.errorf("%v", err)
		}
	case '{':
		e.kind = 't'
		s.i++
		s.skipBlank()
		for s.i < len(s.b) && s.b[s.i] != '}' {
			if err := s.keyValue(path, depth, true); err != nil {
				return err
			}
			s.skipBlank()
			if s.i < len(s.b) && s.b[s.i] == ',' {
				s.i++
				s.skipBlank()
			} else if s.i < len(s.b) && s.b[s.i] != '}' {
				return s.errorf("unexpected %q in an inline table", s.b[s.i])
			}
		}
		if s.i >= len(s.b) {
			return s.errorf("an inline table without '}'")
		}
		s.i++
	case '[':
		e.kind = 'a'
		s.i++
		s.skipBlank()
		for s.i < len(s.b) && s.b[s.i] != ']' {
			if err := s.value(nil, 0, inline, false); err != nil {
				return err
			}
			s.skipBlank()
			if s.i < len(s.b) && s.b[s.i] == ',' {
				s.i++
				s.skipBlank()
			} else if s.i < len(s.b) && s.b[s.i] != ']' {
				return s.errorf("unexpected %q in an array", s.b[s.i])
			}
		}
		if s.i >= len(s.b) {
			return s.errorf("an array without ']'")
		}
		s.i++
	default: // a number, boolean or date: up to what ends a value, trailing spaces aside
		e.kind = 'o'
		for s.i < len(s.b) && !bytes.ContainsAny(s.b[s.i:s.i+1], ",]}#\r\n\"'{[=") {
			s.i++
		}
		for s.i > e.valStart && (s.b[s.i-1] == ' ' || s.b[s.i-1] == '\t') {
			s.i--
		}
		if s.i == e.valStart {
			return s.errorf("unexpected %q where a value should be", c)
		}
	}
	e.valEnd = s.i
	e.Raw = string(s.b[e.valStart:e.valEnd])
	if record {
		s.doc.entries[idx] = e
	}
	return nil
}

// stringEnd moves past the string starting at s.i (any of TOML's four kinds) and returns
// its end.
func (s *tomlScanner) stringEnd() (int, error) {
	q := s.b[s.i]
	if bytes.HasPrefix(s.b[s.i:], []byte{q, q, q}) {
		j := s.i + 3
		for j < len(s.b) {
			switch {
			case q == '"' && s.b[j] == '\\':
				j += 2
			case bytes.HasPrefix(s.b[j:], []byte{q, q, q}):
				j += 3
				for k := 0; k < 2 && j < len(s.b) && s.b[j] == q; k++ { // up to two quotes end the content
					j++
				}
				s.i = j
				return j, nil
			default:
				j++
			}
		}
		return 0, s.errorf("a multi-line string that does not end")
	}
	for j := s.i + 1; j < len(s.b); j++ {
		switch c := s.b[j]; {
		case c == '\n' || c == '\r':
			return 0, s.errorf("a string that does not end on its line")
		case q == '"' && c == '\\':
			j++
		case c == q:
			s.i = j + 1
			return s.i, nil
		}
	}
	return 0, s.errorf("a string that does not end")
}

// tomlDecodeString decodes a whole TOML string token (quotes included).
func tomlDecodeString(tok []byte) (string, error) {
	q := tok[0]
	multi := len(tok) >= 6 && bytes.HasPrefix(tok, []byte{q, q, q})
	var body []byte
	if multi {
		body = tok[3 : len(tok)-3]
		// A newline right after the opening delimiter is not part of the string.
		if bytes.HasPrefix(body, []byte("\r\n")) {
			body = body[2:]
		} else if bytes.HasPrefix(body, []byte("\n")) {
			body = body[1:]
		}
	} else {
		body = tok[1 : len(tok)-1]
	}
	if q == '\'' {
		return string(body), nil
	}
	var b strings.Builder
	for i := 0; i < len(body); i++ {
		c := body[i]
		if c != '\\' {
			b.WriteByte(c)
			continue
		}
		i++
		if i >= len(body) {
			return "", errors.New("a string ending in a lone backslash")
		}
		switch e := body[i]; e {
		case 'b':
			b.WriteByte('\b')
		case 't':
			b.WriteByte('\t')
		case 'n':
			b.WriteByte('\n')
		case 'f':
			b.WriteByte('\f')
		case 'r':
			b.WriteByte('\r')
		case 'e':
			b.WriteByte(0x1b)
		case '"', '\\':
			b.WriteByte(e)
		case 'x', 'u', 'U':
			n := map[byte]int{'x': 2, 'u': 4, 'U': 8}[e]
			if i+1+n > len(body) {
				return "", fmt.Errorf(`a \%c escape that is cut short`, e)
			}
			v, err := strconv.ParseUint(string(body[i+1:i+1+n]), 16, 32)
			if err != nil || !utf8.ValidRune(rune(v)) {
				return "", fmt.Errorf(`an invalid \%c escape`, e)
			}
			b.WriteRune(rune(v))
			i += n
		default:
			if multi && (e == ' ' || e == '\t' || e == '\n' || e == '\r') {
				// A line-ending backslash: the newline and the white space after it go.
				j := i
				for j < len(body) && (body[j] == ' ' || body[j] == '\t') {
					j++
				}
				if j < len(body) && body[j] != '\n' && body[j] != '\r' {
					return "", errors.New("a backslash followed by spaces, not at the end of a line")
				}
				for j < len(body) && (body[j] == ' ' || body[j] == '\t' || body[j] == '\n' || body[j] == '\r') {
					j++
				}
				i = j - 1
				continue
			}
			return "", fmt.Errorf(`an unknown escape \%c`, e)
		}
	}
	return b.String(), nil
}

// QuoteTOML is s as a TOML basic string.
func QuoteTOML(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\b':
			b.WriteString(`\b`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\f':
			b.WriteString(`\f`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\u%04X`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// tomlKey is path as a dotted key, each part bare when it can be.
func tomlKey(path []string) string {
	parts := make([]string, len(path))
	for i, p := range path {
		bare := p != ""
		for j := 0; j < len(p); j++ {
			bare = bare && isBareKeyByte(p[j])
		}
		if bare {
			parts[i] = p
		} else {
			parts[i] = QuoteTOML(p)
		}
	}
	return strings.Join(parts, ".")
}

// lookup returns the last value recorded at path, if any.
func (d TOMLDoc) Lookup(path ...string) (TOMLEntry, bool) {
	for i := len(d.entries) - 1; i >= 0; i-- {
		if equalPath(d.entries[i].path, path) {
			return d.entries[i], true
		}
	}
	return TOMLEntry{}, false
}

func equalPath(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func hasPrefixPath(path, prefix []string) bool {
	return len(path) >= len(prefix) && equalPath(path[:len(prefix)], prefix)
}

// errTOMLShape: the value cannot be set without rewriting what defines its table.
var errTOMLShape = errors.New("cannot be edited in place")

// SetTOMLString returns doc with the string at path (a table's path and a key) set to
// value, changing nothing else: an existing value is replaced where it is; a missing key
// goes right under its table's header; a missing table is appended at the end of the file.
// When the file defines the table in a way a new key or header cannot join (dotted keys,
// an inline table, an array of tables), it is errTOMLShape and doc is not changed.
func SetTOMLString(doc []byte, path []string, value string) ([]byte, error) {
	if len(path) < 2 {
		return nil, fmt.Errorf("%w: a top-level key", errTOMLShape)
	}
	for _, p := range append([]string{value}, path...) {
		if !utf8.ValidString(p) {
			return nil, fmt.Errorf("%w: %q is not UTF-8, which TOML needs", errTOMLShape, p)
		}
	}
	d, err := ScanTOML(doc)
	if err != nil {
		return nil, err
	}
	if e, ok := d.Lookup(path...); ok {
		out := append(append(append([]byte{}, doc[:e.valStart]...), QuoteTOML(value)...), doc[e.valEnd:]...)
		return out, nil
	}
	table, key := path[:len(path)-1], path[len(path)-1]
	nl := "\n"
	if i := bytes.IndexByte(doc, '\n'); i > 0 && doc[i-1] == '\r' {
		nl = "\r\n"
	}
	line := tomlKey([]string{key}) + " = " + QuoteTOML(value) + nl
	// Whatever already holds the key or the table's place decides whether either can be
	// added: a value where a table must be, or a table made by dotted keys or inline.
	full := append(append([]string{}, table...), key)
	for _, e := range d.entries {
		switch {
		case hasPrefixPath(e.path, full):
			return nil, fmt.Errorf("%w: %s is a table, not a value", errTOMLShape, tomlKey(full))
		case hasPrefixPath(table, e.path):
			return nil, fmt.Errorf("%w: %s is a value, not a table", errTOMLShape, tomlKey(e.path))
		case hasPrefixPath(e.path, table) && (e.tableDepth < len(table) || e.inline):
			return nil, fmt.Errorf("%w: %s is defined by dotted keys or an inline table", errTOMLShape, tomlKey(table))
		}
	}
	var header *tomlHeader
	for i, h := range d.headers {
		switch {
		case h.array && hasPrefixPath(table, h.path):
			return nil, fmt.Errorf("%w: %s is an array of tables", errTOMLShape, tomlKey(h.path))
		case hasPrefixPath(h.path, full):
			return nil, fmt.Errorf("%w: %s is a table, not a value", errTOMLShape, tomlKey(path))
		case equalPath(h.path, table):
			header = &d.headers[i]
		}
	}
	if header != nil {
		at := header.lineEnd
		pre := ""
		if at == len(doc) && !bytes.HasSuffix(doc, []byte("\n")) {
			pre = nl
		}
		return append(append(append([]byte{}, doc[:at]...), pre+line...), doc[at:]...), nil
	}
	out := append([]byte{}, doc...)
	if len(bytes.TrimSpace(bytes.TrimPrefix(out, []byte("\xef\xbb\xbf")))) > 0 {
		if !bytes.HasSuffix(out, []byte("\n")) {
			out = append(out, nl...)
		}
		out = append(out, nl...)
	}
	return append(out, "["+tomlKey(table)+"]"+nl+line...), nil
}
