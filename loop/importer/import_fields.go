package importer

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/git-loop/git-loop/internal/textutil"
)

// fields reads the keys of a decoded state file (YAML front matter or a JSON object),
// remembering which were used, so every key left over is listed as not carried over.
type fields struct {
	file string
	m    map[string]any
	used map[string]bool
}

func newFields(file string, m map[string]any) *fields {
	return &fields{file: file, m: m, used: map[string]bool{}}
}

// raw returns the value of key, marking it used.
func (f *fields) raw(key string) (any, bool) {
	v, ok := f.m[key]
	if ok {
		f.used[key] = true
	}
	return v, ok && v != nil
}

// text returns a scalar as text: the tools read these fields as text (sed, jq -r), so a
// YAML number or boolean counts as its spelling. A list or map is an error.
func (f *fields) text(key string) (string, bool, error) {
	v, ok := f.raw(key)
	if !ok {
		return "", false, nil
	}
	s, isScalar := scalarText(v)
	if !isScalar {
		f.used[key] = false // callers that tolerate it leave it to skipRest to list
		return "", false, importError(f.file, fmt.Sprintf("%s is a %s, not text", key, kindOf(v)), "make it a quoted string")
	}
	return s, true, nil
}

// count returns a whole number ≥ 0 (JSON numbers, YAML integers, or digits in a string).
func (f *fields) count(key string) (int, bool, error) {
	v, ok := f.raw(key)
	if !ok {
		return 0, false, nil
	}
	n, good := wholeNumber(v)
	if !good {
		shown, _ := scalarText(v)
		return 0, false, importError(f.file, fmt.Sprintf("%s is %q, not a whole number", key, shown), fmt.Sprintf("set %s to a number such as 10", key))
	}
	return n, true, nil
}

// flag returns a boolean, tolerating the strings "true" and "false".
func (f *fields) flag(key string) (bool, bool) {
	v, ok := f.raw(key)
	if !ok {
		return false, false
	}
	switch b := v.(type) {
	case bool:
		return b, true
	case string:
		p, err := strconv.ParseBool(strings.TrimSpace(b))
		return p, err == nil
	}
	return false, false
}

// list returns a list of scalars as text; anything else is ignored (and listed).
func (f *fields) list(key string) []string {
	v, ok := f.raw(key)
	if !ok {
		return nil
	}
	items, isList := v.([]any)
	if !isList {
		f.used[key] = false
		return nil
	}
	var out []string
	for _, it := range items {
		s, ok := scalarText(it)
		if !ok { // not a plain list: listed whole by skipRest rather than half read
			f.used[key] = false
			return nil
		}
		out = append(out, s)
	}
	return out
}

// object returns a nested object (JSON object or YAML mapping).
func (f *fields) object(key string) map[string]any {
	v, ok := f.raw(key)
	if !ok {
		return nil
	}
	m, isMap := v.(map[string]any)
	if !isMap {
		f.used[key] = false
		return nil
	}
	return m
}

// skipRest lists every key not used, one line each, in key order.
func (f *fields) skipRest(im *Imported) {
	keys := make([]string, 0, len(f.m))
	for k := range f.m {
		if !f.used[k] {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		im.skip("%s: %s (git-loop has no equivalent)", k, showValue(f.m[k]))
	}
}

// scalarText spells a scalar value; ok is false for lists, maps and null.
func scalarText(v any) (string, bool) {
	switch x := v.(type) {
	case string:
		return x, true
	case bool:
		return strconv.FormatBool(x), true
	case int:
		return strconv.Itoa(x), true
	case int64:
		return strconv.FormatInt(x, 10), true
	case uint64:
		return strconv.FormatUint(x, 10), true
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64), true
	case json.Number:
		return x.String(), true
	}
	return "", false
}

// wholeNumber converts v to an int ≥ 0 that fits an iteration count.
func wholeNumber(v any) (int, bool) {
	var f float64
	switch x := v.(type) {
	case int:
		f = float64(x)
	case int64:
		f = float64(x)
	case uint64:
		f = float64(x)
	case float64:
		f = x
	case json.Number:
		n, err := x.Float64()
		if err != nil {
			return 0, false
		}
		f = n
	case string:
		n, err := strconv.Atoi(strings.TrimSpace(x))
		if err != nil {
			return 0, false
		}
		f = float64(n)
	default:
		return 0, false
	}
	if f < 0 || f > math.MaxInt32 || f != math.Trunc(f) {
		return 0, false
	}
	return int(f), true
}

