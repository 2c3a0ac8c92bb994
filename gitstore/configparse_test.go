package gitstore

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// configList renders entries as `git config --list -z` prints them: "name\nvalue" or "name".
func configList(entries []configEntry) []string {
	out := make([]string, len(entries))
	for i, e := range entries {
		out[i] = e.name()
		if !e.bare {
			out[i] += "\n" + e.value
		}
	}
	return out
}

// gitConfigList is the oracle: git's own reading of data, or ok=false when git rejects it.
func gitConfigList(t testing.TB, dir string, data []byte) (list []string, ok bool) {
	t.Helper()
	f := filepath.Join(dir, "config")
	if err := os.WriteFile(f, data, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("git", "config", "-f", f, "--list", "-z")
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
	out, err := cmd.Output()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return nil, false
	}
	if err != nil {
		t.Fatalf("git config: %v", err)
	}
	for _, item := range bytes.Split(out, []byte{0}) {
		if len(item) > 0 {
			list = append(list, string(item))
		}
	}
	return list, true
}

// checkAgainstGit fails when the parser and git disagree on data: both accept it with the
// same entries in the same order, or both reject it.
func checkAgainstGit(t *testing.T, dir string, data []byte) {
	t.Helper()
	want, gitOK := gitConfigList(t, dir, data)
	entries, err := parseConfigEntries(data)
	switch {
	case gitOK && err != nil:
		t.Fatalf("git accepts %q, parser says %v; git reads %q", data, err, want)
	case !gitOK && err == nil:
		t.Fatalf("git rejects %q, parser reads %q", data, configList(entries))
	case gitOK && !slices.Equal(configList(entries), want):
		t.Fatalf("config %q:\nparser %q\ngit    %q", data, configList(entries), want)
	}
}

func TestParseConfigEntriesTable(t *testing.T) {
	tests := []struct {
		name, in string
		want     []string // nil with wantErr
		wantErr  string
	}{
		{"plain", "[core]\n\tbare = false\n", []string{"core.bare\nfalse"}, ""},
		{"case folding", "[Core]\n\tBare = x\n", []string{"core.bare\nx"}, ""},
		{"subsection kept", "[remote \"Origin\"]\n\turl = u\n", []string{"remote.Origin.url\nu"}, ""},
		{"old dotted form lowercased", "[a.B]\nk=1\n", []string{"a.b.k\n1"}, ""},
		{"bare key", "[a]\nflag\n", []string{"a.flag"}, ""},
		{"empty value", "[a]\nk =\n", []string{"a.k\n"}, ""},
		{"inner spaces kept, ends trimmed", "[a]\nk =  x \t y  \n", []string{"a.k\nx   y"}, ""},
		{"quotes keep spaces", "[a]\nk = \" x \"\n", []string{"a.k\n x "}, ""},
		{"comment ends value", "[a]\nk = x # c\n", []string{"a.k\nx"}, ""},
		{"quoted comment char", "[a]\nk = \"x # c\"\n", []string{"a.k\nx # c"}, ""},
		{"escapes", `[a]` + "\n" + `k = a\tb\nc\\d\"e` + "\n", []string{"a.k\na\tb\nc\\d\"e"}, ""},
		{"continuation", "[a]\nk = x\\\ny\n", []string{"a.k\nxy"}, ""},
		{"crlf", "[a]\r\nk = x\r\n", []string{"a.k\nx"}, ""},
		{"key on header line", "[a] k = 1", []string{"a.k\n1"}, ""},
		{"bom", "\xef\xbb\xbf[a]\nk=1", []string{"a.k\n1"}, ""},
		{"no section", "k=1", []string{"k\n1"}, ""},
		{"unterminated quote", "[a]\nk = \"x\n", nil, "line 2: unterminated quote"},
		{"unknown escape", "[a]\nk = \\q\n", nil, `line 2: unknown escape \q`},
		{"empty section", "[]\nk=1\n", nil, "line 1: empty [section] name"},
		{"unquoted subsection", "[a b]\n", nil, "line 1: a subsection must be quoted"},
		{"key starting with digit", "[a]\n1k=2\n", nil, "line 2: unexpected '1'"},
		{"junk after key", "[a]\nk : v\n", nil, "line 2: ':' after key"},
		{"nul in value", "[a]\nk = x\x00\n", nil, "NUL byte in value"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			entries, err := parseConfigEntries([]byte(tt.in))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !errors.Is(err, errConfigLine) {
					t.Fatalf("error %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := configList(entries); !slices.Equal(got, tt.want) {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

// TestParseConfigEntriesMatchesGit: random files built from the syntax's corners read exactly
// as git reads them, and are rejected exactly when git rejects them.
func TestParseConfigEntriesMatchesGit(t *testing.T) {
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(7, 11))
	cases := 300
	if testing.Short() {
		cases = 60
	}
	for range cases {
		checkAgainstGit(t, dir, randomConfig(rng))
	}
}

var (
	cfgHeaders = []string{"[core]", "[Core]", "[a.B]", `[a "Sub x"]`, `[a "q\"uote"]`, `[a "b\\s"]`,
		"[a\t\"t\"]", "[]", `[a "x"`, "[a b]", "[ a]", "[a.]", "[-x]", "[1a]", `[a "x" ]`, `[a  "y"]`}
	cfgKeys   = []string{"k", "Key", "k-2", "2k", "-k", "k_x", "k\xc3\xa9y", "kEY9"}
	cfgSeps   = []string{"=", " = ", "\t=\t", " ", "", " =", "= "}
	cfgValues = []string{"v", "a b", "a  \t b", `"q  s"`, `"unterminated`, "x # c", "x ; c", `"#not"`,
		`a\tb`, `a\nb`, `a\\b`, `a\"b`, `a\xb`, "a\\\ncont", "  lead", "trail  ", "", `""`,
		"\xc3\xa9", "\r", `"a"b"c"`, `\`, "x\"", "a\\\r\nb"}
	cfgEnds = []string{"\n", "\r\n", "\n\n", "\r", " # tail\n", ""}
)

func randomConfig(rng *rand.Rand) []byte {
	pick := func(list []string) string { return list[rng.IntN(len(list))] }
	var b strings.Builder
	if rng.IntN(8) > 0 {
		b.WriteString("[sec]\n")
	}
	for range 1 + rng.IntN(6) {
		switch rng.IntN(6) {
		case 0:
			b.WriteString(pick(cfgHeaders))
		case 1:
			b.WriteString(pick([]string{"# c", "; c", "  # c", "\t"}))
		default:
			b.WriteString(pick([]string{"", "\t", " "}) + pick(cfgKeys) + pick(cfgSeps) + pick(cfgValues))
		}
		b.WriteString(pick(cfgEnds))
	}
	return []byte(b.String())
}

// FuzzParseConfigEntries compares the parser with git on every input: the same entries, or
// both refuse.
func FuzzParseConfigEntries(f *testing.F) {
	rng := rand.New(rand.NewPCG(1, 2))
	for range 20 {
		f.Add(randomConfig(rng))
	}
	f.Add([]byte("[a]\nk = \"x\\\n y\"\n"))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 4096 || bytes.IndexByte(data, 0) >= 0 {
			return // git's reading of NUL bytes is C-string truncation; not a format to match
		}
		checkAgainstGit(t, dir, data)
	})
}
