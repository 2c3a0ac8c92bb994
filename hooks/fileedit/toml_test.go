package fileedit

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

func TestScanTOML(t *testing.T) {
	doc := "\xef\xbb\xbf# Codex\nmodel = \"o3\" # the model\n" +
		"approval_policy = 'never'\n" +
		"count = 1_000\nwhen = 1979-05-27 07:32:00Z\nflags = [1, [2, 3], \"]\", { a = 1 }]\n" +
		"\n[projects.\"/home/me/p\"]\ntrust_level = \"trusted\"\n" +
		"[ hooks . state . \"/p/.codex/hooks.json:stop:0:0\" ]  # reviewed\r\n" +
		"trusted_hash = \"sha256:ab\"\nenabled = false\n" +
		"[[mcp]]\nname = \"x\"\n" +
		"[a]\nb.c = { d = \"\\u00e9\\t\", e = [ ], f.g = '''\nraw\\n''' }\n" +
		"ml = \"\"\"\n  one \\\n    two\"\"\"\"\n" +
		"lit = '''it''s'''\n"
	d, err := ScanTOML([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		path []string
		kind byte
		str  string
	}{
		{[]string{"model"}, 's', "o3"},
		{[]string{"approval_policy"}, 's', "never"},
		{[]string{"count"}, 'o', ""},
		{[]string{"when"}, 'o', ""},
		{[]string{"flags"}, 'a', ""},
		{[]string{"projects", "/home/me/p", "trust_level"}, 's', "trusted"},
		{[]string{"hooks", "state", "/p/.codex/hooks.json:stop:0:0", "trusted_hash"}, 's', "sha256:ab"},
		{[]string{"hooks", "state", "/p/.codex/hooks.json:stop:0:0", "enabled"}, 'o', ""},
		{[]string{"mcp", "name"}, 's', "x"},
		{[]string{"a", "b", "c"}, 't', ""},
		{[]string{"a", "b", "c", "d"}, 's', "é\t"},
		{[]string{"a", "b", "c", "e"}, 'a', ""},
		{[]string{"a", "b", "c", "f", "g"}, 's', "raw\\n"},
		{[]string{"a", "ml"}, 's', "  one two\""},
		{[]string{"a", "lit"}, 's', "it''s"},
	} {
		e, ok := d.Lookup(tc.path...)
		if !ok {
			t.Errorf("%q: not found", tc.path)
			continue
		}
		if e.kind != tc.kind || e.Str != tc.str {
			t.Errorf("%q: kind %c %q, want %c %q", tc.path, e.kind, e.Str, tc.kind, tc.str)
		}
	}
	if e, _ := d.Lookup("when"); doc[e.valStart:e.valEnd] != "1979-05-27 07:32:00Z" {
		t.Errorf("when's value is %q", doc[e.valStart:e.valEnd])
	}
	if e, _ := d.Lookup("a", "b", "c", "d"); !e.inline || e.tableDepth != 1 {
		t.Errorf("an inline table's key: inline %v, depth %d", e.inline, e.tableDepth)
	}
	var headers []string
	for _, h := range d.headers {
		headers = append(headers, tomlKey(h.path))
	}
	if got := strings.Join(headers, " "); got != `projects."/home/me/p" hooks.state."/p/.codex/hooks.json:stop:0:0" mcp a` {
		t.Errorf("headers %s", got)
	}
}

func TestScanTOMLErrors(t *testing.T) {
	for _, doc := range []string{
		"a = ",
		"a = \"open\n",
		"a = 'open\n",
		"a = \"\"\"never closed\n",
		"a = 1 b = 2\n",
		"[a\n",
		"[[a]\n",
		"= 1\n",
		"a 1\n",
		"a = [1, 2\n",
		"a = {b = 1\n",
		"a = {b = 1 c = 2}\n",
		"a = \"\\q\"\n",
		"a = \"\\u12\"\n",
		"a = \"\\uD800\"\n",
		"\"\"\"k\"\"\" = 1\n",
		"a = ,\n",
	} {
		if _, err := ScanTOML([]byte(doc)); !errors.Is(err, ErrTOML) {
			t.Errorf("%q: err %v, want ErrTOML", doc, err)
		}
	}
}

func TestSetTOMLString(t *testing.T) {
	key := []string{"hooks", "state", "/p/.codex/hooks.json:stop:0:0", "trusted_hash"}
	for _, tc := range []struct {
		name, doc, want string
	}{
		{"empty file", "", "[hooks.state.\"/p/.codex/hooks.json:stop:0:0\"]\ntrusted_hash = \"H\"\n"},
		{"appended after everything, kept as it was",
			"# mine\nmodel = \"o3\"  # keep\n\n[projects.\"/p\"]\ntrust_level = \"trusted\"",
			"# mine\nmodel = \"o3\"  # keep\n\n[projects.\"/p\"]\ntrust_level = \"trusted\"\n\n[hooks.state.\"/p/.codex/hooks.json:stop:0:0\"]\ntrusted_hash = \"H\"\n"},
		{"a stale hash replaced in place",
			"[hooks.state.\"/p/.codex/hooks.json:stop:0:0\"]\nenabled = true\ntrusted_hash = \"sha256:old\" # reviewed\n[x]\n",
			"[hooks.state.\"/p/.codex/hooks.json:stop:0:0\"]\nenabled = true\ntrusted_hash = \"H\" # reviewed\n[x]\n"},
		{"under the table's own header",
			"[hooks.state.'/p/.codex/hooks.json:stop:0:0']\nenabled = true\n[x]\ny = 1\n",
			"[hooks.state.'/p/.codex/hooks.json:stop:0:0']\ntrusted_hash = \"H\"\nenabled = true\n[x]\ny = 1\n"},
		{"the header on the last line, no newline",
			"[hooks.state.\"/p/.codex/hooks.json:stop:0:0\"]",
			"[hooks.state.\"/p/.codex/hooks.json:stop:0:0\"]\ntrusted_hash = \"H\"\n"},
		{"CRLF kept", "a = 1\r\n[b]\r\n", "a = 1\r\n[b]\r\n\r\n[hooks.state.\"/p/.codex/hooks.json:stop:0:0\"]\r\ntrusted_hash = \"H\"\r\n"},
		{"other states and [hooks] stay",
			"[hooks]\n[hooks.state.\"/q:stop:0:0\"]\ntrusted_hash = \"Q\"\n",
			"[hooks]\n[hooks.state.\"/q:stop:0:0\"]\ntrusted_hash = \"Q\"\n\n[hooks.state.\"/p/.codex/hooks.json:stop:0:0\"]\ntrusted_hash = \"H\"\n"},
		{"in an inline table, replaced in place",
			"[hooks]\nstate = { \"/p/.codex/hooks.json:stop:0:0\" = { trusted_hash = \"old\" } }\n",
			"[hooks]\nstate = { \"/p/.codex/hooks.json:stop:0:0\" = { trusted_hash = \"H\" } }\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, err := SetTOMLString([]byte(tc.doc), key, "H")
			if err != nil {
				t.Fatal(err)
			}
			if string(out) != tc.want {
				t.Errorf("got\n%s\nwant\n%s", out, tc.want)
			}
			again, err := SetTOMLString(out, key, "H")
			if err != nil || !bytes.Equal(again, out) {
				t.Errorf("a second set changed the file (%v):\n%s", err, again)
			}
		})
	}
}