func kindOf(v any) string {
	switch v.(type) {
	case []any:
		return "list"
	case map[string]any:
		return "mapping"
	}
	return "value"
}

// showValue renders a value for a "not carried over" line, short.
func showValue(v any) string {
	s, ok := scalarText(v)
	if ok {
		s = strconv.Quote(s)
	} else if v == nil {
		s = "null"
	} else {
		b, _ := json.Marshal(v)
		s = string(b)
	}
	const max = 60
	if r := []rune(s); len(r) > max {
		s = string(r[:max]) + "…"
	}
	return s
}

// decodeJSONObject decodes one JSON object, numbers kept exact; trailing data is an error.
func decodeJSONObject(text string) (map[string]any, error) {
	dec := json.NewDecoder(strings.NewReader(text))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, jsonProblem(text, err)
	}
	if dec.More() {
		return nil, errors.New("more data follows the JSON object")
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("the JSON is a %s, not an object", kindOf(v))
	}
	return m, nil
}

// jsonProblem names the line of a JSON syntax error.
func jsonProblem(text string, err error) error {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		line := 1 + strings.Count(text[:min(int(se.Offset), len(text))], "\n")
		return fmt.Errorf("invalid JSON at line %d: %v", line, se)
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return errors.New("the JSON is empty or cut short")
	}
	return fmt.Errorf("invalid JSON: %v", err)
}

// parseJSONFile decodes a JSON state file into fields, or says what is wrong with it.
func parseJSONFile(file, text string) (*fields, error) {
	m, err := decodeJSONObject(strings.TrimPrefix(text, "\ufeff"))
	if err != nil {
		return nil, importError(file, err.Error(), "fix the JSON, or start the loop with `git loop start -p TASK`")
	}
	return newFields(file, m), nil
}

// splitFrontMatter splits "---\nYAML\n---\nbody": the first line and a later line are
// exactly "---" (trailing spaces and CR allowed), as the tools' own readers require.
func splitFrontMatter(text string) (front, body string, ok bool) {
	lines := strings.SplitAfter(text, "\n")
	if len(lines) == 0 || strings.TrimRight(lines[0], " \t\r\n") != "---" {
		return "", "", false
	}
	for i := 1; i < len(lines); i++ {
		if strings.TrimRight(lines[i], " \t\r\n") == "---" {
			return strings.Join(lines[1:i], ""), strings.Join(lines[i+1:], ""), true
		}
	}
	return "", "", false
}

// yamlLine is how yaml.v3 names a line of the front matter.
var yamlLine = textutil.LazyRegexp(`\bline (\d+):`)

// fileLines renumbers the lines a YAML error names from the front matter's to the file's
// (the front matter starts on line 2, after the opening ---).
func fileLines(msg string) string {
	return yamlLine().ReplaceAllStringFunc(msg, func(m string) string {
		n, err := strconv.Atoi(yamlLine().FindStringSubmatch(m)[1])
		if err != nil {
			return m
		}
		return fmt.Sprintf("line %d:", n+1)
	})
}

// parseFrontMatterFile reads a Markdown state file: YAML front matter and the body.
func parseFrontMatterFile(file, text string) (*fields, string, error) {
	text = strings.TrimPrefix(text, "\ufeff")
	front, body, ok := splitFrontMatter(text)
	if !ok {
		return nil, "", importError(file, "it has no YAML front matter (a first line ---, the settings, a closing ---)", "fix the file, or start the loop with `git loop start -p TASK`")
	}
	var m map[string]any
	if err := yaml.Unmarshal([]byte(front), &m); err != nil {
		return nil, "", importError(file, "the YAML front matter does not parse ("+fileLines(err.Error())+")", "fix the front matter, or start the loop with `git loop start -p TASK`")
	}
	if m == nil {
		return nil, "", importError(file, "the YAML front matter is empty", "fix the front matter, or start the loop with `git loop start -p TASK`")
	}
	return newFields(file, m), strings.ReplaceAll(body, "\r\n", "\n"), nil
}
