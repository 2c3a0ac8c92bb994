package report

import (
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
	for _, s := range []string{`{"a":[1,2.5,"3",true,null]}`, `"x\ny"`, `{"":{"":""}}`, `[1e5,-0,"0x1F","~","- a",": b"]`, `"\u0000\t\u00e9"`} {
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
