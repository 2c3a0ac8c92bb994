package report

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// TestReportJSONToYAML: key order and value types survive the conversion.
func TestReportJSONToYAML(t *testing.T) {
	tests := []struct{ in, want string }{
		{`{"b":1,"a":"x"}`, "b: 1\na: x\n"},
		{`{"n":"1","t":"true","z":null,"f":2.5,"ok":false}`, "n: \"1\"\nt: \"true\"\nz: null\nf: 2.5\nok: false\n"},
		{`{"list":[1,{"k":[]}],"m":{}}`, "list:\n  - 1\n  - k: []\nm: {}\n"},
		{`{"msg":"line one\nline two"}`, "msg: |-\n  line one\n  line two\n"},
		{`"just a string"`, "just a string\n"},
	}
	for _, tt := range tests {
		got, err := jsonToYAML([]byte(tt.in))
		if err != nil || string(got) != tt.want {
			t.Errorf("jsonToYAML(%s) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
	for _, bad := range []string{``, `{`, `{"a":1}{}`, `[1,]`, strings.Repeat("[", 100) + strings.Repeat("]", 100)} {
		if got, err := jsonToYAML([]byte(bad)); err == nil {
			t.Errorf("jsonToYAML(%q) = %q, want an error", bad, got)
		}
	}
}

// FuzzReportJSONToYAML: any JSON document converts to YAML holding the same value.
func FuzzReportJSONToYAML(f *testing.F) {
	for _, s := range []string{`{"a":[1,2.5,"3",true,null]}`, `"x\ny"`, `{"":{"":""}}`, `[1e5,-0,"0x1F","~","- a",": b"]`, `"\u0000\t\u00e9"`, `{"steps":["abc def\u2028ghi"]}`, `{"steps":[{"message":"line1\nline2\u2028y\u2029z"}]}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		var want any
		if json.Unmarshal([]byte(in), &want) != nil {
			return
		}
		out, err := jsonToYAML([]byte(in))
		if err != nil {
			if strings.Contains(err.Error(), "nested deeper") {
				return
			}
			t.Fatalf("jsonToYAML(%q): %v", in, err)
		}
		if tree, err := jsonToYAMLTree([]byte(in)); err != nil || !bytes.Equal(out, tree) {
			t.Fatalf("jsonToYAML(%q) streamed\n%s\nbut the whole tree encodes as\n%s(%v)", in, out, tree, err)
		}
		var got any
		if err := yaml.Unmarshal(out, &got); err != nil {
			t.Fatalf("jsonToYAML(%q) = %q, which is not YAML: %v", in, out, err)
		}
		data, err := json.Marshal(got)
		if err != nil {
			t.Fatalf("YAML of %q decodes to %#v: %v", in, got, err)
		}
		var back any
		json.Unmarshal(data, &back)
		if !reflect.DeepEqual(want, back) {
			t.Fatalf("jsonToYAML(%q) = %q, which reads back as %s", in, out, data)
		}
	})
}

// jsonToYAMLTree is the conversion jsonToYAML streams: the whole document as one YAML tree,
// encoded at once. The streamed text must be the same.
func jsonToYAMLTree(data []byte) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	node, err := yamlNode(dec, 0)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(node); err != nil {
		return nil, err
	}
	enc.Close()
	return b.Bytes(), nil
}

// TestReportYAMLStreamsAsTheTree: a real report, with long multi-line messages and many
// iterations, streams to the very text of the whole tree.
func TestReportYAMLStreamsAsTheTree(t *testing.T) {
	r, _ := reportOfLoop(t)
	r.Timeline = append(r.Timeline, r.Timeline...)
	r.Timeline[0].Message = "line one\n\n  indented: yes\n- not a list\n"
	data, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	streamed, err := jsonToYAML(data)
	if err != nil {
		t.Fatal(err)
	}
	tree, err := jsonToYAMLTree(data)
	if err != nil || !bytes.Equal(streamed, tree) {
		t.Fatalf("streamed:\n%s\nwhole tree (%v):\n%s", streamed, err, tree)
	}
}
