package kit

import (
	"bytes"
	"encoding/json"
	"sort"
	"strings"
)

// --- a minimal, position-keeping reader of JSON already known to be valid ---

type jsonSpan struct{ start, end int }

type jsonMember struct {
	key   string
	keyAt int
	val   jsonSpan
}

type jsonObj struct {
	open, close int // offsets of '{' and '}'
	members     []jsonMember
}

type jsonArr struct {
	open, close int // offsets of '[' and ']'
	elems       []jsonSpan
}

// spans are the members' extents, from key to the end of the value.
func (o jsonObj) spans() []jsonSpan {
	s := make([]jsonSpan, len(o.members))
	for i, m := range o.members {
		s[i] = jsonSpan{m.keyAt, m.val.end}
	}
	return s
}

func lastMember(ms []jsonMember, key string) *jsonMember {
	for i := len(ms) - 1; i >= 0; i-- {
		if ms[i].key == key {
			return &ms[i]
		}
	}
	return nil
}

func jsWS(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// jsStringEnd returns the offset just past the string that starts at b[i] == '"'.
func jsStringEnd(b []byte, i int) int {
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return len(b)
}

// jsValueEnd returns the offset just past the value that starts at b[i].
func jsValueEnd(b []byte, i int) int {
	switch b[i] {
	case '"':
		return jsStringEnd(b, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				j = jsStringEnd(b, j) - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return j + 1
				}
			}
		}
		return len(b)
	}
	j := i
	for j < len(b) && strings.IndexByte(",]} \t\r\n", b[j]) < 0 {
		j++
	}
	return j
}

func objectAt(b []byte, open int) jsonObj {
	o := jsonObj{open: open}
	i := jsWS(b, open+1)
	for b[i] != '}' {
		keyEnd := jsStringEnd(b, i)
		var key string
		_ = json.Unmarshal(b[i:keyEnd], &key)
		v := jsWS(b, jsWS(b, keyEnd)+1) // past ':'
		end := jsValueEnd(b, v)
		o.members = append(o.members, jsonMember{key, i, jsonSpan{v, end}})
		i = jsWS(b, end)
		if b[i] == ',' {
			i = jsWS(b, i+1)
		}
	}
	o.close = i
	return o
}

func arrayAt(b []byte, open int) jsonArr {
	a := jsonArr{open: open}
	i := jsWS(b, open+1)
	for b[i] != ']' {
		end := jsValueEnd(b, i)
		a.elems = append(a.elems, jsonSpan{i, end})
		i = jsWS(b, end)
		if b[i] == ',' {
			i = jsWS(b, i+1)
		}
	}
	a.close = i
	return a
}

// --- writing in the file's own style ---

type jsonStyle struct {
	pretty bool   // the file is indented, one member per line
	unit   string // one level of indentation
	nl     string // "\n", or "\r\n" in a file that uses it
}

// inferStyle reads the file's style from its first member: on a line of its own (indented
// by one unit) or not. An empty object gets Claude Code's own style, two spaces.
func inferStyle(doc []byte, top jsonObj) jsonStyle {
	st := jsonStyle{pretty: true, unit: "  ", nl: "\n"}
	if bytes.Contains(doc, []byte("\r\n")) {
		st.nl = "\r\n"
	}
	if len(top.members) > 0 {
		ind, own := lineIndent(doc, top.members[0].keyAt)
		switch {
		case !own:
			st.pretty = false
		default:
			if base := lineStartIndent(doc, top.open); len(ind) > len(base) && strings.HasPrefix(ind, base) {
				st.unit = ind[len(base):]
			}
		}
	}
	return st
}

// lineIndent returns the white space before pos when pos starts its line.
func lineIndent(doc []byte, pos int) (string, bool) {
	j := pos
	for j > 0 && (doc[j-1] == ' ' || doc[j-1] == '\t') {
		j--
	}
	if j > 0 && doc[j-1] != '\n' {
		return "", false
	}
	return string(doc[j:pos]), true
}

// lineStartIndent returns the white space that starts the line holding pos.
func lineStartIndent(doc []byte, pos int) string {
	j := bytes.LastIndexByte(doc[:pos], '\n') + 1
	k := j
	for k < len(doc) && (doc[k] == ' ' || doc[k] == '\t') {
		k++
	}
	return string(doc[j:k])
}

// render writes v starting at indentation ind: indented in the file's unit, or compact.
func (st jsonStyle) render(v any, ind string, pretty bool) string {
	var out []byte
	if pretty {
		out, _ = json.MarshalIndent(v, ind, st.unit)
		if st.nl != "\n" {
			out = bytes.ReplaceAll(out, []byte("\n"), []byte(st.nl))
		}
	} else {
		out, _ = json.Marshal(v)
	}
	return string(out)
}

// KV is one member of an Object.
type KV struct {
	Key string
	Val any
}

// Object is a JSON object whose members keep their order.
type Object []KV

// MarshalJSON writes the members in their order.
func (o Object) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, kv := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(kv.Key)
		v, err := json.Marshal(kv.Val)
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

func membersRenderer(st jsonStyle, kvs []KV) func(string, bool) []string {
	return func(ind string, pretty bool) []string {
		sep := ":"
		if pretty || st.pretty {
			sep = ": "
		}
		out := make([]string, len(kvs))
		for i, kv := range kvs {
			k, _ := json.Marshal(kv.Key)
			out[i] = string(k) + sep + st.render(kv.Val, ind, pretty)
		}
		return out
	}
}

type textEdit struct {
	start, end int // replace doc[start:end]
	text       string
}

// appendChildren adds children after the last of a container's (or into an empty one),
// laid out like the existing ones: each on its own line at their indentation, or inline.
func appendChildren(doc []byte, st jsonStyle, open, close int, children []jsonSpan, render func(ind string, pretty bool) []string) textEdit {
	if len(children) == 0 {
		if !st.pretty {
			return textEdit{open + 1, close, strings.Join(render("", false), ",")}
		}
		base := lineStartIndent(doc, open)
		ind := base + st.unit
		items := render(ind, true)
		return textEdit{open + 1, close, st.nl + ind + strings.Join(items, ","+st.nl+ind) + st.nl + base}
	}
	last := children[len(children)-1]
	if ind, own := lineIndent(doc, last.start); own {
		items := render(ind, true)
		return textEdit{last.end, last.end, "," + st.nl + ind + strings.Join(items, ","+st.nl+ind)}
	}
	sep := ","
	if st.pretty {
		sep = ", "
	}
	return textEdit{last.end, last.end, sep + strings.Join(render("", false), sep)}
}

// replaceValue replaces a value (a null) with v, indented from its line.
func replaceValue(doc []byte, st jsonStyle, val jsonSpan, v any) textEdit {
	return textEdit{val.start, val.end, st.render(v, lineStartIndent(doc, val.start), st.pretty)}
}

// applyEdits applies non-overlapping edits, last first so offsets stay valid.
func applyEdits(doc []byte, edits []textEdit) []byte {
	sort.Slice(edits, func(i, j int) bool {
		if edits[i].start != edits[j].start {
			return edits[i].start > edits[j].start
		}
		return edits[i].end > edits[j].end
	})
	out := append([]byte{}, doc...)
	for _, e := range edits {
		out = append(out[:e.start], append([]byte(e.text), out[e.end:]...)...)
	}
	return out
}