func TestSetTOMLStringRefuses(t *testing.T) {
	key := []string{"hooks", "state", "K", "trusted_hash"}
	for _, doc := range []string{
		"hooks = 1\n",
		"[hooks]\nstate = { other = { trusted_hash = \"x\" } }\n",
		"[hooks]\nstate.K.enabled = false\n",
		"[hooks.state]\nK.enabled = false\n",
		"[[hooks]]\n",
		"[[hooks.state]]\n",
		"[hooks.state.K.trusted_hash]\n",
		"[hooks.state.K]\ntrusted_hash.x = 1\n",
	} {
		out, err := SetTOMLString([]byte(doc), key, "H")
		if !errors.Is(err, errTOMLShape) {
			t.Errorf("%q: got %q, %v; want errTOMLShape", doc, out, err)
		}
	}
	if _, err := SetTOMLString([]byte("a = \n"), key, "H"); !errors.Is(err, ErrTOML) {
		t.Errorf("invalid TOML: err %v", err)
	}
}

func TestTOMLQuoteRoundTrip(t *testing.T) {
	for _, s := range []string{"", "plain", `a "quoted" \ path`, "tab\there\nnewline\x01\x7f", "é ☃ \U0001F600"} {
		d, err := ScanTOML([]byte("k = " + QuoteTOML(s) + "\n"))
		if err != nil {
			t.Fatalf("%q: %v", s, err)
		}
		if e, _ := d.Lookup("k"); e.Str != s {
			t.Errorf("%q came back as %q", s, e.Str)
		}
	}
}

