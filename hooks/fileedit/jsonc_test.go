package fileedit

import (
	"bytes"
	"encoding/json"
	"testing"
)

func TestStripJSONComments(t *testing.T) {
	for in, want := range map[string]string{
		`{"a": 1}`:                        `{"a": 1}`,
		"// c\n{\"a\": 1} // d":           "    \n{\"a\": 1}     ",
		`{"a": "// not /* a comment */"}`: `{"a": "// not /* a comment */"}`,
		`{"a\"//": /* x */ 1}`:            `{"a\"//":         1}`,
		"{/* a\nb */}":                    "{    \n    }",
		"{} /* open":                      "{}        ",
	} {
		if got := string(StripJSONComments([]byte(in))); got != want {
			t.Errorf("%q: got %q, want %q", in, got, want)
		}
	}
}

// FuzzStripJSONComments: the result is as long as the input with its newlines where they
// were, JSON (which has no comments) comes back unchanged, and nothing panics.
func FuzzStripJSONComments(f *testing.F) {
	for _, s := range []string{`{"a": 1}`, "// c\n{}", `{"a": "/*"} /* b */`, `"\\"//`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		out := StripJSONComments(doc)
		if len(out) != len(doc) {
			t.Fatalf("length %d, want %d", len(out), len(doc))
		}
		for i := range doc {
			if (doc[i] == '\n') != (out[i] == '\n') {
				t.Fatalf("newline moved at %d: %q -> %q", i, doc, out)
			}
		}
		if json.Valid(doc) && !bytes.Equal(out, doc) { // comments are never valid JSON
			t.Fatalf("JSON changed: %q -> %q", doc, out)
		}
	})
}
