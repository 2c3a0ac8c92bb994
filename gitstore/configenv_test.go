package gitstore

import (
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// configLines lists c as `git config --list` does (section[.sub].key[=value]), sorted.
func configLines(c *Config) []string {
	var out []string
	for _, k := range c.Keys() {
		name := k.Section + "." + k.Key
		if k.Subsection != "" {
			name = k.Section + "." + k.Subsection + "." + k.Key
		}
		for _, v := range c.values[configKey(k.Section, k.Subsection, k.Key)] {
			if v == bareValue {
				out = append(out, name)
			} else {
				out = append(out, name+"="+v)
			}
		}
	}
	slices.Sort(out)
	return out
}

// TestEnvConfigMatchesGit: `git -c …` settings reach git-loop through GIT_CONFIG_PARAMETERS
// and GIT_CONFIG_COUNT; parsed, they are what `git config --list` shows in the command scope.
func TestEnvConfigMatchesGit(t *testing.T) {
	refsHermetic(t)
	for _, args := range [][]string{
		{"-c", "a.b=c"},
		{"-c", "x.Sub Sec.Key=it's a v!", "-c", "flag.bare", "-c", "e.empty=", "-c", "m.v=1", "-c", "m.v=2"},
		{"-c", `q.k='quoted' and "double" \ back`, "-c", "core.autocrlf=true"},
	} {
		// git hands the variable to the commands it runs; an alias shows what it holds
		dump := append([]string{"-c", "alias.dumpenv=!printenv GIT_CONFIG_PARAMETERS"}, args...)
		params, err := exec.Command("git", append(dump, "dumpenv")...).Output()
		if err != nil {
			t.Fatalf("git %q: %v", args, err)
		}
		list, err := exec.Command("git", append(dump, "config", "--list", "--show-scope")...).Output()
		if err != nil {
			t.Fatalf("git config --list: %v", err)
		}
		var want []string
		for _, line := range strings.Split(strings.TrimSpace(string(list)), "\n") {
			if scope, kv, ok := strings.Cut(line, "\t"); ok && scope == "command" {
				want = append(want, kv)
			}
		}
		t.Setenv("GIT_CONFIG_PARAMETERS", strings.TrimSuffix(string(params), "\n"))
		c, err := envConfig(nil)
		if err != nil {
			t.Fatalf("envConfig(%q): %v", params, err)
		}
		got := configLines(c)
		slices.Sort(want)
		lower := func(s []string) []string { // git prints the key name lowercased, not the subsection
			out := make([]string, len(s))
			for i, l := range s {
				name, v, eq := strings.Cut(l, "=")
				first, last := strings.IndexByte(name, '.'), strings.LastIndexByte(name, '.')
				name = strings.ToLower(name[:first]) + name[first:last] + strings.ToLower(name[last:])
				if out[i] = name; eq {
					out[i] += "=" + v
				}
			}
			slices.Sort(out)
			return out
		}
		if !slices.Equal(lower(got), lower(want)) {
			t.Errorf("git %q:\n got %q\nwant %q", args, got, want)
		}
	}
	os.Unsetenv("GIT_CONFIG_PARAMETERS")
}

func TestEnvConfigCount(t *testing.T) {
	t.Setenv("GIT_CONFIG_PARAMETERS", "")
	t.Setenv("GIT_CONFIG_COUNT", "2")
	t.Setenv("GIT_CONFIG_KEY_0", "core.autocrlf")
	t.Setenv("GIT_CONFIG_VALUE_0", "input")
	t.Setenv("GIT_CONFIG_KEY_1", "loop.x.Y")
	t.Setenv("GIT_CONFIG_VALUE_1", "v")
	c, err := envConfig(nil)
	if err != nil || c.Get("core", "", "autocrlf") != "input" || c.Get("loop", "x", "y") != "v" {
		t.Fatalf("envConfig: %v, %q", err, configLines(c))
	}
	for _, bad := range []struct{ count, key string }{{"x", "a.b"}, {"-1", "a.b"}, {"1", ""}, {"1", "nodot"}} {
		t.Setenv("GIT_CONFIG_COUNT", bad.count)
		t.Setenv("GIT_CONFIG_KEY_0", bad.key)
		if _, err := envConfig(nil); err == nil {
			t.Errorf("GIT_CONFIG_COUNT=%q GIT_CONFIG_KEY_0=%q accepted", bad.count, bad.key)
		}
	}
}

// sqQuote quotes s as git's sq_quote does.
func sqQuote(s string) string {
	s = strings.ReplaceAll(s, "'", `'\''`)
	return "'" + strings.ReplaceAll(s, "!", `'\!'`) + "'"
}

// FuzzConfigParameters: any GIT_CONFIG_PARAMETERS either parses or is refused, and a key and
// value quoted as git quotes them come back as they were.
func FuzzConfigParameters(f *testing.F) {
	f.Add(`'a.b'='c' 'x.Sub Sec.Key'='it'\''s v' 'flag.bare'= 'e.empty'=''`, "s.k", "v")
	f.Add(`'old.style=value'`, "a.b.c", "it's!")
	f.Fuzz(func(t *testing.T, params, key, value string) {
		if strings.Contains(strings.ToLower(params+key), "include") {
			return // an include would read whatever file the input names
		}
		c := NewConfig()
		c.addParameters(params)
		first, last := strings.IndexByte(key, '.'), strings.LastIndexByte(key, '.')
		if first <= 0 || last == len(key)-1 || strings.ContainsRune(key, 0) || strings.ContainsRune(value, 0) {
			return
		}
		c = NewConfig()
		if err := c.addParameters(sqQuote(key) + "=" + sqQuote(value)); err != nil {
			t.Fatalf("quoted %q=%q: %v", key, value, err)
		}
		sub := ""
		if last > first {
			sub = key[first+1 : last]
		}
		if got := c.Get(key[:first], sub, key[last+1:]); got != value {
			t.Fatalf("quoted %q=%q: got %q", key, value, got)
		}
	})
}