// FuzzSetTOMLString checks, for any document ScanTOML reads, that setting a value leaves a
// document it still reads, with the value set, every other key and header as it was, and
// only the value's own bytes (or nothing, for an insertion) replaced; setting it again
// changes nothing. Nothing may panic.
func FuzzSetTOMLString(f *testing.F) {
	for _, s := range []string{
		"",
		"a = 1\n[hooks]\n",
		"[hooks.state.\"K\"]\ntrusted_hash = \"x\"\n",
		"[hooks.state.'K']\nenabled = false\r\n",
		"x = { y = [1, {z = 'q'}], w = \"\"\"\nm\"\"\" }\n# c\n[[t]]\n",
		"[projects.\"/p\"]\ntrust_level = \"trusted\"",
	} {
		f.Add([]byte(s), "K", "sha256:00")
	}
	f.Fuzz(func(t *testing.T, doc []byte, key, value string) {
		before, err := ScanTOML(doc)
		if err != nil {
			return
		}
		path := []string{"hooks", "state", key, "trusted_hash"}
		out, err := SetTOMLString(doc, path, value)
		if err != nil {
			if !errors.Is(err, errTOMLShape) {
				t.Fatalf("unexpected error %v", err)
			}
			return
		}
		after, err := ScanTOML(out)
		if err != nil {
			t.Fatalf("the result does not scan: %v\n%q", err, out)
		}
		if e, ok := after.Lookup(path...); !ok || e.kind != 's' || e.Str != value {
			t.Fatalf("the value is not set: %+v in %q", e, out)
		}
		old, had := before.Lookup(path...)
		p := 0
		for p < len(doc) && p < len(out) && doc[p] == out[p] {
			p++
		}
		s := 0
		for s < len(doc)-p && s < len(out)-p && doc[len(doc)-1-s] == out[len(out)-1-s] {
			s++
		}
		if had {
			if p < old.valStart || len(doc)-s > old.valEnd {
				t.Fatalf("bytes outside the old value changed: %q -> %q", doc, out)
			}
		} else if p+s != len(doc) {
			t.Fatalf("an insertion removed bytes: %q -> %q", doc, out)
		}
		keep := func(d TOMLDoc) (keys []string) {
			for _, e := range d.entries {
				if !equalPath(e.path, path) {
					keys = append(keys, tomlKey(e.path)+"="+string(e.kind)+e.Str)
				}
			}
			for _, h := range d.headers {
				if !equalPath(h.path, path[:3]) {
					keys = append(keys, "["+tomlKey(h.path)+"]")
				}
			}
			return keys
		}
		if a, b := strings.Join(keep(before), "\x00"), strings.Join(keep(after), "\x00"); a != b {
			t.Fatalf("other keys changed:\n%q\n%q", a, b)
		}
		again, err := SetTOMLString(out, path, value)
		if err != nil || !bytes.Equal(again, out) {
			t.Fatalf("setting again changed the file (%v): %q -> %q", err, out, again)
		}
	})
}
