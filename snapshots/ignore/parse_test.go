package ignore

import (
	"reflect"
	"testing"
)

func TestTrimTrailingSpaces(t *testing.T) {
	tests := []struct{ in, want string }{
		{"foo", "foo"},
		{"foo   ", "foo"},
		{`foo\ `, `foo\ `},
		{`foo\  `, `foo\ `},
		{`foo \`, `foo \`},
		{"foo\t", "foo\t"},
		{"foo \t", "foo \t"},
		{"   ", ""},
		{"a b ", "a b"},
		{`\\ `, `\\`},
		{`a\\\ `, `a\\\ `},
		{" a", " a"},
	}
	for _, tc := range tests {
		if got := string(trimTrailingSpaces([]byte(tc.in))); got != tc.want {
			t.Errorf("trimTrailingSpaces(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// parsed is the observable part of a Pattern.
type parsed struct {
	src     string
	neg     bool
	dirOnly bool
	kind    kind
	lit     string
	glob    bool
}

func summarize(ps []Pattern) []parsed {
	var out []parsed
	for _, p := range ps {
		out = append(out, parsed{p.src, p.neg, p.dirOnly, p.kind, p.lit, p.glob != nil})
	}
	return out
}

func TestParse(t *testing.T) {
	tests := []struct {
		name    string
		content string
		want    []parsed
	}{
		{"empty", "", nil},
		{"blank and comments", "\n\n# c\n#\n", nil},
		{"literal name", "foo\n", []parsed{{"foo", false, false, kindName, "foo", false}}},
		{"no final newline", "a\nb", []parsed{{"a", false, false, kindName, "a", false}, {"b", false, false, kindName, "b", false}}},
		{"escaped hash", `\#x`, []parsed{{`\#x`, false, false, kindNameGlob, "", true}}},
		{"space before hash", " #x", []parsed{{" #x", false, false, kindName, " #x", false}}},
		{"negation", "!a", []parsed{{"!a", true, false, kindName, "a", false}}},
		{"escaped bang", `\!a`, []parsed{{`\!a`, false, false, kindNameGlob, "", true}}},
		{"dir only", "build/", []parsed{{"build/", false, true, kindName, "build", false}}},
		{"anchored", "/a", []parsed{{"/a", false, false, kindPath, "a", false}}},
		{"anchored dir", "/a/", []parsed{{"/a/", false, true, kindPath, "a", false}}},
		{"middle slash", "a/b", []parsed{{"a/b", false, false, kindPath, "a/b", false}}},
		{"suffix", "*.o", []parsed{{"*.o", false, false, kindSuffix, ".o", false}}},
		{"star", "*", []parsed{{"*", false, false, kindSuffix, "", false}}},
		{"name glob", "foo*.c", []parsed{{"foo*.c", false, false, kindNameGlob, "foo", true}}},
		{"path glob", "/doc/*.pdf", []parsed{{"/doc/*.pdf", false, false, kindPathGlob, "doc/", true}}},
		{"leading starstar", "**/x", []parsed{{"**/x", false, false, kindPathGlob, "", true}}},
		{"crlf", "a\r\nb\r\n", []parsed{{"a", false, false, kindName, "a", false}, {"b", false, false, kindName, "b", false}}},
		{"lone cr", "a\rb\n", []parsed{{"a\rb", false, false, kindName, "a\rb", false}}},
		{"cr only line", "\r\n", []parsed{{"", false, false, kindName, "", false}}},
		{"cr then space", "a\r \n", []parsed{{"a\r", false, false, kindName, "a\r", false}}},
		{"space then cr", "a \r\n", []parsed{{"a", false, false, kindName, "a", false}}},
		{"bom", "\xef\xbb\xbf#c\nx", []parsed{{"x", false, false, kindName, "x", false}}},
		{"bom not at start", "x\n\xef\xbb\xbfy", []parsed{{"x", false, false, kindName, "x", false}, {"\xef\xbb\xbfy", false, false, kindName, "\xef\xbb\xbfy", false}}},
		{"nul cuts line", "ab\x00cd\n", []parsed{{"ab", false, false, kindName, "ab", false}}},
		{"spaces only", "   \n", []parsed{{"", false, false, kindName, "", false}}},
		{"trailing spaces", "a  \n", []parsed{{"a", false, false, kindName, "a", false}}},
		{"escaped space", `a\ `, []parsed{{`a\ `, false, false, kindNameGlob, "a", true}}},
		{"bang slash", "!/", []parsed{{"!/", true, true, kindName, "", false}}},
		{"double slash", "//", []parsed{{"//", false, true, kindPath, "", false}}},
		{"escaped final slash", `a\/`, []parsed{{`a\/`, false, true, kindNameGlob, "a", true}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := summarize(Parse([]byte(tc.content), ""))
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Parse(%q) =\n%+v\nwant\n%+v", tc.content, got, tc.want)
			}
			if lines := refLines(tc.content); len(lines) != len(got) {
				t.Errorf("reference splits %q into %d lines, Parse into %d", tc.content, len(lines), len(got))
			}
		})
	}
}

func TestParseBase(t *testing.T) {
	for _, base := range []string{"a/b", "a/b/", "/a/b"} {
		ps := Parse([]byte("x\n"), base)
		if len(ps) != 1 || ps[0].base != "a/b/" {
			t.Errorf("Parse with base %q: base = %q, want %q", base, ps[0].base, "a/b/")
		}
	}
	if ps := Parse([]byte("x"), ""); ps[0].base != "" {
		t.Errorf("root base = %q, want empty", ps[0].base)
	}
}
